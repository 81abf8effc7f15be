"""UGapEb (Gabillon, Ghavamzadeh and Lazaric 2012): the gap rule on independent empirical means."""

from __future__ import annotations

import math

import numpy as np

from pybai.fixed_budget.gaps import adaptive_hardness, gap_choice, ugap_bounds, ugap_exploration, update_recommendation
from pybai.strategies._fixed_budget import GapEpsilon, empirical_means, noise_scale, noise_std
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["UGapEb"]


@register
class UGapEb(GapEpsilon, Strategy):
    """UGapEb: the gap rule of Eqs. (6)-(8) with bounds ``mu_hat_k +- b sqrt(a / N_k)``.

    Works on any best-arm problem from per-arm counts and sums (independent arms: a correlated
    prior is ignored).  ``a = (T - K) / (4 H_eps)`` with the adaptive hardness from the
    standard errors ``sigma / sqrt(N_k)`` (:mod:`pybai.fixed_budget.gaps`); ``b = 2 sigma`` for
    Gaussian rewards, 1 for Bernoulli.  Every arm is pulled ``n_init`` times first.
    Recommendation: Omega_T, the running minimum of Eq. (8) (best empirical mean before it).

    Parameters
    ----------
    epsilon : float >= 0, optional
        Default the problem's epsilon, else 0 (:class:`~pybai.strategies._fixed_budget.GapEpsilon`).
    threshold : unused (fixed budget)
    n_init : int, default 1
    """

    name = "ugap"
    requires = frozenset({"independent-arms", "known-noise"})  # confidence widths need the noise scale
    regimes = ("fixed-budget",)
    _state_attrs = ("best_bound_", "best_arm_")

    def _initialize(self):
        family = self.problem_.family
        self._sigma = noise_std(family)
        self._scale = noise_scale(family)
        self._budget = self.problem_.regime.budget
        self.best_bound_ = math.inf
        self.best_arm_ = -1

    def _select(self):
        counts = self.counts_
        mu = empirical_means(counts, self.sums_)
        h = adaptive_hardness(mu, self._sigma / np.sqrt(counts), self._epsilon())
        a = ugap_exploration(self._budget, counts.shape[0], h)
        choice = gap_choice(*ugap_bounds(mu, counts, a, self._scale))
        self.best_bound_, self.best_arm_ = update_recommendation(self.best_bound_, self.best_arm_, choice)
        return choice.arm

    def _recommend(self):
        if self.best_arm_ >= 0:
            return int(self.best_arm_)
        mu = empirical_means(self.counts_, self.sums_)
        return None if np.isnan(mu).all() else int(np.nanargmax(mu))
