"""XY-allocation (Soare, Lazaric & Munos 2014, Fig. 2 and Eq. 14): a static transductive design."""

from __future__ import annotations

from pybai.design.transductive import xy_design
from pybai.strategies._linear import StaticDesignRule
from pybai.strategies.registry import register

__all__ = ["XYStatic"]


@register
class XYStatic(StaticDesignRule):
    r"""Sample the XY design :math:`\arg\min_\lambda \max_{y \in Y} \|y\|^2_{\Lambda_\lambda^{-1}}` (Eq. 14).

    Y holds every difference of two arms: the directions whose gaps Eq. (11) tests.  Rounded
    by the efficient rounding of appendix C, or built by the greedy rule of Fig. 2
    (``allocation="greedy"``); stopped by the GLR rule (Eq. 11) at geometric check times, as
    :class:`~pybai.strategies.g_allocation.GAllocation`.

    Parameters
    ----------
    allocation : {"rounding", "greedy"}, default "rounding"
    check_growth : float, default 0.01
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    """

    name = "xy-static"
    _greedy_targets = "pairs"

    def _design(self):
        return xy_design(self.problem_.features).weights
