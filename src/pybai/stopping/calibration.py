r"""Calibration functions of Kaufmann & Koolen (2021) used by the delta-correct thresholds (:mod:`pybai.stopping.kk21`).

h(u) = u - ln u, its inverse on [1, inf), htilde_z (two readings, see :func:`h_tilde`),
C_exp (Theorem 7) and the Gaussian C_G (Theorem 9).
"""

from __future__ import annotations

import math

from scipy.special import lambertw, zeta

from pybai._validation import fail

__all__ = ["LN_2_ZETA_2", "h", "h_inv", "h_tilde", "h_tilde_min", "c_exp", "g_gauss", "c_gauss"]

#: :math:`\ln(2\zeta(2)) = \ln(\pi^2/3)`.
LN_2_ZETA_2 = math.log(math.pi**2 / 3.0)

# Above this x, exp(-x) underflows in the W_{-1} evaluation; use Newton instead.
_H_INV_NEWTON_FROM = 500.0


# ---------------------------------------------------------------------------
# Calibration functions of Kaufmann & Koolen (2021)
# ---------------------------------------------------------------------------


def h(u: float) -> float:
    r"""Return :math:`h(u) = u - \ln u` (increasing on :math:`[1, \infty)`)."""
    return u - math.log(u)


def h_inv(x: float) -> float:
    r"""Inverse of :math:`h(u) = u - \ln u` on :math:`u \ge 1`.

    :math:`h^{-1}(x) = -W_{-1}(-e^{-x})` with the lower real branch of the
    Lambert W function (:func:`scipy.special.lambertw`, ``k=-1``).  The W value
    is used as the starting point of Newton steps on
    :math:`v - \ln(1 + v) = x - 1` (``v = u - 1``), which keep full accuracy
    near the branch point ``x = 1`` (where the W evaluation is ill-conditioned;
    the branch-point series is used as the start there) and for very large
    ``x`` (where ``exp(-x)`` underflows; the start is then :math:`x + \ln x`).

    Parameters
    ----------
    x : float
        Argument, ``x >= 1``.

    Returns
    -------
    float
        The unique ``u >= 1`` with ``u - ln(u) == x``.
    """
    x = float(x)
    if not x >= 1.0 or math.isinf(x):  # also rejects NaN
        raise fail("x", "h_inv", "a finite float >= 1", x)
    eps = x - 1.0
    if eps == 0.0:
        return 1.0
    if eps < 1e-2:
        # Series of -W_{-1}(-e^{-x}) around the branch point, q = sqrt(2 (1 - e^{1-x})).
        q = math.sqrt(-2.0 * math.expm1(-eps))
        v = q * (1.0 + q * (1.0 / 3.0 + q * (11.0 / 72.0 + q * (43.0 / 540.0 + q * 769.0 / 17280.0))))
    elif x < _H_INV_NEWTON_FROM:
        v = -lambertw(-math.exp(-x), k=-1).real - 1.0
    else:
        v = x + math.log(x) - 1.0
    # Newton on f(v) = v - log1p(v) - eps, f'(v) = v / (1 + v).
    for _ in range(6):
        step = (v - math.log1p(v) - eps) * (1.0 + v) / v
        v_new = v - step
        if v_new <= 0.0:
            v_new = 0.5 * v
        v = v_new
        if abs(step) <= 4e-16 * v:
            break
    return 1.0 + v


def h_tilde(x: float, z: float = 1.5) -> float:
    r"""The function :math:`\tilde h_z` of Kaufmann & Koolen (2021), conservative reading.

    .. math::

        \tilde h_z(x) = \begin{cases}
            e^{1/h^{-1}(x)}\, h^{-1}(x) & \text{if } x \ge h^{-1}(1/\ln z), \\
            z\,(x - \ln\ln z) & \text{otherwise,}
        \end{cases}

    for :math:`z \in (1, e]` and :math:`x \ge 1`.  The first branch is the unconstrained
    minimiser :math:`y = e^{1/h^{-1}(x)}` of :math:`y\,(x - \ln\ln y)`, the second the
    boundary :math:`y = z`.  The cut as written here (the form found in a public
    implementation) is the *conservative* one: on :math:`[h(1/\ln z), h^{-1}(1/\ln z))`
    it returns the boundary value, which is larger than :math:`\min_{y \in (1, z]}` (the
    continuous reading, :func:`h_tilde_min`); just past the cut it keeps that value until the
    first branch catches up, so that the function is non-decreasing.  A threshold built on the larger value is
    delta-correct under either reading of the paper, which we could not consult here;
    see ``docs/thresholds.md``.

    Parameters
    ----------
    x : float
        Argument, ``x >= 1``.
    z : float, default 1.5
        Parameter in ``(1, e]``; Theorem 7 uses ``z = 3/2``.

    Returns
    -------
    float
    """
    if not 1.0 < z <= math.e:
        raise fail("z", "h_tilde", "a float in (1, e]", z)
    cut = h_inv(1.0 / math.log(z))
    boundary = z * (min(x, cut) - math.log(math.log(z)))
    if x >= cut:
        u = h_inv(x)
        # max(.) keeps the function non-decreasing past the cut (a plateau instead of a drop)
        return max(math.exp(1.0 / u) * u, boundary)
    return boundary


