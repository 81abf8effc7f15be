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
def dkl_dm(code, x, m, var):
    """The derivative of d(x, m) in its second argument ``m`` (Bernoulli: ``m`` clipped into (0, 1))."""
    if code == GAUSSIAN:
        return (m - x) / var
    if code == GAUSSIAN_UV:
        return (m - x) / (var + (m - x) * (m - x))
    m = min(max(m, _EPS), 1.0 - _EPS)
    return (m - x) / (m * (1.0 - m))


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


#: unit roundoff of float64 (2^-52)
_ULP = 2.220446049250313e-16
#: the bounds' bisection: steps, and tries of a wider window before every step evaluates the divergence
_BISECT_STEPS = 60
_WINDOW_TRIES = 4
#: the proven side of the test needs f~ beyond level by _MARGIN u (f + n) (8 u (f + n) to first order)
_MARGIN = 10.0


@njit(cache=True)
def _bisect_bound(code, x, n, var, level, edge):
    """Bernoulli bound between ``x`` (clipped to [0, 1]) and ``edge`` (1 or 0): the point nearest
    ``edge`` with n d(x, q) <= level, ``edge`` itself when it qualifies, else 60 bisection steps.

    The bisection's result is replayed exactly at a fraction of its cost (:func:`_known_window`):
    a step whose midpoint lies outside a window around the root, where the test
    n d(x, mid) > level is proven to come out as the root's side says, takes that side
    without evaluating the divergence; the steps inside the window (the last few) evaluate it
    as the plain bisection does, and the steps left once ``inside`` and ``outside`` are adjacent
    floats, which cannot move ``inside``, are skipped.  Same steps, same floating point: the same
    bound to the last bit.
    """
    inside = min(max(x, 0.0), 1.0)
    outside = edge
    if n * kl(code, x, outside, var) <= level:
        return edge
    side = 1.0 if edge > inside else -1.0
    near, far = _known_window(code, x, n, var, level, inside, edge, side)
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (inside + outside)
        if mid == inside or mid == outside:
            # adjacent floats: no later step moves ``inside`` (the test is True at ``outside``, the
            # edge or a midpoint that passed it; at ``inside`` either answer leaves it in place)
            break
        if side * (mid - near) <= 0.0:
            out = False  # between x and the window: n d(x, mid) <= level is proven
        elif side * (mid - far) >= 0.0:
            out = True  # beyond the window: n d(x, mid) > level is proven
        else:
            out = n * kl(code, x, mid, var) > level
        if out:
            outside = mid
        else:
            inside = mid
    return inside


@njit(cache=True)
def _known_window(code, x, n, var, level, inside, edge, side):
    """``(near, far)``: the test n d(x, q) > level, as computed in floating point, is False for every q
    from ``inside`` up to ``near`` and True for every q from ``far`` on to ``edge`` (``side`` = +1: q
    grows towards ``edge``; -1: it falls).  ``(inside, edge)`` when no window is proven (every step
    evaluates then).

    f(q) = n d(x, q) is monotone on that segment and convex.  Newton's method from Pinsker's
    point x + side sqrt(level / (2 n)) (where f >= level, so the iterates approach the root
    monotonically from beyond) locates the root r; the window is r -+ W with W several times
    the rounding error of f over f'(r).  The rounding error of the computed divergence is at most
    u (2.5 d + 3) (u = 2^-52; each logarithm within one ulp, its argument within three roundings;
    |x ln(x / q)| + |(1 - x) ln((1 - x) / (1 - q))| <= d + 2 / e), so the computed f is within
    4 u (f + n) of f, and the two conditions tested at the window's ends --
    f~(near) (1 + 10 u) + 10 u n <= level and f~(far) (1 - 10 u) - 10 u n > level (8 u would do to
    first order in u) -- extend, by the monotonicity of f, to every q beyond them.  A failed test
    widens W (:data:`_WINDOW_TRIES`).
    """
    q = inside + side * math.sqrt(max(level, 0.0) / (2.0 * n))
    q = min(max(q, _EPS), 1.0 - _EPS)
    if not (side * (q - inside) > 0.0) or not math.isfinite(q):
        return inside, edge
    for _ in range(100):
        slope = n * (q - inside) / (q * (1.0 - q))  # f'(q) on the segment (the clamped divergence's slope)
        if slope == 0.0 or not math.isfinite(slope):
            return inside, edge
        step = (n * kl(code, x, q, var) - level) / slope
        nq = min(max(q - step, _EPS), 1.0 - _EPS)
        done = abs(nq - q) <= 1e-12 * q
        q = nq
        if done:
            break
    slope = abs(n * (q - inside) / (q * (1.0 - q)))
    if not (slope > 0.0) or not math.isfinite(slope):
        return inside, edge
    width = 1.5 * _MARGIN * _ULP * (level + n) / slope + 4.0 * _ULP * q
    for _ in range(_WINDOW_TRIES):
        near = q - side * width
        if side * (near - inside) < 0.0:
            near = inside
        far = q + side * width
        if side * (far - edge) >= 0.0:
            far = edge  # no midpoint lies beyond the edge: nothing to prove there
            far_ok = True
        else:
            far_ok = n * kl(code, x, far, var) * (1.0 - _MARGIN * _ULP) - _MARGIN * _ULP * n > level
        if far_ok and n * kl(code, x, near, var) * (1.0 + _MARGIN * _ULP) + _MARGIN * _ULP * n <= level:
            return near, far
        width *= 16.0
    return inside, edge


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
