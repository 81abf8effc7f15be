"""Best-arm identification (Garivier & Kaufmann 2016): the problem, its oracle and GLR kernels."""

from pybai.problems.best_arm.problem import BestArmProblem

__all__ = ["BestArmProblem"]
