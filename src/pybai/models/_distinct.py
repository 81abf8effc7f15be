"""The distinct rewards of each source, up to a cap: a bounded store kept beside a model's statistics.

Per source the store holds its distinct rewards (the first ``n_values`` entries of a row of
``values``, in order of arrival) and how often each came (``counts``), up to ``cap`` of them
(the width of the arrays).  A source that leaves more distinct values is marked
:data:`OVERFLOWED` (``n_values = -1``) for good and its row emptied: memory stays ``2 cap``
floats per source whatever the number of samples.

Two models keep one: the betting model of bounded rewards (:mod:`pybai.models.betting`, whose
stopping rule evaluates exact wealths from it) and the unknown-variance Gaussian model
(:mod:`pybai.models.unknown_variance`, whose stopping rule reads from it which sources repeated
a reward).  A source *repeated a reward* when its store is live and holds fewer values than its
samples (:func:`repeated`).

Examples
--------
>>> import numpy as np
>>> vals = np.zeros((2, 3)); cnts = np.zeros((2, 3)); nv = np.zeros(2, dtype=np.int64)
>>> store_update(np.array([0, 0, 1, 1, 1, 1]), np.array([5.0, 5.0, 1.0, 2.0, 3.0, 4.0]), vals, cnts, nv)
True
>>> nv.tolist(), vals[0].tolist(), cnts[0].tolist()
([1, -1], [5.0, 0.0, 0.0], [2.0, 0.0, 0.0])
>>> repeated(nv, cnts).tolist()
[True, False]
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["OVERFLOWED", "store_update", "repeated", "check_store"]

#: ``n_values`` of a source whose rewards took more distinct values than the store holds
OVERFLOWED = -1


@njit(cache=True)
def store_update(sources, y, values, counts, n_values):
    """Add the rewards ``y`` of ``sources`` to the stores (in place); overflow marks -1.

    Returns whether some reward repeated one already in its source's (live) store.
    """
    cap = values.shape[1]
    repeat = False
    for k in range(sources.shape[0]):
        s = sources[k]
        n = n_values[s]
        if n < 0:
            continue
        x = y[k]
        found = False
        for i in range(n):
            if values[s, i] == x:
                counts[s, i] += 1.0
                found = True
                repeat = True
                break
        if found:
            continue
        if n >= cap:
            n_values[s] = OVERFLOWED
            for i in range(cap):
                values[s, i] = 0.0
                counts[s, i] = 0.0
            continue
        values[s, n] = x
        counts[s, n] = 1.0
        n_values[s] = n + 1
    return repeat


def repeated(n_values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per source: its store is live and some reward in it came more than once (bool array)."""
    return (n_values >= 0) & (counts > 1.0).any(axis=1) if counts.shape[1] else np.zeros(n_values.shape[0], bool)


def check_store(values: np.ndarray, counts: np.ndarray, n_values: np.ndarray, samples: np.ndarray,
                sums: np.ndarray, low: float = -np.inf, high: float = np.inf) -> str | None:
    """What is inconsistent in a restored store (``"attribute: expected ..."``), or ``None``.

    ``samples`` and ``sums`` are the model's per-source counts and sums of the same rewards; the
    stored values must lie in [``low``, ``high``].
    """
    cap = values.shape[1]
    n = n_values
    if (n < OVERFLOWED).any() or (n > cap).any() or (cap == 0 and (n != OVERFLOWED).any()):
        return f"n_values: expected numbers in [-1, {cap}]"
    if not (np.isfinite(values).all() and (values >= low).all() and (values <= high).all()):
        return (f"values: expected rewards in [{low:g}, {high:g}]" if np.isfinite(low) and np.isfinite(high)
                else "values: expected finite numbers")
    if not (np.isfinite(counts).all() and (counts >= 0).all() and (counts == np.floor(counts)).all()):
        return "value_counts: expected non-negative whole numbers"
    used = np.arange(cap)[None, :] < n[:, None]
    if (counts[used] < 1).any() or (counts[~used] != 0).any() or (values[~used] != 0).any():
        return "value_counts: expected positive counts for the stored values and zeros after them"
    for s in np.flatnonzero(n >= 0):
        vals = values[s, :n[s]]
        scale = max(1.0, float(np.abs(vals).max())) if vals.size else 1.0
        if np.unique(vals).shape[0] != vals.shape[0] or counts[s].sum() != samples[s] \
                or abs(float(counts[s] @ values[s]) - sums[s]) > 1e-9 * max(1.0, samples[s]) * scale:
            return "values: expected the distinct rewards of each source, with counts adding up to its counts"
    return None
