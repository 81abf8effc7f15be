"""Optimal experimental design: G-optimal and XY designs, efficient rounding, greedy rule.

Usable on their own (Soare, Lazaric & Munos 2014, sections 4-5 and appendix C):

* :func:`g_optimal_design`: min_w max_x ||x||^2_{A(w)^-1} (Frank-Wolfe / Fedorov-Wynn, certified
  by the Kiefer-Wolfowitz bound);
* :func:`xy_design`: min_w max_y ||y||^2_{A(w)^-1} for directions y (all pairs or given ones);
* :func:`efficient_rounding`: a design and n -> integer counts summing to n, monotone in n;
* :func:`greedy_arm` / :class:`GreedyDesign`: the incremental rule of Eq. (22) with rank-one
  updates of A^-1.
"""

from pybai.design._linalg import sherman_morrison
from pybai.design.greedy import GreedyDesign, greedy_arm
from pybai.design.minimax import DesignState
from pybai.design.optimal import DesignResult, design_value, g_optimal_design
from pybai.design.rounding import efficient_rounding, next_rounded_arm
from pybai.design.transductive import active_directions, pair_directions, xy_design

__all__ = [
    "DesignResult",
    "DesignState",
    "GreedyDesign",
    "active_directions",
    "design_value",
    "efficient_rounding",
    "g_optimal_design",
    "greedy_arm",
    "next_rounded_arm",
    "pair_directions",
    "sherman_morrison",
    "xy_design",
]
