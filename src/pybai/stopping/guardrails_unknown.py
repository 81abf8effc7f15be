r"""The ``delta-correct`` guardrail rule when some metric's variance is unknown.

The tests of the alternative are those of :mod:`pybai.stopping.guardrails` (half-spaces over one source,
or over two sources of the same metric in two different arms, grouped in items).  A test on a metric of
known variance (or sub-Gaussian proxy) keeps its mixture evidence and its level ln(m / delta).  A test
on a metric whose variance is unknown uses the invariant t-test factors of
:mod:`pybai.models._invariant` (one-sided, the right-Haar prior on the scale; Lai 1976):

* **one source**, H = {a_1 lambda_s >= e} (an arm's mean against a bound): the data refute H with the
  one-sided factor looking for a mean on the other side, B^{-a_1}_s; it is monotone in lambda, so its
  infimum over H is at the bound, ``ln B^{-a_1}_s(a_1 e)``, compared with ``ln(m / delta)``;
* **two sources** (an arm against the control, two arms' objectives), H = {lambda_j >= lambda_i + e}: the
  pair statistic of :mod:`pybai.stopping.unknown_variance`, inf over u in [xbar_j - e, xbar_i] of
  ln B+_i(u) + ln B-_j(u) (source j's samples shifted by -e), certified by branch-and-bound and compared
  with ``product_level(delta / m)`` = ln x, (1 + ln x) / x = delta / m.

A source with fewer than two samples, or whose variance estimate rests on ties
(:attr:`~pybai.models.unknown_variance.MeansAndVariances.tied`), gives its tests no evidence.

The theorem (any sampling rule, any correlation between the metrics of an observation, P(wrong stop)
<= delta) and its proof are in docs/thresholds.md, "Guardrail metrics of unknown variance": each of the
m events fixed by the truth has probability <= delta / m (Ville's inequality for a known-variance test;
in the stack model, P(U >= x) <= 1/x for the supremum of one invariant factor and
P(U V >= x) <= (1 + ln x)/x for two independent ones), and no event involves two metrics.

The GLR of an unknown-variance test (the statistic, the heuristic threshold, the cheap filter) is the
unknown-variance transportation cost: (N/2) ln(1 + g_+^2 / s^2) for one source (s^2 = S / N, floored) and
:func:`~pybai.models._transport.transport_pair` for two.  ln B+-_c <= ln 2 + ln B_c <= ln 2 + that cost per
source, so no item passes while the statistic is at most ``min(ln(m/delta) - ln 2, ln x - 2 ln 2)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._invariant import PRECISIONS, log_bayes_factor_one_sided
from pybai.models._transport import transport_pair
from pybai.stopping.guardrails import GuardrailMixtureThreshold, one_test_value
from pybai.stopping.unknown_variance import invariant_pair_margin, product_level

__all__ = ["GuardrailUnknownVarianceThreshold", "uv_items_glr", "uv_items_margin", "uv_tests_glr",
           "uv_tests_margin"]

_LN2 = math.log(2.0)


@njit(cache=True)
def _pair_sides(j, s1, a1, s2, e):
    """(i, jj): the test {a1 (lambda_s1 - lambda_s2) >= e} as {lambda_jj >= lambda_i + e}."""
    if a1[j] > 0.0:
        return s2[j], s1[j]
    return s1[j], s2[j]


@njit(cache=True)
def uv_test_glr(j, s1, a1, s2, a2, e, counts, means, variances, unknown, noise):
    """The GLR of test j: the known-variance one (:func:`~pybai.stopping.guardrails.one_test_value`) or the
    unknown-variance transportation cost (module docstring); 0 below two samples."""
    p = s1[j]
    if not unknown[p]:
        return one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, np.empty(0), np.empty(1))
    if s2[j] < 0:
        n = counts[p]
        if n < 2.0:
            return 0.0
        gap = e[j] - a1[j] * means[p]
        if not gap > 0.0:
            return 0.0
        x = gap / math.sqrt(noise[p])
        return 0.5 * n * math.log1p(x * x)
    i, jj = _pair_sides(j, s1, a1, s2, e)
    ni, nj = counts[i], counts[jj]
    if ni < 2.0 or nj < 2.0:
        return 0.0
    return transport_pair(ni, means[i], noise[i], nj, means[jj] - e[j], noise[jj])[0]


@njit(cache=True)
def uv_test_margin(j, s1, a1, s2, a2, e, counts, means, variances, scales, table, unknown, sq_devs, noise, tied,
                   precisions, level, level_one, level_pair):
    """The evidence of test j minus its level: the mixture evidence against ``level`` (known variance), ln B at the
    bound against ``level_one`` (one source of unknown variance), the certified pair margin against ``level_pair``
    (two).  ``-inf`` when a source of unknown variance has fewer than two samples or is tied."""
    p = s1[j]
    if not unknown[p]:
        return one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, scales, table) - level
    if s2[j] < 0:
        n = counts[p]
        if n < 2.0 or tied[p]:
            return -math.inf
        return log_bayes_factor_one_sided(n, means[p], sq_devs[p], a1[j] * e[j], precisions, -a1[j]) - level_one
    i, jj = _pair_sides(j, s1, a1, s2, e)
    ni, nj = counts[i], counts[jj]
    xj = means[jj] - e[j]
    if ni < 2.0 or nj < 2.0 or tied[i] or tied[jj] or not (means[i] > xj):
        return -math.inf
    si = max(sq_devs[i] / ni, 1e-300)
    sj = max(sq_devs[jj] / nj, 1e-300)
    start = transport_pair(ni, means[i], si, nj, xj, sj)[1]
    return invariant_pair_margin(ni, means[i], sq_devs[i], nj, xj, sq_devs[jj], level_pair, precisions, start)


@njit(cache=True)
def min_of_item_max(values, starts):
    """min over items of the max of its tests' ``values`` (``inf`` with no item; a NaN value never wins a max)."""
    n_tests = values.shape[0]
    n_items = starts.shape[0]
    worst = math.inf
    for it in range(n_items):
        hi = starts[it + 1] if it + 1 < n_items else n_tests
        best = -math.inf
        for j in range(starts[it], hi):
            if values[j] > best:
                best = values[j]
        if best < worst:
            worst = best
    return worst


