"""Top-two sampling: EB-TCI (Jourdan, Degenne, Baudry, de Heide, Kaufmann 2022)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai._validation import check_choice, check_probability
from pybai.models._kl import pair_cost
from pybai.stopping.thresholds import DEFAULT_KIND
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["TopTwo"]


@njit(cache=True)
def _challenger(code, counts, means, var, leader, penalty):
    """argmin_{j != leader} W(leader, j) + penalty * ln N_j (transportation cost [improved])."""
    best = -1
    best_val = math.inf
    for j in range(means.shape[0]):
        if j == leader:
            continue
        val = pair_cost(code, counts[leader], means[leader], var[leader], counts[j], means[j], var[j])
        if penalty:
            val += math.log(counts[j])
        if val < best_val:
            best_val = val
            best = j
    return best


@register
class TopTwo(Strategy):
    """Top-two sampling with the empirical-best leader and a transportation-cost challenger.

    Leader B_t = argmax mu_hat (EB); challenger C_t = argmin_{j != B_t} W_t(B_t, j) + ln N_j
    (the "TCI" challenger: the GLR of "B_t beats j" plus an exploration penalty).
    The leader is sampled with proportion ``beta``: either by tracking per leader
    (``selection="tracking"``: pull B_t iff N_t^{B_t}(B_t) <= beta T_{t+1}(B_t), where T(i)
    counts the rounds i was leader and N^i(i) the pulls of i as leader; Jourdan & Degenne 2023)
    or by a coin of bias beta (``selection="random"``).  No forced exploration is needed.

    Parameters
    ----------
    beta : float in (0, 1), default 0.5
    challenger : {"tci", "tc"}, default "tci"
    selection : {"tracking", "random"}, default "tracking"
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1

    References
    ----------
    M. Jourdan, R. Degenne, D. Baudry, R. de Heide, E. Kaufmann. Top two algorithms revisited.
    NeurIPS 2022.  M. Jourdan, R. Degenne. Non-asymptotic analysis of a UCB-based top two
    algorithm. NeurIPS 2023.
    """

    name = "top-two"
    goals = ("best-arm",)
    _state_attrs = ("leader_rounds_", "leader_pulls_")

    def __init__(
        self,
        *,
        beta: float = 0.5,
        challenger: str = "tci",
        selection: str = "tracking",
        threshold: str = DEFAULT_KIND,
        n_init: int = 1,
    ):
        super().__init__(threshold=threshold, n_init=n_init)
        self.beta = beta
        self.challenger = challenger
        self.selection = selection

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_probability(self.beta, "beta", owner)
        check_choice(self.challenger, ("tci", "tc"), "challenger", owner)
        check_choice(self.selection, ("tracking", "random"), "selection", owner)

    def _initialize(self):
        n = self.problem_.n_sources
        self.leader_rounds_ = np.zeros(n)
        self.leader_pulls_ = np.zeros(n)

    def _select(self):
        fam = self.problem_.family
        leader = int(np.argmax(self.means_))
        self.leader_rounds_[leader] += 1.0
        if self.selection == "tracking":
            take_leader = self.leader_pulls_[leader] <= self.beta * self.leader_rounds_[leader]
        else:
            take_leader = self.rng_.random() < self.beta
        if take_leader:
            self.leader_pulls_[leader] += 1.0
            return leader
        return _challenger(fam.code, self.counts_, self.means_, fam.variances, leader, self.challenger == "tci")
