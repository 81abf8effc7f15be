"""PI acquisition on the posterior over correlated arm means (a baseline of Hoffman et al. 2014)."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array
from pybai.bayesgap.indices import probability_of_improvement
from pybai.strategies._fixed_budget import PosteriorRule
from pybai.strategies.registry import register

__all__ = ["ProbabilityOfImprovement"]


@register
class ProbabilityOfImprovement(PosteriorRule):
    """Pull the arm maximising PI, the probability of improving on the best posterior mean by more than xi; recommend the best posterior mean.

    Parameters
    ----------
    xi : float >= 0, default 0.0
        Margin over the incumbent (the best posterior mean).
    """

    name = "pi"

    def __init__(self, *, xi: float = 0.0, threshold: str = "heuristic", n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.xi = xi

    def _check_params(self, problem):
        super()._check_params(problem)
        check_array(self.xi, "xi", type(self).__name__, shape=(), low=0.0)

    def _select(self):
        m = self.model_
        return int(np.argmax(probability_of_improvement(m.estimate, m.std, xi=float(self.xi))))
