"""Arm-level view of a problem whose sources are (arm, subpopulation) cells.

In the "pair" sampling model of the BAICS problem the learner picks a cell, but baselines
(the paper's, Wu, Zheng & Zhu section 5) pick an *arm* and let the subpopulation arrive at
random with probability q_l.  :class:`ArmLevel` gives those rules what they need: arm counts,
arm weights, and the source of a cell drawn at random or chosen in proportion to q.  A problem
offers it through its request space (:class:`CellSpace`, :meth:`CellSpace.arm_view`).
"""

from __future__ import annotations

import bisect

from typing import ClassVar

import numpy as np

from pybai.problems.requests import RequestSpace

__all__ = ["SAMPLING_MODELS", "ArmLevel", "CellSpace"]

#: How a learner samples cells: it picks the cell ("pair") or the arm ("arm", the subpopulation arrives).
SAMPLING_MODELS = ("pair", "arm")


class ArmLevel:
    """Arm counts, arm weights and cells of a K x L source grid (flattened row-major).

    Parameters
    ----------
    n_arms, n_subpopulations : int
    weights : array-like of shape (L,)
        Arrival probabilities q (summing to 1).
    """

    #: False: a cell is drawn (or chosen) after the arm
    identity: ClassVar[bool] = False

    def __init__(self, n_arms: int, n_subpopulations: int, weights):
        self.n_arms = n_arms
        self.n_subpopulations = n_subpopulations
        self.weights = np.asarray(weights, dtype=float)
        cum = np.cumsum(self.weights)
        cum[-1] = 1.0
        self._cum = cum
        self._cum_list = cum.tolist()  # bisect on a list: the scalar hot path

    def arm_counts(self, counts: np.ndarray) -> np.ndarray:
        """Samples per arm from samples per cell."""
        return counts.reshape(self.n_arms, self.n_subpopulations).sum(axis=1)

    def arm_weights(self, weights: np.ndarray) -> np.ndarray:
        """Proportions per arm from proportions per cell."""
        return np.asarray(weights).reshape(self.n_arms, self.n_subpopulations).sum(axis=1)

    def random_cells(self, arms, rng: np.random.Generator) -> np.ndarray:
        """Sources of cells (arm, l) with l ~ q drawn from ``rng`` (one uniform draw per arm)."""
        arms = np.asarray(arms, dtype=np.intp)
        return arms * self.n_subpopulations + np.searchsorted(self._cum, rng.random(arms.shape[0]), side="right")

    def random_cell(self, arm: int, rng: np.random.Generator) -> int:
        """Source of cell (arm, l) with l ~ q drawn from ``rng``."""
        return arm * self.n_subpopulations + bisect.bisect_right(self._cum_list, rng.random())

    def proportional_cell(self, arm: int, counts: np.ndarray) -> int:
        """Source of the cell of ``arm`` furthest below q-proportional allocation (lowest l on ties)."""
        row = counts.reshape(self.n_arms, self.n_subpopulations)[arm]
        return arm * self.n_subpopulations + int(np.argmax(self.weights * row.sum() - row))


class CellSpace(RequestSpace):
    """Sources are the cells (arm, l) of a K x L grid, flattened row-major.

    In the ``"pair"`` sampling model a request is a cell; in the ``"arm"`` model it is an arm,
    the subpopulation l arrives with probability q_l and the environment answers with the cell
    it observed.

    Parameters
    ----------
    n_arms, n_subpopulations : int
    weights : ndarray of shape (L,)
        Arrival probabilities q.
    sampling : {"pair", "arm"}
    """

    def __init__(self, n_arms: int, n_subpopulations: int, weights: np.ndarray, sampling: str):
        super().__init__(n_arms * n_subpopulations)
        self.n_arms, self.n_subpopulations = n_arms, n_subpopulations
        self.q = weights
        self.sampling = sampling
        self.identity = sampling != "arm"

    @property
    def n_requests(self) -> int:
        return self.n_arms if self.sampling == "arm" else self.n_sources

    @property
    def source_shape(self) -> tuple[int, int]:
        return (self.n_arms, self.n_subpopulations)

    def counts(self, counts):
        if self.sampling == "arm":
            return np.asarray(counts, dtype=float).reshape(self.source_shape).sum(axis=1)
        return counts

    def weights(self, weights):
        if self.sampling == "arm":
            return np.asarray(weights, dtype=float).reshape(self.source_shape).sum(axis=1)
        return weights

    def expand(self, weights):
        if self.sampling == "arm":
            return np.outer(np.asarray(weights, dtype=float), self.q).ravel()
        return weights

    def gains(self, gains):
        if self.sampling == "arm":
            return np.asarray(gains, dtype=float).reshape(self.source_shape) @ self.q
        return gains

    def request_of(self, sources):
        """The arm of each observed cell in the ``"arm"`` model; the cell itself in ``"pair"``."""
        if self.sampling == "arm":
            return np.asarray(sources) // self.n_subpopulations
        return sources

    def arm_view(self):
        """``"pair"``: the :class:`ArmLevel` of rules that draw the subpopulation; ``"arm"``: arms are requests."""
        if self.sampling != "pair":
            return super().arm_view()
        return ArmLevel(self.n_arms, self.n_subpopulations, self.q)
