"""The always-valid mixture SPRT of A/B testing platforms, pairwise with elimination (a practitioners' baseline).

Johari, Koomen, Pekelis & Walsh ("Peeking at A/B tests", KDD 2017) and Johari, Pekelis & Walsh
("Always valid inference", Operations Research 2022, section 5) test the difference theta of two
means with the mixture likelihood ratio of a normal mixture N(0, tau^2) over theta, the two-stream
normal test with the variance estimated from the data (plug-in).  With theta_hat = mean_i - mean_j
estimated with variance V = s_i^2 / N_i + s_j^2 / N_j,

    Lambda = sqrt(V / (V + tau^2)) exp(tau^2 theta_hat^2 / (2 V (V + tau^2)))

(for N_i = N_j = n and V = V_n / n this is their sqrt(V_n / (V_n + n tau^2)) exp(n^2 tau^2 theta_hat^2 /
(2 V_n (V_n + n tau^2))), with V_n = 2 sigma^2 for normal data and p_i (1 - p_i) + p_j (1 - p_j) for
conversions).  The null theta = 0 is rejected, always validly, once Lambda >= 1 / alpha.  With a known
variance Lambda is a martingale under the null and the test has level alpha at any stopping time
(Ville's inequality); with the plug-in variance the guarantee is asymptotic only.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai._validation import check_positive_float, check_positive_int, fail
from pybai.strategies._driver import draw_reward, record
from pybai.strategies._moments import SquareSums, add_square, plugin_variance
from pybai.strategies._own_stopping import OwnStoppingRun
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies.registry import register

__all__ = ["MixtureSPRT", "log_mixture_ratio"]


@njit(cache=True)
def log_mixture_ratio(diff, var, tau2):
    """ln Lambda of the normal mixture N(0, ``tau2``) for a difference ``diff`` estimated with variance ``var`` > 0."""
    total = var + tau2
    return 0.5 * math.log(var / total) + tau2 * diff * diff / (2.0 * var * total)


@njit(cache=True)
def _eliminate(counts, sums, square_sums, active, tau2, log_level, burn_in):
    """One check of every pair of active arms: ``(arms still active, largest ln Lambda)``.

    Arm j is eliminated when an active arm i has a larger mean and ln Lambda_ij >= ``log_level``, both
    arms having ``burn_in`` samples at least and a positive variance V; the eliminations of one check
    are decided on the same statistics.  The best arm by mean is never eliminated, so one survives.
    """
    n = counts.shape[0]
    beaten = np.zeros(n, dtype=np.bool_)
    largest = 0.0
    for i in range(n):
        if not active[i] or counts[i] < burn_in:
            continue
        mean_i = sums[i] / counts[i]
        var_i = plugin_variance(counts[i], sums[i], square_sums[i]) / counts[i]
        for j in range(n):
            if j == i or not active[j] or counts[j] < burn_in:
                continue
            diff = mean_i - sums[j] / counts[j]
            if not diff > 0.0:
                continue
            var = var_i + plugin_variance(counts[j], sums[j], square_sums[j]) / counts[j]
            if not var > 0.0:
                continue
            value = log_mixture_ratio(diff, var, tau2)
            if value > largest:
                largest = value
            if value >= log_level:
                beaten[j] = True
    left = 0
    for j in range(n):
        if beaten[j]:
            active[j] = False
        if active[j]:
            left += 1
    return left, largest


@njit(cache=True)
def _next_arm(counts, active):
    """The least-sampled active arm (lowest index on ties): the round robin over the survivors."""
    best = -1
    for a in range(counts.shape[0]):
        if active[a] and (best < 0 or counts[a] < counts[best]):
            best = a
    return best


@njit(cache=True)
def _mixture_sprt_run(plan, truth, sd, bernoulli, noise, max_samples, counts, sums, est, square_sums, active, tau2,
                      log_level, burn_in):
    """A whole run (see :mod:`pybai.strategies._driver`): ``(t, statistic, checked, stopped)``."""
    n_plan = plan.shape[0]
    t = 0
    z = 0.0
    checked = False
    while True:
        a = plan[t] if t < n_plan else _next_arm(counts, active)
        r = draw_reward(noise, truth, sd, bernoulli, a)
        record(counts, sums, est, a, r)
        add_square(square_sums, a, r)
        t += 1
        if t >= n_plan:
            left, z = _eliminate(counts, sums, square_sums, active, tau2, log_level, burn_in)
            checked = True
            if left == 1:
                return t, z, checked, True
        if t >= max_samples:
            return t, z, checked, False


@register
class MixtureSPRT(SquareSums, OwnStoppingRun, Strategy):
    """Pairwise always-valid mixture SPRTs with Bonferroni and elimination (a practitioners' baseline, not proven).

    The arms still in the race are sampled in a round robin (least-sampled first, lowest index on
    ties).  After every sample each pair (i, j) of active arms with mean_i > mean_j is tested with
    the normal-mixture SPRT of Johari et al. on the difference of their means, with the plug-in
    variances s^2 = S2 / N - (S / N)^2 of each arm's rewards (p_hat (1 - p_hat) for conversions; the
    model's counts and sums, :mod:`pybai.strategies._moments`)
    and mixing standard deviation ``tau``; arm j is eliminated once ln Lambda_ij >= ln(m / delta),
    with m = K (K - 1) / 2 pairs (Bonferroni).  The run stops when one arm survives and recommends
    it (while running: the active arm of largest mean).  Pairs are tested once both arms have
    ``burn_in`` samples (the delayed start of deployed always-valid tests).

    How it stops: by its own elimination rule, not a GLR threshold (``threshold`` is ignored;
    :attr:`stopping_rule` is ``"mixture-sprt"``, never certified).  With a known variance each
    pairwise test has level delta / m at any stopping time; with the plug-in variance the level
    holds only asymptotically (large burn-in), so the rule carries no delta-correctness proof.

    ``tau`` is set as platforms set it, from the effect size the experimenter cares about: the
    leaderboard (docs/benchmarks.md) runs it at the true gap of the best two arms and at half of it.

    Parameters
    ----------
    tau : float, default 0.1
        Standard deviation of the normal mixture over the difference of means (the rewards' units).
    burn_in : int, default 100
        Samples of both arms before their pair is tested.
    threshold : str, default "heuristic"
        Ignored (the stop is the rule's own); accepted for the common interface.
    n_init : int, default 1

    References
    ----------
    R. Johari, P. Koomen, L. Pekelis, D. Walsh. Peeking at A/B tests: why it matters, and what to do
    about it. KDD 2017.  R. Johari, L. Pekelis, D. Walsh. Always valid inference: continuous
    monitoring of A/B tests. Operations Research 70(3), 2022, section 5 (the mixture SPRT, its
    always-valid p-values and their multiple-testing corrections).  H. Robbins. Statistical methods
    related to the law of the iterated logarithm. Ann. Math. Statist. 41(5), 1970 (the mixture SPRT).
    """

    active_ = StateArray()

    name = "mixture-sprt"
    goals = ("best-arm",)
    stopping_rule = "mixture-sprt"
    stops_on_statistics = False  # its own _should_stop, not the threshold's
    _state_attrs = ("square_sums_", "active_")

    def __init__(self, *, tau: float = 0.1, burn_in: int = 100, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.tau = tau
        self.burn_in = burn_in

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.tau, "tau", owner)
        if not self.tau <= 1e100:  # tau^2 must stay a float
            raise fail("tau", owner, "a positive float at most 1e100 (an effect size in the rewards' units)", self.tau)
        check_positive_int(self.burn_in, "burn_in", owner)

    def _initialize(self):
        n = self.problem_.n_sources
        self._init_squares(n)
        self._active_ = np.ones(n, dtype=bool)
        self._tau2 = self.problem_.family.learner_gap(float(self.tau)) ** 2  # in the model's units
        pairs = n * (n - 1) / 2.0
        self._log_level = math.log(max(pairs, 1.0) / float(self.problem_.regime.delta))

    def _own_loop(self, setup, rng):
        model = self.model_
        return _mixture_sprt_run(setup.plan, setup.arms.truth, setup.arms.sd, setup.arms.bernoulli, rng, setup.max_samples,
                                 model.counts, model.sums, model.estimate, self._square_sums_, self._active_,
                                 self._tau2, self._log_level, float(self.burn_in))

    def _select(self):
        return int(_next_arm(self.model_.counts, self._active_))

    def _should_stop(self) -> bool:
        """Eliminate the arms some active arm beats; stop when one is left (statistic: the largest ln Lambda)."""
        model = self.model_
        left, z = _eliminate(model.counts, model.sums, self._square_sums_, self._active_, self._tau2, self._log_level,
                             float(self.burn_in))
        self.statistic_ = float(z)
        return left == 1

    def _recommend(self):
        means = self.means_
        if np.isnan(means).all():
            return None
        return self.problem_.answer(np.where(self._active_ & ~np.isnan(means), means, -np.inf))
