"""BatchSAR (Algorithm 3 of Jun, Jamieson, Nowak & Zhu 2016): fixed-budget top-k in batches."""

from __future__ import annotations

import numpy as np

from pybai.batch.ranking import sorted_order
from pybai.batch.sar import DONE_ALL_REMAINING, DONE_FINAL_STAGE, DONE_K_ACCEPTED, SARSchedule
from pybai.strategies._batch_top_k import BatchTopKRule, batch_shape
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["BatchSARStrategy"]


@register
class BatchSARStrategy(BatchTopKRule):
    r"""BatchSAR: successive accepts and rejects in stages, pulls by RoundRobin.

    Stage s pulls its surviving arms until each has its target number of samples, then accepts
    the empirical best or rejects the empirical worst (whichever has the larger empirical gap);
    the last stage (:math:`\tilde n` arms left) adds the empirical top-k' of the survivors
    (formulas and the stage schedule in :mod:`pybai.batch.sar`).  The run ends early
    when the answer is forced (lines 23-24: status ``"stopped"`` before the budget is spent),
    else when the budget is spent.  With b = r = 1 (no ``[problem.batch]``) and the
    theoretical schedule it is SAR (Bubeck, Wang & Viswanathan 2013) run on B - n - 1 samples.

    Parameters
    ----------
    schedule : {"practical", "theory"}, default "practical"
        Stage targets: m'_s of Eq. (10) (recomputed from the budget left, the last stage
        spends the rest; the paper's experiments) or m_s of line 4 (the analysed schedule; the
        run usually ends before the budget).
    ties : {"random", "index"}, default "random"
    threshold, n_init
        Unused (see :class:`~pybai.strategies._batch_top_k.BatchTopKRule`).

    Attributes
    ----------
    survivors_ : ndarray of int
        S_s, increasing; the stage is s = n - ``|S_s|`` + 1.
    accepted_ : ndarray of bool (n,)
    removed_ : int
        R_s, the pulls of the arms removed so far.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    survivors_ = StateArray()
    accepted_ = StateArray()
    removed_ = StateArray()

    name = "batch-sar"
    regimes = ("fixed-budget",)
    may_stop_early = True
    _state_attrs = BatchTopKRule._state_attrs + ("survivors_", "accepted_", "removed_")

    def __init__(self, *, schedule: str = "practical", ties: str = "random", threshold: str | None = None,
                 n_init: int = 1):
        super().__init__(ties=ties, threshold=threshold, n_init=n_init)
        self.schedule = schedule

    def _make_schedule(self, problem) -> SARSchedule:
        b, r = batch_shape(problem)
        return SARSchedule(problem.n_sources, b, r, problem.regime.budget, self.schedule, type(self).__name__)

    def _check_rule(self, problem):
        self._make_schedule(problem)

    def _start_rule(self):
        n = self.problem_.n_sources
        self._schedule = self._make_schedule(self.problem_)
        self._survivors_ = np.arange(n)
        self._accepted_ = np.zeros(n, dtype=bool)
        self._removed_ = 0

    def _survivors(self):
        return self._survivors_

    def _after_batch(self):
        idx = self._survivors_
        budget = self._schedule.budget
        if self.batches_ < budget and self.counts_[idx].min() < self._schedule.target(idx.size, self._removed_):
            return  # mid-stage: no decision, no sort
        means = self._means()[idx]
        order = sorted_order(means, self._priority_[idx])
        arms = idx[order]
        kprime = self.problem_.k - int(self._accepted_.sum())
        lo, hi, kprime, self._removed_, status = self._schedule.stage_ends(
            means[order], self.counts_[arms].astype(np.int64), kprime, self._removed_)
        self._accepted_[arms[:lo]] = True
        survivors = arms[lo:hi]
        self._survivors_ = np.sort(survivors)
        accepted = np.flatnonzero(self._accepted_)
        if status == DONE_ALL_REMAINING:
            self._decide(np.r_[accepted, survivors])
        elif status == DONE_K_ACCEPTED:
            self._decide(accepted)
        elif status == DONE_FINAL_STAGE or self.batches_ >= budget:
            # final stage (line 26): A and the empirical top-k' of the survivors; also the
            # fallback if the budget runs out before a stage ends
            self._decide(np.r_[accepted, survivors[:kprime]])

    def _current_answer(self):
        kt = self.problem_.k - int(self._accepted_.sum())
        return np.concatenate([np.flatnonzero(self._accepted_), self._top(self._survivors_, kt)])
