r"""RoundRobin (Algorithm 1 of Jun, Jamieson, Nowak & Zhu 2016), vectorised.

Algorithm 1 adds b' = min{b, |A| r} pulls one at a time, each to an arm of A that still has
fewer than r pulls in the batch and the smallest T_l + a_l ("<= r" in the extracted text of
line 5 reads "< r": a pull is only allowed while a_l < r, so that a_l <= r at the end).

The result is a capped water-filling.  With f(lam) = sum_l min(r, max(0, lam - T_l)), the
greedy loop raises the arms level by level (every arm at value v gets its pull before any
arm at value v + 1), so it ends at the largest integer level lam with f(lam) <= b' and the
b' - f(lam) remaining pulls go to arms at value exactly lam that are not capped
(T_l <= lam < T_l + r), in tie order.  This module computes lam by bisection on integers
(O(|A|) per step, ~log2(spread of T + r) steps) instead of looping over the b' pulls.

Tie order ("break ties arbitrarily" in the paper): lowest ``priority`` first, where
``priority`` defaults to the arm index.  No pointer state is needed: the counts carry it
(with index priority, arms at the lowest count are served in index order, so over successive
batches the arms are visited cyclically as by a round-robin pointer).  A random permutation
as ``priority`` gives random tie-breaking.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import fail
from pybai.batch.theory import check_batch_shape

__all__ = ["round_robin"]

_HIST_SPREAD = 4096  # below this spread of counts, the level search runs on a histogram


def _filled(d, lam, r):
    """f(lam) for offsets d = T - min(T): sum of min(r, max(0, lam - d))."""
    return int(np.clip(lam - d, 0, r).sum())


def round_robin(counts, size: int, max_repeats: int, active=None, priority=None) -> np.ndarray:
    """Pull counts of one batch of RoundRobin over the ``active`` arms.

    Parameters
    ----------
    counts : array-like of int, shape (n,)
        T_i: samples of every arm so far (>= 0).
    size : int
        b, samples per batch.
    max_repeats : int
        r <= b, most pulls of one arm in the batch.
    active : array-like of bool (n,) or of int indices, optional
        The arm set A (default: every arm).
    priority : array-like of shape (n,), optional
        Tie order: among arms at the same T_l + a_l, lower priority is served first (default:
        the arm index).  Values must be distinct among the active arms.

    Returns
    -------
    ndarray of int64, shape (n,)
        a_i: pulls of each arm in the batch; sum = min(b, |A| r), each in [0, r], zero off A,
        and T + a as even as possible on A (max - min of T_l + a_l over uncapped arms <= 1
        beyond the spread of T).

    Examples
    --------
    >>> round_robin([0, 0, 0, 0, 0], size=7, max_repeats=2).tolist()
    [2, 2, 1, 1, 1]
    >>> round_robin([3, 0, 1, 0], size=5, max_repeats=2, active=[1, 2, 3]).tolist()
    [0, 2, 1, 2]
    """
    b, r = check_batch_shape(size, max_repeats, "round_robin")
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.size == 0:
        raise fail("counts", "round_robin", "a non-empty 1-d array of sample counts", f"shape {counts.shape}")
    if counts.dtype.kind not in "iu":
        if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise fail("counts", "round_robin", "integer sample counts", counts)
        counts = counts.astype(np.int64)
    if np.any(counts < 0):
        raise fail("counts", "round_robin", "counts >= 0", counts)
    n = counts.size
    if active is None:
        idx = np.arange(n)
    else:
        active = np.asarray(active)
        if active.dtype == bool:
            if active.shape != (n,):
                raise fail("active", "round_robin", f"a boolean mask of length {n}", f"shape {active.shape}")
            idx = np.flatnonzero(active)
        else:
            idx = active.astype(np.int64).ravel()
            if idx.size > 1 and not np.all(idx[1:] > idx[:-1]):  # not sorted and distinct
                idx = np.sort(idx)
                idx = idx[np.r_[True, idx[1:] != idx[:-1]]]
            if idx.size and (idx[0] < 0 or idx[-1] >= n):
                raise fail("active", "round_robin", f"arm indices in [0, {n - 1}]", active)
    out = np.zeros(n, dtype=np.int64)
    m = idx.size
    if m == 0:
        return out
    pulls = min(b, m * r)
    if pulls == m * r:  # every active arm gets r pulls
        out[idx] = r
        return out
    t = counts[idx].astype(np.int64)
    t0 = int(t.min())
    d = t - t0
    # largest integer level lam (relative to t0) with f(lam) <= pulls: f(0) = 0 <= pulls and
    # f(max d + r) = m r > pulls
    spread = int(d.max())
    lo, hi = 0, spread + r
    if spread <= _HIST_SPREAD:
        # counts under RoundRobin differ by at most one: bisect on their histogram, O(spread)
        hist = np.bincount(d)
        values = np.arange(hist.size)

        def filled(lam):
            return int((hist * np.clip(lam - values, 0, r)).sum())
    else:

        def filled(lam):
            return _filled(d, lam, r)

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if filled(mid) <= pulls:
            lo = mid
        else:
            hi = mid
    a = np.clip(lo - d, 0, r)
    extra = pulls - int(a.sum())
    if extra > 0:
        # arms at value exactly lo that are not capped: d <= lo < d + r
        cand = np.flatnonzero((d <= lo) & (lo < d + r))
        if priority is None:
            chosen = cand[:extra]  # idx is increasing: lowest indices first
        else:
            pr = np.asarray(priority)[idx[cand]]
            if extra < cand.size:
                chosen = cand[np.argpartition(pr, extra - 1)[:extra]]
            else:
                chosen = cand
        a[chosen] += 1
    out[idx] = a
    return out
