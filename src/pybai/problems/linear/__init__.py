"""Best-arm identification in Gaussian linear bandits (Soare, Lazaric & Munos 2014): the problem,
its request space of arms with features, and the private math of its alternative."""

from pybai.problems.linear.problem import LinearBestArmProblem, LinearOracleHint
from pybai.problems.linear.space import DesignSpace

__all__ = ["LinearBestArmProblem", "DesignSpace", "LinearOracleHint"]
