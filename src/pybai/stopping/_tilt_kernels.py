"""Numba kernels of the variance-adaptive Bernoulli pair rule (:mod:`pybai.stopping.tilt`).

For rewards in [0, 1] with mean ``x``, the exponential tilt satisfies
E exp(eta (Y - x)) <= exp(psi_x(eta)) with psi_x(eta) = ln(1 - x + x e^eta) - eta x (equality for
Bernoulli rewards; convexity of y -> e^(eta y) otherwise), and psi_x'' is the variance p(1 - p) of the
tilted mean p = x e^eta / (1 - x + x e^eta).  On an interval of tilts starting at 0 this gives the
sub-Gaussian bound psi_x(eta) <= v eta^2 / 2 with v the largest tilted variance over the interval
(:func:`var_up`, :func:`var_down`): about x (1 - x) for small tilts, where the proxy 1/4 of Hoeffding's
lemma is loose by a factor 1 / (4 x (1 - x)) (5.3 at x = 0.05).

* :func:`tilt_term`: ln of the truncated half-normal mixture over eta of the supermartingale
  exp(eta U - V eta^2 / 2), in closed form.
* :func:`tilt_pair_margin`: a certified lower bound on the infimum over a piece of the log of the
  pair's mixture over prior scales, minus the level (both arms' terms are monotone in their levels, so
  the infimum is on the boundary of the piece, where the log-mixture is convex: point values and
  chords bound it below).
* :func:`min_tilt_margin`: the smallest margin over the pairs (i in top, j in bottom).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import BERNOULLI
from pybai.models._shifted import shifted_pair_cost
from pybai.stopping._pair_mixture_kernels import beta_regret, log_ndtr

#: The rule code of the tilted mixtures in a compiled row (column ``PAIR_CODE``; 0 and 1 are the
#: family codes of the normal/Beta pair mixtures).
TILT_RULE = 3
#: Largest tilt of the prior at scale c: min(TILT_CAP, TILT_SDS / sqrt(c)) (two prior standard
#: deviations; the cap 2 keeps the lower arm's term nondecreasing in its level, see :func:`var_down`).
TILT_SDS = 2.0
TILT_CAP = 2.0
#: Points a pair's convex minimisation may evaluate before it gives up (no stop).
MAX_CELLS = 400

_SQRT2 = math.sqrt(2.0)


@njit(cache=True)
def log_phi_diff(lo, hi):
    """ln(Phi(hi) - Phi(lo)) for lo < hi (Phi the standard normal distribution function), stable in both tails."""
    if lo > 0.0:  # Phi(hi) - Phi(lo) = Q(lo) - Q(hi)
        ql = log_ndtr(-lo)
        return ql + math.log1p(-math.exp(log_ndtr(-hi) - ql))
    if hi < 0.0:
        ph = log_ndtr(hi)
        return ph + math.log1p(-math.exp(log_ndtr(lo) - ph))
    return math.log(0.5 * math.erfc(-hi / _SQRT2) - 0.5 * math.erfc(-lo / _SQRT2))


@njit(cache=True)
def tilted_mean(x, eta):
    """The mean x e^eta / (1 - x + x e^eta) of Bernoulli(x) tilted by exp(eta y)."""
    e = math.exp(eta)
    return x * e / (1.0 - x + x * e)


@njit(cache=True)
def var_up(x, eta_max):
    """The largest psi_x''(eta) for eta in [0, eta_max] (so psi_x(eta) <= v eta^2 / 2).

    The tilted means fill [x, p], p = tilted_mean(x, eta_max), and p(1 - p) peaks at 1/2: the bound is
    p (1 - p) when p <= 1/2, x (1 - x) when x >= 1/2, else 1/4.  Where it decreases in x its slope is
    1 - 2x >= -1, so for eta <= 2 the exponent eta (s - n x) - n v(x) eta^2 / 2 is nonincreasing in x;
    it is concave in x (as is :func:`var_down`).
    """
    if x >= 0.5:
        return x * (1.0 - x)
    p = tilted_mean(x, eta_max)
    if p <= 0.5:
        return p * (1.0 - p)
    return 0.25


@njit(cache=True)
def var_down(x, eta_max):
    """The largest psi_x''(eta) for eta in [-eta_max, 0]: the tilted means fill [tilted_mean(x, -eta_max), x].

    Its slope in x is at most 1 (x (1 - x) below 1/2, constant 1/4, or decreasing), so for
    |eta| <= 2 the exponent |eta| (n x - s) - n v(x) eta^2 / 2 is nondecreasing in x.
    """
    if x <= 0.5:
        return x * (1.0 - x)
    p = tilted_mean(x, -eta_max)
    if p >= 0.5:
        return p * (1.0 - p)
    return 0.25


@njit(cache=True)
def term_at_level(n, s, x, c, eta_max, e_tilt, log_norm, up):
    """:func:`tilt_term` with the scale's constants given: ``e_tilt`` = e^eta_max (``up``) or e^-eta_max,
    ``log_norm`` = ln(Phi(eta_max sqrt c) - 1/2)."""
    if up:
        u = s - n * x
        if x >= 0.5:
            v = n * x * (1.0 - x)
        else:
            p = x * e_tilt / (1.0 - x + x * e_tilt)
            v = n * (p * (1.0 - p) if p <= 0.5 else 0.25)
    else:
        u = n * x - s
        if x <= 0.5:
            v = n * x * (1.0 - x)
        else:
            p = x * e_tilt / (1.0 - x + x * e_tilt)
            v = n * (p * (1.0 - p) if p >= 0.5 else 0.25)
    w = v + c
    m = u / w
    r = math.sqrt(w)
    return u * u / (2.0 * w) - 0.5 * math.log1p(v / c) + log_phi_diff(-r * m, r * (eta_max - m)) - log_norm


@njit(cache=True)
def scale_constants(scales, emax):
    """Per scale: e^eta_max, e^-eta_max and ln(Phi(eta_max sqrt c) - 1/2) (the truncated prior's mass)."""
    out = np.empty((3, scales.shape[0]))
    for j in range(scales.shape[0]):
        out[0, j] = math.exp(emax[j])
        out[1, j] = math.exp(-emax[j])
        out[2, j] = math.log(0.5 * math.erfc(-emax[j] * math.sqrt(scales[j]) / _SQRT2) - 0.5)
    return out


@njit(cache=True)
def tilt_term(n, s, x, c, eta_max, up):
    """ln of the mixture, over eta in [0, eta_max] with prior density proportional to exp(-c eta^2 / 2),
    of exp(eta U - V eta^2 / 2): U = s - n x, V = n var_up(x) for the arm ranked above (``up``),
    U = n x - s, V = n var_down(x) for the arm ranked below (n samples summing to s, level x).

    Closed form: U^2 / (2 W) - (1/2) ln(1 + V/c) + ln(Phi(sqrt W (eta_max - m)) - Phi(-sqrt W m))
    - ln(Phi(eta_max sqrt c) - 1/2), with W = V + c and m = U / W.  Nonincreasing in x when ``up``,
    nondecreasing otherwise (eta_max <= 2), and convex in x.
    """
    log_norm = math.log(0.5 * math.erfc(-eta_max * math.sqrt(c) / _SQRT2) - 0.5)
    return term_at_level(n, s, x, c, eta_max, math.exp(eta_max if up else -eta_max), log_norm, up)


@njit(cache=True)
def add_log(acc, t):
    """ln(e^acc + e^t)."""
    if acc == -math.inf:
        return t
    if t > acc:
        return t + math.log1p(math.exp(acc - t))
    return acc + math.log1p(math.exp(t - acc))


@njit(cache=True)
def _cell(na, sa, nb, sb, xa_level, xb_level, scales, emax, consts, log_w, acc0):
    """ln( e^acc0 + sum_j e^(log_w + A_j(xa_level) + B_j(xb_level)) ) (``consts``: :func:`scale_constants`)."""
    acc = acc0
    for j in range(scales.shape[0]):
        acc = add_log(acc, log_w + term_at_level(na, sa, xa_level, scales[j], emax[j], consts[0, j], consts[2, j], True)
                       + term_at_level(nb, sb, xb_level, scales[j], emax[j], consts[1, j], consts[2, j], False))
    return acc


@njit(cache=True)
def tilt_caps(scales):
    """The largest tilt of each scale's prior, min(TILT_CAP, TILT_SDS / sqrt(c_j))."""
    out = np.empty(scales.shape[0])
    for j in range(scales.shape[0]):
        out[j] = min(TILT_CAP, TILT_SDS / math.sqrt(scales[j]))
    return out


@njit(cache=True)
def interval_bound(xs, fs, n, i):
    """Lower bound of a convex f on [xs[i], xs[i+1]] from its values at the sorted points xs[:n].

    Convexity: for y >= xs[i], f(y) >= f(xs[i]) + s_left (y - xs[i]) with s_left the slope of the
    chord [xs[i-1], xs[i]]; for y <= xs[i+1], f(y) >= f(xs[i+1]) + s_right (y - xs[i+1]) with s_right the
    slope of the chord [xs[i+1], xs[i+2]].  The bound is the smallest value over the interval of the
    larger of the available lines (-inf when neither exists).
    """
    x0 = xs[i]
    x1 = xs[i + 1]
    has_l = i >= 1
    has_r = i + 2 <= n - 1
    if not has_l and not has_r:
        return -math.inf
    sl = (fs[i] - fs[i - 1]) / (xs[i] - xs[i - 1]) if has_l else 0.0
    sr = (fs[i + 2] - fs[i + 1]) / (xs[i + 2] - xs[i + 1]) if has_r else 0.0
    best = math.inf
    for k in range(3):
        if k == 0:
            y = x0
        elif k == 1:
            y = x1
        else:
            if not (has_l and has_r) or sl == sr:
                continue
            y = (fs[i + 1] - sr * x1 - fs[i] + sl * x0) / (sl - sr)
            if not (x0 < y < x1):
                continue
        v = -math.inf
        if has_l:
            v = fs[i] + sl * (y - x0)
        if has_r:
            v = max(v, fs[i + 1] + sr * (y - x1))
        if v < best:
            best = v
    return best


@njit(cache=True)
def insert_point(xs, fs, n, y, f):
    """Insert (y, f) into the sorted arrays xs[:n], fs[:n]; returns the new length."""
    k = n
    while k > 0 and xs[k - 1] > y:
        xs[k] = xs[k - 1]
        fs[k] = fs[k - 1]
        k -= 1
    xs[k] = y
    fs[k] = f
    return n + 1


@njit(cache=True)
def tilt_pair_margin(na, xa, nb, xb, level, w_beta, alpha, scales, emax, consts, c, e):
    """Certified lower bound on inf over the piece {lambda_a <= c lambda_b - e} (in [0, 1]^2) of ln M, minus ``level``.

    M = w_beta (Beta(alpha, alpha) mixtures of both arms) + (1 - w_beta)/J sum_j (tilted half-normal
    mixtures of both arms at the common scale ``scales[j]``).  The Beta term enters through its exact
    infimum over the piece (the pair's Bernoulli GLR minus both regrets, a constant lower bound).  Arm
    a's tilted terms are nonincreasing in lambda_a and arm b's nondecreasing in lambda_b, so the
    infimum is on the boundary lambda_a = c y - e, y = lambda_b in [y_lo, y_hi].  There
    f(y) = ln(e^acc0 + sum_j w e^(A_j(c y - e) + B_j(y))) is convex (each exponent is convex in the
    level: affine in it minus a concave variance bound times eta^2; a log-mixture of exponentials of
    convex functions is convex), so the values at a few points bound it below everywhere
    (:func:`interval_bound`).  Points are added where the lower model is lowest: returns the value at
    a point minus the level as soon as it is <= 0 (no stop), the lower bound minus the level once it is
    above 0 (stop, less a rounding allowance), and -1.0 when :data:`MAX_CELLS` points did not decide.
    ``-inf`` when a does not look better than b.
    """
    if na <= 0.0 or nb <= 0.0 or not (xa + e > c * xb):
        return -math.inf
    y_lo = max(0.0, e / c)
    y_hi = min(1.0, (1.0 + e) / c)
    if y_lo >= y_hi:  # no pair of means in [0, 1] lies in the piece (or a single point)
        if y_lo > y_hi:
            return math.inf
    sa = na * xa
    sb = nb * xb
    acc0 = -math.inf
    if w_beta > 0.0:
        z = shifted_pair_cost(BERNOULLI, na, xa, 0.0, nb, xb, 0.0, c, e)
        acc0 = math.log(w_beta) + z - beta_regret(sa, na, alpha) - beta_regret(sb, nb, alpha)
    if w_beta >= 1.0:
        return acc0 - level
    log_w = math.log((1.0 - w_beta) / scales.shape[0])
    y0 = (na * (xa + e) / c + nb * xb) / (na + nb)
    y0 = min(max(y0, y_lo), y_hi)
    xs = np.empty(MAX_CELLS + 8)
    fs = np.empty(MAX_CELLS + 8)
    n = 0
    h = math.sqrt(xa * (1.0 - xa) / na + xb * (1.0 - xb) / nb) + 1e-9
    for y in (y0, y_lo, y_hi, y0 - h, y0 + h):
        y = min(max(y, y_lo), y_hi)
        dup = False
        for k in range(n):
            if xs[k] == y:
                dup = True
        if dup:
            continue
        f = _cell(na, sa, nb, sb, c * y - e, y, scales, emax, consts, log_w, acc0)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
    if n == 1:
        return fs[0] - level
    for _ in range(MAX_CELLS):
        lowest = math.inf
        k = 0
        for i in range(n - 1):
            b = interval_bound(xs, fs, n, i)
            if b < lowest:
                lowest = b
                k = i
        slack = 1e-9 * (1.0 + abs(lowest))
        if lowest - slack > level:
            return lowest - slack - level
        q = xs[k]
        r = xs[k + 1]
        y = 0.5 * (q + r)
        if k >= 1 and k + 2 <= n - 1:  # the lower model's own minimiser, kept away from the ends
            sl = (fs[k] - fs[k - 1]) / (xs[k] - xs[k - 1])
            sr = (fs[k + 2] - fs[k + 1]) / (xs[k + 2] - xs[k + 1])
            if sl != sr:
                cand = (fs[k + 1] - sr * r - fs[k] + sl * q) / (sl - sr)
                lo_c = q + 0.05 * (r - q)
                hi_c = r - 0.05 * (r - q)
                y = min(max(cand, lo_c), hi_c)
        if not (q < y < r):  # points at the resolution of floats: undecided
            return -1.0
        f = _cell(na, sa, nb, sb, c * y - e, y, scales, emax, consts, log_w, acc0)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0


@njit(cache=True)
def min_tilt_margin(counts, means, top, bot, level, w_beta, alpha, scales, c, e):
    """Smallest :func:`tilt_pair_margin` over the pairs (i in top, j in bot); returns at the first margin <= 0.

    Pairs are visited in increasing order of their Bernoulli GLR (an upper bound on every term's
    infimum: the tilted exponents are below the exact tilt, whose supremum over eta is the KL
    divergence), and a pair whose GLR is <= ``level`` fails without its branch and bound.
    """
    n_pairs = top.shape[0] * bot.shape[0]
    zs = np.empty(n_pairs)
    for p in range(n_pairs):
        i = top[p // bot.shape[0]]
        j = bot[p % bot.shape[0]]
        zs[p] = shifted_pair_cost(BERNOULLI, counts[i], means[i], 0.0, counts[j], means[j], 0.0, c, e)
    emax = tilt_caps(scales)
    consts = scale_constants(scales, emax)
    worst = math.inf
    for p in np.argsort(zs):
        i = top[p // bot.shape[0]]
        j = bot[p % bot.shape[0]]
        if not zs[p] > level:
            return min(worst, zs[p] - level)
        m = tilt_pair_margin(counts[i], means[i], counts[j], means[j], level, w_beta, alpha, scales, emax, consts,
                             c, e)
        if m < worst:
            worst = m
        if worst <= 0.0:
            break
    return worst
