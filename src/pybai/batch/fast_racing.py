r"""Whole BatchRacing runs in one compiled loop (numba), bit-identical to the ask/tell loop.

:func:`simulate_batch_racing` plays BatchRacing (the ``batch-racing`` strategy,
:class:`pybai.strategies.batch_racing.BatchRacingStrategy`) from its start against simulated
Bernoulli or Gaussian arms without returning to Python between batches, until the answer is
decided or the next batch would go beyond ``max_samples`` (that batch is cut by ``ask``: the
ask/tell loop plays it).  It is the kernel of ``BatchRacingStrategy.simulate_run``, a pure
optimisation: on the same generators it makes the same decisions, draws the same rewards in
the same order and leaves the same state as the loop ``ask`` -> environment -> ``tell``
(tests/batch/test_fast_racing.py compares the two).  What makes this exact:

* RoundRobin (Algorithm 1) is the same compiled water filling,
  :func:`pybai.batch.round_robin.water_fill`, and the accept/reject step the same compiled
  :func:`pybai.batch.racing.racing_step`, that the strategy calls after each batch;
* the rewards of a batch are drawn arm by arm in increasing arm index, each arm's a_i
  samples in a row, one ``Generator.random()`` (Bernoulli: reward = [u < mu_i]) or
  ``Generator.standard_normal()`` (Gaussian: mu_i + sigma_i z) per sample: the order and
  arithmetic of :meth:`BernoulliEnvironment.sample` / :meth:`GaussianEnvironment.sample`
  on ``np.repeat(arms, pulls)`` (numba's Generator methods share the bit generator's state
  and give the same numbers as numpy's);
* the reward sums are accumulated sample by sample into the running total, as the model's
  ``np.add.at`` does, and the decisions read them, as the strategy reads the model's sums;
* the deviations D(tau, omega) of Eq. (2) are not recomputed in compiled code (a compiled
  ``log`` may differ from numpy's in the last bit): they are looked up in a table computed
  by :func:`pybai.batch.bounds.lil_deviation` itself, extended (doubled) from Python when a
  count outgrows it.

Reference: K.-S. Jun, K. Jamieson, R. Nowak, X. Zhu. Top arm identification in multi-armed
bandits with batch arm pulls. AISTATS 2016 (Algorithms 1 and 2, Eq. 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from pybai._validation import fail
from pybai.batch.bounds import lil_deviation
from pybai.batch.racing import racing_step
from pybai.batch.round_robin import water_fill

__all__ = ["FastRun", "simulate_batch_racing"]

_DONE, _LIMIT, _NEED_TABLE = 0, 1, 2
_FIRST_TABLE = 4096


@dataclass
class FastRun:
    """Where :func:`simulate_batch_racing` left the run.

    Attributes
    ----------
    status : {"done", "limit"}
        "done": the answer is decided; "limit": the next batch would go beyond
        ``max_samples`` (or ``max_samples`` is reached): not drawn, the ask/tell loop takes over.
    samples, batches : int
        Samples drawn and batches played (all complete).
    counts, sums : ndarray of float (n,)
        Samples and reward sums per arm, summed sample by sample as a strategy's model sums them.
    accepted, rejected : ndarray of bool (n,)
        A_t and R_t.
    survivors : ndarray of int64
        S_t, increasing.
    """

    status: str
    samples: int
    batches: int
    counts: np.ndarray
    sums: np.ndarray
    accepted: np.ndarray
    rejected: np.ndarray
    survivors: np.ndarray


@njit(cache=True)
def _racing_loop(means, sd, gaussian, rng, counts, sums, accepted, rejected, idx, n_active, priority, k, b, r,
                 dev, progress, max_samples):
    """Complete batches until done (0), the sample limit (1) or a count beyond the deviation table (2).

    ``progress`` = [samples, batches, accepted arms] is updated in place, as are ``counts``
    (int64), ``sums``, ``accepted``, ``rejected`` and ``idx``; ``n_active`` is a one-element
    array holding m = |S_t|.
    """
    n = counts.shape[0]
    pulls = np.zeros(n, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    iwork = np.empty(n, dtype=np.int64)
    devs = np.empty(n)
    low = np.empty(n)
    up = np.empty(n)
    work = np.empty(n)
    table = dev.shape[0]
    t = progress[0]
    while True:
        m = n_active[0]
        total = water_fill(counts, idx, m, priority, b, r, pulls, cand, iwork)
        if t + total > max_samples:  # the ask/tell loop would cut this batch: leave it to the loop
            return _LIMIT
        for j in range(m):
            if counts[idx[j]] + pulls[idx[j]] >= table:
                return _NEED_TABLE
        for j in range(m):  # the rewards of np.repeat(arms, pulls), in the environment's order
            i = idx[j]
            a = pulls[i]
            for _ in range(a):
                if gaussian:
                    x = means[i] + sd[i] * rng.standard_normal()
                else:
                    x = 1.0 if rng.random() < means[i] else 0.0
                sums[i] += x
            counts[i] += a
            pulls[i] = 0
        t += total
        progress[0] = t
        progress[1] += 1
        for j in range(m):
            devs[j] = dev[counts[idx[j]]]
        kept, n_acc = racing_step(counts, sums, devs, idx, m, k - progress[2], accepted, rejected, low, up, work)
        progress[2] += n_acc
        n_active[0] = kept
        kt = k - progress[2]
        if kt == 0 or kept == kt:
            return _DONE
        if t >= max_samples:
            return _LIMIT


def simulate_batch_racing(means, rng: np.random.Generator, *, k: int, size: int, max_repeats: int, omega: float,
                          scale: float, priority, max_samples: int, sigma=None) -> FastRun:
    """BatchRacing from its start against simulated arms, in compiled code, up to its answer or the limit.

    Parameters
    ----------
    means : array-like of float (n,)
        True means (Bernoulli when ``sigma`` is None, in [0, 1]).
    rng : numpy.random.Generator
        The environment's noise generator, advanced exactly as by the ask/tell loop.
    k : int
        Number of top arms.
    size, max_repeats : int
        b and r (1 and 1 without batches).
    omega : float
        omega of Eq. (2) (:func:`~pybai.batch.bounds.lil_omega`).
    scale : float
        Sub-Gaussian scale of the bounds (:func:`~pybai.batch.bounds.lil_deviation`'s sigma).
    priority : array-like of int (n,)
        The tie order of RoundRobin.
    max_samples : int
        No batch that would go beyond it is drawn (the ask/tell loop cuts that one).
    sigma : array-like of float (n,), optional
        Gaussian noise standard deviations; None for Bernoulli rewards.

    Returns
    -------
    FastRun
    """
    owner = "simulate_batch_racing"
    if not isinstance(rng, np.random.Generator):
        raise fail("rng", owner, "a numpy.random.Generator", rng)
    priority = np.ascontiguousarray(priority, dtype=np.int64)
    n = priority.size
    means = np.ascontiguousarray(means, dtype=float)
    if means.shape != (n,):
        raise fail("means", owner, f"an array of {n} means", f"shape {means.shape}")
    gaussian = sigma is not None
    sd = np.ascontiguousarray(np.broadcast_to(sigma if gaussian else 0.0, (n,)), dtype=float)
    counts = np.zeros(n, dtype=np.int64)
    sums = np.zeros(n)
    accepted = np.zeros(n, dtype=np.bool_)
    rejected = np.zeros(n, dtype=np.bool_)
    idx = np.arange(n, dtype=np.int64)
    n_active = np.array([n], dtype=np.int64)
    progress = np.zeros(3, dtype=np.int64)
    size_table = _FIRST_TABLE
    while True:  # bounded: every pass but the last at least doubles the table, whose size stays <= max_samples + 2b
        dev = lil_deviation(np.arange(size_table), omega, scale)
        code = _racing_loop(means, sd, gaussian, rng, counts, sums, accepted, rejected, idx, n_active, priority,
                            int(k), int(size), int(max_repeats), dev, progress, int(max_samples))
        if code != _NEED_TABLE:
            break
        size_table *= 2
    return FastRun(status="done" if code == _DONE else "limit", samples=int(progress[0]), batches=int(progress[1]),
                   counts=counts.astype(float), sums=sums, accepted=accepted, rejected=rejected,
                   survivors=idx[: n_active[0]].copy())
