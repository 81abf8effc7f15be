"""Gaussian arms with known standard deviation(s)."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_noise_scale, fail
from pybai.environments.base import Environment
from pybai.models.families import Gaussian

__all__ = ["GaussianEnvironment"]


class GaussianEnvironment(Environment):
    """Arms with rewards N(means[a], sigma[a]^2).

    Parameters
    ----------
    means : array-like of shape (K,)
    sigma : float or array-like of shape (K,), default 1.0
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).
    """

    kind = "gaussian"

    def __init__(self, means, sigma=1.0, *, labels=None):
        self.means = check_array(means, "means", "GaussianEnvironment", ndim=1, min_size=2)
        sig = check_array(sigma, "sigma", "GaussianEnvironment", low=0.0, strict_low=True)
        if sig.ndim == 0:
            sig = np.full(self.means.shape, float(sig))
        if sig.shape != self.means.shape:
            raise fail("sigma", "GaussianEnvironment", f"a number or a list of {self.means.size} numbers",
                       f"shape {sig.shape}")
        self.sigma = check_noise_scale(sig, self.means, "sigma", "GaussianEnvironment")
        self._set_labels(labels, self.means.size)

    @property
    def source_means(self):
        return self.means

    def family(self):
        return Gaussian(self.sigma, n_sources=self.means.size)

    def _sample(self, sources, rng):
        return self.means[sources] + self.sigma[sources] * rng.standard_normal(len(sources))
