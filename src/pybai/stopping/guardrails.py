r"""The ``delta-correct`` stopping rule of guardrail problems: single-metric mixture tests.

The alternative to the empirical answer is described by half-space *tests* grouped in *items*
(:mod:`pybai.problems.guardrails.pieces`): a test is a set
:math:`H = \{\lambda : a_1\lambda_{s_1} + a_2\lambda_{s_2} \ge e\}` over one source, or over two
sources of the same metric in two different arms; an item passes when one of its tests passes.

**A test's evidence.**  For a source s (an arm's metric) with known variance, or sub-Gaussian
variance proxy, :math:`\sigma_s^2`, and a prior scale c > 0, the normal mixture of the likelihood
ratios of its N_s rewards against mean :math:`\lambda_s` is (Robbins 1970; Kaufmann & Koolen
2021, section 3)

    ln M_s,c(lambda_s) = N'_s (mu_hat_s - lambda_s)^2 / (2 sigma_s^2) - (1/2) ln(1 + N_s / c),
    N'_s = N_s^2 / (N_s + c),

a nonnegative martingale (supermartingale for sub-Gaussian rewards) of mean <= 1 in the source's
own rewards at its true mean.  For a test H over sources S, the product over S at one scale is
one too, *whatever the other metrics of the same observations do*: a factor changes only when
its arm is observed, by a ratio whose conditional mean given the past is <= 1 (the law of one
metric's reward given the past is its marginal; the two sources of a test belong to different
arms, observed at different times).  No independence between metrics is used.  The average over
the scales c_j = e^(2j), j = 0..7, is one as well.  Its smallest value over H is, exactly,

    V_H = ln( (1/J) sum_j exp( g_+^2 / (2 sum_{s in S} sigma_s^2 / N'_s(c_j)) - R_S(c_j) ) ) (lower bound),
    g = e - (a_1 mu_hat_1 + a_2 mu_hat_2),   R_S(c) = (1/2) sum_{s in S} ln(1 + N_s / c),

since the quadratic part's infimum over the half-space is g_+^2 / (2 sum sigma^2 / N') and the mean
over scales of the infima is at most the infimum of the mean.  So V_H > ln(m / delta) implies that
the averaged mixture exceeds m / delta at every lambda in H.

**The rule.**  Stop when every item has a test with V_H > ln(m / delta), m = K - 1 + G_max (K arms,
G_max the largest number of guardrails binding one arm).  The theorem and its proof are in
docs/guardrails.md: every wrong stop makes one of at most m fixed martingales (chosen from the
truth) cross m / delta, each with probability <= delta / m (Ville's inequality).

**Cheap filter.**  N' <= N, R >= 0 and a log-mean-exp is at most its largest term, so V_H <= v_H(N)
= g_+^2 / (2 sum sigma^2 / N): no item passes while the guardrail statistic (min over items of the
max over its tests of v_H(N)) is at most ln(m / delta).

References: H. Robbins, Statistical methods related to the law of the iterated logarithm, Ann.
Math. Statist. 41(5), 1970; E. Kaufmann and W. M. Koolen, Mixture martingales revisited, JMLR
22(246), 2021; J. Ville, Etude critique de la notion de collectif, 1939.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from numba import njit

from pybai._validation import check_positive_int, fail
from pybai.stopping.base import PieceThreshold, Threshold

__all__ = ["GuardrailMixtureThreshold", "GuardrailPieces", "halfspace_values", "min_over_items", "items_value",
           "one_test_value", "tests_values", "GUARDRAIL_SCALES"]

#: Prior scales c_j = e^(2j), j = 0..7, equal weights (as the best-feasible-arm rule's).
GUARDRAIL_SCALES = tuple(math.exp(2.0 * j) for j in range(8))


def halfspace_values(tests: Any, counts: np.ndarray, means: np.ndarray, variances: np.ndarray,
                     scales: np.ndarray | None = None) -> np.ndarray:
    """Per test, v_H(N) (``scales`` None) or the mixture evidence V_H (module docstring).

    ``tests`` has the arrays ``s1, a1, s2, a2, e`` of :class:`pybai.problems.guardrails.pieces.Tests`;
    ``counts``, ``means``, ``variances`` are per source (flat).  A source with no sample gives 0.
    """
    two = tests.s2 >= 0
    s2 = np.where(two, tests.s2, 0)
    n1, n2 = counts[tests.s1], np.where(two, counts[s2], np.inf)
    gap = tests.e - (tests.a1 * means[tests.s1] + np.where(two, tests.a2 * means[s2], 0.0))
    gap2 = np.square(np.maximum(gap, 0.0))
    v1, v2 = variances[tests.s1], variances[s2]
    with np.errstate(divide="ignore", invalid="ignore"):
        if scales is None:
            denom = v1 / n1 + np.where(two, v2 / n2, 0.0)
            out = np.where(gap2 > 0, gap2 / (2.0 * denom), 0.0)
            return np.where(np.isfinite(out), out, 0.0)
        c = scales[:, None]
        eff1 = n1 * n1 / (n1 + c)
        eff2 = np.where(two, n2 * n2 / (n2 + c), np.inf)
        denom = v1 / eff1 + np.where(two, v2 / eff2, 0.0)
        reg = 0.5 * (np.log1p(n1 / c) + np.where(two, np.log1p(np.where(two, n2, 0.0) / c), 0.0))
        quad = np.where(gap2 > 0, gap2 / (2.0 * denom), 0.0)
        quad = np.where(np.isfinite(quad), quad, 0.0)
        table = quad - reg  # (J, n_tests)
    top = table.max(axis=0)
    return top + np.log(np.mean(np.exp(table - top), axis=0))


@njit(cache=True)
def one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, scales, table):
    """v_H(N) (``scales`` empty) or the mixture evidence V_H of test j (``table``: scratch of len(scales))."""
    J = scales.shape[0]
    p, q = s1[j], s2[j]
    gap = e[j] - a1[j] * means[p]
    if q >= 0:
        gap -= a2[j] * means[q]
    g2 = gap * gap if gap > 0.0 else 0.0
    n1 = counts[p]
    n2 = counts[q] if q >= 0 else 0.0
    if J == 0:
        denom = variances[p] / n1 + (variances[q] / n2 if q >= 0 else 0.0)
        val = g2 / (2.0 * denom) if g2 > 0.0 else 0.0
        if not math.isfinite(val):
            val = 0.0
        return val
    top = -math.inf
    for c in range(J):
        sc = scales[c]
        denom = variances[p] * (n1 + sc) / (n1 * n1)
        reg = 0.5 * math.log1p(n1 / sc)
        if q >= 0:
            denom += variances[q] * (n2 + sc) / (n2 * n2)
            reg += 0.5 * math.log1p(n2 / sc)
        quad = g2 / (2.0 * denom) if g2 > 0.0 else 0.0
        if not math.isfinite(quad):
            quad = 0.0
        table[c] = quad - reg
        if table[c] > top:
            top = table[c]
    acc = 0.0
    for c in range(J):
        acc += math.exp(table[c] - top)
    return top + math.log(acc / J)


@njit(cache=True)
def items_value(s1, a1, s2, a2, e, starts, counts, means, variances, scales):
    """min over items of the max over its tests of v_H(N) (``scales`` empty) or V_H: the compiled form
    of ``min_over_items(halfspace_values(...), starts)`` (``inf`` with no item)."""
    n_tests = e.shape[0]
    n_items = starts.shape[0]
    worst = math.inf
    table = np.empty(max(scales.shape[0], 1))
    for i in range(n_items):
        lo = starts[i]
        hi = starts[i + 1] if i + 1 < n_items else n_tests
        best = -math.inf
        for j in range(lo, hi):
            val = one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, scales, table)
            if val > best:
                best = val
        if best < worst:
            worst = best
    return worst


@njit(cache=True)
def tests_values(s1, a1, s2, a2, e, counts, means, variances, scales):
    """Per test, v_H(N) (``scales`` empty) or V_H, with the arithmetic of :func:`items_value`."""
    out = np.empty(e.shape[0])
    table = np.empty(max(scales.shape[0], 1))
    for j in range(e.shape[0]):
        out[j] = one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, scales, table)
    return out


def min_over_items(values: np.ndarray, starts: np.ndarray) -> float:
    """min over items of the max of its tests' values (``inf`` with no item)."""
    if starts.shape[0] == 0:
        return math.inf
    return float(np.maximum.reduceat(values, starts).min())


