"""Seeds: every random stream derives from one master seed through SeedSequence.

Replication r of an experiment uses ``SeedSequence(seed).spawn(R)[r]`` whatever
strategy runs on it (common random truths across strategies) and whatever worker
runs it, so results do not depend on the number of workers.  Inside a replication
the streams for the truth, the environment noise and the strategy are children
0, 1, 2 of the replication's sequence.
"""

from __future__ import annotations

import numpy as np

__all__ = ["replication_seeds", "child", "STREAM_TRUTH", "STREAM_NOISE", "STREAM_STRATEGY"]

STREAM_TRUTH = 0
STREAM_NOISE = 1
STREAM_STRATEGY = 2


def replication_seeds(seed: int, replications: int) -> list[np.random.SeedSequence]:
    """``SeedSequence(seed).spawn(replications)``."""
    return np.random.SeedSequence(seed).spawn(replications)


def child(seq: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """The ``index``-th child of ``seq``, without mutating ``seq`` (unlike ``spawn``)."""
    return np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (index,), pool_size=seq.pool_size)
