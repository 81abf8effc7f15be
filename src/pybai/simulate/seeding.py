"""Seeds: every random stream derives from one master seed through SeedSequence.

Replication r of an experiment is seeded by ``SeedSequence(seed, spawn_key=(r,))``, which is
``SeedSequence(seed).spawn(R)[r]`` for any R >= r + 1, computed directly: a task derives the
seeds of its own replications without spawning all R, so its outcomes do not depend on R, on
the worker that runs it or on the order of execution.  Every strategy sees the same truths
and noise on replication r (common random numbers).  Inside a replication the streams for
the truth, the environment noise and the strategy are children 0, 1, 2 of its sequence.
"""

from __future__ import annotations

import numpy as np

__all__ = ["replication_seed", "replication_seeds", "child", "STREAM_TRUTH", "STREAM_NOISE", "STREAM_STRATEGY"]

STREAM_TRUTH = 0
STREAM_NOISE = 1
STREAM_STRATEGY = 2


def replication_seed(seed: int, replication: int) -> np.random.SeedSequence:
    """The seed of replication ``replication`` (equal to ``SeedSequence(seed).spawn(R)[replication]``)."""
    return np.random.SeedSequence(seed, spawn_key=(replication,))


def replication_seeds(seed: int, replications: int) -> list[np.random.SeedSequence]:
    """Seeds of replications ``0 .. replications - 1``."""
    return [replication_seed(seed, r) for r in range(replications)]


def child(seq: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The ``index``-th child of ``seq``, without mutating ``seq`` (unlike ``spawn``)."""
    return np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (index,), pool_size=seq.pool_size)
