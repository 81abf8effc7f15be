r"""The delta-correct thresholds of Kaufmann & Koolen (2021): a union bound over pieces of the alternative.

* :class:`ExponentialFamilyThreshold` -- proven delta-correct for any
  one-parameter exponential family (Bernoulli, Gaussian with known variance,
  ...), from Theorem 7 of Kaufmann & Koolen (2021).
* :class:`GaussianThreshold` -- proven delta-correct for Gaussian arms with
  known variances, from the Gaussian-specific Theorem 9 of Kaufmann & Koolen
  (2021), in the form used by Jourdan et al. (2022).  Tighter than the
  exponential-family threshold.

Both depend on ``t`` only; their delta-dependent constant (the calibration functions of
:mod:`pybai.stopping.calibration`) is computed once in the constructor.

References
----------
.. [KK21] E. Kaufmann and W. M. Koolen. Mixture martingales revisited with
   applications to sequential tests and confidence intervals. JMLR
   22(246):1--44, 2021 (arXiv:1811.11419).
.. [JDBHK22] M. Jourdan, R. Degenne, D. Baudry, R. de Heide and E. Kaufmann.
   Top two algorithms revisited. NeurIPS 2022.
"""

from __future__ import annotations

import math

from pybai.stopping.base import LogLogThreshold, UnionBoundThreshold
from pybai.stopping.calibration import c_exp, c_gauss

__all__ = ["ExponentialFamilyThreshold", "GaussianThreshold"]


class _UnionBoundThreshold(UnionBoundThreshold, LogLogThreshold):
    """Shared parts of the proven thresholds: a union bound over ``n_alternatives`` pieces of
    the alternative, each involving ``n_terms`` sources; subclasses give the calibration."""

    def __init__(self, delta: float, n_alternatives: int, n_terms: int = 2):
        super().__init__(delta, n_alternatives, n_terms)
        n = self.n_terms
        const, coef, shift = self._calibrate(math.log(self.n_alternatives / self.delta), n)
        self._finish(const=const, coef=coef, shift=shift, scale=n)

    def _calibrate(self, x: float, n: int) -> tuple[float, float, float]:
        """(constant, coefficient, shift) of beta = constant + coefficient ln(shift + ln(t/n))."""
        raise NotImplementedError


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
    (see ``tests/stopping/test_kk21.py``).

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
