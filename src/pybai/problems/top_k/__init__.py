"""Top-k identification: the problem, its oracle (exact LP / Newton) and GLR kernels."""

from pybai.problems.top_k.problem import TopKProblem

__all__ = ["TopKProblem"]
