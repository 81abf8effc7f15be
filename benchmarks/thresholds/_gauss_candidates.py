"""Prototype kernels (Gaussian arms, known variances) of candidate proven rules for proof_rules.py.

Terms of a log-convex mixture along the diagonal lambda = (x, ..., x):

* "A" terms (a test of a weighted difference, one scalar tilt kappa >= 0, half-normal prior of
  precision c):  const + U^2 / (2 W) + ln Phi(U / sqrt W),  U = U0 - I x,  W = V + c.
* "B" terms (the shipped per-arm product at a common scale):  const + q_a(xa - x) + q_b(x - xb),
  q(y) = A y^2 + ln Phi(k y).

Every term is convex in x, so the log of their sum is convex; ``convex_min`` returns a certified
lower bound on its infimum (or a value <= the level as soon as one is seen).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.stopping._pair_mixture_kernels import _q_parts, log_ndtr, mills

LN2 = math.log(2.0)


@njit(cache=True)
def _a_parts(x, U0, I, W, sw):
    U = U0 - I * x
    u = U / sw
    m = mills(u)
    g = U * U / (2.0 * W) + log_ndtr(u)
    dU = U / W + m / sw
    d2U = (1.0 - m * (u + m)) / W
    return g, -I * dU, I * I * d2U


@njit(cache=True)
def mix_eval(x, ta, na, tb, nb, vals, ds, hs):
    """f(x) = ln sum_k e^{g_k(x)}, f', f''."""
    n = 0
    mx = -math.inf
    for k in range(na):
        g, d, h = _a_parts(x, ta[k, 1], ta[k, 2], ta[k, 3], ta[k, 4])
        vals[n] = ta[k, 0] + g
        ds[n] = d
        hs[n] = h
        if vals[n] > mx:
            mx = vals[n]
        n += 1
    for k in range(nb):
        fa, da, ha = _q_parts(tb[k, 1] - x, tb[k, 2], tb[k, 3])
        fb, db, hb = _q_parts(x - tb[k, 4], tb[k, 5], tb[k, 6])
        vals[n] = tb[k, 0] + fa + fb
        ds[n] = db - da
        hs[n] = ha + hb
        if vals[n] > mx:
            mx = vals[n]
        n += 1
    if mx == -math.inf:
        return -math.inf, 0.0, 0.0
    s = 0.0
    for k in range(n):
        s += math.exp(vals[k] - mx)
    f = mx + math.log(s)
    g1 = 0.0
    h1 = 0.0
    g2 = 0.0
    for k in range(n):
        p = math.exp(vals[k] - f)
        g1 += p * ds[k]
        h1 += p * hs[k]
        g2 += p * ds[k] * ds[k]
    return f, g1, h1 + g2 - g1 * g1


@njit(cache=True)
def convex_min(ta, na, tb, nb, x0, width, level):
    """Certified lower bound on inf_x f(x) minus level; returns f(x) - level (<= 0) at the first point seen
    at or below the level, or the bound minus the level once it is above it."""
    m = na + nb
    vals = np.empty(m)
    ds = np.empty(m)
    hs = np.empty(m)
    f, g, h = mix_eval(x0, ta, na, tb, nb, vals, ds, hs)
    if f <= level:
        return f - level
    lo = x0
    hi = x0
    if g > 0.0:
        lo = x0 - width
        for _ in range(200):
            fl, gl, _ = mix_eval(lo, ta, na, tb, nb, vals, ds, hs)
            if fl <= level:
                return fl - level
            if gl <= 0.0:
                break
            hi = lo
            width *= 2.0
            lo -= width
        else:
            return -1.0
    elif g < 0.0:
        hi = x0 + width
        for _ in range(200):
            fh, gh, _ = mix_eval(hi, ta, na, tb, nb, vals, ds, hs)
            if fh <= level:
                return fh - level
            if gh >= 0.0:
                break
            lo = hi
            width *= 2.0
            hi += width
        else:
            return -1.0
    else:
        return f - level
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f, g, h = mix_eval(x, ta, na, tb, nb, vals, ds, hs)
        if f <= level:
            return f - level
        if g > 0.0:
            hi = x
        elif g < 0.0:
            lo = x
        else:
            return f - level
        bound = f - abs(g) * (hi - lo)
        if bound > level:
            return bound - level
        nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if hi - lo <= 1e-13 * (1.0 + abs(x)):
            return -1.0
        x = nx
    return -1.0


@njit(cache=True)
def fill_a(ta, row, log_w, U0, I, V, scales):
    """Rows row.. row+J-1 of A terms for one weighted-difference process (U = U0 - I x, variance V)."""
    for j in range(scales.shape[0]):
        c = scales[j]
        W = V + c
        ta[row + j, 0] = log_w + LN2 - 0.5 * math.log1p(V / c)
        ta[row + j, 1] = U0
        ta[row + j, 2] = I
        ta[row + j, 3] = W
        ta[row + j, 4] = math.sqrt(W)
    return row + scales.shape[0]


@njit(cache=True)
def fill_b(tb, row, log_w, na, xa, va, nb, xb, vb, scales):
    """Rows of B terms: the shipped one-sided per-arm product at each common scale."""
    for j in range(scales.shape[0]):
        c = scales[j]
        Aa = na * na / (2.0 * va * (na + c))
        Ab = nb * nb / (2.0 * vb * (nb + c))
        tb[row + j, 0] = log_w + 2.0 * LN2 - 0.5 * (math.log1p(na / c) + math.log1p(nb / c))
        tb[row + j, 1] = xa
        tb[row + j, 2] = Aa
        tb[row + j, 3] = math.sqrt(2.0 * Aa)
        tb[row + j, 4] = xb
        tb[row + j, 5] = Ab
        tb[row + j, 6] = math.sqrt(2.0 * Ab)
    return row + scales.shape[0]


@njit(cache=True)
def pair_weight(n_self, n_other):
    """Predictable weight of a new sample of an arm with n_self samples in a pair whose other arm has
    n_other: 1 for the less sampled arm, the count ratio for the other (weights ~ 1/N keep the two
    arms' cumulative weights balanced)."""
    if n_self <= 0.0:
        return 1.0
    r = n_other / n_self
    return r if r < 1.0 else 1.0
