"""Reward families: what the learner knows about the law of each source.

A family names the KL divergence that the numba kernels of :mod:`pybai.models._kl` compute
(by its integer ``code``), the known variances, the sub-Gaussian scale of the rewards (the
noise level of the fixed-budget confidence widths) and the support of the rewards.  Gaussian
sources have a known variance (one per source); Bernoulli sources have means in [0, 1] and
rewards in {0, 1}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pybai._validation import check_array, check_memory, check_noise_scale, check_positive_int
from pybai.models import _kl

#: Gaussian rewards further than this many noise standard deviations from 0 are refused by
#: :meth:`Gaussian.check_rewards` (squared differences over sigma^2 stay far from overflow).
REWARD_SCALE_LIMIT = 1e100

__all__ = ["Family", "Gaussian", "Bernoulli"]


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

    @property
    def sub_gaussian_scale(self) -> float:  # pragma: no cover - overridden
        """Scale s such that every source's reward X satisfies ``E exp(l (X - mu)) <= exp(l^2 s^2 / 2)``.

        The noise level of the rules on independent arms that need one (UCB-E and UGapEb widths,
        BatchRacing's bounds): the largest noise standard deviation for Gaussian rewards, 1/2
        for rewards in [0, 1] (Hoeffding's lemma).
        """
        raise NotImplementedError

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        """What is wrong with ``rewards`` (float array) for this family (``None`` when they are fine)."""
        ok = math.isfinite(rewards[0]) if rewards.shape[0] == 1 else bool(np.isfinite(rewards).all())
        return None if ok else "finite numbers"

    def to_dict(self) -> dict:
        """JSON-serialisable description."""
        raise NotImplementedError


def _check_n_sources(n_sources, owner: str) -> None:
    n = check_positive_int(n_sources, "n_sources", owner)
    check_memory(8 * n, "n_sources", owner, "the per-source variances (8 bytes each)", n_sources)


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
    if TYPE_CHECKING:  # set in __post_init__, not dataclass fields
        _var: np.ndarray = field(init=False)
        _reward_bound: float = field(init=False)

    def __post_init__(self):
        _check_n_sources(self.n_sources, "Gaussian")
        sig = check_noise_scale(check_array(self.sigma, "sigma", "Gaussian", low=0.0, strict_low=True), None,
                                "sigma", "Gaussian")
        if sig.ndim == 0 or sig.size == 1:
            sig = np.full(self.n_sources, float(sig.reshape(-1)[0]))
        elif sig.size != self.n_sources:
            check_array(sig, "sigma", "Gaussian", shape=(self.n_sources,))  # raises
        object.__setattr__(self, "sigma", sig.reshape(-1).astype(float))
        object.__setattr__(self, "name", "gaussian")
        object.__setattr__(self, "code", _kl.GAUSSIAN)
        object.__setattr__(self, "_var", self.sigma**2)
        object.__setattr__(self, "_reward_bound", REWARD_SCALE_LIMIT * float(self.sigma.max()))

    @property
    def variances(self) -> np.ndarray:
        return self._var

    @property
    def sub_gaussian_scale(self) -> float:
        """The largest noise standard deviation, ``max_k sigma_k``."""
        return float(np.sqrt(np.max(self._var)))

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        """Finite and within :data:`REWARD_SCALE_LIMIT` noise standard deviations of 0.

        Beyond that, squares of mean differences over sigma^2 in the GLR statistic overflow
        (a reward of 1e308 made Track-and-Stop stop after 3 samples): a typo, not data.
        """
        bound = self._reward_bound
        if rewards.shape[0] == 1:
            ok = abs(rewards[0]) <= bound  # False for nan
        else:
            ok = bool((np.abs(rewards) <= bound).all())
        return None if ok else f"finite numbers within {REWARD_SCALE_LIMIT:g} noise standard deviations of 0 " \
                                f"(numerically safe range: |reward| <= {bound:g})"

    def to_dict(self) -> dict:
        return {"name": "gaussian", "sigma": np.asarray(self.sigma).tolist()}


@dataclass(frozen=True, eq=False)
class Bernoulli(Family):
    """Bernoulli rewards (means in [0, 1])."""

    n_sources: int = 1
    if TYPE_CHECKING:  # set in __post_init__, not a dataclass field
        _var: np.ndarray = field(init=False)

    def __post_init__(self):
        _check_n_sources(self.n_sources, "Bernoulli")
        object.__setattr__(self, "name", "bernoulli")
        object.__setattr__(self, "code", _kl.BERNOULLI)
        object.__setattr__(self, "_var", np.ones(self.n_sources))

    @property
    def variances(self) -> np.ndarray:
        return self._var

    @property
    def sub_gaussian_scale(self) -> float:
        """1/2: rewards in [0, 1] are 1/2-sub-Gaussian (Hoeffding's lemma)."""
        return 0.5

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        if rewards.shape[0] == 1:
            ok = rewards[0] == 0.0 or rewards[0] == 1.0
        else:
            ok = bool(((rewards == 0.0) | (rewards == 1.0)).all())
        return None if ok else "0 or 1 (Bernoulli rewards)"

    def to_dict(self) -> dict:
        return {"name": "bernoulli"}
