r"""RAGE (Fiez, Jain, Jamieson & Ratliff 2019, Algorithm 1): rounds of XY designs with gap elimination."""

from __future__ import annotations

import math

from typing import cast

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, fail
from pybai.design.rounding import efficient_rounding
from pybai.design.transductive import pair_directions, xy_design
from pybai.problems.base import FixedConfidence
from pybai.strategies._linear import LinearRule
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["RAGE", "rage_round_size", "rage_eliminated"]


@register
class RAGE(LinearRule):
    r"""RAGE, Randomized Adaptive Gap Elimination, on a linear best-arm problem (Z = X).

    Fiez, Jain, Jamieson & Ratliff (2019), *Sequential Experimental Design for Transductive
    Linear Bandits*, NeurIPS, Algorithm 1, with the targets Z equal to the arms X.  Round
    k = 1, 2, ... on the surviving distinct arms :math:`Z_k` (:math:`Z_1` = every arm):

    1. :math:`\delta_k = \delta / k^2`;
    2. :math:`\lambda_k = \arg\min_\lambda \max_{z, z' \in Z_k} \|z - z'\|^2_{A(\lambda)^{-1}}`,
       the XY design of the differences of :math:`Z_k`, with value :math:`\rho(Z_k)`
       (:func:`pybai.design.xy_design`, certified to a relative gap of 1e-6);
    3. :math:`N_k = \max\{\lceil 2 (2^{k+1})^2 \sigma^2 \rho(Z_k) (1 + \epsilon)
       \log(|Z_k|^2/\delta_k) \rceil, r(\epsilon)\}` samples, allocated by ROUND(lambda_k, N_k):
       the efficient rounding of Pukelsheim ch. 12 (:func:`pybai.design.efficient_rounding`);
    4. least squares on the round's own samples only (earlier rounds are discarded), then
       :math:`Z_{k+1} = Z_k \setminus \{z : \exists z' \in Z_k,\ (z' - z)^\top \hat\theta_k \ge
       \tau_k\}` (:func:`rage_eliminated`);
    5. stops when one arm survives and recommends it.

    Readings (each a choice the math supports; see docs/linear.md):

    * **Noise scale.**  The paper assumes 1-sub-Gaussian noise; rewards here are
      :math:`N(x^\top\theta, \sigma^2)`, so :math:`N_k` carries the factor :math:`\sigma^2`
      (rescaling the rewards by :math:`1/\sigma` gives the paper's setting with the same gaps
      over :math:`\sigma`).
    * **Elimination level** :math:`\tau_k = 2^{-(k+1)}`.  The design of step 3 gives every
      difference y of :math:`Z_k` a variance :math:`\sigma^2\|y\|^2_{A_k^{-1}} \le
      \sigma^2 (1 + \epsilon)\rho(Z_k)/N_k \le 4^{-(k+1)} / (2\log(|Z_k|^2/\delta_k))`, so the
      Gaussian tail :math:`P(y^\top(\hat\theta_k - \theta) \ge u) \le \exp(-u^2 / (2\sigma^2
      \|y\|^2))` is at most :math:`\delta_k/|Z_k|^2` at :math:`u = 2^{-(k+1)}` -- the width
      that :math:`N_k` buys is :math:`2^{-(k+1)}`.  The best arm z* is eliminated only if some
      :math:`(z' - z^*)^\top \hat\theta_k \ge \tau_k` while :math:`(z' - z^*)^\top\theta \le 0`,
      i.e. only on a deviation beyond the width; over the :math:`|Z_k| - 1` competitors and all
      rounds the error is at most :math:`\sum_k \delta_k / |Z_k| \le (\pi^2/12)\delta < \delta`.
      A threshold of :math:`2^{-(k+2)}` with this :math:`N_k` would eliminate at half the
      width, which this argument does not cover; the authors' published code pairs its round
      length with a threshold equal to the width, as here.  An arm with gap :math:`\ge 2^{-k}` is eliminated in round k on the same event.
    * **r(epsilon).**  The rounding's guarantee the proof uses is
      :math:`\max_y \|y\|^2_{A_N^{-1}} \le (1 + \epsilon)\rho/N` for the rounded allocation of N
      samples.  Instead of a worst-case formula, N_k is the smallest N at or above the first
      term of step 3 for which the rounded allocation meets that bound, checked on the
      allocation itself (doubling, then bisection; at least the design's support size).
      ``epsilon`` = 0.1 by default, the value of the authors' experiment scripts
      (factor 10, epsilon = 1/factor).
    * **Start.**  The package's initial phase (one pull of d independent arms, ``n_init``
      rounds) runs first so that estimates exist; those samples count in the budget but not in
      any round's least squares.
    * **No GLR stopping.**  RAGE has its own proven elimination rule, so ``threshold`` is
      validated for the common interface but not used (as for ``xy-fully-adaptive`` and
      ``batch-racing``); ``check_growth`` is unused too (the rule acts at round ends only).
    * **Requests.**  A round's allocation is fixed before it starts, so it is asked as one
      request (``request_size = 0``) or in requests of at most ``request_size`` samples,
      interleaved so that every prefix is close to the design's proportions.  The elimination
      runs once the whole round is answered.
    * **Bounded.**  The round-length search never goes beyond ``max_samples``; the run ends
      censored at ``max_samples`` like every fixed-confidence rule.

    The run's ``statistic`` is, after each round, the smallest empirical gap between the
    round's empirical best and another arm of :math:`Z_k`, divided by :math:`\tau_k` (at least
    1 once only one arm is left).

    Parameters
    ----------
    epsilon : float in (0, 1], default 0.1
        Rounding tolerance (1 + epsilon in step 3).
    request_size : int, default 0
        Largest request in samples (0: each round is one request).
    check_growth : float, default 0.01
        Unused (kept for the common interface of the linear rules).
    threshold : str or None, default None (unset: see Strategy)
        Unused (see above).
    n_init : int, default 1
        Rounds of the spanning set before round 1.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    active_ = StateArray()
    round_counts_ = StateArray()
    round_sums_ = StateArray()
    allocation_ = StateArray()

    name = "rage"
    stops_on_statistics = False  # its own stopping rule (_should_stop)
    proven_rule = "RAGE's elimination rule (Fiez et al. 2019)"
    _state_attrs = ("round_", "active_", "allocation_", "asked_", "round_counts_", "round_sums_", "round_open_",
                    "survivor_", "rho_", "round_sizes_")

    def __init__(self, *, epsilon: float = 0.1, request_size: int = 0, check_growth: float = 0.01,
                 threshold: str | None = None, n_init: int = 1):
        super().__init__(check_growth=check_growth, threshold=threshold, n_init=n_init)
        self.epsilon = epsilon
        self.request_size = request_size

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.epsilon, "epsilon", owner)
        if self.epsilon > 1.0:
            raise fail("epsilon", owner, "a float in (0, 1]", self.epsilon)
        check_positive_int(self.request_size, "request_size", owner, minimum=0)

    def _initialize(self):
        k = self.problem_.features.shape[0]
        self.round_ = 1
        self._active_ = np.zeros(k, dtype=bool)
        self._active_[self.problem_.survivors(np.zeros(k, dtype=bool))] = True
        self._allocation_ = np.zeros(k, dtype=np.int64)
        self.asked_ = 0
        self._round_counts_ = np.zeros(k)
        self._round_sums_ = np.zeros(k)
        self.round_open_ = False
        self.survivor_ = -1
        self.rho_ = 0.0
        self.round_sizes_: list[int] = []
        self._sequence = None  # the round's requests in order, rebuilt from allocation_ when needed

    # ------------------------------------------------------------------ rounds
    def _open_round(self) -> None:
        problem = self.problem_
        x = problem.features
        active = np.flatnonzero(self._active_)
        directions = pair_directions(x, active)
        design = xy_design(x, directions, rtol=1e-4)  # N_k uses the value of the design found
        self.rho_ = float(design.value)
        regime = cast(FixedConfidence, problem.regime)
        delta_k = regime.delta / self.round_**2
        self._allocation_ = rage_round_size(x, directions, design.weights, self.rho_, round_index=self.round_,
                                           n_targets=active.size, delta_k=delta_k, sigma=problem.sigma,
                                           epsilon=float(self.epsilon), cap=regime.max_samples)
        self.round_sizes_.append(int(self._allocation_.sum()))
        self.asked_ = 0
        self._round_counts_[:] = 0.0
        self._round_sums_[:] = 0.0
        self.round_open_ = True
        self._sequence = None

    def _select(self):
        if not self.round_open_:
            self._open_round()
        if self._sequence is None:
            self._sequence = interleaved_requests(self._allocation_)
        total = self._sequence.size
        size = total - self.asked_ if self.request_size == 0 else min(int(self.request_size), total - self.asked_)
        out = self._sequence[self.asked_ : self.asked_ + size]
        self.asked_ += size
        return out

    def _observe(self, sources, rewards):
        if self.round_open_:  # the initial phase is not part of any round
            np.add.at(self._round_counts_, sources, 1.0)
            np.add.at(self._round_sums_, sources, rewards)

    def _should_stop(self):
        if not self.round_open_ or self._pending is not None or self.asked_ < int(self._allocation_.sum()):
            return False
        self.round_open_ = False
        problem = self.problem_
        x = problem.features
        a = x.T @ (self._round_counts_[:, None] * x)
        theta = np.linalg.pinv(0.5 * (a + a.T)) @ (x.T @ self._round_sums_)  # least squares, this round only
        level = 2.0 ** -(self.round_ + 1)
        active = np.flatnonzero(self._active_)
        gaps = rage_gaps(x[active] @ theta)
        dropped = gaps >= level
        others = np.sort(gaps)[1:]
        self.statistic_ = float(others.min() / level) if others.size else 0.0
        self._active_[active[dropped]] = False
        self.round_ += 1
        alive = np.flatnonzero(self._active_)
        if alive.size == 1 and not self._model_fits():  # the data contradict the linear model: the round drops none
            self._active_[active] = True
            return False
        if alive.size == 1:
            self.survivor_ = int(alive[0])
            return True
        return False



def rage_gaps(means: np.ndarray) -> np.ndarray:
    """Per target z, :math:`\\max_{z'} (z' - z)^\\top\\hat\\theta` = the largest estimate minus z's."""
    means = np.asarray(means, dtype=float)
    return means.max() - means


