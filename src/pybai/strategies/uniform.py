"""Uniform sampling: round robin over the sources, GLR stopping."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_choice
from pybai.strategies._subpopulation import SUBPOPULATION_MODES, arm_level
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["Uniform"]


@register
class Uniform(Strategy):
    """Sample the least-sampled request (lowest index on ties): a round robin.

    The baseline of every fixed-confidence comparison: same GLR stopping rule and
    threshold as the adaptive strategies, no adaptivity in the sampling.

    On goal ``"best-feasible-arm"`` in the ``"pair"`` sampling model, ``subpopulation``
    chooses how the cell is picked within the least-sampled arm: ``"random"`` (default, the
    paper's baseline, Wu, Zheng & Zhu section 5) draws the subpopulation l ~ q with the
    strategy's rng; ``"tracked"`` takes the cell furthest below the q-proportional
    allocation (deterministic, same expected proportions).  Ignored otherwise.

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1
    subpopulation : {"random", "tracked"}, default "random"
    """

    name = "uniform"
    goals = ("best-arm", "best-feasible-arm")

    def __init__(self, *, threshold: str = "heuristic", n_init: int = 1, subpopulation: str = "random"):
        super().__init__(threshold=threshold, n_init=n_init)
        self.subpopulation = subpopulation

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.subpopulation, SUBPOPULATION_MODES, "subpopulation", type(self).__name__)

    def _initialize(self):
        self._arms = arm_level(self.problem_, self.subpopulation)

    def _select(self):
        if self._arms is not None:
            arm = int(np.argmin(self._arms.arm_counts(self.counts_)))
            if self._arms.random:
                return self._arms.random_cell(arm, self.rng_)
            return self._arms.proportional_cell(arm, self.counts_)
        return int(np.argmin(self.problem_.request_counts(self.counts_)))
