"""Simulated truths: an environment answers the sources a strategy asks for.

An environment holds the hidden truth (the mean of every source) and draws rewards
from a ``numpy.random.Generator``.  It also tells which public structure a learner
may know (:meth:`Environment.structure`), from which the problem is built.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from pybai._validation import fail
from pybai.models.families import Family
from pybai.naming import check_labels

__all__ = ["Environment"]


class Environment(ABC):
    """Base class of simulated environments.

    Subclasses set ``kind`` (the ``environment.kind`` of experiment files) and implement
    :attr:`source_means`, :meth:`sample` and :meth:`family`.
    """

    kind: ClassVar[str] = ""
    #: the names of the arms (``[environment] labels``; :mod:`pybai.naming`), or None
    labels: tuple[str, ...] | None = None

    def _set_labels(self, labels, n_arms: int) -> None:
        """Check and keep ``labels`` (one distinct name per arm, or None); constructors call it."""
        self.labels = check_labels(labels, n_arms, "labels", type(self).__name__)

    def _with_labels(self, structure: dict) -> dict:
        """``structure`` with the problem's ``labels`` keyword when the arms are named."""
        if self.labels is not None:
            structure["labels"] = list(self.labels)
        return structure

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

    def sample(self, sources, rng: np.random.Generator) -> np.ndarray:
        """Rewards for ``sources`` (a 1-D int array-like of source indices), drawn with ``rng``.

        The public entry point checks ``sources`` (one clear error, not an IndexError); the
        simulation loop calls :meth:`respond`, whose requests a strategy has already checked.
        """
        src = sources if isinstance(sources, np.ndarray) else np.asarray(sources)
        n = self.n_sources
        ok = src.ndim == 1 and src.dtype.kind in "iu"
        if ok and src.shape[0] == 1:  # the sequential loop: a scalar test is much cheaper than min/max
            ok = 0 <= int(src[0]) < n
        elif ok and src.shape[0]:
            ok = src.min() >= 0 and src.max() < n
        if not ok:
            raise fail("sources", f"{type(self).__name__}.sample", f"a 1-D list of integer indices in [0, {n - 1}]",
                       sources)
        if not isinstance(rng, np.random.Generator):
            raise fail("rng", f"{type(self).__name__}.sample", "a numpy.random.Generator", rng)
        return self._sample(src, rng)

    @abstractmethod
    def _sample(self, sources: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Rewards for ``sources`` (a checked 1-D int array), drawn with ``rng``."""

    def respond(self, requests: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Answer ``requests``: the sources observed and their rewards.

        By default a request is a source; environments whose requests are coarser
        (an arm whose subpopulation arrives at random) override this.
        """
        return requests, self._sample(requests, rng)

    def structure(self) -> dict:
        """Keyword arguments of the problem constructor that a learner may know."""
        return self._with_labels({"n_arms": self.n_sources, "family": self.family()})

    def realize(self, rng: np.random.Generator, replication: int | None = None) -> "Environment":
        """The truth of one replication (environments with a prior draw a new one with ``rng``;
        environments with a table of truths may take row ``replication``)."""
        return self
