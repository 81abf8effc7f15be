r"""Whole BatchRacing runs in one compiled loop (numba), bit-identical to the batch-by-batch path.

:func:`simulate_batch_racing` plays a fresh :class:`~pybai.batch.BatchRacing` against simulated
Bernoulli or Gaussian arms until it is done (or ``max_samples`` is reached) without returning
to Python between batches.  It is a pure optimisation: on the same generators it makes the
same decisions, draws the same rewards in the same order and ends in the same state as the
generic loop ``next_batch`` -> environment -> ``observe`` (tests/batch/test_fast_racing.py
compares the two).  What makes this exact:

* RoundRobin (Algorithm 1) is a deterministic function of the counts, the survivors and the
  tie order, computed here by the same capped water-filling as
  :func:`pybai.batch.round_robin` (largest level lam with f(lam) <= b', the rest of the
  pulls to the uncapped arms at level lam with the lowest priority);
* the rewards of a batch are drawn arm by arm in increasing arm index, each arm's a_i
  samples in a row, one ``Generator.random()`` (Bernoulli: reward = [u < mu_i]) or
  ``Generator.standard_normal()`` (Gaussian: mu_i + sigma_i z) per sample: the order and
  arithmetic of :meth:`BernoulliEnvironment.sample` / :meth:`GaussianEnvironment.sample`
  on ``np.repeat(arms, pulls)`` (numba's Generator methods share the bit generator's state
  and give the same numbers as numpy's);
* the batch's reward sums are accumulated sample by sample from 0 (as ``np.bincount``), the
  model's sums sample by sample into the running total (as ``np.add.at``);
* the deviations D(tau, omega) of Eq. (2) are not recomputed in compiled code (a compiled
  ``log`` may differ from numpy's in the last bit): they are looked up in a table computed
  by :func:`pybai.batch.bounds.lil_deviation` itself, extended (doubled) from Python when a
  count outgrows it;
* the accept/reject thresholds are order statistics (exact), compared as in
  :meth:`pybai.batch.BatchRacing._after_batch`.

Reference: K.-S. Jun, K. Jamieson, R. Nowak, X. Zhu. Top arm identification in multi-armed
bandits with batch arm pulls. AISTATS 2016 (Algorithms 1 and 2, Eq. 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from pybai._validation import fail
from pybai.batch.algorithms import BatchRacing
from pybai.batch.bounds import lil_deviation

__all__ = ["FastRun", "simulate_batch_racing"]

_DONE, _CENSORED, _NEED_TABLE = 0, 1, 2
_FIRST_TABLE = 4096


@dataclass
class FastRun:
    """What :func:`simulate_batch_racing` did besides updating the algorithm in place.

    Attributes
    ----------
    status : {"done", "censored"}
        "done": the algorithm decided its answer; "censored": ``max_samples`` was reached first.
    samples : int
        Samples drawn (including those of a batch cut at ``max_samples``).
    batches : int
        Batches asked (a batch cut at ``max_samples`` counts, as in the ask/tell loop).
    model_counts, model_sums : ndarray of float (n,)
        Samples and reward sums per arm as a strategy's model holds them (the algorithm's
        ``counts`` plus a cut batch's samples; sums accumulated sample by sample).
    """

    status: str
    samples: int
    batches: int
    model_counts: np.ndarray
    model_sums: np.ndarray


@njit(cache=True)
def _round_robin(counts, idx, m, priority, b, r, pulls, cand):
    """Algorithm 1 over the survivors idx[:m] into ``pulls`` (zero elsewhere); returns the total."""
    if b >= m * r:  # every survivor gets r pulls
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
    hi = t1 - t0 + r
    while hi - lo > 1:  # largest level lo with f(lo) = sum min(r, max(0, lo - d)) <= b
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
    if extra == 1:  # the uncapped arm at level lo with the lowest priority
        best = cand[0]
        for j in range(1, n_cand):
            if priority[cand[j]] < priority[best]:
                best = cand[j]
        pulls[best] += 1
    elif extra >= n_cand:
        for j in range(n_cand):
            pulls[cand[j]] += 1
    else:
        pr = np.empty(n_cand, dtype=np.int64)
        for j in range(n_cand):
            pr[j] = priority[cand[j]]
        order = np.argsort(pr)
        for j in range(extra):
            pulls[cand[order[j]]] += 1
    return b


@njit(cache=True)
def _kth_smallest(values, m, kth, work):
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
def _racing_loop(means, sd, gaussian, rng, counts, sums, accepted, rejected, active, idx, n_active,
                 priority, k, b, r, dev, model_counts, model_sums, progress, max_samples, pulls):
    """Batches until done (0), max_samples (1) or a count beyond the deviation table (2).

    ``progress`` = [samples, batches asked, algorithm batches, accepted arms] is updated in
    place, as are all arrays; ``n_active`` is a one-element array holding m = |S_t|.
    """
    n = counts.shape[0]
    cand = np.empty(n, dtype=np.int64)
    low = np.empty(n)
    up = np.empty(n)
    work = np.empty(n)
    table = dev.shape[0]
    t = progress[0]
    while True:
        m = n_active[0]
        total = _round_robin(counts, idx, m, priority, b, r, pulls, cand)
        for j in range(m):
            if counts[idx[j]] + pulls[idx[j]] >= table:
                for jj in range(m):
                    pulls[idx[jj]] = 0
                progress[0] = t
                return _NEED_TABLE
        left = total
        cut = t + total > max_samples
        if cut:  # the ask/tell loop cuts the batch: only its first samples are drawn
            left = max_samples - t
        for j in range(m):
            i = idx[j]
            a = pulls[i]
            if a > left:
                a = left
            left -= a
            s = 0.0
            for _ in range(a):
                if gaussian:
                    x = means[i] + sd[i] * rng.standard_normal()
                else:
                    x = 1.0 if rng.random() < means[i] else 0.0
                s += x
                model_sums[i] += x
            model_counts[i] += a
            if not cut:
                counts[i] += a
                sums[i] += s
        progress[1] += 1
        if cut:  # censored: the algorithm does not see the cut batch
            for j in range(m):
                pulls[idx[j]] = 0
            progress[0] = max_samples
            return _CENSORED
        t += total
        progress[2] += 1
        for j in range(m):
            pulls[idx[j]] = 0
        # accept / reject (Algorithm 2, lines 9-10; pybai.batch.BatchRacing._after_batch)
        kt = k - progress[3]
        for j in range(m):
            i = idx[j]
            c = counts[i]
            mean = sums[i] / c if c > 0 else 0.0
            low[j] = mean - dev[c]
            up[j] = mean + dev[c]
        u_thr = _kth_smallest(up, m, m - kt - 1, work) if kt + 1 <= m else -math.inf
        l_thr = _kth_smallest(low, m, m - kt, work) if kt >= 1 else math.inf
        kept = 0
        for j in range(m):
            i = idx[j]
            acc = low[j] > u_thr
            rej = up[j] < l_thr
            if acc:
                accepted[i] = True
                progress[3] += 1
            if rej:
                rejected[i] = True
            if acc or rej:
                active[i] = False
            else:
                idx[kept] = i
                kept += 1
        n_active[0] = kept
        kt = k - progress[3]
        if kt == 0 or kept == kt:
            progress[0] = t
            return _DONE
        if t >= max_samples:
            progress[0] = t
            return _CENSORED


def simulate_batch_racing(algorithm: BatchRacing, means, rng: np.random.Generator, *, sigma=None,
                          max_samples: int) -> FastRun:
    """Run a fresh BatchRacing against simulated arms to the end, in compiled code.

    Parameters
    ----------
    algorithm : pybai.batch.BatchRacing
        Not yet observed (no batch pending): updated in place to the state the batch-by-batch
        loop would leave (counts, sums, accepted/rejected/active, answer, pending cut batch).
    means : array-like of float (n,)
        True means (Bernoulli when ``sigma`` is None, in [0, 1]).
    rng : numpy.random.Generator
        The environment's noise generator, advanced exactly as by the batch-by-batch loop.
    sigma : array-like of float (n,), optional
        Gaussian noise standard deviations; None for Bernoulli rewards.
    max_samples : int
        Cap on the samples (the last batch is cut there, as a strategy's ``ask`` does).

    Returns
    -------
    FastRun
    """
    owner = "simulate_batch_racing"
    if not isinstance(algorithm, BatchRacing) or algorithm.n_batches or algorithm.pending is not None:
        raise fail("algorithm", owner, "a fresh pybai.batch.BatchRacing", algorithm)
    if not isinstance(rng, np.random.Generator):
        raise fail("rng", owner, "a numpy.random.Generator", rng)
    n = algorithm.n_arms
    means = np.ascontiguousarray(means, dtype=float)
    if means.shape != (n,):
        raise fail("means", owner, f"an array of {n} means", f"shape {means.shape}")
    gaussian = sigma is not None
    sd = np.ascontiguousarray(np.broadcast_to(sigma if gaussian else 0.0, (n,)), dtype=float)
    alg = algorithm
    idx = np.zeros(n, dtype=np.int64)
    idx[: alg._idx.size] = alg._idx
    n_active = np.array([alg._idx.size], dtype=np.int64)
    model_counts = np.zeros(n)
    model_sums = np.zeros(n)
    progress = np.array([0, 0, 0, int(alg.accepted.sum())], dtype=np.int64)
    pulls = np.zeros(n, dtype=np.int64)
    priority = np.ascontiguousarray(alg.priority, dtype=np.int64)
    size = _FIRST_TABLE
    while True:  # bounded: every pass but the last at least doubles the table, whose size stays <= max_samples + 2b
        dev = lil_deviation(np.arange(size), alg._omega, alg.sigma)
        code = _racing_loop(means, sd, gaussian, rng, alg.counts, alg.sums, alg.accepted, alg.rejected, alg.active,
                            idx, n_active, priority, alg.k, alg.size, alg.max_repeats, dev, model_counts, model_sums,
                            progress, int(max_samples), pulls)
        if code != _NEED_TABLE:
            break
        size *= 2
    alg._idx = idx[: n_active[0]].copy()
    alg.n_batches = int(progress[2])
    cut = progress[1] > progress[2]
    if cut:  # the batch asked at max_samples stays pending in the algorithm, as in the ask/tell loop
        alg._pending = alg._allocate()
    if code == _DONE:
        kt = alg.k - int(alg.accepted.sum())
        alg._finish(np.flatnonzero(alg.accepted) if kt == 0 else np.flatnonzero(alg.accepted | alg.active))
    return FastRun(status="done" if code == _DONE else "censored", samples=int(progress[0]),
                   batches=int(progress[1]), model_counts=model_counts, model_sums=model_sums)
