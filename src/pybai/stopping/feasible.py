r"""Count-dependent ``delta-correct`` stopping rule of the best-feasible-arm problem (BAICS).

Normal-mixture martingales per cell, multiplied over the cells of each piece of the alternative
and read at the learner's counts ("effective counts" rule).  Notation of
:mod:`pybai.models._feasible_pieces`: K arms, L subpopulations, cells (k, l) with known variance
(or sub-Gaussian variance proxy) :math:`\sigma^2_{kl}`, importance weights q > 0, floors
:math:`f_l` on the constrained subpopulations M.

**Pieces of the alternative.**  For the empirical answer :math:`\hat a` the GLR code splits
:math:`\mathrm{Alt}(\hat a)` into closed pieces P, each constraining a set S(P) of cells:

* :math:`\hat a \ge 0`: the *feasibility* pieces :math:`\{\lambda_{\hat a l} \le f_l\}`,
  l in M (S = one cell), and the *challenger* pieces
  :math:`\{q\cdot\lambda_b \ge q\cdot\lambda_{\hat a},\ \lambda_{bl} \ge f_l\ (l \in M)\}`,
  b != a_hat (S = rows a_hat and b, 2L cells);
* :math:`\hat a = -1` (no arm looks feasible): the pieces :math:`\{\lambda_k \text{ feasible}\}`,
  one per arm k (S = the |M| constrained cells of row k).

The GLR statistic is the minimum over the pieces of
:math:`v_P(N) = \inf_{\lambda\in P}\sum_{s\in S(P)} N_s (\hat\mu_s-\lambda_s)^2/(2\sigma_s^2)`, which
:func:`~pybai.problems.feasible._qp.alt_value` computes exactly for any nonnegative weights.

**Mixtures.**  For a cell s and a prior scale c > 0, the normal mixture (prior
:math:`\mathcal N(0, \sigma_s^2/c)` on :math:`\theta - \lambda`) of the likelihood ratios of the
cell's N_s samples against mean :math:`\lambda` is (Robbins 1970; Kaufmann & Koolen 2021, sec. 3)

    ln M_s,c(lambda) = N'_s (mu_hat_s - lambda)^2 / (2 sigma_s^2) - (1/2) ln(1 + N_s / c),
    N'_s = N_s^2 / (N_s + c)   (the *effective count*),

a martingale of mean 1 in the cell's own samples when lambda is its mean (for rewards in [0, 1] with
the variance proxy 1/4, a supermartingale of mean <= 1: each integrand exp(eta (S - N lambda) /
sigma^2 - N eta^2 / (2 sigma^2)) is one by Hoeffding's lemma).  The half-normal mixture (prior
density 2 N(0, sigma^2/c) restricted to theta >= lambda) is, with y = mu_hat - lambda and
k = N / (sigma sqrt(N + c)),

    ln M+_s,c(lambda) = N'_s y^2 / (2 sigma_s^2) + ln(2 Phi(k y)) - (1/2) ln(1 + N_s / c).

For a piece P and a scale c the product :math:`\prod_{s\in S(P)} M_{s,c}(\lambda_s)` read at the
learner's counts is a nonnegative (super)martingale of mean <= 1 for *any* sampling rule: a factor
changes only when its cell is observed, by a ratio of conditional mean <= 1 given the past and the
(predictable, or drawn independently of the reward as in the ``"arm"`` model) choice of the cell.
The equal-weight average over the scales c_j = e^(2j), j = 0..7, is one too.

**Per-piece value.**  For a fixed c, the regret term does not depend on lambda, so

    inf_{lambda in P} ln prod_{s in S(P)} M_s,c(lambda_s) = v_P(N'(c)) - R_P(c),
    R_P(c) = (1/2) sum_{s in S(P)} ln(1 + N_s / c)                                    (exact),

since the piece value with weights N' is the infimum of the quadratic part.  For a feasibility
piece (one cell, :math:`\hat\mu \ge f` because a_hat looks feasible) the half-normal mixture is used:
on the piece y >= mu_hat - f >= 0, where both y^2 and ln(2 Phi(k y)) increase, so the infimum is
its value at lambda = f.  The average over the scales is bounded below by the average of the
per-scale infima, so the rule

    stop when, for every piece P of Alt(a_hat),
        V_P = ln( (1/J) sum_j exp( v_P(N'(c_j)) [+ ln(2 Phi(k_j y))] - R_P(c_j) ) ) > ln(m / delta)

implies :math:`\ln\bar M_P(\lambda) > \ln(m/\delta)` for every lambda in every piece.

**Theorem (delta-correct, any sampling rule), m = K (K - 1 without constraints).**  Let a* be the
answer of the truth mu.  If the rule stops with a wrong answer h != a*, mu lies in a *canonical*
piece P(mu, h) of Alt(h), chosen from mu and h only:

* h >= 0 infeasible under mu: the feasibility piece of the first constrained l with
  mu[h, l] < f_l;
* h >= 0 feasible under mu: then a* >= 0 is feasible with q.mu_a* >= q.mu_h, and the challenger
  piece b = a* contains mu;
* h = -1: a* >= 0 is feasible, and the piece {lambda_a* feasible} contains mu.

At that time :math:`\bar M_{P(\mu,h)}(\mu) \ge m/\delta`.  The wrong-stop event is therefore
contained in the union over the possible wrong answers h of the events "the fixed martingale
:math:`\bar M_{P(\mu,h)}(\mu)` ever reaches m/delta", each of probability <= delta/m by Ville's
inequality.  There are K possible wrong answers (the K + 1 answers {-1, 0, ..., K-1} minus a*;
-1 is never the answer nor a wrong one when no subpopulation is constrained, so K - 1 then), hence
m = K and the error probability is at most delta.  (The t-only threshold's union bound over
K |M| + K pieces, :attr:`FeasibleArmProblem.n_alternatives`, counts more pieces than needed.)

**Cheap filter.**  N' <= N cellwise, piece values are nondecreasing in the weights, R_P >= 0,
ln(2 Phi) <= ln 2 and a log-mean-exp is at most its largest term, so V_P <= v_P(N) + ln 2
(two-sided pieces: <= v_P(N)).  No piece of the minimising one can pass while the GLR statistic is
at most ln(m/delta) - ln 2 (:attr:`FeasibleMixtureThreshold.min_statistic`), and the rule is only
evaluated above it.

References: H. Robbins, Statistical methods related to the law of the iterated logarithm, Ann.
Math. Statist. 41(5), 1970; E. Kaufmann and W. M. Koolen, Mixture martingales revisited, JMLR
22(246), 2021, section 3; J. Ville, Etude critique de la notion de collectif, 1939.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pybai._validation import check_positive_int, fail
from pybai.models._feasible_pieces import answer_kernel, challenger_piece
from pybai.stopping.base import PieceThreshold, Threshold

__all__ = ["FeasibleMixtureThreshold", "FeasiblePieces", "feasible_piece_values", "FEASIBLE_SCALES"]


class FeasiblePieces(NamedTuple):
    """What the pieces of Alt(a_hat) of the best-feasible-arm problem are made of (module docstring).

    ``counts`` and ``means`` are (K, L) matrices of the cells, ``weights`` the importance weights q,
    ``floors`` the floors f_l, ``cmask`` the constrained subpopulations (all (L,)), ``variances`` the
    cells' variances (K, L).
    """

    counts: np.ndarray
    means: np.ndarray
    weights: np.ndarray
    floors: np.ndarray
    cmask: np.ndarray
    variances: np.ndarray

#: Prior scales c_j = e^(2j), j = 0..7 (prior variance sigma^2 / c_j), equal weights: from one
#: sample to e^14 ~ 1.2e6 samples per cell.
FEASIBLE_SCALES = tuple(math.exp(2.0 * j) for j in range(8))

_SQRT2 = math.sqrt(2.0)


@njit(cache=True)
def _log_mean_exp(v, n):
    top = -math.inf
    for j in range(n):
        if v[j] > top:
            top = v[j]
    if top == -math.inf:
        return top
    acc = 0.0
    for j in range(n):
        acc += math.exp(v[j] - top)
    return top + math.log(acc / n)


@njit(cache=True)
def feasible_piece_values(counts, mu, q, floors, cmask, s2, scales, one_sided, out):
    """V_P for every piece of Alt(a_hat) (module docstring), written to ``out``; returns a_hat.

    ``out`` has length L + K: for a_hat >= 0, entries l < L are the feasibility pieces
    (+inf for unconstrained l) and entries L + b the challenger pieces (+inf at b = a_hat);
    for a_hat = -1, entries L + k are the pieces {lambda_k feasible} and entries l < L are +inf.
    """
    K = mu.shape[0]
    L = mu.shape[1]
    J = scales.shape[0]
    a = answer_kernel(mu, q, floors, cmask)
    eff = np.empty((K, L))
    reg = np.empty((K, L))
    table = np.full((L + K, J), math.inf)
    brk = np.empty(L)
    state = np.empty(L, dtype=np.int64)
    grad = np.empty(0)
    hess = np.empty((0, 0))
    for j in range(J):
        c = scales[j]
        for k in range(K):
            for l in range(L):
                n = counts[k, l]
                eff[k, l] = n * n / (n + c)
                reg[k, l] = 0.5 * math.log1p(n / c)
        if a >= 0:
            row_a = 0.0
            for l in range(L):
                row_a += reg[a, l]
            for l in range(L):
                if not cmask[l]:
                    continue
                y = mu[a, l] - floors[l]  # >= 0: a_hat looks feasible
                v = eff[a, l] * y * y / (2.0 * s2[a, l]) - reg[a, l]
                if one_sided:
                    n = counts[a, l]
                    kk = n / math.sqrt(s2[a, l] * (n + c))
                    v += math.log1p(math.erf(kk * y / _SQRT2))  # ln(2 Phi(k y)), in [0, ln 2]
                table[l, j] = v
            for b in range(K):
                if b == a:
                    continue
                row_b = 0.0
                for l in range(L):
                    row_b += reg[b, l]
                v = challenger_piece(mu, s2, q, floors, cmask, a, b, eff, grad, hess, 0, brk, state)
                table[L + b, j] = v - row_a - row_b
        else:
            for k in range(K):
                v = 0.0
                r = 0.0
                for l in range(L):
                    if cmask[l]:
                        r += reg[k, l]
                        if mu[k, l] < floors[l]:
                            dl = floors[l] - mu[k, l]
                            v += eff[k, l] * dl * dl / (2.0 * s2[k, l])
                table[L + k, j] = v - r
    for p in range(L + K):
        if table[p, 0] == math.inf:
            out[p] = math.inf
        else:
            out[p] = _log_mean_exp(table[p], J)
    return a


@njit(cache=True)
def feasible_min_margin(counts, mu, q, floors, cmask, s2, scales, one_sided, level):
    """min over the pieces of V_P, minus ``level``; the rule stops when it is > 0."""
    out = np.empty(mu.shape[0] + mu.shape[1])
    feasible_piece_values(counts, mu, q, floors, cmask, s2, scales, one_sided, out)
    best = math.inf
    for p in range(out.shape[0]):
        if out[p] < best:
            best = out[p]
    return best - level


class FeasibleMixtureThreshold(PieceThreshold):
    """The ``delta-correct`` rule of :class:`~pybai.problems.feasible.problem.FeasibleArmProblem`.

    Stop when every piece of the alternative to the empirical answer passes its normal-mixture
    test with the effective counts (the proof is in :mod:`pybai.stopping.feasible`).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        ``m`` of the union bound: the number of possible wrong answers (K, or K - 1 without
        constrained subpopulations).
    fallback : Threshold
        The t-only proven threshold answered by ``threshold(t)`` (for callers that know only t,
        and for reports); never combined with the rule.
    one_sided : bool, default True
        Half-normal mixtures on the single-cell feasibility pieces (tighter by up to ln 2).
    scales : sequence of float, optional
        Prior scales (equal weights); default :data:`FEASIBLE_SCALES`.

    Attributes
    ----------
    level : float
        ``ln(m / delta)``.
    min_statistic : float
        No piece can pass while the GLR statistic is at most this value.
    """

    name = "feasible-mixture"
    proven = True

    def __init__(self, delta: float, n_alternatives: int, fallback: Threshold, one_sided: bool = True,
                 scales=None):
        super().__init__(delta)
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", type(self).__name__)
        self.fallback = fallback
        self.one_sided = bool(one_sided)
        values = FEASIBLE_SCALES if scales is None else tuple(float(c) for c in scales)
        if not values or not all(math.isfinite(c) and c > 0.0 for c in values):
            raise fail("scales", type(self).__name__, "a non-empty sequence of positive numbers", scales)
        self._scale_arg = None if scales is None else values
        self._scales = np.array(values, dtype=float)
        self.level = math.log(self.n_alternatives / self.delta)
        self.min_statistic = self.level - (math.log(2.0) if self.one_sided else 0.0)

    def __call__(self, t: float) -> float:
        """The t-only proven threshold ``fallback(t)``."""
        return self.fallback(t)

    def values(self, t: Any) -> np.ndarray:
        return self.fallback.values(t)

    def margin(self, pieces: FeasiblePieces, model) -> float:
        """:meth:`min_margin` on the problem's cells."""
        return self.min_margin(pieces.counts, pieces.means, pieces.weights, pieces.floors, pieces.cmask,
                               pieces.variances)

    def min_margin(self, counts, means, weights, floors, cmask, variances) -> float:
        """Smallest V_P - ln(m/delta) over the pieces of Alt(a_hat); stop when > 0.

        All arrays are (K, L) except ``weights``, ``floors`` and ``cmask`` (L,).
        """
        return float(feasible_min_margin(np.asarray(counts, dtype=float), np.asarray(means, dtype=float),
                                         weights, floors, cmask, variances, self._scales, self.one_sided,
                                         self.level))

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "one_sided": self.one_sided,
                "scales": self._scale_arg}
