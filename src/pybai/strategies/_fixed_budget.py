"""Shared helpers of the fixed-budget rules of the correlated-arms family (Hoffman et al. 2014).

:class:`PosteriorRule` is the base of rules that read a Gaussian posterior over the arm means
(``self.model_.std``, ``.root``, ``.kappa()``): they require ``"posterior"`` (the base refuses
a problem whose :attr:`~pybai.problems.base.Problem.provides` lacks it), and they skip the
initial phase (the prior defines every estimate from the start, as in Algorithm 1; ``n_init``
is then unused).
:func:`empirical_means`, :func:`noise_std` and :func:`noise_scale` serve the rules on
independent arms (UCBE, UGapEb, successive rejects, sequential halving), which work on any
best-arm problem from the per-arm counts and sums; the noise level is the family's own
(:attr:`pybai.models.families.Family.sub_gaussian_scale`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from pybai._validation import check_array
from pybai.strategies.base import Strategy

if TYPE_CHECKING:
    from pybai.problems.base import Problem

__all__ = ["GapEpsilon", "PosteriorRule", "empirical_means", "noise_scale", "noise_std"]


class GapEpsilon:
    """Mixin of the gap rules (``bayes-gap``, ``ugap``): the epsilon of the hardness ``H_eps``.

    ``epsilon = None`` (default) takes the problem's epsilon (``[problem] epsilon``, the
    tolerance of the reported probability of error), or 0 when the problem has none (the value
    of every experiment of Hoffman et al. 2014).  Put it first among the bases:
    ``class BayesGap(GapEpsilon, PosteriorRule)``.
    """

    problem_: Problem  # set by the Strategy this mixin is combined with

    def __init__(self, *, epsilon: float | None = None, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)  # type: ignore[call-arg]  # the next base in the MRO is a Strategy
        self.epsilon = epsilon

    def _check_params(self, problem):
        super()._check_params(problem)
        if self.epsilon is not None:
            check_array(self.epsilon, "epsilon", type(self).__name__, shape=(), low=0.0)

    def _epsilon(self) -> float:
        """The epsilon in use: the strategy's, else the problem's error tolerance, else 0."""
        if self.epsilon is not None:
            return float(self.epsilon)
        return float(self.problem_.error_tolerance or 0.0)


class PosteriorRule(Strategy):
    """Base of fixed-budget rules that need a posterior over correlated arm means."""

    regimes = ("fixed-budget",)
    goals = ("best-arm",)
    #: a posterior over the arm means (correlated problems)
    requires = frozenset({"independent-arms", "posterior"})

    def _initial_plan(self, problem):
        return np.empty(0, dtype=np.intp)

    def _initial_size(self, problem):
        return self.n_init  # a lower bound (the plan is empty: the prior defines every mean)


class ImprovementRule(PosteriorRule):
    """Base of the improvement acquisitions (PI, EI): pull the arm maximising ``_index``.

    ``_index(mean, std, xi)`` scores every arm from the posterior mean and standard deviation;
    ``xi >= 0`` is the margin over the incumbent (the best posterior mean).
    """

    _index: Callable[..., np.ndarray] | None = None  # set by subclasses (a function of the posterior mean, std and xi)

    def __init__(self, *, xi: float = 0.0, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.xi = xi

    def _check_params(self, problem):
        super()._check_params(problem)
        check_array(self.xi, "xi", type(self).__name__, shape=(), low=0.0)

    def _select(self):
        m = self.model_
        return int(np.argmax(type(self)._index(m.estimate, m.std, xi=float(self.xi))))


def empirical_means(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Per-arm sample means (NaN for an arm never pulled), whatever the problem's model."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)


def noise_std(family) -> float:
    """The family's sub-Gaussian scale: the largest sigma for Gaussian rewards, 1/2 for Bernoulli."""
    return family.sub_gaussian_scale


def noise_scale(family) -> float:
    """Width factor of UCBE/UGapEb bounds, twice the sub-Gaussian scale.

    ``2 sigma`` for Gaussian rewards; 1 for Bernoulli, Hoeffding's range b of rewards in [0, 1]
    (both give the deviation probability ``2 exp(-2a)`` at width ``b sqrt(a / N)``).
    """
    return 2.0 * family.sub_gaussian_scale
