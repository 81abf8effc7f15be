r"""KL_inf: the empirical-likelihood divergence of bounded rewards, exact, as numba kernels.

For a law F on [low, high] and a level l, the smallest KL divergence from F to a law on
[low, high] whose mean is on the other side of l (Honda & Takemura, "An asymptotically optimal
bandit algorithm for bounded support models", COLT 2010; JMLR 16, 2015) has the dual form

    KL_inf^above(F, l) = inf {KL(F, G) : E_G >= l} = max_{0 <= u <= 1/(high - l)} E_F ln(1 - u (X - l))
    KL_inf^below(F, l) = inf {KL(F, G) : E_G <= l} = max_{0 <= u <= 1/(l - low)} E_F ln(1 + u (X - l))

(0 when the mean of F is already on that side).  The objective is concave in u, so the maximum
is found by bisection on its derivative, to machine precision (:func:`kl_inf_above`).  For an
empirical distribution given as distinct values with weights, one evaluation costs O(support)
and a bisection 100 of them.

:func:`kl_inf_pair` is the GLR statistic of "arm a has a larger mean than arm b" under the
bounded model, ``inf_l n_a KL_inf^below(F_a, l) + n_b KL_inf^above(F_b, l)`` over l in
[mean_b, mean_a] (both terms are convex in l: golden-section search).  It is the statistic that
Agrawal, Juneja & Koolen and Jourdan et al. ("Top two algorithms revisited", NeurIPS 2022) use for
identification among bounded laws.  pybai's proven stopping
rule for the bounded model does not need the empirical distribution
(:mod:`pybai.models.betting`); these kernels state the statistic it approximates and serve tests
and analysis of stored rewards.

Examples
--------
>>> import numpy as np
>>> x = np.array([0.2, 0.6]); w = np.array([0.5, 0.5])
>>> round(kl_inf_above(x, w, 0.5, 0.0, 1.0), 5)   # mean 0.4, moved to >= 0.5: mass put at 1
0.12343
>>> kl_inf_above(x, w, 0.3, 0.0, 1.0)              # already above 0.3
0.0
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["kl_inf_above", "kl_inf_below", "kl_inf_pair"]

_BISECTION = 200
_GOLDEN = 200


@njit(cache=True)
def _dual_value(values, weights, u, lev):
    acc = 0.0
    for i in range(values.shape[0]):
        if weights[i] > 0.0:
            f = 1.0 - u * (values[i] - lev)
            if f <= 0.0:
                return -math.inf
            acc += weights[i] * math.log(f)
    return acc


@njit(cache=True)
def _dual_slope(values, weights, u, lev):
    acc = 0.0
    for i in range(values.shape[0]):
        if weights[i] > 0.0:
            f = 1.0 - u * (values[i] - lev)
            if f <= 0.0:
                return -math.inf
            acc -= weights[i] * (values[i] - lev) / f
    return acc


@njit(cache=True)
def _above(values, weights, lev, high):
    total = weights.sum()
    mean = 0.0
    for i in range(values.shape[0]):
        mean += weights[i] * values[i]
    mean /= total
    if mean >= lev:
        return 0.0
    if lev >= high:
        return math.inf
    hi = 1.0 / (high - lev)
    w = weights / total
    if _dual_slope(values, w, hi, lev) >= 0.0:  # still increasing at the cap: the maximum is there
        return max(_dual_value(values, w, hi, lev), 0.0)
    lo = 0.0
    for _ in range(_BISECTION):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _dual_slope(values, w, mid, lev) > 0.0:
            lo = mid
        else:
            hi = mid
    return max(_dual_value(values, w, 0.5 * (lo + hi), lev), 0.0)


def _checked(values, weights, lev, low, high):
    x = np.ascontiguousarray(values, dtype=float).reshape(-1)
    w = np.ones_like(x) if weights is None else np.ascontiguousarray(weights, dtype=float).reshape(-1)
    return x, w, float(lev), float(low), float(high)


def kl_inf_above(values, weights, level, low, high) -> float:
    """KL_inf^above(F, l): the cost of moving F's mean up to ``level`` within [low, high].

    Parameters
    ----------
    values, weights : array-like of shape (n,)
        The support of F and its (nonnegative, unnormalised) weights; ``weights=None``: equal weights.
    level : float
    low, high : float
        The reward range.
    """
    x, w, lev, low, high = _checked(values, weights, level, low, high)
    return float(_above(x, w, lev, high))


def kl_inf_below(values, weights, level, low, high) -> float:
    """KL_inf^below(F, l): the cost of moving F's mean down to ``level`` (the mirror of :func:`kl_inf_above`)."""
    x, w, lev, low, high = _checked(values, weights, level, low, high)
    return float(_above(low + high - x, w, low + high - lev, high))


@njit(cache=True)
def _pair(xa, wa, na, xb, wb, nb, low, high):
    ma = (wa * xa).sum() / wa.sum()
    mb = (wb * xb).sum() / wb.sum()
    if ma <= mb:
        return 0.0, ma
    ra = low + high - xa
    lo, hi = mb, ma
    g = 0.5 * (math.sqrt(5.0) - 1.0)
    for _ in range(_GOLDEN):
        if hi - lo <= 1e-15 * max(1.0, abs(hi)):
            break
        c = hi - g * (hi - lo)
        d = lo + g * (hi - lo)
        fc = na * _above(ra, wa, low + high - c, high) + nb * _above(xb, wb, c, high)
        fd = na * _above(ra, wa, low + high - d, high) + nb * _above(xb, wb, d, high)
        if fc <= fd:
            hi = d
        else:
            lo = c
    lev = 0.5 * (lo + hi)
    return na * _above(ra, wa, low + high - lev, high) + nb * _above(xb, wb, lev, high), lev


def kl_inf_pair(rewards_a, rewards_b, low, high) -> tuple[float, float]:
    """GLR of "arm a beats arm b" under the bounded model, and the common level it moves both means to.

    ``inf over l of n_a KL_inf^below(F_a, l) + n_b KL_inf^above(F_b, l)`` (0 when a's empirical mean
    is not above b's), F the empirical distributions of the two arrays of rewards.
    """
    a = np.ascontiguousarray(rewards_a, dtype=float).reshape(-1)
    b = np.ascontiguousarray(rewards_b, dtype=float).reshape(-1)
    z, lev = _pair(a, np.ones_like(a), float(a.size), b, np.ones_like(b), float(b.size), float(low), float(high))
    return float(z), float(lev)
