"""Numba kernels of standard best-arm identification (one-parameter families).

* :func:`glr_best_arm`: the GLR (Chernoff) statistic of Garivier & Kaufmann (2016),
  Z(t) = min_{b != a_hat} Z_{a_hat, b}(t), computed in closed form per pair.
* :func:`oracle_best_arm`: the optimal weights w*(mu) and characteristic time T*(mu)
  of Garivier & Kaufmann (2016), Theorem 5: solve the scalar equation F_mu(y) = 1,
  where each x_a(y) inverts g_a(x) = d(mu_1, m_a(x)) + x d(mu_a, m_a(x)).

  g_a is increasing and concave in x (an infimum of affine functions) with
  g_a'(x) = d(mu_a, m_a(x)) (envelope theorem), so Newton's method started left
  of the root converges monotonically; the Gaussian case has the closed form
  x_a(y) = 2 y var_a / (Delta_a^2 - 2 y var_1).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import GAUSSIAN, kl, pair_cost, pooled_mean

_MAX_NEWTON = 200
_MAX_OUTER = 300


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
def glr_best_arm(code, counts, means, var):
    """GLR statistic for "the empirical best arm is the best" and that arm.

    Returns ``(Z, a_hat)`` with Z = min_{b != a_hat} inf_{lambda: lambda_b >= lambda_a_hat}
    sum_a N_a d(mu_hat_a, lambda_a); Z = 0 when the empirical best is tied.
    """
    best, unique = best_index(means)
    if not unique:
        return 0.0, best
    z = math.inf
    for b in range(means.shape[0]):
        if b == best:
            continue
        c = pair_cost(code, counts[best], means[best], var[best], counts[b], means[b], var[b])
        if c < z:
            z = c
    return z, best


@njit(cache=True)
def _g(code, x, m1, v1, ma, va):
    m = pooled_mean(code, 1.0, m1, v1, x, ma, va)
    return kl(code, m1, m, v1) + x * kl(code, ma, m, va), m


@njit(cache=True)
def _x_of_y(code, y, m1, v1, ma, va, x0):
    """Solve g_a(x) = y for x, starting left of the root at x0 (g_a(x0) <= y)."""
    if code == GAUSSIAN:
        d2 = (m1 - ma) * (m1 - ma)
        return 2.0 * y * va / (d2 - 2.0 * y * v1)
    x = x0
    for _ in range(_MAX_NEWTON):
        g, m = _g(code, x, m1, v1, ma, va)
        slope = kl(code, ma, m, va)
        if slope <= 0.0:
            break
        step = (y - g) / slope
        if step <= 1e-15 * max(x, 1e-300):
            break
        x += step
    return x


@njit(cache=True)
def _ratio_sum(code, y, means, var, best, xs):
    """F_mu(y) = sum_a d(mu_1, m_a) / d(mu_a, m_a); updates xs in place."""
    total = 0.0
    for a in range(means.shape[0]):
        if a == best:
            continue
        x = _x_of_y(code, y, means[best], var[best], means[a], var[a], xs[a])
        xs[a] = x
        m = pooled_mean(code, 1.0, means[best], var[best], x, means[a], var[a])
        den = kl(code, means[a], m, var[a])
        if den <= 0.0:
            return math.inf
        total += kl(code, means[best], m, var[best]) / den
    return total


@njit(cache=True)
def oracle_best_arm(code, means, var):
    """Characteristic time T*(mu) and optimal weights w*(mu) (Garivier & Kaufmann 2016, Thm 5).

    Returns ``(T_star, w)``; ``(inf, uniform)`` when the best mean is not unique.
    """
    k = means.shape[0]
    w = np.full(k, 1.0 / k)
    best, unique = best_index(means)
    if not unique or k < 2:
        return math.inf, w
    # y lives in (0, y_max), y_max = min_a d(mu_1, mu_a) (the second best arm).
    y_max = math.inf
    for a in range(k):
        if a != best:
            d = kl(code, means[best], means[a], var[best])
            if d < y_max:
                y_max = d
    if not (y_max > 0.0) or not math.isfinite(y_max):
        return math.inf, w
    xs_lo = np.zeros(k)  # x_a at the lower end of the bracket (left of every later root)
    xs = np.zeros(k)
    lo, f_lo = 0.0, -1.0  # h(y) = F(y) - 1
    hi, f_hi = y_max, math.inf
    y = 0.5 * y_max
    side = 0
    for _ in range(_MAX_OUTER):
        xs[:] = xs_lo
        h = _ratio_sum(code, y, means, var, best, xs) - 1.0
        if abs(h) <= 1e-14:
            lo = y
            xs_lo[:] = xs
            break
        if h < 0.0:
            lo, f_lo = y, h
            xs_lo[:] = xs
            if side == -1:
                f_hi *= 0.5
            side = -1
        else:
            hi, f_hi = y, h
            if side == 1:
                f_lo *= 0.5
            side = 1
        if hi - lo <= 1e-15 * hi:
            break
        if math.isfinite(f_hi):
            y = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)  # Illinois false position
            if not (lo < y < hi):
                y = 0.5 * (lo + hi)
        else:
            y = 0.5 * (lo + hi)
    y = lo
    xs[:] = xs_lo
    # recompute x at the final y from the left for full accuracy
    _ratio_sum(code, y, means, var, best, xs)
    xs[best] = 1.0
    total = 0.0
    for a in range(k):
        total += xs[a]
    for a in range(k):
        w[a] = xs[a] / total
    return total / y, w
