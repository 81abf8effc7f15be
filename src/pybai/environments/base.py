"""Simulated truths: an environment answers the sources a strategy asks for.

An environment holds the hidden truth (the mean of every source) and draws rewards
from a ``numpy.random.Generator``.  It also tells which public structure a learner
may know (:meth:`Environment.structure`), from which the problem is built.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from pybai.models.families import Family

__all__ = ["Environment"]


class Environment(ABC):
    """Base class of simulated environments.

    Subclasses set ``kind`` (the contract's ``environment.kind``) and implement
    :attr:`source_means`, :meth:`sample` and :meth:`family`.
    """

    kind: ClassVar[str] = ""

    @property
    @abstractmethod
    def source_means(self) -> np.ndarray:
        """Expected reward of every source (the hidden truth), shape (n_sources,)."""

    @property
    def n_sources(self) -> int:
        return int(self.source_means.shape[0])

    @abstractmethod
    def family(self) -> Family:
        """The reward family a learner may assume (known variances, ...)."""

    @abstractmethod
    def sample(self, sources: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Rewards for ``sources`` (int array), drawn with ``rng``."""

    def respond(self, requests: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Answer ``requests``: the sources observed and their rewards.

        By default a request is a source; environments whose requests are coarser
        (an arm whose subpopulation arrives at random) override this.
        """
        return requests, self.sample(requests, rng)

    def structure(self) -> dict:
        """Keyword arguments of the problem constructor that a learner may know."""
        return {"n_arms": self.n_sources, "family": self.family()}

    def realize(self, rng: np.random.Generator, replication: int | None = None) -> "Environment":
        """The truth of one replication (environments with a prior draw a new one with ``rng``;
        environments with a table of truths may take row ``replication``)."""
        return self