def rage_eliminated(means, round_index: int) -> np.ndarray:
    r"""Mask of the targets RAGE drops after round k, given their estimates :math:`z^\top\hat\theta_k`.

    z is dropped when some z' of the round has :math:`(z' - z)^\top\hat\theta_k \ge 2^{-(k+1)}`
    (see :class:`RAGE` for the level).  The empirical best is never dropped.
    """
    return rage_gaps(means) >= 2.0 ** -(int(round_index) + 1)


def rage_round_size(features, directions, weights, rho: float, *, round_index: int, n_targets: int,
                    delta_k: float, sigma: float, epsilon: float, cap: int) -> np.ndarray:
    r"""Counts per arm of round k: ROUND(lambda_k, N_k) with N_k of Algorithm 1 (step 3 of :class:`RAGE`).

    N_k is the smallest N >= ceil(2 (2^{k+1})^2 sigma^2 rho (1 + eps) log(n_targets^2 / delta_k))
    whose efficient rounding meets :math:`\max_y \|y\|^2_{A_N^{-1}} \le (1+\epsilon)\rho / N`
    (the r(epsilon) of the paper, checked on the allocation), and at most ``cap``.
    """
    x = np.asarray(features, dtype=float)
    y = np.asarray(directions, dtype=float)
    w = np.asarray(weights, dtype=float)
    first = 2.0 * (2.0 ** (round_index + 1)) ** 2 * sigma**2 * rho * (1.0 + epsilon) * math.log(
        n_targets**2 / delta_k)
    support = int(np.count_nonzero(w > 0))
    cap = max(int(cap), support)
    start = min(max(int(math.ceil(first)), support, 1), cap)

    def meets(n: int) -> bool:
        return n * rounded_value(x, y, efficient_rounding(w, n)) <= (1.0 + epsilon) * rho

    lo, hi = start, start
    if meets(hi):
        return efficient_rounding(w, hi)
    while not meets(hi):  # doubling: at most log2(cap) steps
        if hi >= cap:
            return efficient_rounding(w, cap)
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > 1:  # meets(hi), not meets(lo)
        mid = (lo + hi) // 2
        if meets(mid):
            hi = mid
        else:
            lo = mid
    return efficient_rounding(w, hi)


