"""Numba kernels of best-arm identification for Gaussian arms with unknown, unequal variances.

Jourdan, Degenne & Kaufmann, "Dealing with unknown variances in best-arm identification"
(ALT 2023, arXiv 2210.00974; "JDK23" below) propose two stopping statistics, both of the form
Z = min_{b != a_hat} Z_{a_hat, b} with a_hat the empirical best arm (a tie gives Z = 0, as in
:func:`pybai.problems.best_arm._kernels.glr_best_arm`):

* **EV-GLR** (empirical-variance plug-in): the known-variance Gaussian GLR of Garivier &
  Kaufmann (2016, Eq. (9)) with the empirical variances plugged in,
  Z_{a,b} = (mu_a - mu_b)^2 / (2 (s_a / N_a + s_b / N_b)) when mu_a > mu_b, else 0
  (:func:`plugin_pair_cost`).
* **GLR** (transportation costs of the unknown-variance Gaussian): the KL of N(mu, s) to the
  closest N(lambda, s') over s' is (1/2) ln(1 + (mu - lambda)^2 / s), so the GLR of
  "a beats b" is the infimum over the alternative {lambda_a <= lambda_b} of
  sum_c N_c (1/2) ln(1 + (mu_c - lambda_c)^2 / s_c); arms other than a, b keep lambda_c = mu_c
  and, since each term grows with |mu_c - lambda_c|, the infimum is reached at
  lambda_a = lambda_b = u with u between the two means:
  Z_{a,b} = min_{u in [mu_b, mu_a]} (N_a/2) ln(1 + (mu_a - u)^2/s_a) + (N_b/2) ln(1 + (mu_b - u)^2/s_b)
  (:func:`transport_pair_cost`).

In both, mu and s = sigma_hat^2 are the maximum-likelihood estimates (s = S/N, see
:mod:`pybai.models.unknown_variance`); for the GLR this is forced by the likelihood: the
log-likelihood ratio of N(mu_hat, s) against the best N(lambda, s') is
(N/2) ln(s'_opt / s) with s'_opt = s + (mu_hat - lambda)^2.

What was checked, and what was not.  The paper's full text was not reachable from the
stored corpus while this module was written (only its abstract, and a third-party C port of
the authors' Julia code for the EV-GLR statistic, whose plug-in pair cost agrees with
:func:`plugin_pair_cost`).  The two definitions above are therefore derived from first
principles, the paper's equation and theorem numbers are *not* quoted, and two points must
be checked against JDK23 before a threshold is attached: (i) that the paper's empirical
variance is the 1/N one (the GLR needs it; the EV-GLR could have used 1/(N-1)), and (ii) the
theorem (time-uniform concentration) that calibrates each statistic.

Exact minimisation of the transportation cost.  Write D = mu_a - mu_b > 0, u = mu_b + t D with
t in [0, 1], r_a = s_a / D^2, r_b = s_b / D^2 and w = N_a / (N_a + N_b).  Then
Z_{a,b} = ((N_a + N_b)/2) min_t h(t),  h(t) = w ln(1 + (1-t)^2/r_a) + (1-w) ln(1 + t^2/r_b),
and h'(t) = -2 p(t) / ((r_a + (1-t)^2)(r_b + t^2)) with the cubic
p(t) = w (1-t)(r_b + t^2) - (1-w) t (r_a + (1-t)^2),  p(0) = w r_b > 0,  p(1) = -(1-w) r_a < 0.
h is **not** convex in general (ln(1 + x^2) is concave for |x| > 1: with small variances h has
a local minimum near each end), so a single bisection on h' could stop at a local maximum or
the wrong local minimum.  Instead the roots of p' (a quadratic) cut [0, 1] into at most three
pieces on each of which p is monotone; on a piece where p changes sign it has exactly one root,
found by bisection, which halves a bracket that always contains it and so converges (we run it
until the midpoint equals an end: t to machine precision, well below 1e-12).  Every stationary
point of h is among these roots, the global minimum of h on [0, 1] is at one of them or at an
end, and the kernel evaluates h at all of them (at most 3 + 2 points) and keeps the smallest.
"""

