"""Transportation cost of the Gaussian with unknown variance: the exact pair minimisation.

For an arm with N samples, MLE mean x and MLE variance s = sigma_hat^2, the KL divergence of
N(x, s) to the closest Gaussian of mean u (over every variance) is (1/2) ln(1 + (x - u)^2 / s).
:func:`transport_pair` computes min over u in [x2, x1] of
(n1/2) ln(1 + (x1 - u)^2 / s1) + (n2/2) ln(1 + (x2 - u)^2 / s2) exactly.

Write D = x1 - x2 > 0, u = x2 + t D with t in [0, 1], r_a = s1 / D^2, r_b = s2 / D^2 and
w = n1 / (n1 + n2).  The objective is ((n1 + n2)/2) h(t) with
h(t) = w ln(1 + (1-t)^2/r_a) + (1-w) ln(1 + t^2/r_b), and h'(t) = -2 p(t) / ((r_a + (1-t)^2)(r_b + t^2))
with the cubic p(t) = w (1-t)(r_b + t^2) - (1-w) t (r_a + (1-t)^2), p(0) = w r_b > 0 and
p(1) = -(1-w) r_a < 0.  h is **not** convex in general (ln(1 + x^2) is concave for |x| > 1: with
small variances h has a local minimum near each end), so a single bisection on h' could stop at a
local maximum.  Instead the roots of p' (a quadratic) cut [0, 1] into at most three pieces on which
p is monotone; on a piece where p changes sign its root is found by bisection to machine precision.
Every stationary point of h is among these roots; the kernel evaluates h at all of them and at the
ends and keeps the smallest.
"""

from __future__ import annotations

import math

from numba import njit

_MAX_BISECTION = 200


@njit(cache=True)
def _cubic(t, w, ra, rb):
    """p(t) = w (1-t)(rb + t^2) - (1-w) t (ra + (1-t)^2): same sign as -h'(t)."""
    u = 1.0 - t
    return w * u * (rb + t * t) - (1.0 - w) * t * (ra + u * u)


@njit(cache=True)
def _h(t, w, ra, rb):
    u = 1.0 - t
    return w * math.log1p(u * u / ra) + (1.0 - w) * math.log1p(t * t / rb)


@njit(cache=True)
def _cubic_slope(t, w, ra, rb):
    """p'(t) = -3 t^2 + 2 (2 - w) t - (w rb + (1 - w)(1 + ra))."""
    return -3.0 * t * t + 2.0 * (2.0 - w) * t - (w * rb + (1.0 - w) * (1.0 + ra))


@njit(cache=True)
def _bisect(lo, hi, w, ra, rb):
    """The root of p in [lo, hi], where p is monotone and p(lo), p(hi) have opposite signs.

    Newton's method kept inside a bracket that always contains the root (a bisection step when a
    Newton step would leave it or stalls), until the bracket or the step reaches machine precision.
    """
    plo = _cubic(lo, w, ra, rb)
    t = 0.5 * (lo + hi)
    for _ in range(_MAX_BISECTION):
        pt = _cubic(t, w, ra, rb)
        if pt == 0.0:
            return t
        if (pt > 0.0) == (plo > 0.0):
            lo = t
            plo = pt
        else:
            hi = t
        slope = _cubic_slope(t, w, ra, rb)
        nxt = t - pt / slope if slope != 0.0 else 0.5 * (lo + hi)
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if nxt == t or not (lo < nxt < hi) or abs(nxt - t) <= 4e-16 * max(abs(t), 1e-300):
            return nxt if lo <= nxt <= hi else t
        t = nxt
    return t


