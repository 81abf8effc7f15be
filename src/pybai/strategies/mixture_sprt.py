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
def _eliminate(counts, sums, square_sums, active, tau2, log_level, burn_in, margin):
    """One check of every pair of active arms: ``(arms still active, statistic, leader certified)``.

    Arm j is eliminated when an active arm i has a larger mean and ln Lambda_ij >= ``log_level``, both
    arms having ``burn_in`` samples at least and a positive variance V; the eliminations of one check
    are decided on the same statistics.  The best arm by mean is never eliminated, so one survives.
    With a ``margin`` e > 0 (the epsilon in the model's units) the leader l left (largest mean, lowest
    index on ties) is then certified when, against every other active arm j, ln Lambda of the shifted
    difference mean_l - mean_j + e is >= ``log_level`` (both arms with ``burn_in`` samples, V > 0).
    The statistic is the largest ln Lambda of the eliminations, or the leader's smallest shifted
    ln Lambda if it is larger; with e = 0 no certification is tried.
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
    if not margin > 0.0 or left < 2:
        return left, largest, False
    weakest = _certify(counts, sums, square_sums, active, tau2, burn_in, margin)
    if weakest > largest:
        largest = weakest
    return left, largest, bool(weakest >= log_level)


@njit(cache=True)
def _certify(counts, sums, square_sums, active, tau2, burn_in, margin):
    """The leader's smallest ln Lambda of mean_l - mean_j + ``margin`` over the other active arms j
    (-inf when some pair has fewer than ``burn_in`` samples of an arm or no positive variance)."""
    n = counts.shape[0]
    leader = -1
    for a in range(n):
        if not active[a]:
            continue
        if counts[a] < burn_in:
            return -np.inf
        if leader < 0 or sums[a] / counts[a] > sums[leader] / counts[leader]:
            leader = a
    mean_l = sums[leader] / counts[leader]
    var_l = plugin_variance(counts[leader], sums[leader], square_sums[leader]) / counts[leader]
    weakest = np.inf
    for j in range(n):
        if j == leader or not active[j]:
            continue
        var = var_l + plugin_variance(counts[j], sums[j], square_sums[j]) / counts[j]
        if not var > 0.0:
            return -np.inf
        value = log_mixture_ratio(mean_l - sums[j] / counts[j] + margin, var, tau2)
        if value < weakest:
            weakest = value
    return weakest


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
                      log_level, burn_in, margin):
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
            left, z, certified = _eliminate(counts, sums, square_sums, active, tau2, log_level, burn_in, margin)
            checked = True
            if left == 1 or certified:
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

    With a non-inferiority margin ``epsilon`` > 0 each pair's test is read as the always-valid
    confidence interval of mu_i - mu_j it defines (the mixture SPRT inverted): after the eliminations
    of a check, the leader l (largest mean among the active arms, lowest index on ties) is certified
    when, against every other active arm j, ln Lambda(mean_l - mean_j + epsilon) >= ln(m / delta)
    (the interval lies above -epsilon), and the run stops on it.  When all m intervals cover, the best
    arm is never eliminated and a certified leader is within epsilon of it.  ``epsilon = 0`` is the
    rule without a margin, bit for bit.  The problem's epsilon is not read (it decides which answers
    count as correct): give both the same value.

    Parameters
    ----------
    tau : float, default 0.1
        Standard deviation of the normal mixture over the difference of means (the rewards' units).
    burn_in : int, default 100
        Samples of both arms before their pair is tested.
    epsilon : float >= 0, default 0
        Additive non-inferiority margin in the rewards' units: the run also stops when the leader is
        certified within epsilon of every other active arm.
    threshold : str, default "heuristic"
        Ignored (the stop is the rule's own); accepted for the common interface.
    n_init : int, default 1

    References
    ----------
    R. Johari, P. Koomen, L. Pekelis, D. Walsh. Peeking at A/B tests: why it matters, and what to do
    about it. KDD 2017.  R. Johari, L. Pekelis, D. Walsh. Always valid inference: continuous
    monitoring of A/B tests. Operations Research 70(3), 2022, section 5 (the mixture SPRT, its
    always-valid p-values, confidence intervals and their multiple-testing corrections).  H. Robbins. Statistical methods
    related to the law of the iterated logarithm. Ann. Math. Statist. 41(5), 1970 (the mixture SPRT).
    """

    active_ = StateArray()

    name = "mixture-sprt"
    goals = ("best-arm",)
    stopping_rule = "mixture-sprt"
    stops_on_statistics = False  # its own _should_stop, not the threshold's
    _state_attrs = ("square_sums_", "active_")
    _plain_pieces_only = False  # its loop reads counts and sums only, never the problem's pieces

    def __init__(self, *, tau: float = 0.1, burn_in: int = 100, epsilon: float = 0.0, threshold: str | None = None,
                 n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.tau = tau
        self.burn_in = burn_in
        self.epsilon = epsilon

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.tau, "tau", owner)
        if not self.tau <= 1e100:  # tau^2 must stay a float
            raise fail("tau", owner, "a positive float at most 1e100 (an effect size in the rewards' units)", self.tau)
        check_positive_int(self.burn_in, "burn_in", owner)
        check_positive_float(self.epsilon, "epsilon", owner, allow_zero=True)
        if not self.epsilon <= 1e100:  # mean_l - mean_j + epsilon must stay a float
            raise fail("epsilon", owner, "a float >= 0 at most 1e100 (a margin in the rewards' units)", self.epsilon)

    def _initialize(self):
        n = self.problem_.n_sources
        self._init_squares(n)
        self._active_ = np.ones(n, dtype=bool)
        self._tau2 = self.problem_.family.learner_gap(float(self.tau)) ** 2  # in the model's units
        pairs = n * (n - 1) / 2.0
        self._log_level = math.log(max(pairs, 1.0) / float(self.problem_.regime.delta))
        self._margin = self.problem_.family.learner_gap(float(self.epsilon)) if self.epsilon > 0 else 0.0

    def _own_loop(self, setup, rng):
        model = self.model_
        return _mixture_sprt_run(setup.plan, setup.arms.truth, setup.arms.sd, setup.arms.bernoulli, rng, setup.max_samples,
                                 model.counts, model.sums, model.estimate, self._square_sums_, self._active_,
                                 self._tau2, self._log_level, float(self.burn_in), self._margin)

    def _select(self):
        return int(_next_arm(self.model_.counts, self._active_))

    def _should_stop(self) -> bool:
        """Eliminate the arms some active arm beats; stop when one is left or, with an epsilon, the leader is
        certified within epsilon of the others (statistic: the largest ln Lambda, :func:`_eliminate`)."""
        model = self.model_
        left, z, certified = _eliminate(model.counts, model.sums, self._square_sums_, self._active_, self._tau2,
                                        self._log_level, float(self.burn_in), self._margin)
        self.statistic_ = float(z)
        return left == 1 or certified

    def _recommend(self):
        means = self.means_
        if np.isnan(means).all():
            return None
        return self.problem_.answer(np.where(self._active_ & ~np.isnan(means), means, -np.inf))
