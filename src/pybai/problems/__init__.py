"""Identification goals and their math (answers, GLR statistics, oracles)."""

from pybai.problems.base import BatchSpec, FixedBudget, FixedConfidence, Problem, lower_bound_factor
from pybai.problems.best_arm import BestArmProblem
from pybai.problems.correlated import CorrelatedBestArmProblem
from pybai.problems.feasible import FeasibleArmProblem
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.top_k import TopKProblem

__all__ = [
    "Problem",
    "FixedConfidence",
    "FixedBudget",
    "BatchSpec",
    "BestArmProblem",
    "CorrelatedBestArmProblem",
    "FeasibleArmProblem",
    "GuardrailProblem",
    "Metric",
    "LinearBestArmProblem",
    "TopKProblem",
    "lower_bound_factor",
]
