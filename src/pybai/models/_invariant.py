"""The invariant t-test Bayes factor of one Gaussian source with unknown variance, and its bounds.

:func:`log_bayes_factor` is ln B(lambda), the equal-weight mixture over the prior precisions
:data:`PRECISIONS` of the one-sample t-test Bayes factors of Lai (1976) (derivation and the
delta-correct stopping rule built on it: :mod:`pybai.stopping.unknown_variance`).
:func:`bayes_factor_bound` inverts it: the farthest mean whose Bayes factor stays below a level,
the confidence bound of rules such as LUCB under unknown variances.  Unlike the transportation
cost (n/2) ln(1 + (x - q)^2 / s^2), which makes an arm with two nearly equal rewards look exact,
ln B is bounded for few samples (((n - 1)/2) ln((n + c)/c) as q moves away), so such an arm keeps
an infinite bound until it has enough samples.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["PRECISIONS", "log_bayes_factor", "bayes_factor_bound"]

#: prior precisions c_j of the standardised effect (mu - lambda) / sigma, weighted equally
PRECISIONS = tuple(math.exp(2.0 * j - 2.0) for j in range(8))


@njit(cache=True)
def _log_add(acc, term):
    """ln(e^acc + e^term), stable (acc may be -inf)."""
    if acc == -math.inf:
        return term
    if term > acc:
        return term + math.log1p(math.exp(acc - term))
    return acc + math.log1p(math.exp(term - acc))


@njit(cache=True)
def log_bayes_factor(n, xbar, sq_devs, lam, precisions):
    """ln B(lambda): the equal-weight mixture over ``precisions`` of the invariant t-test Bayes factors."""
    if n < 2.0:
        return 0.0
    d = xbar - lam
    v = sq_devs + n * d * d  # V_lambda = sum (x_j - lambda)^2
    if v <= 0.0:  # every sample equals lambda
        q = 0.0
    else:
        q = n * d * d / v
    acc = -math.inf
    for j in range(precisions.shape[0]):
        c = precisions[j]
        r = n / (n + c)
        term = 0.5 * math.log(c / (n + c)) - 0.5 * n * math.log1p(-r * q)
        acc = _log_add(acc, term)
    return acc - math.log(precisions.shape[0])



@njit(cache=True)
def _log_mixture_max(n, precisions):
    """sup over lambda of ln B (|lambda| -> infinity, some spread): ((n - 1)/2) ln((n + c)/c) mixed."""
    acc = -math.inf
    for j in range(precisions.shape[0]):
        c = precisions[j]
        term = 0.5 * (n - 1.0) * math.log((n + c) / c)
        acc = _log_add(acc, term)
    return acc - math.log(precisions.shape[0])


@njit(cache=True)
def bayes_factor_bound(n, xbar, sq_devs, level, precisions, sign):
    """The mean q on side ``sign`` (+1 upper, -1 lower) of xbar where ln B(q) reaches ``level``.

    +-inf when it never does (few samples, or no spread: ``sq_devs`` 0 with n < 2).  Bisection on
    |q - xbar| (ln B is nondecreasing in it), 100 steps after a doubling bracket.
    """
    if n < 2.0 or not (sq_devs > 0.0) or _log_mixture_max(n, precisions) <= level:
        return sign * math.inf
    scale = math.sqrt(sq_devs / n)
    lo, hi = 0.0, scale
    for _ in range(200):
        if log_bayes_factor(n, xbar, sq_devs, xbar + sign * hi, precisions) > level:
            break
        lo = hi
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if log_bayes_factor(n, xbar, sq_devs, xbar + sign * mid, precisions) > level:
            hi = mid
        else:
            lo = mid
    return xbar + sign * hi
