"""Reward families (KL divergences, confidence bounds) used by problems and strategies."""
from pybai.models.families import Bernoulli, Family, Gaussian, bernoulli_kl

__all__ = ["Family", "Gaussian", "Bernoulli", "bernoulli_kl"]
