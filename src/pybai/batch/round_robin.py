r"""RoundRobin (Algorithm 1 of Jun, Jamieson, Nowak & Zhu 2016): the water filling of one batch.

Algorithm 1 adds b' = min{b, |A| r} pulls one at a time, each to an arm of A that still has
fewer than r pulls in the batch and the smallest T_l + a_l ("<= r" in the extracted text of
line 5 reads "< r": a pull is only allowed while a_l < r, so that a_l <= r at the end).

The result is a capped water filling.  With f(lam) = sum_l min(r, max(0, lam - T_l)), the
greedy loop raises the arms level by level (every arm at value v gets its pull before any
arm at value v + 1), so it ends at the largest integer level lam with f(lam) <= b' and the
b' - f(lam) remaining pulls go to arms at value exactly lam that are not capped
(T_l <= lam < T_l + r), in tie order.  :func:`water_fill` computes lam by bisection on
integers (~log2(spread of T + r) steps; each O(spread) on a count of the arms per value of T
when the spread of T is below |A|, else O(|A|)) instead of looping over the b' pulls, and the
remaining pulls by one order statistic of the tie order (quickselect, O(|A|)).

This is the one water filling of pybai: :func:`round_robin` (checked inputs) runs it for the
batch rules and ``uniform``, and the compiled BatchRacing loop (:mod:`pybai.batch.fast_racing`)
calls the same kernel.

Tie order ("break ties arbitrarily" in the paper): lowest ``priority`` first, where
``priority`` defaults to the arm index.  No pointer state is needed: the counts carry it
(with index priority, arms at the lowest count are served in index order, so over successive
batches the arms are visited cyclically as by a round-robin pointer).  A random permutation
as ``priority`` gives random tie-breaking.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai._validation import check_positive_int, fail
from pybai.batch.theory import check_batch_shape

__all__ = ["round_robin", "water_fill", "kth_smallest", "min_batches_to_cover", "check_cover_budget"]


@njit(cache=True)
def kth_smallest(values, m, kth, work):
    """The kth smallest (0-based) of values[:m], by quickselect on ``work`` (no allocation)."""
    for j in range(m):
        work[j] = values[j]
    lo = 0
    hi = m - 1
    while lo < hi:  # bounded: [lo, hi] shrinks at every pass
        pivot = work[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while work[i] < pivot:
                i += 1
            while work[j] > pivot:
                j -= 1
            if i <= j:
                tmp = work[i]
                work[i] = work[j]
                work[j] = tmp
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return work[kth]
    return work[kth]


@njit(cache=True)
def water_fill(counts, idx, m, priority, b, r, pulls, cand, work):
    """Algorithm 1 over the arms idx[:m] into ``pulls`` (not touched elsewhere); returns the total.

    ``counts`` and ``priority`` are int64 arrays over all arms (priorities distinct on the
    arms of idx[:m]); ``cand`` (int64) and ``work`` (int64) are work arrays of length >= m.
    The total is min(b, m r).
    """
    if b >= m * r:  # every arm gets r pulls
        for j in range(m):
            pulls[idx[j]] = r
        return m * r
    t0 = counts[idx[0]]
    t1 = t0
    for j in range(1, m):
        c = counts[idx[j]]
        if c < t0:
            t0 = c
        if c > t1:
            t1 = c
    lo = 0
    spread = t1 - t0
    hi = spread + r
    if spread < m:  # the arms per d = T - t0 once (O(|A|)), then f(level) in O(spread) per bisection step
        per_d = np.zeros(spread + 1, dtype=np.int64)
        for j in range(m):
            per_d[counts[idx[j]] - t0] += 1
        while hi - lo > 1:  # largest level lo with f(lo) = sum min(r, max(0, lo - d)) <= b
            mid = (lo + hi) // 2
            f = 0
            for d in range(min(mid, spread + 1)):  # only d < mid pull
                x = mid - d
                f += per_d[d] * (x if x < r else r)
            if f <= b:
                lo = mid
            else:
                hi = mid
    else:
        while hi - lo > 1:  # the same level, f summed over the arms
            mid = (lo + hi) // 2
            f = 0
            for j in range(m):
                x = mid - (counts[idx[j]] - t0)
                if x > 0:
                    f += x if x < r else r
            if f <= b:
                lo = mid
            else:
                hi = mid
    total = 0
    n_cand = 0
    for j in range(m):
        i = idx[j]
        d = counts[i] - t0
        x = lo - d
        a = 0 if x <= 0 else (x if x < r else r)
        pulls[i] = a
        total += a
        if d <= lo and lo < d + r:  # at level lo and not capped: may take one of the extra pulls
            cand[n_cand] = i
            n_cand += 1
    extra = b - total
    if extra <= 0:
        return total
    if extra >= n_cand:
        for j in range(n_cand):
            pulls[cand[j]] += 1
        return total + n_cand
    # the `extra` candidates of lowest priority: those up to the extra-th smallest priority
    for j in range(n_cand):
        work[j] = priority[cand[j]]
    last = kth_smallest(work, n_cand, extra - 1, work)
    for j in range(n_cand):
        if priority[cand[j]] <= last:
            pulls[cand[j]] += 1
    return b


def round_robin(counts, size: int, max_repeats: int, active=None, priority=None) -> np.ndarray:
    """Pull counts of one batch of RoundRobin over the ``active`` arms.

    Parameters
    ----------
    counts : array-like of int, shape (n,)
        T_i: samples of every arm so far (>= 0; integer-valued floats are accepted).
    size : int
        b, samples per batch.
    max_repeats : int
        r <= b, most pulls of one arm in the batch.
    active : array-like of bool (n,) or of int indices, optional
        The arm set A (default: every arm).
    priority : array-like of int, shape (n,), optional
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
    >>> round_robin([3.0, 0.0, 1.0], size=4, max_repeats=2).tolist()   # float counts, as a model holds them
    [0, 2, 2]
    """
    b, r = check_batch_shape(size, max_repeats, "round_robin")
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.size == 0:
        raise fail("counts", "round_robin", "a non-empty 1-d array of sample counts", f"shape {counts.shape}")
    if counts.dtype.kind not in "iu":
        if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise fail("counts", "round_robin", "integer sample counts", counts)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    if np.any(counts < 0):
        raise fail("counts", "round_robin", "counts >= 0", counts)
    n = counts.size
    if active is None:
        idx = np.arange(n, dtype=np.int64)
    else:
        active = np.asarray(active)
        if active.dtype == bool:
            if active.shape != (n,):
                raise fail("active", "round_robin", f"a boolean mask of length {n}", f"shape {active.shape}")
            idx = np.flatnonzero(active).astype(np.int64)
        else:
            idx = np.ascontiguousarray(active, dtype=np.int64).ravel()
            if idx.size > 1 and not np.all(idx[1:] > idx[:-1]):  # not sorted and distinct
                idx = np.sort(idx)
                idx = idx[np.r_[True, idx[1:] != idx[:-1]]]
            if idx.size and (idx[0] < 0 or idx[-1] >= n):
                raise fail("active", "round_robin", f"arm indices in [0, {n - 1}]", active)
    if priority is None:
        priority = np.arange(n, dtype=np.int64)
    else:
        priority = np.ascontiguousarray(priority)
        if priority.shape != (n,) or priority.dtype.kind not in "iu":
            raise fail("priority", "round_robin", f"{n} integer priorities", priority)
        priority = priority.astype(np.int64, copy=False)
    out = np.zeros(n, dtype=np.int64)
    m = idx.size
    if m:
        work = np.empty(m, dtype=np.int64)
        water_fill(counts, idx, m, priority, b, r, out, np.empty(m, dtype=np.int64), work)
    return out


def min_batches_to_cover(n_arms: int, size: int, max_repeats: int) -> int:
    """Fewest batches that pull each of n arms once: ceil(n / min(b, n r))."""
    per = min(size, n_arms * max_repeats)
    return -(-n_arms // per)


def check_cover_budget(budget, n_arms: int, size: int, max_repeats: int, owner: str = "") -> int:
    """``budget`` (batches) as an int, at least enough to pull each arm once (else an error naming it)."""
    need = min_batches_to_cover(n_arms, size, max_repeats)
    budget = check_positive_int(budget, "budget", owner)
    if budget < need:
        raise fail("budget", owner, f"an int >= {need} (batches to pull each of the {n_arms} arms once)", budget)
    return budget
