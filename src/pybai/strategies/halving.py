"""Halving (Algorithm 4 of Jun, Jamieson, Nowak & Zhu 2016): stages of RoundRobin for top-k in batches."""

from __future__ import annotations

import numpy as np

from pybai.batch.halving import halving_keep, halving_stage_budgets
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["HalvingStrategy"]


@register
class HalvingStrategy(BatchTopKRule):
    r"""Halving: :math:`\lceil \log_2(n/k) \rceil` stages of RoundRobin, each keeping the better half.

    The budget is split evenly over the stages, the remainder spread over random stages
    (section 5.2); stage 1 gets at least the batches that pull every arm once; a stage keeps
    the :math:`\max\{\lceil |S|/2 \rceil, \lceil b/r \rceil, k\}` empirically best arms and the
    answer is the empirical top-k of the last survivors (:mod:`pybai.batch.halving`, where
    the two documented changes to Algorithm 4 are explained).  Spends exactly the budget.

    Not Karnin et al.'s ``sequential-halving`` (best arm, sequential): that rule gives every
    survivor the same pulls in a round, ranks by the round's own samples and spends the rest
    of the budget in its last round; this one splits the budget in batches per stage, ranks by
    all samples and solves top-k.

    Parameters
    ----------
    ties : {"random", "index"}, default "random"
        ``"index"`` also gives the remainder of the budget to the first stages.
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).

    Attributes
    ----------
    stage_budgets_ : ndarray of int (L,)
        Batches of each stage.
    stage_, in_stage_ : int
        The current stage (0-based) and the batches it has played.
    survivors_ : ndarray of int
        S_s, increasing.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    survivors_ = StateArray()
    stage_budgets_ = StateArray()

    name = "halving"
    regimes = ("fixed-budget",)
    _state_attrs = BatchTopKRule._state_attrs + ("stage_budgets_", "stage_", "in_stage_", "survivors_")

    def _stage_budgets(self, problem, rng):
        b, r = batch_shape(problem)
        return halving_stage_budgets(problem.n_sources, problem.k, b, r, problem.regime.budget, rng,
                                     type(self).__name__)

    def _check_rule(self, problem):
        self._stage_budgets(problem, None)

    def _start_rule(self):
        # drawn after the tie order, from the same generator
        self._stage_budgets_ = self._stage_budgets(self.problem_, self.rng_ if self.ties == "random" else None)
        self.stage_ = 0
        self.in_stage_ = 0
        self._survivors_ = np.arange(self.problem_.n_sources)
        self._advance()

    def _survivors(self):
        return self._survivors_

    def _after_batch(self):
        self.in_stage_ += 1
        self._advance()

    def _advance(self):
        """End every stage whose budget is spent (stages with no batch end at once)."""
        k = self.problem_.k
        while self._answer_ is None and self.in_stage_ >= self._stage_budgets_[self.stage_]:
            keep = halving_keep(self._survivors_.size, self.size_, self.max_repeats_, k)
            if keep < self._survivors_.size:
                self._survivors_ = np.sort(self._top(self._survivors_, keep))
            self.stage_ += 1
            self.in_stage_ = 0
            if self.stage_ == self._stage_budgets_.size:
                self._decide(self._top(self._survivors_, k))

    def _current_answer(self):
        return self._top(self._survivors_, self.problem_.k)
