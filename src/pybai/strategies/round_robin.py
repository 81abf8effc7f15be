"""RoundRobin baseline of Jun, Jamieson, Nowak & Zhu (2016, section 5.2): uniform pulls, empirical top-k."""

from __future__ import annotations

from pybai.batch.round_robin import check_cover_budget
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register

__all__ = ["RoundRobinStrategy"]


@register
class RoundRobinStrategy(BatchTopKRule):
    """RoundRobin over every arm (Algorithm 1 at each batch, no elimination) for the whole budget.

    The answer is the empirical top-k, ties by the tie order.  It samples as ``uniform`` does
    in batches (the same water filling) but is not ``uniform`` with another option: with the
    default random tie order every tie is broken by one random permutation, the first batches
    included (``uniform`` first asks its initial phase in index order, cut into batches, whose
    last batch is short when b does not divide n), and ties of the answer too (``uniform``
    takes the problem's answer: lowest indices).  Even with ``ties = "index"`` the first
    batches differ from ``uniform``'s when b does not divide n (RoundRobin fills every batch).
    Top-k problems, fixed budget only.

    Parameters
    ----------
    ties : {"random", "index"}, default "random"
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).
    """

    name = "round-robin"
    regimes = ("fixed-budget",)

    def _check_rule(self, problem):
        b, r = batch_shape(problem)
        check_cover_budget(problem.regime.budget, problem.n_sources, b, r, type(self).__name__)
