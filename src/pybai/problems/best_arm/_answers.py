"""Numba kernels of best-arm identification with several correct answers (one-parameter families).

An arm a is *epsilon-good* for means mu when no arm b satisfies mu_a <= c mu_b - e, i.e. when it
lies outside every piece P_b(c, e) = {lambda : lambda_a <= c lambda_b - e} (see
:mod:`pybai.models._shifted`): (c, e) = (1, epsilon) is the additive reading
mu_a >= max_b mu_b - epsilon, (c, e) = (1 - epsilon, 0) the relative one
mu_a >= (1 - epsilon) max_b mu_b.  The answer set i_eps(mu) is every epsilon-good arm, so several
answers are correct at once (Degenne & Koolen 2019; Garivier & Kaufmann 2021).

* :func:`oracle_answer`: for one answer a, max_w min_{b != a} inf_{P_b} sum_s w_s d(mu_s, lambda_s),
  solved as in Garivier & Kaufmann (2016, Theorem 5) by the kernels of
  :mod:`pybai.problems.best_arm._kernels` (:func:`~pybai.problems.best_arm._kernels.ratio_sum`, the
  pieces' x_b(y) for every (c, e)); the level y, where sum_b d(mu_a, lambda_a^b) / d(mu_b, lambda_b^b) = 1,
  is bracketed (the ratio increases with y), since a shifted piece's F' has no closed form here.
* :func:`oracle_eps`: the characteristic time T*_eps(mu)^-1 = max over epsilon-good answers a of
  the value above (the lower bound of Degenne & Koolen 2019: the max over correct answers), and the
  weights and answer that attain it.
* :func:`best_cost`: inf over {lambda : lambda_a >= lambda_b for all b} of sum_s N_s d(mu_hat_s, lambda_s),
  how far the data are from "a is the best arm" (the confidence-region test of Sticky
  Track-and-Stop).
* :func:`oracle_shifted` and :func:`tracking_weights`: the oracle and the weights Track-and-Stop
  tracks, for any pieces (c, e): at (1, 0) (one correct answer, the best arm) the solver of
  :mod:`pybai.problems.best_arm._kernels` with its warm start, otherwise the two above.

The GLR statistic and nature's best response of shifted pieces are those of
:mod:`pybai.problems.best_arm._kernels` (their (c, e) arguments).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import BERNOULLI, dkl_dm, kl
from pybai.problems.best_arm._kernels import best_index, oracle_best_arm_warm, ratio_sum, weights_from_roots

_OUTER = 200


@njit(cache=True)
def oracle_answer(code, means, var, a, c, e):
    """``(T_a, w)``: 1 / max_w min_{b != a} (cost of piece b at weights w), and its maximiser.

    ``(inf, uniform)`` when a is not strictly epsilon-good (some piece contains mu).
    """
    k = means.shape[0]
    w = np.full(k, 1.0 / k)
    if k < 2:
        return math.inf, w
    y_max = math.inf
    for b in range(k):
        if b == a:
            continue
        if not (means[a] > c * means[b] - e):
            return math.inf, w
        # sup_x g_b(x): lambda_b = mu_b, lambda_a = c mu_b - e (clipped for Bernoulli)
        d = kl(code, means[a], c * means[b] - e, var[a])
        if d < y_max:
            y_max = d
    if not (y_max > 0.0) or not math.isfinite(y_max):
        return math.inf, w
    # g_b(0) = inf over lambda_b of d(mu_a, c lambda_b - e) > 0 only for Bernoulli arms with
    # mu_a > c - e (even lambda_b = 1 cannot put b ahead): the level never goes below it (w = e_a
    # already reaches it), and F(y) >= 1 just above it means that corner is the maximiser.
    g0 = 0.0
    if code == BERNOULLI and means[a] > c - e:
        g0 = kl(code, means[a], c - e, var[a])
    xs = np.zeros(k)
    lo, hi = g0, y_max
    if not hi > lo:
        if not g0 > 0.0:
            return math.inf, w
        for b in range(k):
            w[b] = 1.0 if b == a else 0.0
        return 1.0 / g0, w
    # F(y) - 1 is increasing on (lo, hi), -1 at y = 0 and +inf at y_max: false position (Illinois)
    # on a bracket, with bisection steps whenever the bracket does not shrink fast enough
    f_lo = -1.0 if g0 == 0.0 else ratio_sum(code, lo * (1.0 + 1e-12), means, var, a, c, e, xs)[0]
    if f_lo >= 0.0:  # corner: w = e_a is optimal
        for b in range(k):
            w[b] = 1.0 if b == a else 0.0
        return 1.0 / g0, w
    f_hi = math.inf
    y = 0.5 * (lo + hi)
    side = 0
    for it in range(_OUTER):
        f = ratio_sum(code, y, means, var, a, c, e, xs)[0]
        if f <= 0.0:
            lo, f_lo = y, f
            if side == -1 and math.isfinite(f_hi):
                f_hi *= 0.5
            side = -1
        else:
            hi, f_hi = y, f
            if side == 1:
                f_lo *= 0.5
            side = 1
        if abs(f) <= 1e-13:
            lo = y
            break
        if hi - lo <= 1e-13 * hi:
            break
        if math.isfinite(f_hi) and it % 4 != 3:
            y = lo - f_lo * (hi - lo) / (f_hi - f_lo)
            if not (lo < y < hi):
                y = 0.5 * (lo + hi)
        else:
            y = 0.5 * (lo + hi)
    y = lo
    if not y > 0.0:
        return math.inf, w
    ratio_sum(code, y, means, var, a, c, e, xs)
    return weights_from_roots(a, xs, y, w)


@njit(cache=True)
def oracle_eps(code, means, var, c, e):
    """``(T*_eps, w*_eps, a*)``: the smallest T_a over the epsilon-good answers a (first on ties)."""
    k = means.shape[0]
    best_t = math.inf
    best_w = np.full(k, 1.0 / k)
    best_a = -1
    for a in range(k):
        t, w = oracle_answer(code, means, var, a, c, e)
        if t < best_t:
            best_t = t
            best_w = w
            best_a = a
    return best_t, best_w, best_a


@njit(cache=True)
def best_cost(code, counts, means, var, a):
    """inf over {lambda : lambda_a >= max_b lambda_b} of sum_s N_s d(mu_s, lambda_s).

    The minimiser raises a and lowers every arm above it to a common level m in [mu_a, max mu]
    (arms below m keep their mean); the cost is convex in m, so bisection on its derivative.
    """
    top = means[a]
    for b in range(means.shape[0]):
        if means[b] > top:
            top = means[b]
    if top <= means[a]:
        return 0.0
    lo, hi = means[a], top
    for _ in range(_OUTER):
        m = 0.5 * (lo + hi)
        g = counts[a] * dkl_dm(code, means[a], m, var[a])
        for b in range(means.shape[0]):
            if b != a and means[b] > m:
                g += counts[b] * dkl_dm(code, means[b], m, var[b])
        if g > 0.0:
            hi = m
        else:
            lo = m
        if hi - lo <= 1e-14 * (1.0 + abs(m)):
            break
    m = 0.5 * (lo + hi)
    cost = counts[a] * kl(code, means[a], m, var[a])
    for b in range(means.shape[0]):
        if b != a and means[b] > m:
            cost += counts[b] * kl(code, means[b], m, var[b])
    return cost


@njit(cache=True)
def first_candidate(code, counts, means, var, level):
    """The first arm (index order) whose "a is the best arm" test passes: best_cost <= level."""
    for a in range(means.shape[0]):
        if best_cost(code, counts, means, var, a) <= level:
            return a
    best, _ = best_index(means)
    return best


@njit(cache=True)
def oracle_shifted(code, means, var, c, e, hint):
    """``(T*, w*)`` of the pieces (c, e): the characteristic time and its weights.

    (1, 0): one correct answer, the best arm, solved by :func:`~pybai.problems.best_arm._kernels.oracle_best_arm_warm`
    from the warm start ``hint`` (updated in place).  Otherwise the best over the epsilon-good
    answers (:func:`oracle_eps`; ``hint`` unused).
    """
    if c == 1.0 and e == 0.0:
        return oracle_best_arm_warm(code, means, var, hint)
    t_star, w, _ = oracle_eps(code, means, var, c, e)
    return t_star, w


@njit(cache=True)
def tracking_weights(code, counts, means, var, t, c, e, hint):
    """The weights Track-and-Stop tracks after ``t`` samples for the pieces (c, e).

    (1, 0): the oracle weights of the estimate (warm-started from ``hint``).  Otherwise Sticky
    Track-and-Stop (Degenne & Koolen 2019, section 4): the first arm in index order whose "a is the
    best arm" test passes at the level ln max(t, 2) (:func:`first_candidate`), tracked with its own
    oracle weights; the weights of the best answer when that arm is not epsilon-good.
    """
    if c == 1.0 and e == 0.0:
        return oracle_best_arm_warm(code, means, var, hint)[1]
    level = math.log(max(t, 2.0))
    a = first_candidate(code, counts, means, var, level)
    t_a, w = oracle_answer(code, means, var, a, c, e)
    if not math.isfinite(t_a):
        w = oracle_eps(code, means, var, c, e)[1]
    return w
