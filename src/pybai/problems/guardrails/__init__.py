"""Best arm on an objective among the arms that keep every guardrail: metrics measured together
in one observation (possibly correlated), the problem, its single-metric tests and their oracle."""

from pybai.problems.guardrails.metrics import Metric
from pybai.problems.guardrails.problem import GuardrailProblem
from pybai.problems.guardrails.space import MetricMeans, MetricSpace

__all__ = ["GuardrailProblem", "Metric", "MetricSpace", "MetricMeans"]
