"""The invariant t-test Bayes factor of one Gaussian source with unknown variance, and its bounds.

:func:`log_bayes_factor` is ln B(lambda), the equal-weight mixture over the prior precisions
:data:`PRECISIONS` of the one-sample t-test Bayes factors of Lai (1976) (derivation and the
delta-correct stopping rule built on it: :mod:`pybai.stopping.unknown_variance`).
:func:`log_bayes_factor_one_sided` is the one-sided version (half-normal prior on the effect, pointing
at one side of lambda): up to ln 2 larger where the data lie on that side; the stopping rule uses it.
:func:`bayes_factor_bound` inverts the two-sided factor: the farthest mean whose Bayes factor stays below a level,
the confidence bound of rules such as LUCB under unknown variances.  Unlike the transportation
cost (n/2) ln(1 + (x - q)^2 / s^2), which makes an arm with two nearly equal rewards look exact,
ln B is bounded for few samples (((n - 1)/2) ln((n + c)/c) as q moves away), so such an arm keeps
an infinite bound until it has enough samples.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["PRECISIONS", "log_bayes_factor", "log_bayes_factor_one_sided", "log_t_cdf_lower",
           "bayes_factor_bound"]

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
def _log_t_density_constant(nu):
    """ln of Gamma((nu + 1)/2) / (sqrt(nu pi) Gamma(nu / 2)), the constant of Student's t density."""
    a = 0.5 * nu
    if a > 200.0:  # ln(Gamma(a + 1/2) / Gamma(a)): asymptotic series, error below 1e-13 here
        ratio = 0.5 * math.log(a) - 1.0 / (8.0 * a) + 1.0 / (192.0 * a ** 3) + 1.0 / (640.0 * a ** 5)
    else:
        ratio = math.lgamma(a + 0.5) - math.lgamma(a)
    return ratio - 0.5 * math.log(nu * math.pi)


@njit(cache=True)
def _log_t_density(nu, w, log_const):
    """ln f(w) of Student's t with ``nu`` degrees of freedom, ``log_const`` = ln f(0)."""
    return log_const - 0.5 * (nu + 1.0) * math.log1p(w * w / nu)


@njit(cache=True)
def log_t_cdf_lower(nu, w, log_const):
    """A lower bound on ln P(T_nu <= w) for Student's t with nu > 1 degrees of freedom; nondecreasing in w.

    With f the t density (``log_const`` = ln f(0), :func:`_log_t_density_constant`): for w < 0,
    P(T <= w) = Q(-w) >= f(1 - w) (the mass of [-w, 1 - w]); for w >= 0 the upper tail
    Q(w) = P(T > w) is at most (a) 1/2 - min(w, 1) f(min(w, 1)) (f decreases on [0, inf), so the mass
    of [0, v] is at least v f(v), and Q(w) <= Q(1) for w >= 1) and (b) the Mills-type bound
    f(w) (nu + w^2) / ((nu - 1) w) (integrate f(t) t / w from w to infinity).  Both are
    nonincreasing in w; the bound is ln(1 - min((a), (b))).  Against the exact value (scipy's
    ``stdtr``; tested) it loses at most 0.23 nats for w >= 0 (n = 2; 0.12 for large n) and at most
    3e-4 nats for w >= 3 once nu >= 50.
    """
    if w < 0.0:
        return _log_t_density(nu, 1.0 - w, log_const)
    v = min(w, 1.0)
    bound = 0.5 - v * math.exp(_log_t_density(nu, v, log_const))
    if w > 0.0:
        mills = math.exp(_log_t_density(nu, w, log_const)) * (nu + w * w) / ((nu - 1.0) * w)
        if mills < bound:
            bound = mills
    return math.log1p(-bound)


@njit(cache=True)
def log_bayes_factor_one_sided(n, xbar, sq_devs, lam, precisions, sign):
    """ln B+(lambda): the one-sided invariant Bayes factor (effect on side ``sign``), bounded below.

    The prior on the standardised effect eta = (mu - lambda) / sigma is the half-normal
    2 N(0, 1/c) restricted to sign * eta >= 0 (instead of N(0, 1/c)); integrating the scale with
    the right-Haar prior gives, with S_y = S_lambda / sqrt(V_lambda) (signed) and T_n Student's t
    with n degrees of freedom,

        B+_c = 2 B_c P(T_n <= sign S_y sqrt(n) / sqrt(n + c - S_y^2)),

    B_c the two-sided factor of :func:`log_bayes_factor` (derivation in
    :mod:`pybai.stopping.unknown_variance`).  The t probability is replaced by the lower bound of
    :func:`log_t_cdf_lower`, so the value returned is at most ln B+ (a valid e-value is kept valid)
    and, like ln B+, nonincreasing in ``sign * lambda`` (tested).  Equal-weight mixture over
    ``precisions``; 0 (B = 1) for n < 2.
    """
    if n < 2.0:
        return 0.0
    d = xbar - lam
    v = sq_devs + n * d * d
    if v <= 0.0:
        s_y = 0.0
    else:
        s_y = n * d / math.sqrt(v)
    q = s_y * s_y / n
    log_const = _log_t_density_constant(n)
    acc = -math.inf
    for j in range(precisions.shape[0]):
        c = precisions[j]
        r = n / (n + c)
        room = n + c - s_y * s_y  # = c + n S / V > 0 (c > 0)
        w = sign * s_y * math.sqrt(n / room)
        log_p = log_t_cdf_lower(n, w, log_const)
        term = 0.5 * math.log(c / (n + c)) - 0.5 * n * math.log1p(-r * q) + math.log(2.0) + log_p
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
