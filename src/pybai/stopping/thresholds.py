r"""Stopping thresholds :math:`\beta(t, \delta)` for GLR (Chernoff) stopping rules.

A GLR stopping rule stops at the first sample count ``t`` at which the
generalised log-likelihood ratio statistic exceeds ``beta(t, delta)``.  This
module provides

* :class:`HeuristicThreshold` -- :math:`\ln((1 + \ln t)/\delta)`, the threshold
  used in the *experiments* of Garivier & Kaufmann (2016).  It is **not**
  proven to be delta-correct.
* :class:`ExponentialFamilyThreshold` -- proven delta-correct for any
  one-parameter exponential family (Bernoulli, Gaussian with known variance,
  ...), from Theorem 7 of Kaufmann & Koolen (2021).
* :class:`GaussianThreshold` -- proven delta-correct for Gaussian arms with
  known variances, from the Gaussian-specific Theorem 9 of Kaufmann & Koolen
  (2021), in the form used by Jourdan et al. (2022).  Tighter than the
  exponential-family threshold.
* :func:`make_threshold` -- factory choosing between them.

All thresholds are small picklable objects whose delta-dependent constant is
computed once in the constructor; ``threshold(t)`` is then a couple of
``math.log`` calls.

References
----------
.. [GK16] A. Garivier and E. Kaufmann. Optimal best arm identification with
   fixed confidence. COLT 2016.
.. [KK21] E. Kaufmann and W. M. Koolen. Mixture martingales revisited with
   applications to sequential tests and confidence intervals. JMLR
   22(246):1--44, 2021 (arXiv:1811.11419).
.. [JDBHK22] M. Jourdan, R. Degenne, D. Baudry, R. de Heide and E. Kaufmann.
   Top two algorithms revisited. NeurIPS 2022.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import lambertw, zeta

from pybai._validation import check_choice, check_positive_int, check_probability, fail

__all__ = [
    "Threshold",
    "HeuristicThreshold",
    "ExponentialFamilyThreshold",
    "GaussianThreshold",
    "make_threshold",
    "h",
    "h_inv",
    "h_tilde",
    "h_tilde_min",
    "c_exp",
    "g_gauss",
    "c_gauss",
    "KINDS",
    "FAMILIES",
]

#: Accepted values of the ``kind`` argument of :func:`make_threshold`.
KINDS = ("heuristic", "delta-correct")
#: Accepted values of the ``family`` argument of :func:`make_threshold`.
FAMILIES = ("gaussian", "bernoulli", "exponential_family")

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
    eps = 1e-13
    res = minimize_scalar(
        lambda lam: (g_gauss(lam) + x) / lam,
        bounds=(0.5 + eps, 1.0 - eps),
        method="bounded",
        options={"xatol": 1e-12, "maxiter": 500},
    )
    return float(res.fun)


# ---------------------------------------------------------------------------
# Threshold objects
# ---------------------------------------------------------------------------


class Threshold(abc.ABC):
    r"""Abstract stopping threshold :math:`t \mapsto \beta(t, \delta)`.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.

    Attributes
    ----------
    name : str
        Short identifier of the threshold kind.
    delta : float
        Risk level.
    proven : bool
        Whether the threshold is proven delta-correct (under the conditions
        stated in the subclass docstring).
    """

    name: str = "threshold"
    proven: bool = False

    def __init__(self, delta: float):
        self.delta = check_probability(delta, "delta", type(self).__name__)

    @abc.abstractmethod
    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1``."""

    @abc.abstractmethod
    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)`` for an array of sample counts (all ``>= 1``)."""

    def _params(self) -> dict:
        return {"delta": self.delta}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._params() == other._params()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._params().items())))


class _LogLogThreshold(Threshold):
    r"""Threshold of the form ``const + coef * ln(shift + ln(max(t / scale, 1)))``.

    Subclasses set ``_const``, ``_coef``, ``_shift`` and ``_scale`` in their
    constructor; evaluation is then constant-free arithmetic.
    """

    _const: float
    _coef: float
    _shift: float
    _scale: float
    _at_one: float  # value when t / scale <= 1

    def _finish(self, const: float, coef: float, shift: float, scale: float) -> None:
        self._const = float(const)
        self._coef = float(coef)
        self._shift = float(shift)
        self._scale = float(scale)
        self._at_one = self._const + self._coef * math.log(self._shift)

    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1`` (int or float).

        Parameters
        ----------
        t : float
            Total number of samples, ``t >= 1``.

        Returns
        -------
        float
        """
        if not t >= 1:  # also rejects NaN
            raise fail("t", type(self).__name__, "a sample count >= 1", t)
        u = t / self._scale
        if u <= 1.0:
            return self._at_one
        return self._const + self._coef * math.log(self._shift + math.log(u))

    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)``.

        Parameters
        ----------
        t : array_like
            Sample counts, all ``>= 1``.

        Returns
        -------
        numpy.ndarray
            Array of the same shape as ``t`` (float64).
        """
        arr = np.asarray(t, dtype=float)
        if not np.all(arr >= 1.0):
            raise fail("t", type(self).__name__, "sample counts >= 1", t)
        u = np.maximum(arr / self._scale, 1.0)
        return self._const + self._coef * np.log(self._shift + np.log(u))


class HeuristicThreshold(_LogLogThreshold):
    r"""Heuristic threshold :math:`\beta(t, \delta) = \ln\big((1 + \ln t)/\delta\big)`.

    Used in the experiments of Garivier & Kaufmann (2016) and much of the
    follow-up literature.  It is **not** proven delta-correct; it is
    typically much smaller than the proven thresholds and empirical error
    rates stay far below ``delta`` with it.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    """

    name = "heuristic"
    proven = False

    def __init__(self, delta: float):
        super().__init__(delta)
        self._finish(const=-math.log(self.delta), coef=1.0, shift=1.0, scale=1.0)


class ExponentialFamilyThreshold(_LogLogThreshold):
    r"""Delta-correct threshold for one-parameter exponential families.

    .. math::

        \beta(t, \delta) = n\, C^{\exp}\!\Big(\frac{\ln(m/\delta)}{n}\Big)
            + 3n \ln\big(1 + \ln(t/n)\big),

    with ``n = n_terms`` and ``m = n_alternatives`` (the log-log term is
    taken as 0 when ``t <= n``).  For standard best-arm identification,
    ``m = K - 1`` and ``n = 2``.

    Derivation: Theorem 7 of Kaufmann & Koolen (2021) states that for any
    subset ``S`` of arms and ``x > 0``,

    .. math::

        \mathbb{P}\Big(\exists t:\ \sum_{a \in S} N_a(t)\, d(\hat\mu_a(t), \mu_a)
        \ge \sum_{a \in S} 3\ln(1 + \ln N_a(t)) + |S|\, C^{\exp}(x/|S|)\Big)
        \le e^{-x}.

    Take ``x = ln(m / delta)`` and a union bound over the ``m`` pieces of the
    alternative; since :math:`u \mapsto 3\ln(1+\ln u)` is concave and
    increasing on :math:`[1,\infty)`, and :math:`N_a \ge 1`,
    :math:`\sum_{a \in S} N_a \le t`, the per-arm terms are at most
    :math:`3n\ln(1 + \ln(t/n))`.  Valid for any sampling rule, for the GLR
    statistic whose alternative is a union of ``m`` sets each involving at
    most ``n`` arms.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m >= 1`` of pieces in the union bound (``K - 1`` for BAI).
    n_terms : int
        Number ``n >= 1`` of arms in each GLR term (2 for BAI).
    """

    name = "kk21-exponential-family"
    proven = True

    def __init__(self, delta: float, n_alternatives: int, n_terms: int):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", owner)
        self.n_terms = check_positive_int(n_terms, "n_terms", owner)
        n = self.n_terms
        x = math.log(self.n_alternatives / self.delta)
        self._finish(const=n * c_exp(x / n), coef=3.0 * n, shift=1.0, scale=n)

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "n_terms": self.n_terms}


class GaussianThreshold(_LogLogThreshold):
    r"""Delta-correct threshold for Gaussian arms with known variances.

    .. math::

        \beta(t, \delta) = n\, C^{G}\!\Big(\frac{\ln(m/\delta)}{n}\Big)
            + 2n \ln\big(4 + \ln(t/n)\big),

    with ``n = n_terms``, ``m = n_alternatives`` (``ln(t/n)`` taken as 0 when
    ``t <= n``).  For BAI (``m = K - 1``, ``n = 2``) this is
    :math:`2 C^G(\ln((K-1)/\delta)/2) + 4\ln(4 + \ln(t/2))`, the threshold
    of Jourdan et al. (2022).

    Derivation: Theorem 9 of Kaufmann & Koolen (2021) (Gaussian case): for
    any subset ``S`` of arms and ``x > 0``,

    .. math::

        \mathbb{P}\Big(\exists t:\ \sum_{a \in S} \Big[\frac{N_a(t)}{2\sigma_a^2}
        (\hat\mu_a(t) - \mu_a)^2 - 2\ln(4 + \ln N_a(t))\Big]
        \ge |S|\, C^{G}(x/|S|)\Big) \le e^{-x},

    then the same union bound and concavity step as
    :class:`ExponentialFamilyThreshold`.  Tighter than the
    exponential-family threshold everywhere we checked
    (see ``tests/stopping/test_thresholds.py``).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m >= 1`` of pieces in the union bound (``K - 1`` for BAI).
    n_terms : int, default 2
        Number ``n >= 1`` of arms in each GLR term (2 for BAI).
    """

    name = "kk21-gaussian"
    proven = True

    def __init__(self, delta: float, n_alternatives: int, n_terms: int = 2):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", owner)
        self.n_terms = check_positive_int(n_terms, "n_terms", owner)
        n = self.n_terms
        x = math.log(self.n_alternatives / self.delta)
        self._finish(const=n * c_gauss(x / n), coef=2.0 * n, shift=4.0, scale=n)

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "n_terms": self.n_terms}


def _family_name(family: Any) -> str:
    name = family if isinstance(family, str) else getattr(family, "name", family)
    if isinstance(name, str):
        name = name.strip().lower().replace("-", "_").replace(" ", "_")
    return check_choice(name, FAMILIES, "family", "make_threshold")


def make_threshold(
    kind: str,
    delta: float,
    *,
    n_alternatives: int,
    n_terms: int = 2,
    family: Any = "gaussian",
) -> Threshold:
    """Build a stopping threshold.

    Parameters
    ----------
    kind : {"heuristic", "delta-correct"}
        ``"heuristic"``: :class:`HeuristicThreshold` (not proven).
        ``"delta-correct"``: the tightest proven threshold for ``family``:
        :class:`GaussianThreshold` for ``"gaussian"``,
        :class:`ExponentialFamilyThreshold` otherwise.
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number of pieces of the alternative in the union bound (``K - 1``
        for best-arm identification).  Unused by the heuristic threshold,
        but still validated.
    n_terms : int, default 2
        Number of arms in each GLR term (2 for best-arm identification).
    family : str or Family, default "gaussian"
        ``"gaussian"``, ``"bernoulli"`` or ``"exponential_family"`` (any other
        one-parameter exponential family), or an object with such a ``name``
        attribute (e.g. a :class:`pybai.models.Family`).

    Returns
    -------
    Threshold

    Raises
    ------
    ValueError
        (:class:`~pybai.exceptions.InvalidParameterError`) naming the bad
        parameter: ``kind``, ``delta``, ``n_alternatives``, ``n_terms`` or
        ``family``.
    """
    if isinstance(kind, str):
        kind = kind.strip().lower().replace("_", "-")
    kind = check_choice(kind, KINDS, "kind", "make_threshold")
    delta = check_probability(delta, "delta", "make_threshold")
    n_alternatives = check_positive_int(n_alternatives, "n_alternatives", "make_threshold")
    n_terms = check_positive_int(n_terms, "n_terms", "make_threshold")
    fam = _family_name(family)
    if kind == "heuristic":
        return HeuristicThreshold(delta)
    if fam == "gaussian":
        return GaussianThreshold(delta, n_alternatives, n_terms)
    return ExponentialFamilyThreshold(delta, n_alternatives, n_terms)
