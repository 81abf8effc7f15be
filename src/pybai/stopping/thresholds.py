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
* :class:`~pybai.stopping.kt.BernoulliKTThreshold` -- proven delta-correct for Bernoulli
  sources, :math:`\ln(m/\delta) + n\ln 2 + (n/2)\ln(t/n)` (``ln(2t(K-1)/delta)`` for best-arm
  identification, Garivier & Kaufmann 2016, Proposition 12), from a product of per-source
  Krichevsky--Trofimov mixture martingales (module :mod:`pybai.stopping.kt`).  Several times
  smaller than :class:`ExponentialFamilyThreshold` at the sample sizes met in practice.
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

import math
from typing import Any

import numpy as np

from pybai._validation import check_choice, check_positive_int, check_probability, fail
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.threshold_base import Threshold

__all__ = [
    "Threshold",
    "HeuristicThreshold",
    "ExponentialFamilyThreshold",
    "GaussianThreshold",
    "BernoulliKTThreshold",
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

#: Accepted values of the ``kind`` argument of :func:`make_threshold`: ``"delta-correct"`` is the
#: best proven threshold of the family; ``"kk21"``, ``"kt-mixture"`` and ``"pair-mixture"`` name
#: proven ones (``"pair-mixture"``: the count-dependent per-piece rules of :mod:`pybai.stopping.mixture`,
#: the ``"delta-correct"`` default of best-arm and top-k problems).
KINDS = ("heuristic", "delta-correct", "kk21", "kt-mixture", "pair-mixture")
#: Accepted values of the ``family`` argument of :func:`make_threshold`.
FAMILIES = ("gaussian", "bernoulli", "exponential_family")

from pybai.stopping.calibration import (  # noqa: E402  (re-exported)
    c_exp,
    c_gauss,
    g_gauss,
    h,
    h_inv,
    h_tilde,
    h_tilde_min,
)


# ---------------------------------------------------------------------------
# Threshold objects
# ---------------------------------------------------------------------------


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


class _UnionBoundThreshold(_LogLogThreshold):
    """Shared parts of the proven thresholds: a union bound over ``n_alternatives`` pieces of
    the alternative, each involving ``n_terms`` sources; subclasses give the calibration."""

    def __init__(self, delta: float, n_alternatives: int, n_terms: int = 2):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", owner)
        self.n_terms = check_positive_int(n_terms, "n_terms", owner)
        n = self.n_terms
        const, coef, shift = self._calibrate(math.log(self.n_alternatives / self.delta), n)
        self._finish(const=const, coef=coef, shift=shift, scale=n)

    def _calibrate(self, x: float, n: int) -> tuple[float, float, float]:
        """(constant, coefficient, shift) of beta = constant + coefficient ln(shift + ln(t/n))."""
        raise NotImplementedError

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "n_terms": self.n_terms}


class ExponentialFamilyThreshold(_UnionBoundThreshold):
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

    def _calibrate(self, x, n):
        return n * c_exp(x / n), 3.0 * n, 1.0


class GaussianThreshold(_UnionBoundThreshold):
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

    def _calibrate(self, x, n):
        return n * c_gauss(x / n), 2.0 * n, 4.0


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
    kind : {"heuristic", "delta-correct", "kk21", "kt-mixture", "pair-mixture"}
        ``"heuristic"``: :class:`HeuristicThreshold` (not proven).
        ``"delta-correct"``: the tightest proven threshold for ``family``:
        :class:`GaussianThreshold` for ``"gaussian"``,
        :class:`~pybai.stopping.kt.BernoulliKTThreshold` for ``"bernoulli"``,
        :class:`ExponentialFamilyThreshold` for ``"exponential_family"``.
        ``"kk21"``: the Kaufmann & Koolen (2021) threshold of the family
        (:class:`GaussianThreshold` or :class:`ExponentialFamilyThreshold`).
        ``"kt-mixture"``: :class:`~pybai.stopping.kt.BernoulliKTThreshold` (``family`` must be
        ``"bernoulli"``).
        ``"pair-mixture"``: the count-dependent per-piece rule of :mod:`pybai.stopping.mixture`
        (:class:`~pybai.stopping.mixture.GaussianPairMixtureThreshold` or
        :class:`~pybai.stopping.mixture.BernoulliPairMixtureThreshold`; ``n_terms`` must be 2).
        Problems made of two-arm pieces (best arm, top-k) decide with it per piece; called
        with ``t`` only it answers the family's t-only proven threshold.  Problems that build
        their own threshold for ``"delta-correct"`` do so in
        :meth:`pybai.problems.base.Problem.threshold`.
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
    if kind == "pair-mixture":
        from pybai.stopping.mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold

        if n_terms != 2:
            raise fail("n_terms", "make_threshold", "2 for kind 'pair-mixture' (pieces of two arms)", n_terms)
        if fam == "gaussian":
            return GaussianPairMixtureThreshold(delta, n_alternatives)
        if fam == "bernoulli":
            return BernoulliPairMixtureThreshold(delta, n_alternatives)
        raise fail("family", "make_threshold", "'gaussian' or 'bernoulli' for kind 'pair-mixture'", family)
    if kind == "kt-mixture" and fam != "bernoulli":
        raise fail("family", "make_threshold", "'bernoulli' for kind 'kt-mixture'", family)
    if kind == "kt-mixture" or (kind == "delta-correct" and fam == "bernoulli"):
        return BernoulliKTThreshold(delta, n_alternatives, n_terms)
    if fam == "gaussian":
        return GaussianThreshold(delta, n_alternatives, n_terms)
    return ExponentialFamilyThreshold(delta, n_alternatives, n_terms)
