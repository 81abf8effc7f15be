"""KL-LUCB (Kalyanakrishnan et al. 2012; Kaufmann & Kalyanakrishnan 2013), for best-arm and top-k."""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai._validation import check_choice
from pybai.stopping.thresholds import DEFAULT_KIND
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["LUCB"]


@njit(cache=True)
def _lucb_pair(bounds, in_answer):
    """(h, l, lcb_h, ucb_l): h the answer arm with the smallest LCB, l the other arm with the largest UCB.

    ``bounds`` holds each answer arm's lower bound and every other arm's upper bound.  Ties: the
    lowest index.  With a one-arm answer (best arm), h is that arm.
    """
    k = bounds.shape[0]
    h = -1
    lcb_h = np.inf
    l = -1
    ucb_l = -np.inf
    for a in range(k):
        if in_answer[a]:
            if bounds[a] < lcb_h or h < 0:
                lcb_h = bounds[a]
                h = a
        elif bounds[a] > ucb_l or l < 0:
            ucb_l = bounds[a]
            l = a
    return h, l, lcb_h, ucb_l


@register
class LUCB(Strategy):
    """KL-LUCB: sample the weakest arm of the empirical answer and its most optimistic challenger.

    Each round asks for two samples: with J_t the empirical answer
    (:meth:`~pybai.problems.base.Problem.answer_mask`: the empirical best arm, or the empirical
    top-k set), the arm h_t of J_t with the smallest KL lower confidence bound and the arm
    l_t outside J_t with the largest KL upper confidence bound,
    UCB_a = max{q : N_a d(mu_hat_a, q) <= beta(t, delta)} (LCB symmetrically), where beta is the
    strategy's threshold (the same object as the GLR stopping threshold), computed by the
    family (:meth:`~pybai.models.families.Family.confidence_bounds`: bounded rewards with KL_inf
    read them from the betting tables the stopping rule tests).  For the best arm
    (k = 1) h_t is the empirical best arm: the rule of Kaufmann & Kalyanakrishnan (2013).

    Parameters
    ----------
    stopping : {"glr", "confidence-intervals"}, default "glr"
        ``"glr"``: the problem's GLR rule shared by all fixed-confidence strategies (for top-k
        the exact GLR of :class:`~pybai.problems.top_k.TopKProblem`);
        ``"confidence-intervals"``: the original LUCB rule, stop when LCB_h > UCB_l, or with
        epsilon (epsilon-best-arm identification) when LCB_h + epsilon > UCB_l
        (LCB_h > (1 - epsilon) UCB_l in the relative mode): the epsilon-stopping rule of LUCB1,
        (epsilon, delta)-PAC (Kalyanakrishnan et al. 2012, section 3; Kaufmann & Kalyanakrishnan
        2013 for its KL form), through the problem's
        :meth:`~pybai.problems.base.Problem.separation`.  ``"glr"`` with epsilon is the
        epsilon-GLR of the problem.
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1

    References
    ----------
    S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
    multi-armed bandits. ICML 2012.  E. Kaufmann and S. Kalyanakrishnan. Information
    complexity in bandit subset selection. COLT 2013.
    """

    name = "lucb"
    requires = frozenset({"independent-arms", "answer-mask"})
    goals = ("best-arm", "top-k")

    def __init__(self, *, stopping: str = "glr", threshold: str = DEFAULT_KIND, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.stopping = stopping

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.stopping, ("glr", "confidence-intervals"), "stopping", type(self).__name__)

    def _pair(self):
        fam = self.problem_.family
        level = self.threshold_(max(self.t_, 1))
        mask = self.problem_.answer_mask(self.means_)
        return _lucb_pair(fam.confidence_bounds(self.model_, self.means_, level, mask), mask)

    def _select(self):
        h, l, _, _ = self._pair()
        return np.array([h, l], dtype=np.intp)

    def _should_stop(self):
        if self.stopping == "glr":
            return super()._should_stop()
        _, _, lcb_h, ucb_l = self._pair()
        margin = self.problem_.separation(lcb_h, ucb_l)
        self.statistic_ = float(margin)
        return margin > 0.0
