"""KL-LUCB (Kalyanakrishnan et al. 2012; Kaufmann & Kalyanakrishnan 2013), for best-arm and top-k."""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai._validation import check_choice
from pybai.models._kl import kernel_bounds
from pybai.problems.compiled import run_glr, run_mask
from pybai.stopping.compiled import row_may_stop, threshold_value
from pybai.strategies._compiled import CompiledRun
from pybai.strategies._driver import Stats, check_rule, draw_reward, record
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


@njit(cache=True)
def _lucb_run(goal, rule, arms, plan, max_samples, stats, noise, glr_stop, records):
    """A whole KL-LUCB run (see :mod:`pybai.strategies._compiled`): ``(t, tells, statistic, checked)``.

    LUCB keeps its own loop, not the driver's (:mod:`pybai.strategies._driver`): each round asks two
    samples, (h, l), as one request (cut to h alone when only one sample is left before
    ``max_samples``), and the stopping rule is applied once per request.  It is built from the driver's
    pieces (:func:`~pybai.strategies._driver.draw_reward`, :func:`~pybai.strategies._driver.record`,
    :func:`~pybai.strategies._driver.check_rule`).  One delta (``rule``'s first row): the confidence
    bounds read its t-only form, so the sampling depends on delta.  Best arm or top-k (the answer mask
    of ``run_mask``); the bounds are :func:`pybai.models._kl.kernel_bounds` (on Bernoulli arms: the
    replayed bisection).
    """
    kind, fam, var, k, c, e = goal
    truth, sd, bernoulli = arms
    counts, sums, est = stats
    rule_kind, times, floor = rule.kind, rule.times, rule.min_statistic
    form = times[0]
    n_plan = plan.shape[0]
    t = 0
    tells = 0
    z = 0.0
    checked = False
    while True:
        if tells < n_plan:
            a = plan[tells]
            record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
            t += 1
        else:
            mask = run_mask(kind, est, k)
            h, l, _, _ = _lucb_pair(kernel_bounds(fam, counts, est, var, threshold_value(form, float(max(t, 1))), mask),
                                    mask)
            r_h = draw_reward(noise, truth, sd, bernoulli, h)
            if t + 2 <= max_samples:
                r_l = draw_reward(noise, truth, sd, bernoulli, l)
                record(counts, sums, est, h, r_h)
                record(counts, sums, est, l, r_l)
                t += 2
            else:
                record(counts, sums, est, h, r_h)
                t += 1
        tells += 1
        if tells >= n_plan:
            checked = True
            if glr_stop:
                z = run_glr(kind, fam, counts, est, var, k, c, e)
                stop = row_may_stop(rule_kind, times, floor, 0, z, t) and check_rule(goal, rule, stats, t, z, 0,
                                                                                      records) > 0
            else:
                mask = run_mask(kind, est, k)
                _, _, lcb_h, ucb_l = _lucb_pair(kernel_bounds(fam, counts, est, var,
                                                              threshold_value(form, float(max(t, 1))), mask), mask)
                z = lcb_h + e - c * ucb_l  # Problem.separation
                stop = z > 0.0
                if stop:
                    records.stop_t[0] = t
                    records.stop_z[0] = z
                    records.counts[0, :] = counts
                    records.sums[0, :] = sums
            if stop:
                return t, tells, z, checked
        if t >= max_samples:
            return t, tells, z, checked


@register
class LUCB(CompiledRun, Strategy):
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
        :meth:`~pybai.problems.base.Problem.separation`.  For top-k with epsilon this is the
        paper's own setting: the returned set is (epsilon, m)-optimal, every arm within epsilon of
        the m-th largest mean (m = k), once the weakest lower bound of the set is above the
        strongest upper bound outside it minus epsilon.  ``"glr"`` with epsilon is the
        epsilon-GLR of the problem (for top-k the pairwise rule, docs/epsilon.md).
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1

    References
    ----------
    S. Kalyanakrishnan, A. Tewari, P. Auer, P. Stone. PAC subset selection in stochastic
    multi-armed bandits. ICML 2012.  E. Kaufmann and S. Kalyanakrishnan. Information
    complexity in bandit subset selection. COLT 2013.
    """

    name = "lucb"
    stops_on_statistics = False  # its own stopping rule (_should_stop)
    requires = frozenset({"independent-arms", "answer-mask"})
    goals = ("best-arm", "top-k")

    def __init__(self, *, stopping: str = "glr", threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.stopping = stopping

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.stopping, ("glr", "confidence-intervals"), "stopping", type(self).__name__)

    def _delta_free_sampling(self) -> bool:
        """No: the confidence bounds read the threshold, so each delta has its own trajectory."""
        return False

    def _run_loop(self, setup, rng, records):
        """LUCB's own loop (two samples per request): :func:`_lucb_run`."""
        model = self.model_
        return _lucb_run(setup.goal, setup.rule, setup.arms, setup.plan, setup.max_samples,
                         Stats(model.counts, model.sums, model.estimate), rng, self.stopping == "glr", records)

    def _pair(self):
        fam = self.problem_.family
        level = self.threshold_(max(self.t_, 1))
        mask = self.problem_.answer_mask(self.means_)
        return _lucb_pair(fam.confidence_bounds(self.model_, self.means_, level, mask), mask)

    def _select(self):
        h, l, _, _ = self._pair()
        return np.array([h, l], dtype=np.intp)

    @property
    def glr_stopping(self) -> bool:
        """Whether the problem's GLR rule decides the stop (``stopping = "glr"``), not the confidence intervals."""
        return self.stopping == "glr"

    def _should_stop(self):
        if self.stopping == "glr":
            return super()._should_stop()
        _, _, lcb_h, ucb_l = self._pair()
        margin = self.problem_.separation(lcb_h, ucb_l)
        self.statistic_ = float(margin)
        return margin > 0.0
