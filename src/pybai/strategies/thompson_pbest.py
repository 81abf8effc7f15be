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
from pybai.strategies._driver import draw_reward, record
from pybai.strategies._own_stopping import OwnStoppingRun
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["ThompsonProbabilityBest"]

#: Gauss-Hermite nodes and weights for E f(Z), Z ~ N(0, 1) (probabilists' polynomials, weights / sqrt(2 pi))
_NODES, _WEIGHTS = hermegauss(48)
_WEIGHTS = _WEIGHTS / math.sqrt(2.0 * math.pi)

#: the posterior of each arm's mean: normal (known variance), Beta (0/1 rewards), Student t (estimated variance)
NORMAL, BETA, STUDENT = 0, 1, 2


@njit(cache=True)
def _posterior(mode, counts, sums, noise_var, mean, var, a, b):
    """Each arm's posterior (model units): its mean and variance, and its parameters ``a``, ``b``.

    ``BETA``: Beta(a, b) = Beta(1 + S, 1 + N - S) (the conjugate posterior of 0/1 rewards under a
    uniform prior).  ``NORMAL``: N(mean_hat, sigma^2 / N) with ``noise_var`` the known sigma^2 (the
    conjugate posterior under a flat prior); a = mean_hat, b = the standard deviation.  ``STUDENT``:
    mean_hat + s / sqrt(N) t_{N - 1} with ``noise_var`` the unbiased sample variance s^2 (the posterior
    under the prior 1 / sigma of an unknown variance); a = N - 1 degrees of freedom, b = s / sqrt(N),
    variance b^2 (N - 1) / (N - 3).  An arm without a posterior of finite variance yet (no sample, no
    variance estimate, or fewer than 4 samples under ``STUDENT``) gets b and a variance infinite: Thompson
    sampling takes it first, and the probability of being best is 0 until it has one.
    """
    for i in range(counts.shape[0]):
        n = counts[i]
        if mode == BETA:
            a[i] = 1.0 + sums[i]
            b[i] = 1.0 + n - sums[i]
            total = a[i] + b[i]
            mean[i] = a[i] / total
            var[i] = a[i] * b[i] / (total * total * (total + 1.0))
            continue
        if not (n > 0.0 and noise_var[i] == noise_var[i]):  # no sample, or no variance estimate yet
            mean[i] = 0.0
            var[i] = np.inf
            a[i] = 0.0
            b[i] = np.inf
            continue
        mean[i] = sums[i] / n
        if mode == NORMAL:
            a[i] = mean[i]
            b[i] = math.sqrt(noise_var[i] / n)
            var[i] = noise_var[i] / n
        elif n > 3.0:
            a[i] = n - 1.0
            b[i] = math.sqrt(noise_var[i] / n)
            var[i] = b[i] * b[i] * (n - 1.0) / (n - 3.0)
        else:  # a t posterior of infinite variance: sampled before any other (as an arm without a sample)
            a[i] = 0.0
            b[i] = np.inf
            var[i] = np.inf


@njit(cache=True)
def _thompson_arm(rng, mode, mean, a, b):
    """The arm of largest posterior draw (one draw per arm from the rule's generator; lowest index on ties)."""
    best = 0
    best_draw = -np.inf
    for i in range(mean.shape[0]):
        if mode == BETA:
            draw = rng.beta(a[i], b[i])
        elif b[i] == np.inf:  # no usable posterior yet: this arm first
            draw = np.inf
        elif mode == NORMAL:
            draw = mean[i] + b[i] * rng.standard_normal()
        else:
            draw = mean[i] + b[i] * rng.standard_t(a[i])
        if draw > best_draw:
            best_draw = draw
            best = i
    return best


@njit(cache=True)
def _prob_best(mean, var, nodes, weights):
    """P(the arm of largest posterior mean is best): E over its posterior of prod_b P(mu_b < x).

    Each posterior replaced by the normal law of the same mean and variance; 48-point Gauss-Hermite.
    0 while an arm's variance is infinite (nothing known yet).
    """
    for j in range(var.shape[0]):
        if var[j] == np.inf:
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
def _thompson_pbest_run(plan, truth, sd, bernoulli, noise, max_samples, counts, sums, est, mode, noise_var, level,
                        rng, nodes, weights):
    """A whole run (see :mod:`pybai.strategies._driver`; known variances or 0/1 rewards):
    ``(t, statistic, checked, stopped)``."""
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
            _posterior(mode, counts, sums, noise_var, mean, var, a_, b_)
            a = _thompson_arm(rng, mode, mean, a_, b_)
        record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
        t += 1
        if t >= n_plan:
            _posterior(mode, counts, sums, noise_var, mean, var, a_, b_)
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
    arm of largest draw (Thompson 1933).  The posterior of an arm's mean, read from the family:

    * when the learner estimates the variances (``sample_sd`` of the family: unknown-variance
      Gaussian, bounded rewards): mean_hat + s / sqrt(N) t_{N-1}, s^2 the learner's variance estimate
      (the posterior of a normal mean under the prior 1 / sigma), once the arm has 4 samples (a finite
      posterior variance; until then the arm is sampled first);
    * else for rewards in a bounded interval (0/1 conversions): Beta(1 + S, 1 + N - S) (uniform prior);
    * else N(mean_hat, sigma^2 / N) with the known variance (flat prior).

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
    stops_on_statistics = False  # its own _should_stop, not the threshold's
    _plain_pieces_only = False  # its loop reads counts, sums and the family, never the problem's pieces

    def __init__(self, *, confidence: float = 0.95, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.confidence = confidence

    def _check_params(self, problem):
        super()._check_params(problem)
        check_probability(self.confidence, "confidence", type(self).__name__)

    def _initialize(self):
        n = self.problem_.n_sources
        family = self.problem_.family
        low, high = (float(x) for x in family.learner_means(np.array(family.support, dtype=float)))  # model units
        if family.sample_sd(self.model_) is not None:  # the learner estimates the variances
            self._mode = STUDENT
        elif math.isfinite(low) and math.isfinite(high):
            self._mode = BETA
        else:
            self._mode = NORMAL
        self._work = tuple(np.empty(n) for _ in range(4))  # posterior means, variances, parameters a and b

    def _noise_var(self) -> np.ndarray:
        """Per arm, the variance the posterior reads (model units): the known one, the estimated one, or unused."""
        family = self.problem_.family
        if self._mode == STUDENT:
            sd = np.asarray(family.sample_sd(self.model_), dtype=float)
            return np.array([family.learner_gap(x) ** 2 for x in sd.tolist()])
        if self._mode == NORMAL:
            return np.asarray(family.variances, dtype=float)
        return self._work[3]  # unused by the Beta posterior

    def _own_loop(self, setup, rng):
        model = self.model_
        return _thompson_pbest_run(setup.plan, setup.arms.truth, setup.arms.sd, setup.arms.bernoulli, rng, setup.max_samples,
                                   model.counts, model.sums, model.estimate, self._mode, self._noise_var(),
                                   float(self.confidence), self.rng_, _NODES, _WEIGHTS)

    def _update_posterior(self):
        model = self.model_  # the believer's while requests are outstanding (counts plus pending)
        _posterior(self._mode, model.counts, model.sums, self._noise_var(), *self._work)

    def _select(self):
        self._update_posterior()
        mean, _, a, b = self._work
        return int(_thompson_arm(self.rng_, self._mode, mean, a, b))

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
