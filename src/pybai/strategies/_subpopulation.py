"""Arm-level sampling in the pair model of the BAICS problem (shared by ``tas`` and ``uniform``).

In the paper's experiments (Wu, Zheng & Zhu, section 5) the baselines choose an *arm*, then
let the subpopulation arrive at random with probability q_l: that is ``subpopulation =
"random"``.  ``"tracked"`` instead picks the cell deterministically.  Both only matter for
goal ``"best-feasible-arm"`` with ``sampling = "pair"`` (in the ``"arm"`` model the
environment draws the subpopulation itself).
"""

from __future__ import annotations

import bisect

import numpy as np

__all__ = ["SUBPOPULATION_MODES", "ArmLevel", "arm_level"]

SUBPOPULATION_MODES = ("random", "tracked")


class ArmLevel:
    """Arm-level view of a pair-model BAICS problem: arm counts and random subpopulations."""

    def __init__(self, n_arms: int, n_subpopulations: int, weights: np.ndarray, random: bool):
        self.n_arms = n_arms
        self.n_subpopulations = n_subpopulations
        self.weights = np.asarray(weights, dtype=float)
        self.random = random
        cum = np.cumsum(self.weights)
        cum[-1] = 1.0
        self._cum = cum.tolist()

    def arm_counts(self, counts: np.ndarray) -> np.ndarray:
        return counts.reshape(self.n_arms, self.n_subpopulations).sum(axis=1)

    def arm_weights(self, weights: np.ndarray) -> np.ndarray:
        return np.asarray(weights).reshape(self.n_arms, self.n_subpopulations).sum(axis=1)

    def random_cell(self, arm: int, rng: np.random.Generator) -> int:
        """Source of cell (arm, l) with l ~ q drawn from ``rng``."""
        return arm * self.n_subpopulations + bisect.bisect_right(self._cum, rng.random())

    def proportional_cell(self, arm: int, counts: np.ndarray) -> int:
        """Source of the cell of ``arm`` furthest below q-proportional allocation (lowest l on ties)."""
        row = counts.reshape(self.n_arms, self.n_subpopulations)[arm]
        return arm * self.n_subpopulations + int(np.argmax(self.weights * row.sum() - row))


def arm_level(problem, mode: str) -> ArmLevel | None:
    """An :class:`ArmLevel` when ``problem`` is a pair-model best-feasible-arm problem, else None."""
    if getattr(problem, "goal", None) != "best-feasible-arm" or problem.sampling != "pair":
        return None
    return ArmLevel(problem.n_arms, problem.n_subpopulations, problem.weights, mode == "random")
