"""The model layer (statistics -> estimates) and the reward families (KL, support)."""

from pybai.models.base import EmpiricalMeans, Model
from pybai.models.betting import BettingModel
from pybai.models.binomial import Binomial
from pybai.models.bounded import Bounded
from pybai.models.families import Bernoulli, Family, Gaussian, GaussianUnknownVariance
from pybai.models.unknown_variance import MeansAndVariances

__all__ = ["Model", "EmpiricalMeans", "MeansAndVariances", "Family", "Gaussian", "Bernoulli", "GaussianUnknownVariance",
           "Bounded", "BettingModel", "Binomial"]
