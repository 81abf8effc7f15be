"""Successive rejects (Audibert, Bubeck and Munos 2010): fixed-budget elimination on independent arms."""

from __future__ import annotations

import numpy as np

from pybai.fixed_budget.schedules import reject_worst, successive_rejects_lengths
from pybai.strategies._fixed_budget import empirical_means
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies.registry import register

__all__ = ["SuccessiveRejects"]


@register
class SuccessiveRejects(Strategy):
    """Successive rejects: K - 1 phases; after phase k the arm with the lowest empirical mean is rejected.

    By the end of phase k every surviving arm has been pulled
    ``n_k = ceil((T - K) / (log_bar(K) (K + 1 - k)))`` times
    (:func:`pybai.fixed_budget.schedules.successive_rejects_lengths`); within a phase the rule
    pulls the least-pulled surviving arm (lowest index on ties), so the initial phase
    (``n_init`` pulls per arm) counts towards phase 1.  Elimination uses all the samples of an
    arm (its empirical mean); among equal means the later arm index is rejected.

    Spending the whole budget (documented choice): the schedule uses
    ``n_1 + ... + n_{K-1} + n_{K-1} <= T`` samples; Audibert et al. leave the remainder unused.
    Here the last phase (the two final survivors) runs until the budget is spent, in round
    robin, so the leftover samples go to the last comparison.  The recommendation is the
    survivor with the larger empirical mean (the earlier index on ties).  No exploration
    parameter.  Works on any best-arm problem (a correlated prior is ignored).

    Parameters
    ----------
    threshold : unused (fixed budget)
    n_init : int, default 1
        Pulls of every arm before the phases (must not exceed the budget).
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    active_ = StateArray()

    name = "successive-rejects"
    single_request = "it rejects an arm at the end of each phase, on every answer of the phase"
    regimes = ("fixed-budget",)
    _state_attrs = ("active_", "phase_")

    def _initialize(self):
        K = self.counts_.shape[0]
        self._lengths = successive_rejects_lengths(K, self.problem_.regime.budget)
        self._active_ = np.arange(K, dtype=np.intp)
        self.phase_ = 0  # index into _lengths; phase_ == K - 2 is the last phase (two survivors)

    def _observe(self, sources, rewards):
        if not self._ready:  # the initial phase first: no elimination on arms never pulled
            return
        # end every phase whose pulls are complete (several at once when n_init exceeds them)
        counts = self.counts_
        last = len(self._lengths) - 1
        while self.phase_ < last and counts[self._active_].min() >= self._lengths[self.phase_]:
            self._active_ = reject_worst(empirical_means(counts, self.sums_), self._active_)
            self.phase_ += 1

    def _select(self):
        active = self._active_
        return int(active[np.argmin(self.counts_[active])])

    def _recommend(self):
        mu = empirical_means(self.counts_, self.sums_)[self._active_]
        if np.isnan(mu).all():
            return None
        return int(self._active_[np.nanargmax(mu)])
