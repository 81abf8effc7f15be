"""Arm-level view of a problem whose sources are (arm, subpopulation) cells.

In the "pair" sampling model of the BAICS problem the learner picks a cell, but baselines
(the paper's, Wu, Zheng & Zhu section 5) pick an *arm* and let the subpopulation arrive at
random with probability q_l.  :class:`ArmLevel` gives those rules what they need: arm counts,
arm weights, and the source of a cell drawn at random or chosen in proportion to q.  A problem
offers it through :meth:`~pybai.problems.base.Problem.arm_level`.
"""

from __future__ import annotations

import bisect

import numpy as np

__all__ = ["SAMPLING_MODELS", "ArmLevel"]

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
