"""Bernoulli arms."""

from __future__ import annotations

from pybai._validation import check_array
from pybai.environments.base import Environment
from pybai.models.families import Bernoulli

__all__ = ["BernoulliEnvironment"]


class BernoulliEnvironment(Environment):
    """Arms with rewards Bernoulli(means[a]).

    Parameters
    ----------
    means : array-like of shape (K,), values in [0, 1]
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).
    """

    kind = "bernoulli"

    def __init__(self, means, *, labels=None):
        self.means = check_array(means, "means", "BernoulliEnvironment", ndim=1, low=0.0, high=1.0, min_size=2)
        self._set_labels(labels, self.means.size)

    @property
    def source_means(self):
        return self.means

    @property
    def reward_variances(self):
        """The variance of each arm's rewards, p (1 - p)."""
        return self.means * (1.0 - self.means)

    def family(self):
        return Bernoulli(n_sources=self.means.size)

    def _sample(self, sources, rng):
        return (rng.random(len(sources)) < self.means[sources]).astype(float)
