"""Per-batch logic of uniform RoundRobin, BatchRacing (Algorithm 2) and Halving (Algorithm 4).

BatchSAR (Algorithm 3) is in :mod:`pybai.batch.sar`.  Every class follows the cycle of
:class:`~pybai.batch._core.BatchAlgorithm`: ``next_batch()`` -> pulls per arm,
``observe(pulls, sums)``, until ``done``; ``answer()`` -> sorted k arms.  Reference:
K.-S. Jun, K. Jamieson, R. Nowak, X. Zhu. Top arm identification in multi-armed bandits
with batch arm pulls. AISTATS 2016.
"""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, check_probability, fail
from pybai.batch._core import BatchAlgorithm, min_batches_to_cover
from pybai.batch.bounds import lil_deviation, lil_omega
from pybai.batch.sar import BatchSAR

__all__ = ["UniformRoundRobin", "BatchRacing", "Halving", "BatchSAR"]


def _check_budget(budget, n: int, b: int, r: int, owner: str) -> int:
    need = min_batches_to_cover(n, b, r)
    budget = check_positive_int(budget, "budget", owner)
    if budget < need:
        raise fail("budget", owner, f"an int >= {need} (batches to pull each of the {n} arms once)", budget)
    return budget


class UniformRoundRobin(BatchAlgorithm):
    """The RoundRobin baseline of section 5.2: RoundRobin over all arms for ``budget`` batches.

    No elimination; the answer is the empirical top-k (ties by the tie order).

    Parameters
    ----------
    n_arms, k, size, max_repeats, rng
        See :class:`~pybai.batch._core.BatchAlgorithm`.
    budget : int
        B, batches; at least enough to pull every arm once.
    """

    def __init__(self, n_arms, k, size, max_repeats, budget, *, rng=None):
        super().__init__(n_arms, k, size, max_repeats, rng=rng)
        self.budget = _check_budget(budget, self.n_arms, self.size, self.max_repeats, type(self).__name__)

    def _allocate(self):
        return self._round_robin(None)

    def _after_batch(self):
        if self.n_batches >= self.budget:
            self._finish(self._recommend())


class BatchRacing(BatchAlgorithm):
    r"""BatchRacing (Algorithm 2): RoundRobin over the surviving arms, accept/reject by Eq. (2).

    After each batch, with :math:`k_t = k - |A_t|` and the bounds :math:`L_i, U_i` of Eq. (2)
    (:func:`~pybai.batch.bounds.lil_bounds`, omega = sqrt(delta / (6n)) with the total n),

    * accept :math:`i \in S_t` if :math:`L_i > \max^{(k_t+1)}_{j \in S_t} U_j`;
    * reject :math:`i \in S_t` if :math:`U_i < \max^{(k_t)}_{j \in S_t} L_j`;

    both computed on the same :math:`S_t` (lines 9-10).  Conventions where the paper is
    silent: :math:`\max^{(j)}` of fewer than j values is -inf (so when :math:`|S_t| = k_t` every
    survivor is accepted) and :math:`\max^{(0)}` is +inf (when :math:`k_t = 0` every survivor is
    rejected).  The run stops as soon as the answer is decided, i.e. when k arms are
    accepted or the survivors are exactly the arms still to accept ("the process is repeated
    until it accepts k arms"); Algorithm 2's loop "while S_t is not empty" would spend one
    more batch before rejecting the rest, which changes no answer.  With b = r = 1 this is
    the sequential Racing algorithm (one pull of the least-pulled survivor, then the test).

    Parameters
    ----------
    n_arms, k, size, max_repeats, rng
        See :class:`~pybai.batch._core.BatchAlgorithm`.
    delta : float
        Risk in (0, 1).
    sigma : float, default 0.5
        Sub-Gaussian scale of the rewards (1/2 for rewards in [0, 1]; the noise sd for
        Gaussian rewards).

    Attributes
    ----------
    active, accepted, rejected : ndarray of bool (n,)
        S_t, A_t and R_t.
    """

    _state_keys = BatchAlgorithm._state_keys + ("active", "accepted", "rejected", "_idx")

    def __init__(self, n_arms, k, size, max_repeats, delta, *, sigma=0.5, rng=None):
        super().__init__(n_arms, k, size, max_repeats, rng=rng)
        owner = type(self).__name__
        self.delta = check_probability(delta, "delta", owner)
        self.sigma = check_positive_float(sigma, "sigma", owner)
        self._omega = lil_omega(self.delta, self.n_arms)
        self.active = np.ones(self.n_arms, dtype=bool)
        self.accepted = np.zeros(self.n_arms, dtype=bool)
        self.rejected = np.zeros(self.n_arms, dtype=bool)
        self._idx = np.arange(self.n_arms)

    def _allocate(self):
        return self._round_robin(self._idx)

    def _after_batch(self):
        idx = self._idx
        m = idx.size
        kt = self.k - int(self.accepted.sum())
        c = self.counts[idx]
        c_min, c_max = int(c.min()), int(c.max())
        if c_max - c_min <= 4096:  # RoundRobin keeps counts within one: look D up per count
            dev = lil_deviation(np.arange(c_min, c_max + 1), self._omega, self.sigma)[c - c_min]
        else:
            dev = lil_deviation(c, self._omega, self.sigma)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(c > 0, self.sums[idx] / np.maximum(c, 1), 0.0)
        low, up = mean - dev, mean + dev
        # (k_t + 1)-th largest U and k_t-th largest L over S_t (Algorithm 2, lines 9-10)
        u_thr = np.partition(up, m - kt - 1)[m - kt - 1] if kt + 1 <= m else -math.inf
        l_thr = np.partition(low, m - kt)[m - kt] if kt >= 1 else math.inf
        acc = low > u_thr
        rej = up < l_thr
        if acc.any() or rej.any():
            self.accepted[idx[acc]] = True
            self.rejected[idx[rej]] = True
            self.active[idx[acc | rej]] = False
            self._idx = idx[~(acc | rej)]
        kt = self.k - int(self.accepted.sum())
        if kt == 0:
            self._finish(np.flatnonzero(self.accepted))
        elif self._idx.size == kt:
            self._finish(np.flatnonzero(self.accepted | self.active))

    def _recommend(self):
        """Anytime answer: the accepted arms and the empirical best of the survivors."""
        kt = self.k - int(self.accepted.sum())
        return np.concatenate([np.flatnonzero(self.accepted), self._top(self._idx, kt)])