from __future__ import annotations

import math

from numba import njit

from pybai.problems.best_arm._kernels import best_index

PLUGIN = 0
TRANSPORT = 1

_MAX_BISECTION = 200


@njit(cache=True)
def plugin_pair_cost(n1, x1, s1, n2, x2, s2):
    """EV-GLR pair statistic: (x1 - x2)^2 / (2 (s1/n1 + s2/n2)) when x1 > x2, else 0.

    Equal to ``pybai.models._kl.pair_cost(GAUSSIAN, n1, x1, s1, n2, x2, s2)`` (the known-variance
    Gaussian cost with the variances s1, s2 plugged in); a zero total variance gives +inf.
    """
    if x1 <= x2 or n1 <= 0.0 or n2 <= 0.0:
        return 0.0
    v = s1 / n1 + s2 / n2
    if v <= 0.0:
        return math.inf
    d = x1 - x2
    return d * d / (2.0 * v)


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
def _bisect(lo, hi, w, ra, rb):
    """The root of p in [lo, hi], where p is monotone and p(lo), p(hi) have opposite signs."""
    plo = _cubic(lo, w, ra, rb)
    for _ in range(_MAX_BISECTION):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        pm = _cubic(mid, w, ra, rb)
        if pm == 0.0:
            return mid
        if (pm > 0.0) == (plo > 0.0):
            lo = mid
            plo = pm
        else:
            hi = mid
    return 0.5 * (lo + hi)


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


@njit(cache=True)
def transport_pair(n1, x1, s1, n2, x2, s2):
    """GLR pair statistic of the unknown-variance Gaussian and the common value it moves to.

    Returns ``(Z, u)`` with Z = min_{u in [x2, x1]} (n1/2) ln(1 + (x1-u)^2/s1) + (n2/2) ln(1 + (x2-u)^2/s2)
    when x1 > x2 (else ``(0.0, x1)``); see the module docstring for the exact minimisation.  A
    zero variance pins that arm's mean (u = its mean); both zero give +inf.
    """
    if x1 <= x2 or n1 <= 0.0 or n2 <= 0.0:
        return 0.0, x1
    d = x1 - x2
    d2 = d * d
    if s1 <= 0.0 and s2 <= 0.0:
        return math.inf, 0.5 * (x1 + x2)
    if s1 <= 0.0:
        return 0.5 * n2 * math.log1p(d2 / s2), x1
    if s2 <= 0.0:
        return 0.5 * n1 * math.log1p(d2 / s1), x2
    total = n1 + n2
    h, t = _transport_t(n1 / total, s1 / d2, s2 / d2)
    return 0.5 * total * h, x2 + t * d


@njit(cache=True)
def transport_pair_cost(n1, x1, s1, n2, x2, s2):
    """The statistic Z of :func:`transport_pair` alone."""
    return transport_pair(n1, x1, s1, n2, x2, s2)[0]


@njit(cache=True)
def glr_best_arm_uv(kind, counts, means, variances):
    """Best-arm statistic ``(Z, a_hat)``: Z = min_{b != a_hat} Z_{a_hat, b}, 0 on a tie.

    ``kind`` is :data:`PLUGIN` (EV-GLR, :func:`plugin_pair_cost`) or :data:`TRANSPORT` (GLR,
    :func:`transport_pair_cost`); ``variances`` are the MLE sigma_hat^2 (every arm needs two
    samples: a NaN variance makes Z NaN, never a silent stop).
    """
    best, unique = best_index(means)
    if not unique:
        return 0.0, best
    z = math.inf
    for b in range(means.shape[0]):
        if b == best:
            continue
        if kind == PLUGIN:
            c = plugin_pair_cost(counts[best], means[best], variances[best], counts[b], means[b], variances[b])
        else:
            c = transport_pair_cost(counts[best], means[best], variances[best], counts[b], means[b], variances[b])
        if c != c:   # a NaN variance (fewer than two samples): no statistic
            return math.nan, best
        if c < z:
            z = c
    return z, best
