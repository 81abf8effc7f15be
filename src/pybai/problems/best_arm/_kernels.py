"""Numba kernels of best-arm identification (one-parameter families), every one for the pieces
{lambda_a <= c lambda_b - e} of :mod:`pybai.models._shifted` ((c, e) = (1, 0) the plain pieces).

* :func:`glr_best_arm`: the GLR (Chernoff) statistic of Garivier & Kaufmann (2016),
  Z(t) = min_{b != a_hat} Z_{a_hat, b}(t), computed in closed form per pair.
* Garivier & Kaufmann (2016), Theorem 5, once for every answer ``a`` and pieces (c, e): with
  x_b = w_b / w_a each piece's cost equals a common level y, g_b(x_b) = y (:func:`x_of_y`), where
  g_b(x) = d(mu_a, lambda_a(x)) + x d(mu_b, lambda_b(x)) is the cost at weights (1, x), and the level
  solves F(y) = sum_b d(mu_a, lambda_a) / d(mu_b, lambda_b) = 1 (:func:`ratio_sum`).  g_b is
  increasing and concave (an infimum of affine functions) with g_b'(x) = d(mu_b, lambda_b(x))
  (envelope theorem), so Newton's method started left of the root converges monotonically; Gaussian
  arms have the closed form x_b(y) = 2 y c^2 var_b / ((mu_a + e - c mu_b)^2 - 2 y var_a).
  :func:`oracle_best_arm` (plain pieces, the best arm: w*(mu), T*(mu)) finds the root by Newton's
  method on y (F' in closed form) or jointly on (y, x_b) from a warm start;
  :func:`pybai.problems.best_arm._answers.oracle_answer` (any pieces and answer) brackets it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import BERNOULLI, GAUSSIAN, GAUSSIAN_UV, dkl_dm, kl, pooled_mean
from pybai.models._shifted import shifted_pair, shifted_pair_cost

_MAX_NEWTON = 100
_MAX_OUTER = 100
_MAX_JOINT = 8
_JOINT_TOL = 1e-12
_TINY = 1e-300  # the weight of an arm never sampled: a cost stays defined


@njit(cache=True)
def best_index(means):
    """Index of the largest mean (lowest index on ties) and whether it is unique."""
    best = 0
    for i in range(1, means.shape[0]):
        if means[i] > means[best]:
            best = i
    unique = True
    for i in range(means.shape[0]):
        if i != best and means[i] == means[best]:
            unique = False
    return best, unique


@njit(cache=True)
def glr_best_arm(code, counts, means, var, c, e):
    """GLR statistic for "the empirical best arm is outside every piece" and that arm.

    Returns ``(Z, a_hat)`` with Z = min_{b != a_hat} inf over the piece {lambda_a_hat <= c lambda_b - e}
    of sum_a N_a d(mu_hat_a, lambda_a) (:func:`~pybai.models._shifted.shifted_pair_cost`).  (c, e) =
    (1, 0) are the plain pieces {lambda_b >= lambda_a_hat}, where a tie at the top is no evidence
    (Z = 0); a shift (epsilon) makes Z positive on ties too.  NaN while a variance is not estimated
    (unknown-variance family): no evidence.
    """
    best, unique = best_index(means)
    if not unique and c == 1.0 and e == 0.0:
        return 0.0, best
    z = math.inf
    for b in range(means.shape[0]):
        if b == best:
            continue
        cost = shifted_pair_cost(code, counts[best], means[best], var[best], counts[b], means[b], var[b], c, e)
        if cost != cost:
            return math.nan, best
        if cost < z:
            z = cost
    return z, best


@njit(cache=True, inline="always")
def _piece(code, x, ma, va, mb, vb, c, e):
    """The piece {lambda_a <= c lambda_b - e} at weights (1, x): ``(g, d_a, d_b, lambda_a, lambda_b)``.

    g(x) = d_a + x d_b is its cost, with d_a = d(mu_a, lambda_a) and d_b = d(mu_b, lambda_b) at the
    minimiser; d_b = g'(x) (envelope theorem).  The plain piece (c, e) = (1, 0) moves both means to the
    pooled mean m_a(x), whose derivative in x has a closed form (:func:`_dm_dx`); a shifted piece's
    minimiser is :func:`~pybai.models._shifted.shifted_pair`'s (cost 0 at a zero count x = 0).
    """
    if c == 1.0 and e == 0.0:
        m = pooled_mean(code, 1.0, ma, va, x, mb, vb)
        d_a = kl(code, ma, m, va)
        d_b = kl(code, mb, m, vb)
        return d_a + x * d_b, d_a, d_b, m, m
    g, la, lb = shifted_pair(code, 1.0, ma, va, x, mb, vb, c, e)
    return g, kl(code, ma, la, va), kl(code, mb, lb, vb), la, lb


@njit(cache=True, inline="always")
def x_of_y(code, y, ma, va, mb, vb, c, e, x0):
    """Solve g(x) = y for x >= 0, g the cost of the piece (a below b) at weights (1, x) (:func:`_piece`).

    Gaussian: the closed form x = 2 y c^2 v_b / (gap^2 - 2 y v_a), gap = mu_a + e - c mu_b
    (2 y v_b / (Delta^2 - 2 y v_a) for the plain piece); else :func:`_x_newton`.  Inlined into its
    callers (numba's ``inline="always"``): called, the Gaussian closed form cost the plain oracle of 10
    arms about 3% of its time.
    """
    if code == GAUSSIAN:
        gap = ma + e - c * mb
        return 2.0 * y * c * c * vb / (gap * gap - 2.0 * y * va)
    return _x_newton(code, y, ma, va, mb, vb, c, e, x0)


@njit(cache=True)
def _x_newton(code, y, ma, va, mb, vb, c, e, x0):
    """:func:`x_of_y` by Newton's method from x0.

    g is concave increasing, so after at most one step (clamped at 0) the iterates approach the root
    monotonically from the left.  The plain piece costs g(0) = 0 with slope d(mu_b, mu_a) > 0 at
    x = 0, so its solve starts at x0 itself; a shifted piece costs 0 at x = 0 but possibly g(0+) > 0
    (Bernoulli arms with mu_a > c - e): its solve starts at max(x0, 1e-12) and returns 0 when
    g(1e-12) >= y already.
    """
    x = x0
    if not (c == 1.0 and e == 0.0):
        if _piece(code, 1e-12, ma, va, mb, vb, c, e)[0] >= y:
            return 0.0
        x = x0 if x0 > 1e-12 else 1e-12
    prev = math.inf
    for _ in range(_MAX_NEWTON):
        g, _, slope, _, _ = _piece(code, x, ma, va, mb, vb, c, e)
        if slope <= 0.0:
            break
        nx = x + (y - g) / slope
        if nx < 0.0:
            nx = 0.0
        step = abs(nx - x)
        x = nx
        # converged (quadratic: the next error is ~1e-24), or rounding noise stops the progress
        # (steps may grow at first when g' falls fast, so a non-shrinking step only counts
        # as a stall once it is already tiny)
        if step <= 1e-12 * max(nx, 1e-300) or (step >= prev and step <= 1e-9 * max(nx, 1e-300)):
            break
        prev = step
    return x


@njit(cache=True)
def _dm_dx(code, x, m1, v1, ma, va, m):
    """Derivative of the pooled mean m = m_a(x) (given: the caller has it) with respect to x."""
    if code == GAUSSIAN:
        s = 1.0 / v1 + x / va
        scale = v1 * va * s * s
        if not scale > 1e-290:  # variances near 1e-200 underflow the product: divide one factor at a time
            return (ma - m1) / (v1 * s) / (va * s)
        return (ma - m1) / scale
    if code == GAUSSIAN_UV:
        # implicit function theorem on d1'(m) + x da'(m) = 0: dm/dx = -da'(m) / (d1''(m) + x da''(m))
        e1 = (m - m1) * (m - m1)
        ea = (m - ma) * (m - ma)
        w1 = (v1 + e1) * (v1 + e1)
        wa = (va + ea) * (va + ea)
        if not (w1 > 1e-290 and wa > 1e-290):  # the same at a tiny scale: the curvature in units of 1 / (v + e)
            curv = (v1 - e1) / (v1 + e1) / (v1 + e1) + x * (va - ea) / (va + ea) / (va + ea)
        else:
            curv = (v1 - e1) / w1 + x * (va - ea) / wa
        if curv <= 0.0:
            return 0.0
        return -((m - ma) / (va + ea)) / curv
    return (ma - m1) / ((1.0 + x) * (1.0 + x))


@njit(cache=True)
def _ratio_slope(code, m1, v1, ma, va, m, num, den):
    """d/dm of num / den = d(mu_1, m) / d(mu_a, m), for den > 0 (den^2 may underflow: then one division at a time)."""
    top = dkl_dm(code, m1, m, v1) * den - num * dkl_dm(code, ma, m, va)
    square = den * den
    return top / square if square > 0.0 else top / den / den


@njit(cache=True)
def ratio_sum(code, y, means, var, a, c, e, xs):
    """``(F(y) - 1, F'(y))`` for the answer ``a`` and the pieces (c, e) (GK16, Theorem 5).

    F(y) = sum_{b != a} r_b(x_b), r_b = d(mu_a, lambda_a^b) / d(mu_b, lambda_b^b) at the root x_b(y) of
    g_b(x) = y (:func:`x_of_y`, warm-started from ``xs[b]``; ``xs`` updated in place).  F'(y) =
    sum_b r_b'(x_b) / g_b'(x_b), g_b'(x) = d(mu_b, lambda_b(x)), for the plain pieces (the Newton solves);
    0 for shifted pieces, whose solve brackets the root without it (:func:`_arm_terms`).
    ``(inf, inf)`` when some d(mu_b, lambda_b^b) vanishes.
    """
    total = 0.0
    slope = 0.0
    ma, va = means[a], var[a]
    for b in range(means.shape[0]):
        if b == a:
            continue
        mb, vb = means[b], var[b]
        x = x_of_y(code, y, ma, va, mb, vb, c, e, xs[b])
        xs[b] = x
        num, den, dr = _arm_terms(code, x, ma, va, mb, vb, c, e)
        if den <= 0.0:
            return math.inf, math.inf
        total += num / den
        slope += dr / den
    return total - 1.0, slope


@njit(cache=True)
def weights_from_roots(best, xs, y, w):
    """``(T*, w*)`` from the root y of F_mu(y) = 1 and the x_a(y) (GK16, Theorem 5); fills ``w``.

    w_best = 1 / (1 + sum_a x_a), w_a = x_a w_best, T* = (1 + sum_a x_a) / y; T* = inf when y underflowed
    to 0 (means 1e-300 apart: the level is below the smallest float, T* above the largest).
    """
    total = 1.0
    for a in range(w.shape[0]):
        if a != best:
            total += xs[a]
    for a in range(w.shape[0]):
        w[a] = (1.0 if a == best else xs[a]) / total
    return (total / y if y > 0.0 else math.inf), w


@njit(cache=True)
def oracle_best_arm(code, means, var):
    """Characteristic time T*(mu) and optimal weights w*(mu); see :func:`oracle_best_arm_warm`."""
    hint = np.zeros(means.shape[0] + 1)
    return oracle_best_arm_warm(code, means, var, hint)


@njit(cache=True)
def oracle_best_arm_warm(code, means, var, hint):
    """Characteristic time T*(mu) and optimal weights w*(mu) (Garivier & Kaufmann 2016, Thm 5).

    Solves F_mu(y) = 1 on (0, y_max), y_max = d(mu_1, mu_2), by Newton's method safeguarded
    by a bracket (bisection when a step leaves it), then
    w_1 = 1 / (1 + sum_a x_a(y)), w_a = x_a(y) w_1 and T*(mu) = (1 + sum_a x_a(y)) / y.
    ``hint`` (length K + 1) carries y and the roots x_a of a previous call (for nearby
    means, e.g. the next step of Track-and-Stop) and is updated in place; zeros mean
    "no hint".  The result does not depend on the hint beyond the solver's tolerance.
    Returns ``(T_star, w)``; ``(inf, uniform on the tied leaders)`` when the best mean is
    not unique.
    """
    k = means.shape[0]
    w = np.full(k, 1.0 / k)
    best, unique = best_index(means)
    if not unique:
        # T* is infinite.  Uniform weights on the tied leaders: the limit of w*(mu) when two
        # leaders merge (the other arms' weights vanish relative to theirs); also the choice
        # of Garivier & Kaufmann's experiment code for this case.
        top = means[best]
        n_top = 0
        for a in range(k):
            if means[a] == top:
                n_top += 1
        for a in range(k):
            w[a] = 1.0 / n_top if means[a] == top else 0.0
        return math.inf, w
    if k < 2:
        return math.inf, w
    y_max = math.inf
    for a in range(k):
        if a != best:
            d = kl(code, means[best], means[a], var[best])
            if d < y_max:
                y_max = d
    if not (y_max > 0.0) or not math.isfinite(y_max):
        return math.inf, w
    xs = hint[1:]  # roots x_a(y) of the last evaluation: warm starts for the next one
    y = -1.0
    if code == BERNOULLI and 0.0 < hint[0] < y_max:
        y = _joint_newton(code, means, var, best, y_max, hint[0], xs)
    if y < 0.0:
        y = _nested_newton(code, means, var, best, y_max, hint[0], xs)
    hint[0] = y
    return weights_from_roots(best, xs, y, w)


@njit(cache=True)
def _nested_newton(code, means, var, best, y_max, y0, xs):
    """The root y of F_mu(y) = 1 by Newton's method on y, safeguarded by a bracket (bisection when a
    step leaves it), each x_a(y) solved to convergence inside (:func:`ratio_sum`); ``xs`` updated."""
    lo, hi = 0.0, y_max
    y = y0 if 0.0 < y0 < y_max else 0.5 * y_max
    for _ in range(_MAX_OUTER):
        h, dh = ratio_sum(code, y, means, var, best, 1.0, 0.0, xs)
        if h <= 0.0:
            lo = y
        else:
            hi = y
        # |h| and the bracket cannot shrink below rounding error when two leaders nearly tie
        if abs(h) <= 1e-12 or hi - lo <= 1e-12 * hi:
            break
        nxt = y - h / dh if (dh > 0.0 and math.isfinite(h)) else -1.0
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        y = nxt
    return y


@njit(cache=True, inline="always")
def _arm_terms(code, x, ma, va, mb, vb, c, e):
    """At x = x_b: ``(d(mu_a, lambda_a), d(mu_b, lambda_b), dr/dx)``, r = d(mu_a, lambda_a) / d(mu_b, lambda_b).

    dr/dx for the plain piece (the pooled mean's closed-form derivative); 0 for a shifted piece, which
    is read at max(x, 1e-300) (:func:`~pybai.models._shifted.shifted_pair` costs 0 at a zero count).
    """
    if not (c == 1.0 and e == 0.0):
        _, num, den, _, _ = _piece(code, max(x, _TINY), ma, va, mb, vb, c, e)
        return num, den, 0.0
    _, num, den, m, _ = _piece(code, x, ma, va, mb, vb, c, e)
    if den <= 0.0:
        return num, den, 0.0
    dr_dm = _ratio_slope(code, ma, va, mb, vb, m, num, den)
    return num, den, dr_dm * _dm_dx(code, x, ma, va, mb, vb, m)


@njit(cache=True)
def _joint_newton(code, means, var, best, y_max, y0, xs):
    """The root of F_mu(y) = 1 by Newton's method on (y, x_a) jointly from a warm start; -1 if it fails.

    The K unknowns (y and the x_a, a != best) solve the K equations g_a(x_a) = y and
    sum_a r_a(x_a) = 1 (r_a = d(mu_1, m_a) / d(mu_a, m_a)): the root of :func:`_nested_newton`, which
    is unique in 0 < y < y_max, x_a > 0.  The Jacobian is an arrow (dg_a/dx_a = d(mu_a, m_a) by the
    envelope theorem, dg_a/dy = -1, the last row r_a'(x_a)), so a step costs one evaluation of each
    arm: dy = (sum_a r_a' R_a / g_a' - R_0) / sum_a r_a' / g_a', dx_a = (dy - R_a) / g_a'
    (R_a = g_a(x_a) - y, R_0 = sum_a r_a - 1).  From the previous step's solution (Track-and-Stop moves
    one mean by one sample) it converges in two or three steps, where the nested solve evaluates
    each g_a about 20 times.  Stops after a step of relative size s <= 1e-12 on every unknown (the
    error left is then of the order of s^2), or earlier once the steps shrink quadratically
    (s_k <= 1e-7, s_k <= s_{k-1} / 100) and the next one, predicted as s_k^2 (s_k / s_{k-1}^2), is below
    1e-14; -1 (``xs`` untouched) when an iterate leaves the domain or :data:`_MAX_JOINT` steps do
    not converge, for the nested solve to take over.
    """
    k = means.shape[0]
    m1, v1 = means[best], var[best]
    work = np.empty(3 * k)  # per arm: the iterate x_a, R_a / g_a'(x_a) and 1 / g_a'(x_a)
    x = work[:k]
    res = work[k:2 * k]
    inv = work[2 * k:]
    for a in range(k):
        x[a] = xs[a]
        if a != best and not (x[a] > 0.0 and math.isfinite(x[a])):
            return -1.0
    y = y0
    prev = math.inf
    for _ in range(_MAX_JOINT):
        r_total = 0.0
        top = 0.0
        bottom = 0.0
        for a in range(k):
            if a == best:
                continue
            num, den, dr = _arm_terms(code, x[a], m1, v1, means[a], var[a], 1.0, 0.0)
            if not (den > 0.0):
                return -1.0
            r_total += num / den
            inv[a] = 1.0 / den
            res[a] = (num + x[a] * den - y) * inv[a]
            top += dr * res[a]
            bottom += dr * inv[a]
        if not (bottom > 0.0):
            return -1.0
        dy = (top - (r_total - 1.0)) / bottom
        ny = y + dy
        if not (0.0 < ny < y_max):
            return -1.0
        size = abs(dy) / ny
        for a in range(k):
            if a == best:
                continue
            nx = x[a] + (dy * inv[a] - res[a])
            if not (nx > 0.0 and math.isfinite(nx)):
                return -1.0
            size = max(size, abs(nx - x[a]) / nx)
            x[a] = nx
        y = ny
        # converged: a step below the tolerance; or quadratic convergence seen (the step shrank at
        # least 100-fold) predicts the next step, size^2 * (size / prev^2), below 1e-14; or rounding
        # noise stops the progress once the steps are tiny (as in :func:`x_of_y`)
        quadratic = size <= 1e-7 and size <= 1e-2 * prev < math.inf and size * size * size <= 1e-14 * prev * prev
        if size <= _JOINT_TOL or quadratic or (size >= prev and size <= 1e-9):
            for a in range(k):
                if a != best:
                    xs[a] = x[a]
            return y
        prev = size
    return -1.0


@njit(cache=True)
def alt_gradient_best_arm(code, w, means, var, c, e, out):
    """Best response of nature at allocation ``w`` and its divergences.

    Returns the value min_{b != a_hat} inf over the piece {lambda_a_hat <= c lambda_b - e} of
    sum_a w_a d(mu_a, lambda_a) (0 on a tie at the top with the plain pieces (c, e) = (1, 0)) and
    fills ``out`` with d(mu_a, lambda*_a) for the minimising alternative lambda* (the closest piece's
    minimiser; zeros elsewhere): a supergradient of the concave map w -> value, with
    value == sum(w * out).
    """
    k = means.shape[0]
    for a in range(k):
        out[a] = 0.0
    best, unique = best_index(means)
    if not unique and c == 1.0 and e == 0.0:
        return 0.0
    val = math.inf
    chal = -1
    for b in range(k):
        if b == best:
            continue
        cost = shifted_pair_cost(code, max(w[best], _TINY), means[best], var[best], max(w[b], _TINY), means[b],
                                 var[b], c, e)
        if cost < val:
            val = cost
            chal = b
    if chal < 0:
        return 0.0
    _, la, lb = shifted_pair(code, max(w[best], _TINY), means[best], var[best], max(w[chal], _TINY), means[chal],
                             var[chal], c, e)
    out[best] = kl(code, means[best], la, var[best])
    out[chal] = kl(code, means[chal], lb, var[chal])
    return val
