"""Simulated environments (hidden truths)."""

from pybai.environments.base import Environment
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.beta import BetaEnvironment
from pybai.environments.binomial import BinomialEnvironment
from pybai.environments.bounded import TwoPointEnvironment, UniformEnvironment
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.from_callable import CallableEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment

__all__ = [
    "Environment",
    "GaussianEnvironment",
    "BernoulliEnvironment",
    "BinomialEnvironment",
    "BetaEnvironment",
    "UniformEnvironment",
    "TwoPointEnvironment",
    "SubpopulationGaussianEnvironment",
    "LinearGaussianEnvironment",
    "CorrelatedGaussianEnvironment",
    "CallableEnvironment",
    "MultiMetricEnvironment",
]
