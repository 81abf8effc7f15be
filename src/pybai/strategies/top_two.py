"""Top-two sampling: EB-TCI (Jourdan, Degenne, Baudry, de Heide, Kaufmann 2022) and EB-TC-epsilon
(Jourdan, Degenne & Kaufmann 2023)."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_choice, check_probability, fail
from pybai.strategies._compiled import CompiledRun
from pybai.strategies._driver import TOP_TWO, rule_state
from pybai.strategies._steps import leader_or_challenger, penalized_argmin, top_two_step
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies.registry import register

__all__ = ["TopTwo"]


@register
class TopTwo(CompiledRun, Strategy):
    """Top-two sampling with the empirical-best leader and a transportation-cost challenger.

    Leader B_t = argmax mu_hat (EB); challenger C_t = argmin_{j != B_t} W_t(B_t, j) + ln N_j
    (the "TCI" challenger: the GLR of "B_t beats j" plus an exploration penalty).
    The leader is sampled with proportion ``beta``: either by tracking per leader
    (``selection="tracking"``: pull B_t iff N_t^{B_t}(B_t) <= beta T_{t+1}(B_t), where T(i)
    counts the rounds i was leader and N^i(i) the pulls of i as leader; Jourdan & Degenne 2023)
    or by a coin of bias beta (``selection="random"``).  No forced exploration is needed.

    The transportation costs are the problem's
    (:meth:`~pybai.problems.base.Problem.transport_costs`).  With epsilon (epsilon-best-arm
    identification) they are the epsilon costs W_eps(B, j) = inf over {lambda_B <= lambda_j - epsilon}
    of N_B d(mu_B, lambda_B) + N_j d(mu_j, lambda_j) (Gaussian:
    (mu_B - mu_j + epsilon)^2 / (2 (s_B / N_B + s_j / N_j))), and ``challenger="tc"`` is
    **EB-TC-epsilon** of Jourdan, Degenne & Kaufmann (NeurIPS 2023): leader the empirical best
    arm, challenger argmin_j W_eps(B, j) (for Gaussian arms the same arm as their
    argmin_j (mu_B - mu_j + epsilon) / sqrt(s_B / N_B + s_j / N_j), since the numerator is positive
    at the empirical best), leader proportion a fixed beta with the tracking above or IDS
    (``beta="ids"``); its anytime recommendation is the empirical best arm, which is this rule's
    recommendation in every regime.  The paper proves the sample-complexity bounds of EB-TC-epsilon
    for these two choices (asymptotic beta-optimality with a fixed beta, asymptotic optimality with
    IDS) and its anytime error bounds; the paper's full text was not in the search corpus when this
    was written, so its theorem numbers are not quoted here.  The default ``challenger="tci"`` adds
    the ln N_j penalty of EB-TCI to the same costs.

    Parameters
    ----------
    beta : float in (0, 1) or "ids", default 0.5
        The leader's proportion; ``"ids"`` is information-directed selection (You, Qin, Wang &
        Yang, ICML 2023, as used by Jourdan et al. 2023): beta_t = N_B d(mu_B, lambda_B) /
        (N_B d(mu_B, lambda_B) + N_C d(mu_C, lambda_C)) at the minimiser of W(B, C) (N_C / (N_B + N_C)
        for Gaussian arms of equal variance), tracked per leader through its cumulative sum.
    challenger : {"tci", "tc"}, default "tci"
    selection : {"tracking", "random"}, default "tracking"
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1

    References
    ----------
    M. Jourdan, R. Degenne, D. Baudry, R. de Heide, E. Kaufmann. Top two algorithms revisited.
    NeurIPS 2022.  M. Jourdan, R. Degenne. Non-asymptotic analysis of a UCB-based top two
    algorithm. NeurIPS 2023.  M. Jourdan, R. Degenne, E. Kaufmann. An epsilon-best-arm
    identification algorithm for fixed-confidence and beyond. NeurIPS 2023.  W. You, C. Qin,
    Z. Wang, S. Yang. Information-directed selection for top-two algorithms. ICML 2023.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    leader_rounds_ = StateArray()
    leader_pulls_ = StateArray()
    leader_target_ = StateArray()

    name = "top-two"
    goals = ("best-arm",)
    _state_attrs = ("leader_rounds_", "leader_pulls_", "leader_target_")
    _count_attrs = ("leader_rounds_", "leader_pulls_")
    _nonnegative_attrs = ("leader_target_",)

    def __init__(
        self,
        *,
        beta: float = 0.5,
        challenger: str = "tci",
        selection: str = "tracking",
        threshold: str | None = None,
        n_init: int = 1,
    ):
        super().__init__(threshold=threshold, n_init=n_init)
        self.beta = beta
        self.challenger = challenger
        self.selection = selection

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        if not (isinstance(self.beta, str) and self.beta == "ids"):
            if isinstance(self.beta, str):
                raise fail("beta", owner, 'a float in (0, 1) or "ids"', self.beta)
            check_probability(self.beta, "beta", owner)
        check_choice(self.challenger, ("tci", "tc"), "challenger", owner)
        check_choice(self.selection, ("tracking", "random"), "selection", owner)

    def _initialize(self):
        n = self.problem_.n_sources
        self._leader_rounds_ = np.zeros(n)
        self._leader_pulls_ = np.zeros(n)
        self._leader_target_ = np.zeros(n)  # IDS: cumulative beta_t per leader
        self._costs = np.empty(n)  # work space of the step

    def _compiled_ok(self) -> bool:
        """The step plays a fixed beta (not ``"ids"``)."""
        return not isinstance(self.beta, str)

    def _rule_state(self):
        return rule_state(TOP_TWO, self.problem_.n_sources, tci=self.challenger == "tci",
                          leader_tracking=self.selection == "tracking", beta=float(self.beta),
                          rounds=self._leader_rounds_, pulls=self._leader_pulls_)

    def _select(self):
        tci, tracking = self.challenger == "tci", self.selection == "tracking"
        g = self._step_goal()
        if g is not None:  # the compiled step (the same function the compiled run calls)
            return top_two_step(g.code, self.counts_, self.means_, g.var, g.c, g.e, self._leader_rounds_,
                                self._leader_pulls_, float(self.beta), tci, tracking, self.rng_, self._costs)
        leader, challenger = self._candidates(tci)
        if challenger == leader:  # a piece on one request: no choice to make
            return leader
        self._leader_rounds_[leader] += 1.0
        if isinstance(self.beta, str):  # "ids"
            beta = self._ids_beta(leader, challenger)
            self._leader_target_[leader] += beta
            target = self._leader_target_[leader]
        else:
            beta = self.beta
            target = beta * self._leader_rounds_[leader]
        return int(leader_or_challenger(leader, challenger, self._leader_pulls_, target, float(beta), tracking,
                                        self.rng_))

    def _candidates(self, tci: bool) -> tuple[int, int]:
        """The leader (the empirical best) and the challenger (smallest transportation cost, + ln N_j with ``tci``)."""
        leader = int(np.argmax(self.means_))
        costs = self.problem_.transport_costs(self.counts_, self.means_, leader)
        return leader, int(penalized_argmin(costs, self.counts_, leader, tci))

    def _ids_beta(self, leader: int, challenger: int) -> float:
        """IDS: the leader's share of the transportation cost W(leader, challenger) (1/2 when it is 0)."""
        part_l, part_c = self.problem_.transport_split(self.counts_, self.means_, leader, challenger)
        total = part_l + part_c
        return float(part_l / total) if total > 0.0 else 0.5
