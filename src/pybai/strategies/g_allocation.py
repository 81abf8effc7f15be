"""G-allocation (Soare, Lazaric & Munos 2014, Fig. 2 and Eq. 12): a static G-optimal design."""

from __future__ import annotations

from pybai.design.optimal import g_optimal_design
from pybai.strategies._linear import StaticDesignRule
from pybai.strategies.registry import register

__all__ = ["GAllocation"]


@register
class GAllocation(StaticDesignRule):
    r"""Sample the G-optimal design :math:`\arg\min_\lambda \max_x \|x\|^2_{\Lambda_\lambda^{-1}}` (Eq. 12/21).

    The design estimates theta uniformly well over the arms, whatever the rewards; it is rounded
    into counts by the efficient rounding of appendix C (``allocation="rounding"``) or built one
    sample at a time by the greedy rule of Eq. (22) (``allocation="greedy"``, the loop of
    Fig. 2).  Stops when the GLR statistic exceeds the threshold -- Eq. (11) with the chosen
    confidence width (``threshold="soare-prop1"`` is the paper's Prop. 1) -- checked at
    geometric times (``check_growth``, see :mod:`pybai.strategies._linear`).  After an initial
    spanning set (d independent arms, ``n_init`` times).

    Parameters
    ----------
    allocation : {"rounding", "greedy"}, default "rounding"
    check_growth : float, default 0.01
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    """

    name = "g-allocation"
    _greedy_targets = "arms"

    def _design(self):
        return g_optimal_design(self.problem_.features).weights
