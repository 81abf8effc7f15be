"""Reward families: what the learner knows about the law of each source.

A family gives the KL divergence used by GLR statistics and oracles.  Gaussian
sources have a known variance (one per source); Bernoulli sources have means in
[0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pybai._validation import check_array
from pybai.models import _kl

__all__ = ["Family", "Gaussian", "Bernoulli", "bernoulli_kl"]


@dataclass(frozen=True, eq=False)
class Family:
    """Base reward family.

    Attributes
    ----------
    name : str
        ``"gaussian"`` or ``"bernoulli"``.
    code : int
        Integer code understood by the numba kernels of :mod:`pybai.models._kl`.
    variances : ndarray of shape (n_sources,)
        Known variance of each source (ones for Bernoulli, unused by its KL).
    """

    name: str = field(init=False, default="")
    code: int = field(init=False, default=-1)

    @property
    def variances(self) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def kl(self, x, y) -> np.ndarray:
        """Vectorised d(x, y) per source (``x``, ``y`` broadcast against the sources)."""
        raise NotImplementedError

    def to_dict(self) -> dict:
        """JSON-serialisable description."""
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class Gaussian(Family):
    """Gaussian rewards with known standard deviation per source.

    Parameters
    ----------
    sigma : float or array-like of shape (n_sources,)
        Noise standard deviation(s), > 0.
    n_sources : int
        Number of sources (used to broadcast a scalar ``sigma``).
    """

    sigma: np.ndarray | float = 1.0
    n_sources: int = 1

    def __post_init__(self):
        sig = check_array(self.sigma, "sigma", "Gaussian", low=0.0, strict_low=True)
        if sig.ndim == 0 or sig.size == 1:
            sig = np.full(self.n_sources, float(sig.reshape(-1)[0]))
        elif sig.size != self.n_sources:
            check_array(sig, "sigma", "Gaussian", shape=(self.n_sources,))  # raises
        object.__setattr__(self, "sigma", sig.reshape(-1).astype(float))
        object.__setattr__(self, "name", "gaussian")
        object.__setattr__(self, "code", _kl.GAUSSIAN)
        object.__setattr__(self, "_var", self.sigma**2)

    @property
    def variances(self) -> np.ndarray:
        return self._var

    def kl(self, x, y):
        return (np.asarray(x) - np.asarray(y)) ** 2 / (2.0 * self._var)

    def to_dict(self) -> dict:
        return {"name": "gaussian", "sigma": self.sigma.tolist()}


def bernoulli_kl(x, y):
    """Vectorised Bernoulli KL divergence kl(x, y) with the conventions 0 ln 0 = 0."""
    x = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
    y = np.clip(np.asarray(y, dtype=float), 1e-15, 1.0 - 1e-15)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(x > 0, x * np.log(x / y), 0.0)
        b = np.where(x < 1, (1 - x) * np.log((1 - x) / (1 - y)), 0.0)
    return np.maximum(a + b, 0.0)


@dataclass(frozen=True, eq=False)
class Bernoulli(Family):
    """Bernoulli rewards (means in [0, 1])."""

    n_sources: int = 1

    def __post_init__(self):
        object.__setattr__(self, "name", "bernoulli")
        object.__setattr__(self, "code", _kl.BERNOULLI)
        object.__setattr__(self, "_var", np.ones(self.n_sources))

    @property
    def variances(self) -> np.ndarray:
        return self._var

    def kl(self, x, y):
        return bernoulli_kl(x, y)

    def to_dict(self) -> dict:
        return {"name": "bernoulli"}
