"""Numba kernels of the count-dependent mixture stopping rules (:mod:`pybai.stopping.pair_mixture`).

* :func:`kt_regret`: exact regret of the Krichevsky--Trofimov (Beta(1/2, 1/2)) mixture,
  ln max_l l^s (1 - l)^(n - s) - ln int l^s (1 - l)^(n - s) Beta(1/2, 1/2)(dl).
* :func:`half_normal_pair_min`: a certified lower bound on
  min_x  q_a(x_a - x) + q_b(x - x_b),  q_i(y) = A_i y^2 + ln Phi(k_i y),  k_i^2 = 2 A_i,
  the infimum over the diagonal of the log of the product of two one-sided normal mixtures.
* :func:`pair_margin` / :func:`min_pair_margin`: the margin of a pair (piece) under a mixture of
  a Beta-prior (Bernoulli) martingale and normal-mixture martingales over a grid of scales, and the
  smallest margin over the pairs (i in top, j in bottom); a GLR strategy stops when it is > 0.
  Both take the shift (c, e) of the piece {lambda_a <= c lambda_b - e} (epsilon-best-arm
  identification); (c, e) = (1, 0) is the plain piece {lambda_b >= lambda_a}.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import GAUSSIAN, pair_cost
from pybai.models._shifted import shifted_pair_cost

_SQRT2 = math.sqrt(2.0)
_LN_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LN_PI = math.log(math.pi)
_LN2 = math.log(2.0)
_MAX_BRACKET = 200
_MAX_NEWTON = 200


@njit(cache=True)
def log_ndtr(u):
    """ln Phi(u), Phi the standard normal distribution function (asymptotic series below -20)."""
    if u > -20.0:
        return math.log(0.5 * math.erfc(-u / _SQRT2))
    u2 = u * u
    return -0.5 * u2 - math.log(-u) - _LN_SQRT_2PI + math.log(1.0 - 1.0 / u2 + 3.0 / (u2 * u2) - 15.0 / (u2 * u2 * u2))


@njit(cache=True)
def mills(u):
    """phi(u) / Phi(u) (inverse Mills ratio of the lower tail), stable for u -> -inf."""
    if u > -20.0:
        return math.exp(-0.5 * u * u - _LN_SQRT_2PI) / (0.5 * math.erfc(-u / _SQRT2))
    u2 = u * u
    return -u / (1.0 - 1.0 / u2 + 3.0 / (u2 * u2) - 15.0 / (u2 * u2 * u2))


@njit(cache=True)
def beta_regret(s, n, alpha):
    """ln sup_l l^s (1-l)^(n-s) - ln q(s, n) for n > 0 samples summing to s (0 <= s <= n).

    q(s, n) = B(s + alpha, n - s + alpha) / B(alpha, alpha): the Beta(alpha, alpha) mixture;
    exact, with lgamma.  alpha = 1/2 is the Krichevsky--Trofimov (Jeffreys) mixture, alpha = 1
    the Laplace (uniform) one.
    """
    f = n - s
    ml = 0.0
    if s > 0.0:
        ml += s * math.log(s / n)
    if f > 0.0:
        ml += f * math.log(f / n)
    log_q = (math.lgamma(s + alpha) + math.lgamma(f + alpha) - math.lgamma(n + 2.0 * alpha)
             - 2.0 * math.lgamma(alpha) + math.lgamma(2.0 * alpha))
    return ml - log_q


@njit(cache=True)
def kt_regret(s, n):
    """Regret of the Krichevsky--Trofimov mixture (:func:`beta_regret` with alpha = 1/2)."""
    return beta_regret(s, n, 0.5)


@njit(cache=True)
def q_parts(y, A, k):
    """q(y) = A y^2 + ln Phi(k y), q'(y) and q''(y) (q is convex since k^2 = 2A)."""
    u = k * y
    m = mills(u)
    return A * y * y + log_ndtr(u), 2.0 * A * y + k * m, 2.0 * A - k * k * m * (u + m)


@njit(cache=True)
def half_normal_pair_min(na, xa, va, nb, xb, vb, c):
    """Certified lower bound on min_x f(x), f(x) = q_a(xa - x) + q_b(x - xb).

    q_i(y) = A_i y^2 + ln Phi(k_i y) with A_i = n_i^2 / (2 v_i (n_i + c)) and
    k_i = n_i / sqrt(v_i (n_i + c)).  f is convex (each q_i is: q'' = 2A + k^2 (ln Phi)'' >=
    2A - k^2 = 0), with f' -> -inf at -inf and +inf at +inf.  The minimiser is bracketed, then
    located by safeguarded Newton steps; the returned value f(x) - |f'(x)| (hi - lo) is <= the
    minimum by convexity (the minimiser lies in [lo, hi]).
    """
    Aa = na * na / (2.0 * va * (na + c))
    Ab = nb * nb / (2.0 * vb * (nb + c))
    ka = math.sqrt(2.0 * Aa)
    kb = math.sqrt(2.0 * Ab)
    width = math.sqrt(va / na) + math.sqrt(vb / nb) + abs(xa - xb)
    lo = min(xa, xb) - width
    hi = max(xa, xb) + width
    for _ in range(_MAX_BRACKET):
        _, da, _ = q_parts(xa - lo, Aa, ka)
        _, db, _ = q_parts(lo - xb, Ab, kb)
        if db - da <= 0.0:
            break
        lo -= width
        width *= 2.0
    for _ in range(_MAX_BRACKET):
        _, da, _ = q_parts(xa - hi, Aa, ka)
        _, db, _ = q_parts(hi - xb, Ab, kb)
        if db - da >= 0.0:
            break
        hi += width
        width *= 2.0
    x = 0.5 * (lo + hi)
    val = 0.0
    grad = 0.0
    for _ in range(_MAX_NEWTON):
        fa, da, ha = q_parts(xa - x, Aa, ka)
        fb, db, hb = q_parts(x - xb, Ab, kb)
        val = fa + fb
        grad = db - da
        if grad > 0.0:
            hi = x
        elif grad < 0.0:
            lo = x
        else:
            lo = x
            hi = x
            break
        curv = ha + hb
        nx = x - grad / curv if curv > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= 1e-14 * (1.0 + abs(x)) or hi - lo <= 1e-14 * (1.0 + abs(x)):
            break
        x = nx
    return val - abs(grad) * (hi - lo)