@njit(cache=True)
def uv_items_margin(s1, a1, s2, a2, e, starts, counts, means, variances, scales, unknown, sq_devs, noise, tied,
                    precisions, level, level_one, level_pair):
    """min over items of the max over its tests of :func:`uv_test_margin` (``inf`` with no item); stop when > 0."""
    return min_of_item_max(uv_tests_margin(s1, a1, s2, a2, e, counts, means, variances, scales, unknown, sq_devs,
                                           noise, tied, precisions, level, level_one, level_pair), starts)


@njit(cache=True)
def uv_items_glr(s1, a1, s2, a2, e, starts, counts, means, variances, unknown, noise):
    """min over items of the max over its tests of :func:`uv_test_glr` (``inf`` with no item)."""
    return min_of_item_max(uv_tests_glr(s1, a1, s2, a2, e, counts, means, variances, unknown, noise), starts)


@njit(cache=True)
def uv_tests_glr(s1, a1, s2, a2, e, counts, means, variances, unknown, noise):
    """Per test, :func:`uv_test_glr`."""
    out = np.empty(e.shape[0])
    for j in range(e.shape[0]):
        out[j] = uv_test_glr(j, s1, a1, s2, a2, e, counts, means, variances, unknown, noise)
    return out


@njit(cache=True)
def uv_tests_margin(s1, a1, s2, a2, e, counts, means, variances, scales, unknown, sq_devs, noise, tied, precisions,
                    level, level_one, level_pair):
    """Per test, :func:`uv_test_margin`."""
    out = np.empty(e.shape[0])
    table = np.empty(max(scales.shape[0], 1))
    for j in range(e.shape[0]):
        out[j] = uv_test_margin(j, s1, a1, s2, a2, e, counts, means, variances, scales, table, unknown, sq_devs,
                                noise, tied, precisions, level, level_one, level_pair)
    return out


class GuardrailUnknownVarianceThreshold(GuardrailMixtureThreshold):
    """The ``delta-correct`` guardrail rule of a problem with a metric of unknown variance (module docstring).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        ``m`` of the union bound: K - 1 + G_max.
    fallback : Threshold
        The t-only threshold answered by ``threshold(t)``.

    Attributes
    ----------
    level : float
        ``ln(m / delta)``: the level of a known-variance test and of a one-source unknown-variance test.
    level_pair : float
        ln x with (1 + ln x) / x = delta / m: the level of a two-source unknown-variance test.
    min_statistic : float
        ``min(level - ln 2, level_pair - 2 ln 2)``: no item passes while the guardrail statistic is at most it.
    """

    name = "guardrail-invariant-mixture"

    def __init__(self, delta, n_alternatives, fallback):
        super().__init__(delta, n_alternatives, fallback)
        self.level_pair = product_level(self.delta / self.n_alternatives)
        self.min_statistic = min(self.level - _LN2, self.level_pair - 2.0 * _LN2)
        self._precisions = np.array(PRECISIONS)

    def margin(self, pieces, model) -> float:
        """min over items of the max over its tests of (evidence - the test's level); stop when > 0.

        ``model`` keeps the sums of squared deviations and the ties of the sources of unknown variance
        (:class:`~pybai.problems.guardrails.unknown.MetricMeansAndVariances`).
        """
        t = pieces.tests
        return float(uv_items_margin(t.s1, t.a1, t.s2, t.a2, t.e, t.starts, np.asarray(model.counts, dtype=float),
                                     np.asarray(model.estimate, dtype=float), pieces.variances, self._scales,
                                     model.unknown, model.sq_devs, model.noise, model.tied, self._precisions,
                                     self.level, self.level, self.level_pair))
