"""KL-LUCB (Kalyanakrishnan et al. 2012; Kaufmann & Kalyanakrishnan 2013)."""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai._validation import check_choice
from pybai.models._kl import lower_bound, upper_bound
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["LUCB"]


@njit(cache=True)
def _lucb_pair(code, counts, means, var, level):
    """(h, l, lcb_h, ucb_l): the empirical best h and the other arm l with the largest UCB."""
    k = means.shape[0]
    h = 0
    for a in range(1, k):
        if means[a] > means[h]:
            h = a
    l = -1
    ucb_l = -np.inf
    for a in range(k):
        if a == h:
            continue
        u = upper_bound(code, means[a], counts[a], var[a], level)
        if u > ucb_l:
            ucb_l = u
            l = a
    lcb_h = lower_bound(code, means[h], counts[h], var[h], level)
    return h, l, lcb_h, ucb_l


@register
class LUCB(Strategy):
    """KL-LUCB: sample the empirical best arm and its most optimistic challenger.

    Each round asks for two samples: the empirical best arm h_t and the arm l_t != h_t
    with the largest KL upper confidence bound
    UCB_a = max{q : N_a d(mu_hat_a, q) <= beta(t, delta)}, where beta is the strategy's
    threshold (the same object as the GLR stopping threshold).

    Parameters
    ----------
    stopping : {"glr", "confidence-intervals"}, default "glr"
        ``"glr"``: the GLR rule shared by all fixed-confidence strategies;
        ``"confidence-intervals"``: the original LUCB rule, stop when LCB_h > UCB_l.
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1

    References
    ----------
    S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
    multi-armed bandits. ICML 2012.  E. Kaufmann and S. Kalyanakrishnan. Information
    complexity in bandit subset selection. COLT 2013.
    """

    name = "lucb"
    goals = ("best-arm",)

    def __init__(self, *, stopping: str = "glr", threshold: str = "heuristic", n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.stopping = stopping

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.stopping, ("glr", "confidence-intervals"), "stopping", type(self).__name__)

    def _pair(self):
        fam = self.problem_.family
        level = self.threshold_(max(self.t_, 1))
        return _lucb_pair(fam.code, self.counts_, self.means_, fam.variances, level)

    def _select(self):
        h, l, _, _ = self._pair()
        return np.array([h, l], dtype=np.intp)

    def _should_stop(self):
        if self.stopping == "glr":
            return super()._should_stop()
        _, _, lcb_h, ucb_l = self._pair()
        self.statistic_ = float(lcb_h - ucb_l)
        return lcb_h > ucb_l
