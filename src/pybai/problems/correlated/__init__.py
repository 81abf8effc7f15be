"""Best arm with means correlated through a known Gaussian prior (Hoffman, Shahriari & de Freitas 2014)."""

from pybai.problems.correlated.problem import CorrelatedBestArmProblem

__all__ = ["CorrelatedBestArmProblem"]