def h_tilde_min(x: float, z: float = 1.5) -> float:
    r""":math:`\min_{y \in (1, z]} y\,(x - \ln\ln y)`: the continuous reading of :math:`\tilde h_z`.

    Never larger than :func:`h_tilde`; equal to it outside :math:`[h(1/\ln z), h^{-1}(1/\ln z))`.
    """
    if not 1.0 < z <= math.e:
        raise fail("z", "h_tilde_min", "a float in (1, e]", z)
    u = h_inv(x)
    if u >= 1.0 / math.log(z):
        return math.exp(1.0 / u) * u
    return z * (x - math.log(math.log(z)))


def c_exp(x: float) -> float:
    r"""The calibration function :math:`C^{\exp}` of Kaufmann & Koolen (2021, Theorem 7).

    .. math::

        C^{\exp}(x) = 2\,\tilde h_{3/2}\!\left(
            \frac{h^{-1}(1 + x) + \ln(2\zeta(2))}{2}\right).

    For large ``x`` it behaves like :math:`x + 4\ln(1 + x + \sqrt{2x})`
    (within 2.5 % for ``x >= 10``; much larger than it for small ``x``,
    e.g. ``c_exp(0) ~ 6.0``).

    Parameters
    ----------
    x : float
        ``x >= 0`` (in use ``x = ln(n_alternatives / delta) / n_terms``).

    Returns
    -------
    float
    """
    x = float(x)
    if not x >= 0.0 or not math.isfinite(x):
        raise fail("x", "c_exp", "a finite float >= 0", x)
    return 2.0 * h_tilde(0.5 * (h_inv(1.0 + x) + LN_2_ZETA_2), 1.5)


def g_gauss(lam: float) -> float:
    r"""The function :math:`g_G` of the Gaussian deviation inequality.

    .. math::

        g_G(\lambda) = 2\lambda - 2\lambda\ln(4\lambda) + \ln\zeta(2\lambda)
            - \tfrac12 \ln(1 - \lambda), \qquad \lambda \in (1/2, 1).

    Parameters
    ----------
    lam : float
        ``lam`` in the open interval ``(1/2, 1)``.

    Returns
    -------
    float
    """
    lam = float(lam)
    if not 0.5 < lam < 1.0:
        raise fail("lam", "g_gauss", "a float in (1/2, 1)", lam)
    return (
        2.0 * lam
        - 2.0 * lam * math.log(4.0 * lam)
        + math.log(float(zeta(2.0 * lam, 1.0)))
        - 0.5 * math.log1p(-lam)
    )


def c_gauss(x: float) -> float:
    r"""The Gaussian calibration function :math:`C^{G}` (Kaufmann & Koolen 2021, Theorem 9).

    .. math::

        C^{G}(x) = \min_{\lambda \in (1/2, 1]} \frac{g_G(\lambda) + x}{\lambda}.

    ``g_G`` tends to ``+inf`` at both ends of ``(1/2, 1)``, so the minimum
    is interior; it is found by bounded Brent minimisation.  ``c_gauss(x)``
    is close to ``x + ln(x)`` for ``x`` of about 5 and more.

    Parameters
    ----------
    x : float
        ``x >= 0``.

    Returns
    -------
    float
    """
    x = float(x)
    if not x >= 0.0 or not math.isfinite(x):
        raise fail("x", "c_gauss", "a finite float >= 0", x)
    from scipy.optimize import minimize_scalar  # here: scipy.optimize costs ~0.5 s to import, and a session never calls this

    eps = 1e-13
    res = minimize_scalar(
        lambda lam: (g_gauss(lam) + x) / lam,
        bounds=(0.5 + eps, 1.0 - eps),
        method="bounded",
        options={"xatol": 1e-12, "maxiter": 500},
    )
    return float(res.fun)
