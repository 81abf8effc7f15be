"""PI acquisition on the posterior over correlated arm means (a baseline of Hoffman et al. 2014)."""

from __future__ import annotations

from pybai.fixed_budget.indices import probability_of_improvement
from pybai.strategies._fixed_budget import ImprovementRule
from pybai.strategies.registry import register

__all__ = ["ProbabilityOfImprovement"]


@register
class ProbabilityOfImprovement(ImprovementRule):
    """Pull the arm maximising PI, the probability of improving on the best posterior mean by more than xi; recommend the best posterior mean.

    Parameters
    ----------
    xi : float >= 0, default 0.0
        Margin over the incumbent (the best posterior mean).
    """

    name = "pi"
    _index = staticmethod(probability_of_improvement)
