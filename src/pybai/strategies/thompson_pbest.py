"""Thompson sampling stopped when the posterior probability that the leader is best exceeds a level (a heuristic).

The stopping rule of Bayesian A/B-testing and bandit tools (Scott 2010, 2015: Google Analytics'
content experiments ended when one arm's posterior probability of being optimal exceeded 0.95).
It has no frequentist guarantee: P(best) > 0.95 is not an error rate of 5% or less, and the rule
is evaluated after every sample, so its error rate (shown beside its samples on the leaderboard,
docs/benchmarks.md) is what it is.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.polynomial.hermite_e import hermegauss

from pybai._validation import check_probability
from pybai.stopping.thresholds import DEFAULT_KIND
from pybai.strategies._compiled import draw_reward, record
from pybai.strategies._own_stopping import OwnStoppingRun
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["ThompsonProbabilityBest"]

#: Gauss-Hermite nodes and weights for E f(Z), Z ~ N(0, 1) (probabilists' polynomials, weights / sqrt(2 pi))
_NODES, _WEIGHTS = hermegauss(48)
_WEIGHTS = _WEIGHTS / math.sqrt(2.0 * math.pi)


@njit(cache=True)
def _posterior(counts, sums, noise_var, low, width, bounded, mean, var, a, b):
    """Each arm's posterior: mean and variance, and for rewards in [low, low + width] its Beta(a, b) (rescaled units).

    Bounded rewards: Beta(1 + S', 1 + N - S') with S' the sum of the rescaled rewards (the conjugate
    posterior of Bernoulli arms under a uniform prior).  Otherwise N(mean_hat, sigma^2 / N) with the
    family's variance ``noise_var`` (the conjugate posterior of Gaussian arms of known variance under
    a flat prior; the learner's estimate when the variances are unknown).
    """
    for i in range(counts.shape[0]):
        n = counts[i]
        if bounded:
            s = (sums[i] - n * low) / width
            a[i] = 1.0 + s
            b[i] = 1.0 + n - s
            total = a[i] + b[i]
            mean[i] = a[i] / total
            var[i] = a[i] * b[i] / (total * total * (total + 1.0))
        elif n > 0.0:
            mean[i] = sums[i] / n
            var[i] = noise_var[i] / n
        else:  # no sample (a problem whose model estimates unsampled arms): the flat prior
            mean[i] = 0.0
            var[i] = np.inf


@njit(cache=True)
def _thompson_arm(rng, mean, var, a, b, bounded):
    """The arm of largest posterior draw (one draw per arm from the rule's generator; lowest index on ties)."""
    best = 0
    best_draw = -np.inf
    for i in range(mean.shape[0]):
        if bounded:
            draw = rng.beta(a[i], b[i])
        elif var[i] == np.inf:
            draw = np.inf
        else:
            draw = mean[i] + math.sqrt(var[i]) * rng.standard_normal()
        if draw > best_draw:
            best_draw = draw
            best = i
    return best


@njit(cache=True)
def _prob_best(mean, var, nodes, weights):
    """P(the arm of largest posterior mean is best): E over its posterior of prod_b P(mu_b < x).

    Each posterior replaced by the normal law of the same mean and variance; 48-point Gauss-Hermite.
    """
    for j in range(var.shape[0]):
        if var[j] == np.inf:  # an arm without a sample: nothing is known yet
            return 0.0
    leader = np.argmax(mean)
    sd_l = math.sqrt(var[leader])
    total = 0.0
    for q in range(nodes.shape[0]):
        x = mean[leader] + sd_l * nodes[q]
        prod = 1.0
        for j in range(mean.shape[0]):
            if j == leader:
                continue
            sd = math.sqrt(var[j])
            if sd > 0.0:
                prod *= 0.5 * math.erfc(-(x - mean[j]) / (sd * math.sqrt(2.0)))
            elif x < mean[j]:
                prod = 0.0
        total += weights[q] * prod
    return total


@njit(cache=True)
def _thompson_pbest_run(plan, truth, sd, bernoulli, noise, max_samples, counts, sums, est, noise_var, low, width,
                        bounded, level, rng, nodes, weights):
    """A whole run (see :mod:`pybai.strategies._compiled`): ``(t, statistic, checked, stopped)``."""
    n_plan = plan.shape[0]
    n = counts.shape[0]
    mean = np.empty(n)
    var = np.empty(n)
    a_ = np.empty(n)
    b_ = np.empty(n)
    t = 0
    z = 0.0
    checked = False
    while True:
        if t < n_plan:
            a = plan[t]
        else:
            _posterior(counts, sums, noise_var, low, width, bounded, mean, var, a_, b_)
            a = _thompson_arm(rng, mean, var, a_, b_, bounded)
        record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
        t += 1
        if t >= n_plan:
            _posterior(counts, sums, noise_var, low, width, bounded, mean, var, a_, b_)
            z = _prob_best(mean, var, nodes, weights)
            checked = True
            if z > level:
                return t, z, checked, True
        if t >= max_samples:
            return t, z, checked, False


@register
class ThompsonProbabilityBest(OwnStoppingRun, Strategy):
    """Thompson sampling that stops when P(leader is best | data) > ``confidence`` (a heuristic, not proven).

    Each step draws one mean per arm from its posterior (with the rule's generator) and samples the
    arm of largest draw (Thompson 1933).  Posteriors: for rewards in a bounded interval [low, high]
    (Bernoulli conversions, bounded rewards) Beta(1 + S', 1 + N - S') on the rescaled mean, S' the sum
    of the rewards rescaled to [0, 1] (exact for 0/1 rewards under a uniform prior); otherwise
    N(mean_hat, sigma^2 / N) with the family's variance (exact for Gaussian arms of known variance
    under a flat prior; the learner's estimate when the variances are unknown).

    How it stops: after every sample, when the posterior probability that the arm of largest posterior
    mean is the best exceeds ``confidence``, computed with each posterior replaced by the normal law of
    the same mean and variance (48-point Gauss-Hermite quadrature; accurate once an arm has a few dozen
    samples); it recommends that arm.  ``threshold`` is ignored (:attr:`stopping_rule` is
    ``"posterior-probability"``, never certified): the rule has no delta-correctness guarantee, and
    the leaderboard reports its error rate.

    Parameters
    ----------
    confidence : float in (0, 1), default 0.95
        The posterior probability of being best at which the run stops (0.95: Scott 2015).
    threshold : str, default "heuristic"
        Ignored; accepted for the common interface.
    n_init : int, default 1

    References
    ----------
    W. R. Thompson. On the likelihood that one unknown probability exceeds another in view of the
    evidence of two samples. Biometrika 25, 1933.  S. L. Scott. A modern Bayesian look at the
    multi-armed bandit. Applied Stochastic Models in Business and Industry 26(6), 2010.  S. L. Scott.
    Multi-armed bandit experiments in the online service economy. Applied Stochastic Models in
    Business and Industry 31(1), 2015 (the 0.95 stopping level of Google Analytics' experiments).
    """

    name = "thompson-pbest"
    goals = ("best-arm",)
    stopping_rule = "posterior-probability"

    def __init__(self, *, confidence: float = 0.95, threshold: str = DEFAULT_KIND, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.confidence = confidence

    def _check_params(self, problem):
        super()._check_params(problem)
        check_probability(self.confidence, "confidence", type(self).__name__)

    def _initialize(self):
        n = self.problem_.n_sources
        family = self.problem_.family
        low, high = (float(x) for x in family.learner_means(np.array(family.support, dtype=float)))  # the model's units
        self._bounded = math.isfinite(low) and math.isfinite(high)
        self._low, self._width = (float(low), float(high - low)) if self._bounded else (0.0, 1.0)
        self._work = tuple(np.empty(n) for _ in range(4))  # posterior means, variances, Beta parameters
        self._ones = np.ones(n)

    def _own_loop(self, setup, rng):
        model = self.model_
        return _thompson_pbest_run(setup.plan, setup.truth, setup.sd, setup.bernoulli, rng, setup.max_samples,
                                   model.counts, model.sums, model.estimate, self._noise_var(), self._low, self._width, self._bounded, float(self.confidence), self.rng_,
                                   _NODES, _WEIGHTS)

    def _noise_var(self) -> np.ndarray:
        """The family's per-arm variances (the learner's estimates when unknown; unused for bounded rewards)."""
        return self._ones if self._bounded else np.asarray(self.problem_.family.variances, dtype=float)

    def _update_posterior(self):
        model = self.model_  # the believer's while requests are outstanding (counts plus pending)
        _posterior(model.counts, model.sums, self._noise_var(), self._low, self._width, self._bounded, *self._work)

    def _select(self):
        self._update_posterior()
        mean, var, a, b = self._work
        return int(_thompson_arm(self.rng_, mean, var, a, b, self._bounded))

    def _should_stop(self) -> bool:
        """Stop when P(leader is best) > confidence (the statistic: that probability)."""
        self._update_posterior()
        mean, var = self._work[0], self._work[1]
        self.statistic_ = float(_prob_best(mean, var, _NODES, _WEIGHTS))
        return self.statistic_ > self.confidence

    def _recommend(self):
        if np.isnan(self.means_).any():
            return super()._recommend()
        self._update_posterior()
        return self.problem_.answer(self._work[0].copy())