@njit(cache=True)
def _transport_t(w, ra, rb):
    """(min over t in [0, 1] of h(t), its argmin t) for ra, rb > 0 and w in (0, 1)."""
    # breakpoints: roots of p'(t) = -3 t^2 + 2 (2 - w) t - (w rb + (1 - w)(1 + ra))
    b = 2.0 - w
    c = w * rb + (1.0 - w) * (1.0 + ra)
    disc = b * b - 3.0 * c
    cuts = [0.0]
    if disc > 0.0:
        root = math.sqrt(disc)
        for q in ((b - root) / 3.0, (b + root) / 3.0):
            if 0.0 < q < 1.0:
                cuts.append(q)
    cuts.append(1.0)
    best_t = 0.0
    best_h = _h(0.0, w, ra, rb)
    h1 = _h(1.0, w, ra, rb)
    if h1 < best_h:
        best_t, best_h = 1.0, h1
    for i in range(len(cuts) - 1):
        lo, hi = cuts[i], cuts[i + 1]
        plo = _cubic(lo, w, ra, rb)
        phi = _cubic(hi, w, ra, rb)
        if plo == 0.0:
            t = lo
        elif phi == 0.0:
            t = hi
        elif (plo > 0.0) != (phi > 0.0):
            t = _bisect(lo, hi, w, ra, rb)
        else:
            continue
        ht = _h(t, w, ra, rb)
        if ht < best_h:
            best_t, best_h = t, ht
    return best_h, best_t


#: below this ratio d^2 / s the cost of that side is its first-order value (ln(1 + x) = x in floating
#: point) and the ratio's reciprocal could overflow: the pair is solved at an end (module docstring)
_NEGLIGIBLE = 1e-280


@njit(cache=True)
def _ratio(d, s):
    """d^2 / s without overflow in between (+inf for s <= 0: a variance of 0 pins the mean)."""
    if s <= 0.0:
        return math.inf
    x = d / math.sqrt(s)
    return x * x


@njit(cache=True)
def transport_pair(n1, x1, s1, n2, x2, s2):
    """GLR pair statistic of the unknown-variance Gaussian and the common value it moves to.

    Returns ``(Z, u)`` with Z = min_{u in [x2, x1]} (n1/2) ln(1 + (x1-u)^2/s1) + (n2/2) ln(1 + (x2-u)^2/s2)
    when x1 > x2 (else ``(0.0, x1)``); see the module docstring for the exact minimisation.  A
    zero variance pins that arm's mean (u = its mean); both zero give +inf.

    Degenerate scales are solved in closed form, never by dividing by an underflowed number: with
    a = (x1 - x2)^2 / s1 and b = (x1 - x2)^2 / s2 (computed as (d / sqrt(s))^2), a = +inf (the
    ratio overflows, or s1 = 0) pins u at x1 and b = +inf at x2.  When a or b is below 1e-280 (a
    difference of 1e-300, or a subnormal one, against any variance) the ratios' reciprocals could
    overflow; the pair is then solved at the cheaper end (u = x2, cost (n1/2) ln(1 + a), or u = x1,
    cost (n2/2) ln(1 + b)): the side of ratio r costs between 0 and (n/2) r wherever u is, so the
    value is within 1e-280 n of the minimum, far below any level the statistic is compared with.
    """
    if x1 <= x2 or n1 <= 0.0 or n2 <= 0.0:
        return 0.0, x1
    d = x1 - x2
    d2 = d * d
    if s1 > 0.0 and s2 > 0.0 and d2 > 1e-300:  # d2 a normal number, not an underflowed one
        ra = s1 / d2
        rb = s2 / d2
        if _NEGLIGIBLE < ra < 1.0 / _NEGLIGIBLE and _NEGLIGIBLE < rb < 1.0 / _NEGLIGIBLE:  # the usual scales
            total = n1 + n2
            h, t = _transport_t(n1 / total, ra, rb)
            return 0.5 * total * h, x2 + t * d
    a = _ratio(d, s1)
    b = _ratio(d, s2)
    if a == math.inf and b == math.inf:
        return math.inf, 0.5 * (x1 + x2)
    if a == math.inf:
        return 0.5 * n2 * math.log1p(b), x1
    if b == math.inf:
        return 0.5 * n1 * math.log1p(a), x2
    if a < _NEGLIGIBLE or b < _NEGLIGIBLE:
        at_x1 = 0.5 * n2 * math.log1p(b)  # u = x1: only source 2 moves
        at_x2 = 0.5 * n1 * math.log1p(a)  # u = x2: only source 1 moves
        return (at_x2, x2) if at_x2 <= at_x1 else (at_x1, x1)
    total = n1 + n2
    h, t = _transport_t(n1 / total, 1.0 / a, 1.0 / b)
    return 0.5 * total * h, x2 + t * d


@njit(cache=True)
def transport_pair_cost(n1, x1, s1, n2, x2, s2):
    """The statistic Z of :func:`transport_pair` alone."""
    return transport_pair(n1, x1, s1, n2, x2, s2)[0]
