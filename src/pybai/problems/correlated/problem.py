"""Best-arm identification on correlated Gaussian arms with a known prior (Hoffman et al. 2014).

The goal and its math (answer, GLR, oracle) are those of :class:`BestArmProblem` with Gaussian
rewards of known noise ``sigma``; what changes is the learner's model: the Gaussian posterior
over the arm means under the prior ``N(prior_mean, eta^2 G)`` (section 4 of the paper), so every
estimate is defined from the start and strategies can read the posterior covariance.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, fail
from pybai.models.families import Family
from pybai.models.posterior import GaussianPosterior
from pybai.problems.base import BatchSpec
from pybai.problems.best_arm import BestArmProblem

__all__ = ["CorrelatedBestArmProblem"]

_OWNER = "CorrelatedBestArmProblem"


class CorrelatedBestArmProblem(BestArmProblem):
    """Identify the arm with the largest mean when the means are correlated through a known prior.

    Parameters
    ----------
    n_arms : int
        Number of arms K >= 2.
    family : Family
        Gaussian rewards with variance ``sigma^2`` for every arm.
    covariance : array-like of shape (K, K)
        Prior correlation structure G.
    sigma : float > 0
        Known noise standard deviation.
    eta : float > 0, default 1.0
        Prior scale (prior covariance ``eta^2 G``).
    prior_mean : float or array-like of shape (K,), default 0.0
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    epsilon : float >= 0, optional
        Fixed budget: tolerance of the reported probability of error; fixed confidence: additive
        epsilon-best-arm identification on the posterior means (see :class:`BestArmProblem`).
    labels : list of str, optional
        One distinct name per arm, shown wherever the arm is (:mod:`pybai.naming`); no effect on the math.

    Examples
    --------
    >>> import numpy as np
    >>> from pybai import FixedBudget, Gaussian
    >>> p = CorrelatedBestArmProblem(2, Gaussian(1.0, n_sources=2), np.eye(2), 1.0, regime=FixedBudget(10))
    >>> p.new_model().std.tolist()
    [1.0, 1.0]
    """

    provides = frozenset({"independent-arms", "answer-mask", "posterior"})

    def __init__(self, n_arms: int, family: Family, covariance, sigma, eta=1.0, prior_mean=0.0, *,
                 regime, batch: BatchSpec | None = None, epsilon=None, labels=None):
        super().__init__(n_arms, family, regime, batch, epsilon=epsilon, labels=labels)
        if family.name != "gaussian":
            raise fail("family", _OWNER, "a Gaussian family (the posterior needs Gaussian noise)", family.name)
        sigma = check_positive_float(sigma, "sigma", _OWNER)
        if not np.allclose(family.variances, sigma**2):
            raise fail("sigma", _OWNER, "the noise of the family (variance sigma^2 for every arm)", sigma)
        self._prior = GaussianPosterior(covariance, sigma, eta, prior_mean)
        if self._prior.n_sources != self.n_arms:
            raise fail("covariance", _OWNER, f"a {self.n_arms} x {self.n_arms} matrix",
                       f"shape {self._prior.prior_covariance.shape}")

    @property
    def covariance(self) -> np.ndarray:
        """The prior correlation structure G."""
        return self._prior.prior_covariance

    @property
    def sigma(self) -> float:
        return self._prior.sigma

    @property
    def eta(self) -> float:
        return self._prior.eta

    @property
    def prior_mean(self) -> np.ndarray:
        return self._prior.prior_mean

    def new_model(self) -> GaussianPosterior:
        """The prior: a fresh :class:`~pybai.models.posterior.GaussianPosterior` (no re-factorisation)."""
        return self._prior.prior_copy()

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(covariance=self.covariance.tolist(), sigma=self.sigma, eta=self.eta,
                   prior_mean=self.prior_mean.tolist())
        return out