def rounded_value(features: np.ndarray, directions: np.ndarray, counts: np.ndarray) -> float:
    r""":math:`\max_y \|y\|^2_{A^{-1}}` for the design matrix :math:`A = \sum_a n_a x_a x_a^\top`.

    Pseudo-inverse: a design may leave out directions no target needs; a target outside the
    span of the sampled arms gets the value inf.
    """
    a = features.T @ (np.asarray(counts, dtype=float)[:, None] * features)
    a = 0.5 * (a + a.T)
    inv = np.linalg.pinv(a, hermitian=True)
    residual = directions - directions @ (a @ inv)
    if np.abs(residual).max(initial=0.0) > 1e-8 * max(1.0, np.abs(directions).max(initial=0.0)):
        return math.inf
    return float(np.einsum("ij,jk,ik->i", directions, inv, directions).max())


def interleaved_requests(counts: np.ndarray) -> np.ndarray:
    """The requests of an allocation, interleaved: sample i of arm a sits at (i + 1/2) / n_a."""
    counts = np.asarray(counts, dtype=np.int64)
    arms = np.repeat(np.arange(counts.size, dtype=np.intp), counts)
    if arms.size == 0:
        return arms
    starts = np.cumsum(counts) - counts
    rank = np.arange(arms.size) - starts[arms]
    key = (rank + 0.5) / counts[arms]
    return arms[np.argsort(key, kind="stable")]