@njit(cache=True)
def pair_margin(code, na, xa, va, nb, xb, vb, level, alpha, w_beta, scales, gvar, one_sided, c, e):
    """Margin of the piece {lambda_a <= c lambda_b - e} (a looks better than b); stop needs > 0.

    Lower bound on the infimum over the piece of ln M, M the mixture of martingales
    ``w_beta * (Beta(alpha, alpha) mixtures of a and b) + (1 - w_beta) / J * sum_j (normal mixtures of
    a and b at the common prior scale scales[j])``, minus ``level``.  The infimum of a mixture is at
    least the mixture of the infima (each term is >= its own infimum), so
    ``ln(w_beta e^U + (1 - w_beta)/J sum_j e^V_j)`` is used, with

    * U = GLR of the pair minus the exact regrets of both Beta(alpha, alpha) mixtures (Bernoulli
      ``code`` only; skipped when ``w_beta == 0``);
    * V_j = the certified infimum over the piece of the normal mixtures at scale ``scales[j]``
      (one-sided half-normal priors if ``one_sided``, else two-sided), with the arms' variances for
      Gaussian ``code`` and the sub-Gaussian variance ``gvar`` (>= 1/4: rewards in [0, 1]) otherwise.

    Terms below the running sum by more than a factor e^-50 are skipped (dropping a term only
    lowers the bound).

    The piece is {lambda_a <= c lambda_b - e} (``c = 1, e = 0``: {lambda_b >= lambda_a}).  Both
    normal mixtures are monotone (a's nonincreasing in lambda_a, b's nondecreasing in lambda_b), so the
    infimum is on the boundary lambda_a = c y - e; there a's term at mean x_a equals, as a function of
    y, the term of an arm with mean (x_a + e) / c and variance v_a / c^2 (same count and prior scale),
    which reduces the shifted piece to the plain one.  The Beta term uses the exact shifted cost.
    """
    if na <= 0.0 or nb <= 0.0 or not (xa + e > c * xb):
        return -math.inf
    n_scales = scales.shape[0]
    acc = -math.inf  # log of the weighted sum of the terms' infima computed so far
    if w_beta > 0.0 and code != GAUSSIAN:
        z = shifted_pair_cost(code, na, xa, va, nb, xb, vb, c, e)
        u = z - beta_regret(na * xa, na, alpha) - beta_regret(nb * xb, nb, alpha)
        acc = math.log(w_beta) + u
    if n_scales == 0 or w_beta >= 1.0:
        return acc - level
    if code != GAUSSIAN:
        va = gvar
        vb = gvar
    xa = (xa + e) / c
    va = va / (c * c)
    zg = pair_cost(GAUSSIAN, na, xa, va, nb, xb, vb)
    log_w = math.log((1.0 - w_beta) / n_scales)
    bonus = 2.0 * _LN2 if one_sided else 0.0
    for j in range(n_scales):
        scale = scales[j]
        g = 0.5 * (math.log1p(na / scale) + math.log1p(nb / scale))
        if log_w + zg + bonus - g < acc - 50.0:  # upper bound on this term: negligible
            continue
        if one_sided:
            v = half_normal_pair_min(na, xa, va, nb, xb, vb, scale) + bonus - g
        else:
            d = xa - xb
            v = d * d / (2.0 * (va * (na + scale) / (na * na) + vb * (nb + scale) / (nb * nb))) - g
        t = log_w + v
        if acc == -math.inf:
            acc = t
        elif t > acc:
            acc = t + math.log1p(math.exp(acc - t))
        else:
            acc = acc + math.log1p(math.exp(t - acc))
    return acc - level


@njit(cache=True)
def min_pair_margin(code, counts, means, var, top, bot, level, alpha, w_beta, scales, gvar, one_sided, c, e):
    """Smallest margin over the pairs (i in top, j in bot); returns at the first margin <= 0.

    Pairs are visited in increasing order of their GLR so that the usual failing pair comes first.
    Pieces {lambda_i <= c lambda_j - e} (:func:`pair_margin`).
    """
    n_pairs = top.shape[0] * bot.shape[0]
    zs = np.empty(n_pairs)
    for p in range(n_pairs):
        i = top[p // bot.shape[0]]
        j = bot[p % bot.shape[0]]
        zs[p] = shifted_pair_cost(code, counts[i], means[i], var[i], counts[j], means[j], var[j], c, e)
    worst = math.inf
    for p in np.argsort(zs):
        i = top[p // bot.shape[0]]
        j = bot[p % bot.shape[0]]
        m = pair_margin(code, counts[i], means[i], var[i], counts[j], means[j], var[j],
                                level, alpha, w_beta, scales, gvar, one_sided, c, e)
        if m < worst:
            worst = m
        if worst <= 0.0:
            break
    return worst
