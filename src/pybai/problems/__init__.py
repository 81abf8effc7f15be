"""Identification goals and their math (answers, GLR statistics, oracles)."""

from pybai.problems.base import BatchSpec, FixedBudget, FixedConfidence, Problem, bernoulli_kl_scalar
from pybai.problems.best_arm import BestArmProblem

__all__ = [
    "Problem",
    "FixedConfidence",
    "FixedBudget",
    "BatchSpec",
    "BestArmProblem",
    "bernoulli_kl_scalar",
]
