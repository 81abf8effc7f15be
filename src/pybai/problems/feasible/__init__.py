"""Best feasible arm under fairness constraints on subpopulations (Wu, Zheng & Zhu): the problem,
its request space of cells, its oracle and the private math of its alternative."""

from pybai.problems.feasible.cells import SAMPLING_MODELS, ArmLevel, CellSpace
from pybai.problems.feasible.problem import FeasibleArmProblem

__all__ = ["FeasibleArmProblem", "CellSpace", "ArmLevel", "SAMPLING_MODELS"]