class GuardrailPieces(NamedTuple):
    """What the rule tests: the half-space tests of the alternative to the empirical answer, grouped in
    items (:class:`pybai.problems.guardrails.pieces.Tests`), and the variance of every source."""

    tests: Any
    variances: np.ndarray


class GuardrailMixtureThreshold(PieceThreshold):
    """The ``delta-correct`` rule of :class:`~pybai.problems.guardrails.problem.GuardrailProblem`.

    Stop when every item of the alternative to the empirical answer has a single-metric test
    whose mixture evidence exceeds ``ln(m / delta)`` (module docstring; docs/guardrails.md).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        ``m`` of the union bound: K - 1 + G_max.
    fallback : Threshold
        The t-only threshold answered by ``threshold(t)`` (for callers that know only t).

    Attributes
    ----------
    count_dependent : bool
        True: it decides (:meth:`PieceThreshold.decide <pybai.stopping.base.PieceThreshold.decide>`) with
        :meth:`margin` over the problem's pieces (the tests of the alternative to the empirical answer).
    level, min_statistic : float
        ``ln(m / delta)``: no item passes while the guardrail statistic is at most it.
    """

    name = "guardrail-mixture"
    proven = True
    count_dependent = True

    def __init__(self, delta: float, n_alternatives: int, fallback: Threshold):
        super().__init__(delta)
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", type(self).__name__)
        if not isinstance(fallback, Threshold):
            raise fail("fallback", type(self).__name__, "a Threshold", fallback)
        self.fallback = fallback
        self._scales = np.array(GUARDRAIL_SCALES)
        self.level = math.log(self.n_alternatives / self.delta)
        self.min_statistic = self.level

    def __call__(self, t: float) -> float:
        """The t-only threshold ``fallback(t)``."""
        return self.fallback(t)

    def values(self, t: Any) -> np.ndarray:
        return self.fallback.values(t)

    def margin(self, pieces: "GuardrailPieces", model: Any) -> float:
        """min over items of the max over its tests of V_H, minus ``ln(m / delta)``; stop when > 0."""
        tests = pieces.tests
        return items_value(tests.s1, tests.a1, tests.s2, tests.a2, tests.e, tests.starts,
                           np.asarray(model.counts, dtype=float), np.asarray(model.estimate, dtype=float),
                           pieces.variances, self._scales) - self.level

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives}
