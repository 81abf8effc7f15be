"""The practitioners' fixed-horizon A/B/n test: a sample size from a power analysis, uniform sampling, the empirical best.

Not a sequential rule: the horizon is fixed before the first sample, from the minimum detectable
effect ``mde``, the confidence ``1 - delta`` and the power (default 0.95), and the run ends there
whatever the data say.  It is a baseline for the leaderboard (docs/benchmarks.md), not a proven
delta-correct rule: it errs with probability at most delta only when the gap between the best two
arms is at least ``mde`` and the variance guess is right (and then only up to the normal
approximation of the z-test), and with up to 1/2 when the gap is smaller.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import ndtri  # the normal quantile (what scipy.stats.norm.ppf calls)

from pybai._validation import check_positive_float, check_probability
from pybai.strategies._driver import draw_reward, record
from pybai.strategies._own_stopping import OwnStoppingRun
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["FixedHorizon", "power_horizon"]


def power_horizon(n_arms: int, mde: float, variance: float, delta: float, power: float = 0.95) -> int:
    """Samples of a fixed-horizon A/B/n test: ``n_arms`` times the per-arm sample size of a two-sample z-test.

    n = ceil((z_{1 - delta / (2 m)} + z_{power})^2 (2 variance) / mde^2) per arm, with m = n_arms - 1
    comparisons (the best arm against each other one, Bonferroni) at the two-sided level delta / m and
    power ``power`` against a difference of ``mde``: the textbook sample size of a comparison of two
    means with equal variances (e.g. Chow, Shao & Wang, *Sample Size Calculations in Clinical
    Research*, 2nd ed. 2008, section 3.2; for proportions the same with the binomial variance).

    >>> power_horizon(2, 0.2, 1.0, 0.05, 0.8)   # 2 x ceil(7.849 x 2 / 0.04) = 2 x 393
    786
    """
    comparisons = max(n_arms - 1, 1)
    z = -ndtri(delta / (2.0 * comparisons)) + ndtri(power)
    per_arm = min(z * z * 2.0 * variance / (mde * mde), 2.0 ** 62)  # beyond any run (and never inf): censored
    return n_arms * int(math.ceil(per_arm))


@njit(cache=True)
def _least_sampled(counts):
    """The least-sampled arm, lowest index on ties (the round robin)."""
    return np.argmin(counts)


@njit(cache=True)
def _fixed_horizon_run(plan, truth, sd, bernoulli, noise, horizon, max_samples, counts, sums, est):
    """A whole run (see :mod:`pybai.strategies._driver`): the round robin to ``horizon`` samples.

    Returns ``(t, stopped)``: the samples taken, and whether the horizon was reached (else the run
    reached ``max_samples`` first: censored).
    """
    n_plan = plan.shape[0]
    t = 0
    while True:
        a = plan[t] if t < n_plan else _least_sampled(counts)
        record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
        t += 1
        if t >= n_plan and t >= horizon:
            return t, True
        if t >= max_samples:
            return t, False


@register
class FixedHorizon(OwnStoppingRun, Strategy):
    """A fixed-horizon A/B/n test sized by a power analysis (a practitioners' baseline, not proven).

    Before the first sample the horizon is set by :func:`power_horizon`: every arm gets the
    per-arm sample size of a two-sided two-sample z-test at level delta / (K - 1) (Bonferroni over
    the K - 1 comparisons of the best arm with the others) with power ``power`` against a difference
    of means ``mde``, under a per-arm reward variance ``variance``.  The arms are sampled in a round
    robin (least-sampled first, lowest index on ties) until the horizon, and the run recommends the
    empirical best arm (as the analyst reads the winner off the final table).

    How it stops: at the horizon, whatever the data (``threshold`` is ignored; :attr:`stopping_rule`
    is ``"fixed-horizon"``, never certified).  It is correct with probability 1 - delta only when
    the best two arms differ by at least ``mde`` and ``variance`` bounds the rewards' variance; with
    ``mde`` at half the true gap it is correct but spends about four times the samples.  A run
    whose horizon exceeds ``max_samples`` is censored there.

    Parameters
    ----------
    mde : float, default 0.1
        The minimum detectable effect: the difference of means (in the rewards' units) the test is
        powered to detect.  The leaderboard runs it at the true gap of the best two arms and at half of it.
    variance : float or None, default None
        The per-arm reward variance assumed by the power analysis (for conversion rates near p:
        p (1 - p)).  None: the square of the family's sub-Gaussian scale (the known sigma of
        Gaussian arms, 1/4 for rewards in [0, 1]: the worst case).  Rewards without a known noise
        scale (``reward_model = "gaussian-unknown-variance"``) are refused.
    power : float in (0, 1), default 0.95
    threshold : str, default "heuristic"
        Ignored (the stop is the horizon); accepted for the common interface.
    n_init : int, default 1

    References
    ----------
    S.-C. Chow, J. Shao, H. Wang. Sample Size Calculations in Clinical Research, 2nd ed., Chapman &
    Hall/CRC, 2008, section 3.2 (two-sample comparison of means).  R. Kohavi, D. Tang, Y. Xu.
    Trustworthy Online Controlled Experiments, Cambridge University Press, 2020, chapter 17 (the
    sample size of an A/B test from its minimum detectable effect).
    """

    name = "fixed-horizon"
    goals = ("best-arm",)
    #: the power analysis needs a noise scale: the family's known one (or a variance guess on its scale)
    requires = frozenset({"independent-arms", "known-noise"})
    stopping_rule = "fixed-horizon"
    stops_on_statistics = False  # its own _should_stop, not the threshold's

    def __init__(self, *, mde: float = 0.1, variance: float | None = None, power: float = 0.95,
                 threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.mde = mde
        self.variance = variance
        self.power = power

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.mde, "mde", owner)
        if self.variance is not None:
            check_positive_float(self.variance, "variance", owner)
        check_probability(self.power, "power", owner)

    def _initialize(self):
        family = self.problem_.family
        # the learner's units (bounded rewards are rescaled): the gap and the variance in the same units
        mde = family.learner_gap(float(self.mde))
        if self.variance is None:
            variance = float(family.sub_gaussian_scale) ** 2
        else:
            variance = float(self.variance) * (mde / float(self.mde)) ** 2
        self._variance = variance
        self.horizon_ = power_horizon(self.problem_.n_sources, mde, variance, float(self.problem_.regime.delta),
                                      float(self.power))

    def _own_loop(self, setup, rng):
        model = self.model_
        t, stopped = _fixed_horizon_run(setup.plan, setup.arms.truth, setup.arms.sd, setup.arms.bernoulli, rng, self.horizon_,
                                        setup.max_samples, model.counts, model.sums, model.estimate)
        checked = t >= setup.plan.shape[0]
        return t, self._z_statistic() if checked else 0.0, checked, stopped

    def _select(self):
        return int(_least_sampled(self.model_.counts))

    def _should_stop(self) -> bool:
        """Stop at the horizon (the statistic shown is the z-score of the best two arms, for information)."""
        self.statistic_ = self._z_statistic()
        return self.t_ >= self.horizon_

    def _z_statistic(self) -> float:
        """|mean_1 - mean_2| / sqrt(2 variance / n) of the best two arms at their mean count (the test's z-score)."""
        means = self.model_.estimate
        if means.shape[0] < 2:
            return 0.0
        top = np.sort(means)[-2:]
        return float((top[1] - top[0]) / math.sqrt(2.0 * self._variance / max(float(self.model_.counts.mean()), 1.0)))
