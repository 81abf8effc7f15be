"""BayesGap (Hoffman, Shahriari and de Freitas 2014, Algorithm 1): fixed-budget gap rule on a posterior."""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import fail
from pybai.fixed_budget.gaps import bayes_gap_step, update_recommendation
from pybai.strategies._fixed_budget import GapEpsilon, PosteriorRule
from pybai.strategies.registry import register

__all__ = ["BayesGap"]


@register
class BayesGap(GapEpsilon, PosteriorRule):
    """BayesGap: pull the more uncertain of J(t), j(t) under posterior bounds ``mu_hat +- beta sigma_hat``.

    Each round computes beta from Eq. (9) with the adaptive hardness estimate (the paper's
    experiments; :func:`pybai.fixed_budget.gaps.bayes_gap_step`), the gap indices of Eq. (6) and the
    choice of Eq. (7).  The recommendation is Omega_T of Eq. (8): ``J(t)`` at the round with the
    smallest ``B_{J(t)}(t)`` so far (the running minimum, saved in the state).  Before any round
    it is the best prior mean.

    Parameters
    ----------
    beta : "eq9" or float > 0, default "eq9"
        The exploration constant of the bounds: ``"eq9"`` recomputes it every round from Eq. (9)
        with the adaptive hardness estimate, as Algorithm 1 and every experiment of the paper do
        (the default); a number fixes it (the sensitivity study of docs/bayesgap.md).
    epsilon : float >= 0, optional
        The epsilon of the hardness ``H_eps``; default the problem's epsilon, else 0 (the
        paper's value; :class:`~pybai.strategies._fixed_budget.GapEpsilon`).
    threshold, n_init
        Unused (fixed budget; the prior replaces the initial phase); kept for the common API.
    """

    name = "bayes-gap"
    _state_attrs = ("best_bound_", "best_arm_")

    def __init__(self, *, beta="eq9", epsilon: float | None = None, threshold: str | None = None, n_init: int = 1):
        super().__init__(epsilon=epsilon, threshold=threshold, n_init=n_init)
        self.beta = beta

    def _check_params(self, problem):
        super()._check_params(problem)
        if not (isinstance(self.beta, str) and self.beta == "eq9"):
            if isinstance(self.beta, (bool, str)) or not isinstance(self.beta, (int, float, np.integer, np.floating)) \
                    or not (0.0 < float(self.beta) < math.inf):
                raise fail("beta", type(self).__name__, '"eq9" (Eq. 9 of the paper, adaptive) or a number > 0',
                           self.beta)

    def _initialize(self):
        model = self.model_
        self._kappa = model.kappa()
        self._budget = self.problem_.regime.budget
        self.best_bound_ = math.inf
        self.best_arm_ = -1

    def _select(self):
        model = self.model_
        fixed = None if isinstance(self.beta, str) else float(self.beta)
        choice, _ = bayes_gap_step(model.estimate, model.std, budget=self._budget, sigma=model.sigma,
                                   eta=model.eta, kappa=self._kappa, epsilon=self._epsilon(), beta=fixed)
        self.best_bound_, self.best_arm_ = update_recommendation(self.best_bound_, self.best_arm_, choice)
        return choice.arm

    def _recommend(self):
        return int(self.best_arm_) if self.best_arm_ >= 0 else int(np.argmax(self.means_))