class Halving(BatchAlgorithm):
    r"""Halving (Algorithm 4): sequential halving for top-k with batches, fixed budget.

    :math:`L = \lceil \log_2(n/k) \rceil` stages; stage s pulls its surviving arms by
    RoundRobin for its share of the budget, then keeps the
    :math:`\max\{\lceil |S_s|/2 \rceil, \lceil b/r \rceil, k\}` arms with the largest empirical
    means; the answer is the empirical top-k of the last survivors.

    Stage budgets: :math:`\lfloor B/L \rfloor` batches each, and the
    :math:`B - L\lfloor B/L \rfloor` remaining batches spread over distinct stages, chosen at
    random with ``rng`` (section 5.2: "we randomly spread out the remaining budget over
    stages"), else the first stages.  Two documented changes make the algorithm well defined:

    * if :math:`\lfloor B/L \rfloor` batches cannot pull every arm once
      (:math:`\lceil n/b \rceil` batches), stage 1 gets :math:`c_0 = \lceil n/b \rceil` batches
      and the other :math:`B - c_0` are spread as above over the L stages (the paper's
      B = 100 runs on n = 12,979 arms would otherwise rank arms never pulled);
    * the keep size is at least k: the paper's :math:`\lceil |S|/2 \rceil` rule can end below k
      (n = 12,979, k = 100: 51 arms after 8 halvings), and its output :math:`S_{L+1}` can hold
      more than k arms (when :math:`\lceil b/r \rceil > k`); hence the final empirical top-k.

    Parameters
    ----------
    n_arms, k, size, max_repeats, rng
        See :class:`~pybai.batch._core.BatchAlgorithm`.
    budget : int
        B, batches; at least :math:`\lceil n / \min(b, nr) \rceil`.

    Attributes
    ----------
    stage_budgets : ndarray of int (L,)
    active : ndarray of bool (n,)
    """

    _state_keys = BatchAlgorithm._state_keys + ("stage_budgets", "stage", "_in_stage", "active", "_idx")

    def __init__(self, n_arms, k, size, max_repeats, budget, *, rng=None):
        super().__init__(n_arms, k, size, max_repeats, rng=rng)
        owner = type(self).__name__
        self.budget = _check_budget(budget, self.n_arms, self.size, self.max_repeats, owner)
        n_stages = max(1, math.ceil(math.log2(self.n_arms / self.k)))
        cover = min_batches_to_cover(self.n_arms, self.size, self.max_repeats)
        base = self.budget // n_stages
        first = 0
        if base < cover:
            first = cover
            base = (self.budget - cover) // n_stages
        spread = self.budget - first - base * n_stages
        stages = np.full(n_stages, base, dtype=np.int64)
        stages[0] += first
        if spread:
            pick = rng.choice(n_stages, spread, replace=False) if rng is not None else np.arange(spread)
            stages[pick] += 1
        self.stage_budgets = stages
        self.stage = 0
        self._in_stage = 0
        self.active = np.ones(self.n_arms, dtype=bool)
        self._idx = np.arange(self.n_arms)
        self._advance()

    def _advance(self):
        """End every stage whose budget is spent (stages with no batch end at once)."""
        while not self.done and self._in_stage >= self.stage_budgets[self.stage]:
            keep = max(-(-self._idx.size // 2), -(-self.size // self.max_repeats), self.k)
            if keep < self._idx.size:
                self._idx = np.sort(self._top(self._idx, keep))
                self.active[:] = False
                self.active[self._idx] = True
            self.stage += 1
            self._in_stage = 0
            if self.stage == self.stage_budgets.size:
                self._finish(self._top(self._idx, self.k))

    def _allocate(self):
        return self._round_robin(self._idx)

    def _after_batch(self):
        self._in_stage += 1
        self._advance()

    def _recommend(self):
        return self._top(self._idx, self.k)
