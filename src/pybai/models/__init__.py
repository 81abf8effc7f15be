"""The model layer (statistics -> estimates) and the reward families (KL, support)."""

from pybai.models.base import EmpiricalMeans, Model
from pybai.models.families import Bernoulli, Family, Gaussian

__all__ = ["Model", "EmpiricalMeans", "Family", "Gaussian", "Bernoulli"]
