"""Uniform sampling: round robin over the requests, in any regime, sequential or in batches."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_choice
from pybai.batch.round_robin import round_robin
from pybai.strategies._compiled import CompiledRun
from pybai.strategies._driver import UNIFORM, rule_state
from pybai.strategies._steps import uniform_step
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["Uniform", "SUBPOPULATION_MODES"]

#: How arm-level rules pick the subpopulation of an arm in the "pair" model of BAICS.
SUBPOPULATION_MODES = ("random", "tracked")


@register
class Uniform(CompiledRun, Strategy):
    """Sample the least-sampled request (lowest index on ties): a round robin.

    The reference of every regime: in fixed confidence it stops with the same GLR rule and
    threshold as the adaptive strategies; in fixed budget it spends the budget and recommends
    the empirical answer; with (b, r) batches each batch raises the least-sampled requests
    as evenly as possible (water filling, at most r pulls of one request, lowest index first
    at the last level: :func:`~pybai.batch.round_robin.round_robin`, the RoundRobin of the
    batch top-k rules).

    On problems with an arm-level view (goal ``"best-feasible-arm"`` in the ``"pair"``
    sampling model), ``subpopulation`` chooses how the cell is picked within the least-sampled
    arm: ``"random"`` (default, the paper's baseline, Wu, Zheng & Zhu section 5) draws the
    subpopulation l ~ q with the strategy's rng; ``"tracked"`` takes the cell furthest below
    the q-proportional allocation (deterministic, same expected proportions; with batches it
    fills the cells evenly instead).  Ignored otherwise.

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    subpopulation : {"random", "tracked"}, default "random"
    """

    name = "uniform"
    requires = frozenset()  # the problem's oracle, GLR and best response only: linear problems too
    goals = ("best-arm", "best-feasible-arm", "top-k", "best-arm-guardrails")
    regimes = ("fixed-confidence", "fixed-budget")
    batched = True

    def __init__(self, *, threshold: str | None = None, n_init: int = 1, subpopulation: str = "random"):
        super().__init__(threshold=threshold, n_init=n_init)
        self.subpopulation = subpopulation

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.subpopulation, SUBPOPULATION_MODES, "subpopulation", type(self).__name__)

    def _initialize(self):
        self._view = self.requests_.arm_view()  # arms and their cells (the identity without cells)
        self._random = self.subpopulation == "random"

    def _rule_state(self):
        return rule_state(UNIFORM, self.problem_.n_sources)

    def _select(self):
        batch = self.problem_.batch
        view = self._view
        if batch is None:
            arm = int(uniform_step(view.arm_counts(self.counts_)))  # the compiled run's step
            return view.random_cell(arm, self.rng_) if self._random else view.proportional_cell(arm, self.counts_)
        if self._random:
            pulls = round_robin(view.arm_counts(self.counts_), batch.size, batch.max_repeats)
            return view.random_cells(np.repeat(np.arange(pulls.size), pulls), self.rng_)
        pulls = round_robin(self.requests_.counts(self.counts_), batch.size, batch.max_repeats)
        return np.repeat(np.arange(pulls.size), pulls)
