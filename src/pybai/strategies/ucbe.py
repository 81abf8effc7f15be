"""UCBE (Audibert, Bubeck and Munos 2010): upper confidence index on independent empirical means."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float
from pybai.fixed_budget.gaps import adaptive_gaps
from pybai.fixed_budget.indices import UCBE_C, independent_hardness, ucbe_exploration, ucbe_index
from pybai.strategies._fixed_budget import empirical_means, noise_scale, noise_std
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["UCBE"]


@register
class UCBE(Strategy):
    """UCBE: pull ``argmax_k mu_hat_k + b sqrt(a / N_k)``; recommend the best empirical mean.

    ``a = c (T - K) / H_1`` with ``H_1`` estimated adaptively from the standard errors
    (:mod:`pybai.fixed_budget.indices`); ``b = 2 sigma`` (Gaussian) or 1 (Bernoulli).  Works on any
    best-arm problem from per-arm counts and sums (a correlated prior is ignored).

    Parameters
    ----------
    c : float > 0, default 25/36
        Fraction of the theory's largest exploration parameter.
    threshold : unused (fixed budget)
    n_init : int, default 1
    """

    name = "ucbe"
    requires = frozenset({"independent-arms", "known-noise"})  # confidence widths need the noise scale
    regimes = ("fixed-budget",)

    def __init__(self, *, c: float = UCBE_C, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.c = c

    def _check_params(self, problem):
        super()._check_params(problem)
        check_positive_float(self.c, "c", type(self).__name__)

    def _initialize(self):
        family = self.problem_.family
        self._sigma = noise_std(family)
        self._scale = noise_scale(family)
        self._budget = self.problem_.regime.budget

    def _select(self):
        counts = self.counts_
        mu = empirical_means(counts, self.sums_)
        h1 = independent_hardness(adaptive_gaps(mu, self._sigma / np.sqrt(counts)))
        a = ucbe_exploration(self._budget, counts.shape[0], h1, self.c)
        return int(np.argmax(ucbe_index(mu, counts, a, self._scale)))

    def _recommend(self):
        mu = empirical_means(self.counts_, self.sums_)
        return None if np.isnan(mu).all() else int(np.nanargmax(mu))
