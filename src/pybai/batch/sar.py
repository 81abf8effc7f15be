r"""BatchSAR (Algorithm 3 of Jun, Jamieson, Nowak & Zhu 2016): successive accepts and rejects.

Constants (section 4): :math:`\tilde r = \min\{r, \lceil b/2 \rceil\}`,
:math:`\tilde n = \max\{\lceil b/r \rceil, 2\}` (= :math:`\lceil b/\tilde r \rceil` for b >= 2;
the extracted text's brackets are ambiguous, and this reading is the one under which the
budget proof's :math:`\lceil b/\tilde n \rceil \le \tilde r` holds), and
:math:`c_1 = b + \tilde n \tilde r + n`.  With
:math:`G(m) = \sum_{i=\tilde n+1}^{m} \lceil b/i \rceil`,
:math:`\bar H(m) = \sum_{i=\tilde n+1}^{m} 1/i`, :math:`Z = \tilde n/2 + \bar H(n)` and
:math:`X = bB - G(n) - c_1`, the stage targets (per-arm cumulative pull counts) are

* theoretical (line 4): :math:`m_s = \lceil X / (Z (n-s+1)) \rceil` for
  :math:`s \le n - \tilde n` and :math:`m_{n-\tilde n+1} = \lceil X/(2Z) \rceil`;
* practical, Eq. (10) (the default, as in the paper's experiments):
  :math:`m'_s = \lceil (bB - R_s - G(n-s+1) - c'_1) / ((\tilde n/2 + \bar H(n-s+1))(n-s+1)) \rceil`
  with :math:`R_s` the pulls of the arms removed before stage s and
  :math:`c'_1 = b + \tilde n \tilde r + n - s + 1`; the last stage samples until the budget is
  spent.

Stage s pulls its surviving arms by RoundRobin until each has at least its target, then
(for :math:`s \le n - \tilde n`) removes the arm with the larger empirical gap among the
empirical best :math:`\rho(1)` (gap :math:`\hat\mu_{\rho(1)} - \hat\mu_{\rho(k'+1)}`, accepted)
and the empirical worst (gap :math:`\hat\mu_{\rho(k')} - \hat\mu_{\rho(|S|)}`, rejected).  At
equal gaps ("break ties arbitrarily") the best is accepted when :math:`2k' \ge |S_s|` and the
worst rejected otherwise: equal gaps mostly mean "no information" (e.g. Bernoulli arms with
one sample each, all gaps 0), and a survivor is then more likely a bottom arm when fewer than
half are still to accept.  Always accepting would fill the answer with arbitrary arms and
exit early (early exit 2) on sparse Bernoulli instances such as the Twitter one.  Early exits (lines 23-24) end
the run as soon as the answer is forced.  The last stage adds the empirical top-k' of the
survivors.  Empirical ranks break ties by the tie order.  When n <= :math:`\tilde n` no
elimination can help and :math:`\tilde n` is set to n (one final stage: RoundRobin, then
the empirical top-k).

Stages that need no further pull (the target is already met) follow each other without a
batch in between: the survivors are then always a contiguous block of the arms sorted by
empirical mean, so a compiled loop (:func:`stage_ends`) processes them in O(1) each.  With
b = r = 1 and the theoretical targets, the trajectory is that of SAR (Bubeck, Wang &
Viswanathan 2013) run with budget B - n - 1 (then :math:`Z = \overline{\log}(n)` and
:math:`X = (B - n - 1) - n`); the test suite checks it pull by pull.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai._validation import check_choice, check_positive_int, fail
from pybai.batch.round_robin import min_batches_to_cover

__all__ = ["SARSchedule", "stage_ends", "NEED_PULLS", "DONE_ALL_REMAINING", "DONE_K_ACCEPTED", "DONE_FINAL_STAGE"]

NEED_PULLS = 0
DONE_ALL_REMAINING = 1  # early exit 1: the survivors are exactly the arms still to accept
DONE_K_ACCEPTED = 2  # early exit 2
DONE_FINAL_STAGE = 3  # last stage reached its (theoretical) target


@njit(cache=True)
def stage_ends(means, counts, lo, hi, kprime, removed, hist, t_min, practical, theory_x, theory_z,
                b, budget, n_tilde, r_tilde, g_cum, h_cum):
    """End every stage whose target is met, on the survivors ``means[lo:hi]`` (sorted, best first).

    ``hist[j]`` counts survivors with ``t_min + j`` pulls.  Returns the new
    ``(lo, hi, kprime, removed, t_min, status)``: the arms ``[lo_old, lo)`` were accepted
    and ``[hi, hi_old)`` rejected.
    """
    base = 0  # offset of t_min in hist
    while True:
        size = hi - lo
        if size > n_tilde:
            if practical:
                num = b * budget - removed - g_cum[size] - (b + n_tilde * r_tilde + size)
                target = math.ceil(num / ((0.5 * n_tilde + h_cum[size]) * size))
            else:
                target = math.ceil(theory_x / (theory_z * size))
        elif practical:
            return lo, hi, kprime, removed, t_min, NEED_PULLS  # last stage: until the budget is spent
        else:
            target = math.ceil(theory_x / (2.0 * theory_z))
        if t_min < target:
            return lo, hi, kprime, removed, t_min, NEED_PULLS
        if size <= n_tilde:
            return lo, hi, kprime, removed, t_min, DONE_FINAL_STAGE
        gap_best = means[lo] - means[lo + kprime]
        gap_worst = means[lo + kprime - 1] - means[hi - 1]
        # equal gaps: remove the arm whose decision is the likelier right one for an arm
        # drawn from the survivors (accept when at least half of them are still to accept)
        if gap_best > gap_worst or (gap_best == gap_worst and 2 * kprime >= size):
            j = lo
            lo += 1
            kprime -= 1
        else:
            hi -= 1
            j = hi
        removed += counts[j]
        hist[counts[j] - t_min + base] -= 1
        while base < hist.shape[0] - 1 and hist[base] == 0:
            base += 1
            t_min += 1
        if hi - lo == kprime:
            return lo, hi, kprime, removed, t_min, DONE_ALL_REMAINING
        if kprime == 0:
            return lo, hi, kprime, removed, t_min, DONE_K_ACCEPTED


class SARSchedule:
    """The constants and stage targets of BatchSAR (Algorithm 3) for n arms, (b, r) and budget B.

    Parameters
    ----------
    n_arms : int
    size, max_repeats : int
        b and r (1 and 1 without batches).
    budget : int
        B, batches.  Must make X = bB - G(n) - c_1 > 0, so that the theoretical schedule pulls
        every arm (the error names the smallest valid budget).
    schedule : {"practical", "theory"}, default "practical"
        Stage targets m'_s of Eq. (10) (spends the whole budget) or m_s of line 4.
    owner : str
        Named in the errors.

    Attributes
    ----------
    n_tilde, r_tilde, c1 : int
    practical : bool
    """

    def __init__(self, n_arms: int, size: int, max_repeats: int, budget, schedule="practical", owner: str = ""):
        self.schedule = check_choice(schedule, ("practical", "theory"), "schedule", owner)
        self.practical = self.schedule == "practical"
        n, b, r = n_arms, size, max_repeats
        self.n_arms, self.size = n, b
        self.r_tilde = min(r, -(-b // 2))
        self.n_tilde = min(max(-(-b // r), 2), n)
        self.c1 = b + self.n_tilde * self.r_tilde + n
        i = np.arange(n + 1)
        terms = np.where(i > self.n_tilde, -(-b // np.maximum(i, 1)), 0)
        self.g = np.cumsum(terms).astype(np.float64)  # G(m) = sum_{i = n~+1}^m ceil(b / i)
        self.h = np.cumsum(np.where(i > self.n_tilde, 1.0 / np.maximum(i, 1), 0.0))
        self.z = 0.5 * self.n_tilde + self.h[n]
        budget = check_positive_int(budget, "budget", owner)
        need = max(math.floor((self.g[n] + self.c1) / b) + 1, min_batches_to_cover(n, b, r))
        if budget < need:
            raise fail("budget", owner, f"an int >= {need} (batches; Algorithm 3 needs b B > "
                       "sum_i ceil(b/i) + c_1 to pull every arm)", budget)
        self.budget = budget
        self.x = b * budget - self.g[n] - self.c1

    def target(self, n_survivors: int, removed: int) -> float:
        """Per-arm pull target of the stage with ``n_survivors`` arms left, after ``removed`` pulls
        of removed arms (R_s); inf for the practical last stage."""
        b = self.size
        if n_survivors > self.n_tilde:
            if self.practical:
                num = b * self.budget - removed - self.g[n_survivors] - (b + self.n_tilde * self.r_tilde + n_survivors)
                return float(math.ceil(num / ((0.5 * self.n_tilde + self.h[n_survivors]) * n_survivors)))
            return float(math.ceil(self.x / (self.z * n_survivors)))
        return math.inf if self.practical else float(math.ceil(self.x / (2.0 * self.z)))

    def stage_ends(self, means, counts, kprime: int, removed: int):
        """End every stage whose target is met (:func:`stage_ends` on the sorted survivors).

        ``means`` (best first, ties by the tie order) and ``counts`` (int64) are the survivors'.
        Returns ``(lo, hi, kprime, removed, status)``: the first ``lo`` are accepted, those from
        ``hi`` on rejected.
        """
        t_min = int(counts.min())
        hist = np.bincount(counts - t_min).astype(np.int64)
        lo, hi, kprime, removed, _, status = stage_ends(
            means, counts, 0, counts.size, kprime, removed, hist, t_min, self.practical, self.x, self.z,
            self.size, self.budget, self.n_tilde, self.r_tilde, self.g, self.h)
        return int(lo), int(hi), int(kprime), int(removed), int(status)
