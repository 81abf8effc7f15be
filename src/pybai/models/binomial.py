"""Binomial rewards: each reward is the mean of ``trials`` Bernoulli observations (a value in {0, 1/m, ..., 1}).

The reward model of the Twitter experiment of Jun, Jamieson, Nowak & Zhu (2016, section 5.3):
one pull follows a user for one 5-minute interval in each of 24 hours, and the reward is the
fraction of those intervals in which the user tweeted.

What the learner uses:

* **sub-Gaussian scale** ``1 / (2 sqrt(trials))``: the mean of m independent rewards in [0, 1]
  is 1/(2 sqrt m)-sub-Gaussian (Hoeffding's lemma for each term, independence for the sum).  The
  rules whose confidence widths need a noise level (BatchRacing, UCB-E, UGapEb) read it, so their
  widths are sqrt(trials) times narrower than for one Bernoulli observation;
* **statistic**: the Bernoulli KL of the mean (kernel code :data:`~pybai.models._kl.BERNOULLI`),
  with the proven thresholds of rewards in [0, 1] (the ``"sub-bernoulli"`` rules of
  :func:`pybai.stopping.betting.bounded_rules`): every law on [0, 1] satisfies
  E exp(eta X) <= 1 - m + m e^eta, so the Bernoulli likelihood-ratio martingales stay
  supermartingales.  This is valid and simple, but loose by up to the factor ``trials`` (the exact
  divergence of one reward is trials x kl(p, q)); the fixed-budget batch rules of the Twitter
  experiment (``batch-sar``, ``halving``, ``round-robin``) read only the empirical means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pybai._validation import check_positive_int
from pybai.models import _kl
from pybai.models.families import Family, check_n_sources

__all__ = ["Binomial"]


@dataclass(frozen=True, eq=False)
class Binomial(Family):
    """Rewards k / trials, k ~ Binomial(trials, mean): the mean of ``trials`` Bernoulli observations.

    Parameters
    ----------
    n_sources : int
    trials : int, default 1
        Bernoulli observations averaged in one reward (1: plain Bernoulli rewards).

    Examples
    --------
    >>> import numpy as np
    >>> fam = Binomial(3, trials=24)
    >>> round(fam.sub_gaussian_scale, 4)
    0.1021
    >>> fam.check_rewards(np.array([0.5, 1 / 24])) is None, fam.check_rewards(np.array([0.3]))
    (True, 'multiples of 1/24 in [0, 1] (the mean of 24 Bernoulli observations)')
    """

    n_sources: int = 1
    trials: int = 1
    if TYPE_CHECKING:  # set in __post_init__, not a dataclass field
        _var: np.ndarray = field(init=False)

    def __post_init__(self):
        check_n_sources(self.n_sources, "Binomial")
        object.__setattr__(self, "trials", check_positive_int(self.trials, "trials", "Binomial"))
        object.__setattr__(self, "name", "binomial")
        object.__setattr__(self, "code", _kl.BERNOULLI)
        object.__setattr__(self, "_var", np.ones(self.n_sources))

    @property
    def variances(self) -> np.ndarray:
        """Ones: what the Bernoulli kernels read (they ignore it)."""
        return self._var

    @property
    def sub_gaussian_scale(self) -> float:
        """``1 / (2 sqrt(trials))``: the mean of ``trials`` independent rewards in [0, 1]."""
        return 0.5 / math.sqrt(self.trials)

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        scaled = rewards * self.trials
        ok = bool(np.isfinite(scaled).all()) and bool(((scaled >= -1e-9) & (scaled <= self.trials + 1e-9)
                                                       & (np.abs(scaled - np.round(scaled)) <= 1e-9)).all())
        return None if ok else (f"multiples of 1/{self.trials} in [0, 1] (the mean of {self.trials} "
                                "Bernoulli observations)")

    @property
    def support(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def to_dict(self) -> dict:
        return {"name": "binomial", "trials": int(self.trials)}
