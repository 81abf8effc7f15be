"""Halving (Algorithm 4 of Jun, Jamieson, Nowak & Zhu 2016): sequential halving for top-k in batches."""

from __future__ import annotations

from pybai.batch.algorithms import Halving as HalvingAlgorithm
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register

__all__ = ["HalvingStrategy"]


@register
class HalvingStrategy(BatchTopKRule):
    r"""Halving: :math:`\lceil \log_2(n/k) \rceil` stages of RoundRobin, each keeping the better half.

    The budget is split evenly over the stages, the remainder spread over random stages
    (section 5.2); stage 1 gets at least the batches that pull every arm once; a stage keeps
    the :math:`\max\{\lceil |S|/2 \rceil, \lceil b/r \rceil, k\}` empirically best arms and the
    answer is the empirical top-k of the last survivors (:class:`pybai.batch.Halving`, where
    the two documented changes to Algorithm 4 are explained).  Spends exactly the budget.

    Parameters
    ----------
    ties : {"random", "index"}, default "random"
        ``"index"`` also gives the remainder of the budget to the first stages.
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).
    """

    name = "halving"
    regimes = ("fixed-budget",)

    def _make_engine(self, problem, rng):
        b, r = batch_shape(problem)
        return HalvingAlgorithm(problem.n_sources, problem.k, b, r, problem.regime.budget, rng=rng)
