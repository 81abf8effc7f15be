"""EI acquisition on the posterior over correlated arm means (a baseline of Hoffman et al. 2014)."""

from __future__ import annotations

from pybai.fixed_budget.indices import expected_improvement
from pybai.strategies._fixed_budget import ImprovementRule
from pybai.strategies.registry import register

__all__ = ["ExpectedImprovement"]


@register
class ExpectedImprovement(ImprovementRule):
    """Pull the arm maximising EI, the expected improvement over the best posterior mean plus xi; recommend the best posterior mean.

    Parameters
    ----------
    xi : float >= 0, default 0.0
        Margin over the incumbent (the best posterior mean).
    """

    name = "ei"
    _index = staticmethod(expected_improvement)
