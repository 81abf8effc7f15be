"""Empirical ranks of the batch top-k rules: the top of a set of arms, with a fixed tie order.

Ties between arms (equal empirical means) are broken by a fixed per-arm ``priority``: the arm
index, or a random permutation drawn once (the paper breaks ties at random: "run each
algorithm 10 times due to randomness in breaking ties").
"""

from __future__ import annotations

import numpy as np

__all__ = ["ranking_means", "top_positions", "sorted_order"]


def ranking_means(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """sums / counts, with -inf for arms never pulled (they rank last)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), -np.inf)


def top_positions(values: np.ndarray, priority: np.ndarray, kk: int) -> np.ndarray:
    """Positions of the ``kk`` largest ``values``; among equal values, lowest ``priority`` first.

    O(m) (partitions, no full sort).  Returned in no particular order.

    Examples
    --------
    >>> np.sort(top_positions(np.array([0.5, 0.9, 0.5, 0.1]), np.array([3, 0, 1, 2]), 2)).tolist()
    [1, 2]
    """
    m = values.size
    if kk <= 0:
        return np.empty(0, dtype=np.int64)
    if kk >= m:
        return np.arange(m)
    v = np.partition(values, m - kk)[m - kk]  # kk-th largest value
    above = np.flatnonzero(values > v)
    equal = np.flatnonzero(values == v)
    need = kk - above.size
    if need < equal.size:
        equal = equal[np.argpartition(priority[equal], need - 1)[:need]]
    return np.concatenate([above, equal])


def sorted_order(values: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """Positions sorted by decreasing value, ties by increasing priority."""
    return np.lexsort((priority, -values))
