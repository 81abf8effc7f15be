"""Kullback-Leibler divergences of the reward families, as numba kernels.

Families are passed to kernels as small integer codes so that one compiled
kernel serves every family.  ``var`` is the known variance of a Gaussian
source; Bernoulli kernels ignore it.  :data:`GAUSSIAN_UV` is the Gaussian whose
variance is unknown: its divergence is the KL of N(x, var) to the closest Gaussian of
mean y over every variance, (1/2) ln(1 + (x - y)^2 / var) (``var`` the variance of the
law the cost is measured from, e.g. the MLE sigma_hat^2 of the samples).
"""

from __future__ import annotations

import math

from numba import njit

import numpy as np

from pybai.models._invariant import PRECISIONS, bayes_factor_bound
from pybai.models._transport import transport_pair

GAUSSIAN = 0
BERNOULLI = 1
GAUSSIAN_UV = 2

_PRECISIONS = np.array(PRECISIONS)

_EPS = 1e-15


@njit(cache=True)
def kl(code, x, y, var):
    """d(x, y): KL divergence between the laws of means ``x`` and ``y``."""
    if code == GAUSSIAN:
        return (x - y) * (x - y) / (2.0 * var)
    if code == GAUSSIAN_UV:
        return 0.5 * math.log1p((x - y) * (x - y) / var)
    x = min(max(x, 0.0), 1.0)
    y = min(max(y, _EPS), 1.0 - _EPS)
    out = 0.0
    if x > 0.0:
        out += x * math.log(x / y)
    if x < 1.0:
        out += (1.0 - x) * math.log((1.0 - x) / (1.0 - y))
    return max(out, 0.0)


@njit(cache=True)
def pooled_mean(code, n1, x1, v1, n2, x2, v2):
    """argmin over m of n1 d(x1, m) + n2 d(x2, m) (the weighted mean of the family)."""
    if code == GAUSSIAN:
        a = n1 / v1
        b = n2 / v2
        return (a * x1 + b * x2) / (a + b)
    if code == GAUSSIAN_UV:
        if x1 >= x2:
            return transport_pair(n1, x1, v1, n2, x2, v2)[1]
        return transport_pair(n2, x2, v2, n1, x1, v1)[1]
    return (n1 * x1 + n2 * x2) / (n1 + n2)


@njit(cache=True)
def pair_cost(code, n1, x1, v1, n2, x2, v2):
    """Transportation cost inf_{m} n1 d(x1, m) + n2 d(x2, m) when x1 > x2, else 0.

    This is the GLR statistic of "source 1 beats source 2" (Garivier & Kaufmann 2016, Eq. (9)).
    """
    if x1 <= x2 or n1 <= 0.0 or n2 <= 0.0:
        return 0.0
    if code == GAUSSIAN:
        d = x1 - x2
        return d * d / (2.0 * (v1 / n1 + v2 / n2))
    if code == GAUSSIAN_UV:
        return transport_pair(n1, x1, v1, n2, x2, v2)[0]
    m = pooled_mean(code, n1, x1, v1, n2, x2, v2)
    return n1 * kl(code, x1, m, v1) + n2 * kl(code, x2, m, v2)


@njit(cache=True)
def _bisect_bound(code, x, n, var, level, edge):
    """Bernoulli bound between ``x`` (clipped to [0, 1]) and ``edge`` (1 or 0): the point nearest
    ``edge`` with n d(x, q) <= level, ``edge`` itself when it qualifies, else 60 bisection steps."""
    inside = min(max(x, 0.0), 1.0)
    outside = edge
    if n * kl(code, x, outside, var) <= level:
        return edge
    for _ in range(60):
        mid = 0.5 * (inside + outside)
        if n * kl(code, x, mid, var) > level:
            outside = mid
        else:
            inside = mid
    return inside


@njit(cache=True)
def upper_bound(code, x, n, var, level):
    """max{q >= x : n d(x, q) <= level} (KL upper confidence bound)."""
    if n <= 0.0:
        return 1.0 if code == BERNOULLI else math.inf
    if code == GAUSSIAN:
        return x + math.sqrt(2.0 * var * level / n)
    if code == GAUSSIAN_UV:  # the invariant Bayes factor's bound (pybai.models._invariant)
        return bayes_factor_bound(n, x, n * var, level, _PRECISIONS, 1.0)
    return _bisect_bound(code, x, n, var, level, 1.0)


@njit(cache=True)
def lower_bound(code, x, n, var, level):
    """min{q <= x : n d(x, q) <= level} (KL lower confidence bound)."""
    if n <= 0.0:
        return 0.0 if code == BERNOULLI else -math.inf
    if code == GAUSSIAN:
        return x - math.sqrt(2.0 * var * level / n)
    if code == GAUSSIAN_UV:
        return bayes_factor_bound(n, x, n * var, level, _PRECISIONS, -1.0)
    return _bisect_bound(code, x, n, var, level, 0.0)


@njit(cache=True)
def kernel_bounds(code, counts, means, var, level, lower):
    """Per source, :func:`lower_bound` where ``lower[a]`` else :func:`upper_bound` (LUCB's bounds)."""
    out = np.empty(means.shape[0])
    for a in range(means.shape[0]):
        if lower[a]:
            out[a] = lower_bound(code, means[a], counts[a], var[a], level)
        else:
            out[a] = upper_bound(code, means[a], counts[a], var[a], level)
    return out
