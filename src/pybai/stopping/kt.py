r"""Proven stopping threshold for Bernoulli sources from Krichevsky--Trofimov mixtures.

.. math::

    \beta(t, \delta) = \ln\frac{m}{\delta} + n \ln 2 + \frac{n}{2}\ln\max\Big(\frac{t}{n}, 1\Big),

with ``m = n_alternatives`` and ``n = n_terms``.  For best-arm identification (``m = K - 1``,
``n = 2``) and ``t >= 2`` it is :math:`\ln(2t(K-1)/\delta)`, the threshold of Garivier &
Kaufmann (2016, Proposition 12).

Statement proved (any sampling rule).  Let ``S`` be a set of at most ``n`` Bernoulli sources with
means :math:`\mu_a`, sampled by any rule (the choice at time ``t`` may depend on the past and on
independent randomisation).  With :math:`N_a(t)` samples and empirical mean
:math:`\hat\mu_a(t)` of source ``a`` at time ``t``, and ``kl`` the Bernoulli divergence,

.. math::

    \mathbb{P}\Big(\exists t \ge 1:\ \sum_{a \in S} N_a(t)\,
        \mathrm{kl}(\hat\mu_a(t), \mu_a) \ge \beta(t, \delta)\Big) \le \frac{\delta}{m}.

Proof.

1. *KT mixture martingale.*  For source ``a`` with ``N`` samples, ``s`` of them ones, let
   :math:`q(s, N) = \int_0^1 \lambda^s (1-\lambda)^{N-s}\,\pi(d\lambda)` with the
   Beta(1/2, 1/2) (Jeffreys) prior :math:`\pi`, and
   :math:`M_a = q(s, N) / (\mu_a^s (1-\mu_a)^{N-s})` (``M_a = 1`` while ``N = 0``).  It is the
   :math:`\pi`-average of the likelihood ratios :math:`\prod (\lambda/\mu_a)^{X}((1-\lambda)/(1-\mu_a))^{1-X}`.
   At each time only the sampled source's factor changes, by a factor of conditional mean 1
   given the past and the (predictable) choice, so :math:`\prod_{a \in S} M_a(t)` is a
   nonnegative martingale of mean 1 for *any* sampling rule.  Ville's maximal inequality:
   :math:`\mathbb{P}(\exists t: \prod_{a\in S} M_a(t) \ge m/\delta) \le \delta/m`.
   (For rewards in [0, 1] that are not {0, 1}-valued, with ``s`` the sum of the rewards, the
   factor :math:`x \mapsto (\lambda/\mu)^x((1-\lambda)/(1-\mu))^{1-x}` is convex, so its
   conditional mean is at most 1: a supermartingale, and the statement below still holds.
   And since :math:`\mathrm{kl}(p, q) \ge 2(p-q)^2` (Pinsker), it also bounds the
   Gaussian-approximation deviation :math:`\sum_a 2 N_a(\hat\mu_a - \mu_a)^2` that
   variance-1/4 GLR statistics use.)
2. *KT regret bound* (Krichevsky & Trofimov 1981; Willems, Shtarkov & Tjalkens 1995, Lemma 1):
   for ``N >= 1``, :math:`q(s, N) \ge \frac{1}{2\sqrt N}(s/N)^s (1 - s/N)^{N-s}`.  Since
   :math:`(s/N)^s(1-s/N)^{N-s} / (\mu^s(1-\mu)^{N-s}) = \exp(N\,\mathrm{kl}(s/N, \mu))`,
   :math:`\ln M_a \ge N_a\,\mathrm{kl}(\hat\mu_a, \mu_a) - \ln 2 - \tfrac12 \ln N_a` when
   ``N_a >= 1``.  (``tests/stopping/test_kt.py`` checks the inequality exactly for every
   ``N <= 2000``.)
3. *Only t.*  Outside the event of step 1, with ``k`` the number of sources of ``S`` with
   ``N_a >= 1`` (``k <= min(n, t)``) and :math:`\sum_a N_a \le t`,
   :math:`\sum_a N_a \mathrm{kl}(\hat\mu_a,\mu_a) < \ln(m/\delta) + k\ln 2 + \tfrac12\sum\ln N_a
   \le \ln(m/\delta) + g(k)` with :math:`g(k) = k\ln 2 + \tfrac k2 \ln(t/k)` (AM--GM).  As
   :math:`g'(k) = \ln 2 + \tfrac12(\ln(t/k) - 1) > 0` for ``k <= t``,
   :math:`g(k) \le g(\min(n, t)) \le n\ln 2 + \tfrac n2\ln\max(t/n, 1)`.

Use in a GLR stopping rule.  If the alternative to the recommended answer is a union of ``m``
pieces, each constraining at most ``n`` sources, and the truth :math:`\mu` lies in the piece
``P`` of the wrong answer, then the GLR is at most
:math:`\sum_{a \in S_P} N_a \mathrm{kl}(\hat\mu_a, \mu_a)` (take :math:`\lambda = \mu` on the
sources ``S_P`` of the piece), so a union bound over the ``m`` pieces gives
:math:`\mathbb{P}(\text{stop with a wrong answer}) \le \delta`.  For best-arm identification
the pieces are :math:`\{\lambda_b \ge \lambda_{\hat a}\}`, ``b != a-hat`` (``m = K - 1``,
``n = 2``), and the wrong answer ``a-hat`` has ``K - 1`` possible values with ``b = a*``.

References
----------
.. [GK16] A. Garivier and E. Kaufmann. Optimal best arm identification with fixed confidence.
   COLT 2016, Proposition 12.
.. [KT81] R. Krichevsky and V. Trofimov. The performance of universal encoding. IEEE Trans.
   Inform. Theory 27(2):199--207, 1981.
.. [WST95] F. Willems, Y. Shtarkov and T. Tjalkens. The context-tree weighting method: basic
   properties. IEEE Trans. Inform. Theory 41(3):653--664, 1995 (Lemma 1).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import fail
from pybai.stopping.base import UnionBoundThreshold

__all__ = ["BernoulliKTThreshold"]

_LN2 = math.log(2.0)


class BernoulliKTThreshold(UnionBoundThreshold):
    r"""Proven threshold for Bernoulli sources: product of per-source KT mixtures.

    :math:`\beta(t, \delta) = \ln(m/\delta) + n\ln 2 + \tfrac n2 \ln\max(t/n, 1)`; see the
    module docstring for the statement and its proof.  Valid for any sampling rule, Bernoulli
    (or {0, 1}-valued) sources only.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m >= 1`` of pieces of the alternative (``K - 1`` for best-arm identification).
    n_terms : int, default 2
        Maximal number ``n >= 1`` of sources in a piece (2 for best-arm identification).
    """

    name = "kt-mixture"
    proven = True

    def __init__(self, delta: float, n_alternatives: int, n_terms: int = 2):
        super().__init__(delta, n_alternatives, n_terms)
        n = self.n_terms
        self._const = math.log(self.n_alternatives / self.delta) + n * _LN2
        self._half_n = 0.5 * n

    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1``."""
        if not t >= 1:  # also rejects NaN
            raise fail("t", type(self).__name__, "a sample count >= 1", t)
        u = t / self.n_terms
        if u <= 1.0:
            return self._const
        return self._const + self._half_n * math.log(u)

    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)`` for an array of sample counts (all ``>= 1``)."""
        arr = np.asarray(t, dtype=float)
        if not np.all(arr >= 1.0):
            raise fail("t", type(self).__name__, "sample counts >= 1", t)
        return self._const + self._half_n * np.log(np.maximum(arr / self.n_terms, 1.0))

    def compiled_form(self) -> np.ndarray:
        """``[const, n / 2, PLAIN_LOG, n, const]``: :func:`~pybai.stopping.compiled.threshold_value` evaluates
        ``const + (n / 2) ln(t / n)`` for t > n and ``const`` below, the operations of :meth:`__call__`."""
        return np.array([self._const, self._half_n, -math.inf, float(self.n_terms), self._const])
