"""BayesUCB (Kaufmann, Cappe and Garivier 2012) on the posterior over correlated arm means."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array
from pybai.fixed_budget.indices import bayes_ucb_index
from pybai.strategies._fixed_budget import PosteriorRule
from pybai.strategies.registry import register

__all__ = ["BayesUCB"]


@register
class BayesUCB(PosteriorRule):
    """Pull the arm with the largest posterior quantile ``1 - 1/(t (log T)^c)``; recommend the best posterior mean.

    Parameters
    ----------
    c : float >= 0, default 0.0
    """

    name = "bayes-ucb"

    def __init__(self, *, c: float = 0.0, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.c = c

    def _check_params(self, problem):
        super()._check_params(problem)
        check_array(self.c, "c", type(self).__name__, shape=(), low=0.0, high=100.0)  # (ln n)^c stays finite

    def _select(self):
        m = self.model_
        return int(np.argmax(bayes_ucb_index(m.estimate, m.std, self.t_ + 1, self.problem_.regime.budget,
                                             float(self.c))))
