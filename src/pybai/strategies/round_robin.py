"""RoundRobin baseline of Jun, Jamieson, Nowak & Zhu (2016, section 5.2): uniform pulls, empirical top-k."""

from __future__ import annotations

from pybai.batch.algorithms import UniformRoundRobin
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register

__all__ = ["RoundRobinStrategy"]


@register
class RoundRobinStrategy(BatchTopKRule):
    """RoundRobin over every arm (Algorithm 1 at each batch, no elimination) for the whole budget.

    The answer is the empirical top-k (ties by the tie order).  Unlike ``uniform``, which
    serves every goal and breaks ties by index, this is the paper's baseline with its random
    tie order, on top-k problems only.

    Parameters
    ----------
    ties : {"random", "index"}, default "random"
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).
    """

    name = "round-robin"
    regimes = ("fixed-budget",)

    def _make_engine(self, problem, rng):
        b, r = batch_shape(problem)
        return UniformRoundRobin(problem.n_sources, problem.k, b, r, problem.regime.budget, rng=rng)
