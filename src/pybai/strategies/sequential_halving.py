"""Sequential halving (Karnin, Koren and Somekh 2013): fixed-budget halving on independent arms."""

from __future__ import annotations

import numpy as np

from pybai.fixed_budget.schedules import keep_top_half, sequential_halving_schedule
from pybai.strategies._fixed_budget import empirical_means
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies.registry import register

__all__ = ["SequentialHalving"]


@register
class SequentialHalving(Strategy):
    """Sequential halving: ``ceil(log2 K)`` rounds; each keeps the better half of the surviving arms.

    In round r every one of the ``|S_r|`` surviving arms is pulled
    ``t_r = floor(T / (|S_r| ceil(log2 K)))`` times
    (:func:`pybai.fixed_budget.schedules.sequential_halving_schedule`), the least-pulled one first
    (lowest index on ties); then the ``ceil(|S_r| / 2)`` arms with the highest means of the
    round's own samples survive (Algorithm 1 of Karnin et al.: ``p_hat_i^r`` is the average
    reward of round r).  The initial phase (``n_init`` pulls per arm) counts towards round 1.
    An arm without a sample in the round (possible only when ``t_r = 0``, a budget below
    ``|S_r| ceil(log2 K)``) is scored by the mean of all its samples.  Ties keep the earlier index.

    Spending the whole budget (documented choice): the rounds use ``sum_r |S_r| t_r <= T``
    samples; the last round (always two survivors) runs until the budget is spent, in round
    robin, and the recommendation is the survivor with the larger mean of that round.  No
    exploration parameter.  Works on any best-arm problem (a correlated prior is ignored).

    Parameters
    ----------
    threshold : unused (fixed budget)
    n_init : int, default 1
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    active_ = StateArray()
    round_counts_ = StateArray()
    round_sums_ = StateArray()

    name = "sequential-halving"
    single_request = "it halves the arms at the end of each round, on every answer of the round"
    regimes = ("fixed-budget",)
    _state_attrs = ("active_", "round_", "round_counts_", "round_sums_")

    def _initialize(self):
        K = self.counts_.shape[0]
        self._pulls = [pulls for _, pulls in sequential_halving_schedule(K, self.problem_.regime.budget)]
        self._active_ = np.arange(K, dtype=np.intp)
        self.round_ = 0
        self._round_counts_ = np.zeros(K, dtype=np.int64)  # counts and sums when the round began
        self._round_sums_ = np.zeros(K)

    def _round_means(self) -> np.ndarray:
        n = self.counts_ - self._round_counts_
        own = empirical_means(n, self.sums_ - self._round_sums_)
        return np.where(n > 0, own, empirical_means(self.counts_, self.sums_))

    def _observe(self, sources, rewards):
        if not self._ready:  # the initial phase first: no elimination on arms never pulled
            return
        # end every round whose pulls are complete (several at once when n_init exceeds them)
        counts = self.counts_
        last = len(self._pulls) - 1
        while self.round_ < last and (counts - self._round_counts_)[self._active_].min() >= self._pulls[self.round_]:
            self._active_ = keep_top_half(self._round_means(), self._active_)
            self.round_ += 1
            self._round_counts_ = counts.astype(np.int64, copy=True)
            self._round_sums_ = self.sums_.astype(float, copy=True)

    def _select(self):
        active = self._active_
        return int(active[np.argmin(self.counts_[active])])

    def _recommend(self):
        mu = self._round_means()[self._active_]
        if np.isnan(mu).all():
            return None
        return int(self._active_[np.nanargmax(mu)])
