r"""The proven stopping rule of Gaussian arms with unknown (and unequal) variances.

The rule has the shape of the count-dependent per-piece rules of :mod:`pybai.stopping.pair_mixture`:

    stop when, for every piece {lambda_b >= lambda_a} of the alternative to the empirical answer
    (arm a ranked above arm b),   inf over the piece of  ln B+_a(lambda_a) + ln B-_b(lambda_b)  >=  ln x,

with ``m`` the number of pieces (``K - 1`` for best arm, ``k (K - k)`` for top-k) and x the root of
(m / x)(1 + ln(x / m)) = delta, that is ln x = ln m + y with (1 + y) e^(-y) = delta.  B+_a(lambda) and B-_b(lambda) are scale-invariant Bayes factors of one
arm's own samples against "mean lambda", whatever the variance, one-sided: B+ looks for a mean above
lambda, B- for a mean below.

**The per-arm Bayes factor** (the t-test mixture of Lai 1976, "On confidence sequences", Ann.
Statist. 4(2); see also Perez-Ortiz, Lardy, de Heide & Grunwald, "E-statistics, group invariance
and anytime-valid testing", Ann. Statist. 52(4), 2024, arXiv 2208.07610).  For n samples with mean xbar and MLE variance
s^2 = S/n, let D = (xbar - lambda)^2 / s^2 and q = D / (1 + D) = S_lambda^2 / (n V_lambda), where
S_lambda = sum (x_j - lambda) and V_lambda = sum (x_j - lambda)^2.  With the standardised effect
theta = (mu - lambda) / sigma given the prior N(0, 1/c) and the right-Haar prior d sigma / sigma on
sigma under both hypotheses,

    B_c(lambda) = sqrt(c / (n + c)) (1 - n q / (n + c))^(-n/2),     B_c = 1 after one sample,

and ln B_c = (n/2) ln(1 + D) - (n/2) ln(1 + c D / (n + c)) - (1/2) ln(1 + n/c): the unknown-variance
transportation cost (n/2) ln(1 + (xbar - lambda)^2 / s^2) minus a price of about (1/2) ln(n D) at the
best c.  B_i is the equal-weight mixture of B_c over the prior precisions c_j = e^(2j - 2),
j = 0..7 (:data:`PRECISIONS`, from effects of 3 standard deviations down to 0.003).

**One-sided factors** (the ones the rule uses).  With the half-normal prior 2 N(0, 1/c) on
sign * theta >= 0 instead, the integral over theta leaves 2 sqrt(c/(n+c)) e^(r^2 S_y^2 / (2(n+c)))
Phi(sign r S_y / sqrt(n+c)) inside the scale integral (S_y = S_lambda / sqrt(V_lambda), r the scale
variable), and the substitution r = s / sqrt(1 - S_y^2/(n+c)) turns that integral into an expectation
of Phi(rho R) over R of the chi law with n degrees of freedom, that is P(Z <= rho R) = P(T_n <= rho sqrt(n)):

    B+-_c(lambda) = 2 B_c(lambda) P(T_n <= sign S_y sqrt(n / (n + c - S_y^2))),

T_n Student's t with n degrees of freedom (checked against numerical integration of the definition in
the tests).  Where the data lie on the prior's side the t probability is near 1 and the factor gains
up to ln 2 on B_c: 2 ln 2 per pair, as the half-normal mixtures of known variances
(:mod:`pybai.stopping.pair_mixture`).  The rule evaluates a lower bound of the t probability
(:func:`~pybai.models._invariant.log_t_cdf_lower`, within 3e-4 nats of the exact value where the
factor matters), which keeps every statement below (a smaller statistic only stops later).

**Theorem (delta-correct for every sampling rule; pybai's, proof here).**
(i) Under N(mu, sigma^2), for every sigma, B+_i(mu) and B-_i(mu) (as B_i(mu)) are nonnegative
martingales of mean 1 in the filtration of the *maximal invariant* of the arm's samples under x -> mu + a (x - mu), a > 0
(the Bayes factor of two invariant hypotheses with the right-Haar prior on the scale: the law of
the maximal invariant does not depend on sigma, and B is the ratio of its densities; Lai 1976,
Perez-Ortiz et al. 2024; a probability mixture over the effect of such ratios, whatever the
prior, half-normal included).  By Ville's inequality U_i = sup_n B+-_i(mu_i) satisfies
P(U_i >= u) <= 1/u for every u > 0 (the rule sets the factor to 1 before an arm's second sample,
which only adds the value 1 to the supremum).
(ii) Whatever the sampling rule, the observations have the law of the "stack" model: arm i's
n-th sample is the n-th draw of an i.i.d. sequence drawn in advance for arm i, the sequences of
different arms independent.  So U_a and U_b (functions of two different sequences) are
independent, and for independent U, V with those tails
P(U V >= x) = E[P(U >= x / V | V)] <= E[min(1, V / x)] <= (1 + ln x) / x   (x >= 1).
(iii) If the rule stops with a wrong answer, the truth lies in a piece, so for the pair (a, b)
of that piece inf <= ln B+_a(mu_a) + ln B-_b(mu_b) <= ln(U_a U_b); hence ln(U_a U_b) >= ln x.  The
pair is one of those fixed by the truth: an arm a outside the true answer set T* (size k; k = 1
for best arm, the first best arm) ranked above an arm b of T*.  These pairs form the complete
bipartite graph between the K - k arms outside T* and the k arms of T*, m = k (K - k) pairs.  With
M = max over b in T* of U_b, P(M >= v) <= k / v (union bound), and given the sequences of T*, the
U_a of the arms outside are independent of M, so
P(some pair has U_a U_b >= x) <= E[min(1, (K - k) M / x)] <= integral over s in (0, 1) of
min(1, m / (x s)) ds = (m / x)(1 + ln(x / m)) = delta.  (A union bound over the m pairs would give
m (1 + ln x) / x: the level above is smaller by about ln(1 + ln(m/delta)) - ln(1 + ln(1/delta)),
0.2 to 0.3 nats at delta = 0.01.)  No variance is known or bounded; nothing depends on t.
(The sampling rule may depend on the scale of each arm's samples, which the invariant filtration
does not see; that is why the proof goes through the stack model and the product of two suprema,
at the price ln(1 + ln x), about 2 nats at delta = 0.01, instead of a product martingale.)

**The infimum** over the piece is computed with a certificate.  ln B+_a(lambda) is nonincreasing in
lambda (the mixture over theta >= 0 of e^(r theta S_y - n theta^2/2) grows with S_y, which decreases in
lambda) and ln B-_b(lambda) nondecreasing, and so are the bounds evaluated; when xbar_a > xbar_b the
infimum is on the diagonal lambda_a = lambda_b = u in [xbar_b, xbar_a], where g(u) = ln B+_a(u) +
ln B-_b(u) is the sum of a nonincreasing and a nondecreasing function: on [l, r],
g >= ln B+_a(r) + ln B-_b(l).  A
branch-and-bound on that bound either finds a point with g < ln x (no stop) or certifies
g >= ln x on the whole interval (stop); undecided after its budget of intervals, it does not stop.
When xbar_a <= xbar_b the infimum is at most ln B+_a(xbar_a) + ln B-_b(xbar_b) < 0: no stop.
The interval [xbar_b, xbar_a] suffices for step (iii) although the infimum over the whole diagonal can lie outside
it: ln U >= 0 (the suprema include the value 1) and each one-sided factor is at most sqrt(c/(n + c)) < 1 at its own
sample mean.  So if mu_a > xbar_a, ln U_b >= ln B-_b(xbar_a) >= ln x - ln B+_a(xbar_a) >= ln x; if mu_b < xbar_b,
ln U_a >= ln x likewise; otherwise some u in [xbar_b, xbar_a] has ln B+_a(mu_a) + ln B-_b(mu_b) >= g(u) >= ln x.

**Repeated rewards.**  The rule gives no evidence to an arm whose variance estimate rests on ties:
fewer than half of its rewards are distinct values while it has shown at most 64 of them
(:attr:`~pybai.models.unknown_variance.MeansAndVariances.tied`).  Every pair with such an arm
fails, as if its Bayes factors were 1 (the value before its second sample; with one factor 1 the
infimum over the piece is at most ln B+_a(xbar_a) <= 0).  Under the model this changes nothing:
two draws of a Gaussian law are equal with probability 0, so with probability 1 no arm is ever
tied and the theorem above holds word for word.  Off the model it is what keeps a variance
estimate of (nearly) 0 from reading as an exactly known mean: an arm paying 0 with probability
0.95 and 10 otherwise shows a run of zeros, sample variance 0, and Bayes factors that certified a
Gaussian arm against it after a dozen samples (``benchmarks/unknown_variance_ties.py``).  A tie is
evidence that the model does not fit; the model warns once
(:class:`~pybai.exceptions.RewardModelWarning`) and session status says which arms are tied and
which reward model fits (``"bounded"`` with a ``reward_range``).

Called with ``t`` only (e.g. LUCB's confidence level) the object answers ln x + 2 ln 8 + ln t, about
the GLR a pair needs to pass: an exploration level for sampling, not a stopping guarantee; only :meth:`UnknownVarianceThreshold.margin`
decides stopping.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from pybai._validation import check_positive_int
from pybai.exceptions import InvalidParameterError
from pybai.models._invariant import PRECISIONS, log_bayes_factor, log_bayes_factor_one_sided
from pybai.models._transport import transport_pair
from pybai.stopping.base import PairPieces, PieceThreshold

__all__ = ["UnknownVarianceThreshold", "PRECISIONS", "log_bayes_factor", "product_level", "bipartite_level"]

_MAX_INTERVALS = 4000


def product_level(delta_share: float) -> float:
    """ln x for the root x >= 1 of (1 + ln x) / x = ``delta_share`` (the per-pair risk delta / m)."""
    target = -math.log(delta_share)
    y = target  # y = ln x solves y - ln(1 + y) = target; the map is increasing for y > 0
    for _ in range(100):
        f = y - math.log1p(y) - target
        step = f / (1.0 - 1.0 / (1.0 + y))
        y -= step
        if abs(step) <= 1e-14 * max(1.0, y):
            break
    return y


def bipartite_level(delta: float, n_pairs: int) -> float:
    """ln x with (m / x)(1 + ln(x / m)) = ``delta``, m = ``n_pairs``: ln m + :func:`product_level` (delta).

    The level of m pairs forming a complete bipartite graph (true answer set against the rest; module
    docstring, step (iii)), smaller than the union bound's :func:`product_level` (delta / m).
    """
    return math.log(n_pairs) + product_level(delta)


_TWO_LN2 = 2.0 * math.log(2.0)


@njit(cache=True)
def _upper(n, xbar, sq_devs, lam, precisions):
    """ln B+ of the arm ranked above (effect above lambda): nonincreasing in lambda."""
    return log_bayes_factor_one_sided(n, xbar, sq_devs, lam, precisions, 1.0)


@njit(cache=True)
def _lower(n, xbar, sq_devs, lam, precisions):
    """ln B- of the arm ranked below (effect below lambda): nondecreasing in lambda."""
    return log_bayes_factor_one_sided(n, xbar, sq_devs, lam, precisions, -1.0)


@njit(cache=True)
def invariant_pair_margin(na, xa, sa, nb, xb, sb, level, precisions, start):
    """Certified min over u in [xb, xa] of ln B+_a(u) + ln B-_b(u), minus ``level``, decided against 0.

    B+_a is arm a's one-sided factor with the effect above u, B-_b arm b's with the effect below
    (:func:`~pybai.models._invariant.log_bayes_factor_one_sided`, signs +1 and -1).

    Returns a value > 0 only when certified (every interval's lower bound clears the level); else a
    value <= 0 (a point below the level, or the smallest lower bound when the budget ran out).
    """
    if not (xa > xb) or na < 2.0 or nb < 2.0:
        return -math.inf
    # a point near the minimiser first: usually decides "no stop" at once
    # the two-sided factors bound the one-sided ones: B+_c <= 2 B_c (cheap pre-test, no t bound)
    g0 = log_bayes_factor(na, xa, sa, start, precisions) + log_bayes_factor(nb, xb, sb, start, precisions)
    if g0 + _TWO_LN2 <= level:
        return g0 + _TWO_LN2 - level
    g0 = _upper(na, xa, sa, start, precisions) + _lower(nb, xb, sb, start, precisions)
    if g0 <= level:
        return g0 - level
    ls = np.empty(_MAX_INTERVALS)
    rs = np.empty(_MAX_INTERVALS)
    fa_r = np.empty(_MAX_INTERVALS)  # ln B_a at the right end (its minimum on the interval)
    fb_l = np.empty(_MAX_INTERVALS)  # ln B_b at the left end
    top = 0
    ls[0], rs[0] = xb, xa
    fa_r[0] = _upper(na, xa, sa, xa, precisions)
    fb_l[0] = _lower(nb, xb, sb, xb, precisions)
    top = 1
    worst = math.inf
    made = 1
    while top > 0:
        top -= 1
        l, r, far, fbl = ls[top], rs[top], fa_r[top], fb_l[top]
        bound = far + fbl
        if bound > level:
            if bound < worst:
                worst = bound
            continue
        mid = 0.5 * (l + r)
        if not (l < mid < r) or made + 2 > _MAX_INTERVALS:
            return bound - level  # cannot certify: no stop
        fa_m = _upper(na, xa, sa, mid, precisions)
        fb_m = _lower(nb, xb, sb, mid, precisions)
        if fa_m + fb_m <= level:
            return fa_m + fb_m - level
        ls[top], rs[top], fa_r[top], fb_l[top] = l, mid, fa_m, fbl
        ls[top + 1], rs[top + 1], fa_r[top + 1], fb_l[top + 1] = mid, r, far, fb_m
        top += 2
        made += 2
    return worst - level


@njit(cache=True)
def _min_margin(counts, means, sq_devs, top, bot, level, precisions, offset, tied):
    """Pieces {lambda_j >= lambda_i + offset}: arm j's samples shifted by -offset make them unshifted.

    A pair with a ``tied`` arm (its variance estimate rests on repeated rewards: no Gaussian evidence) does not pass.
    """
    worst = math.inf
    for ii in range(top.shape[0]):
        i = top[ii]
        for jj in range(bot.shape[0]):
            j = bot[jj]
            ni, nj = counts[i], counts[j]
            xj = means[j] - offset
            if ni < 2.0 or nj < 2.0 or not (means[i] > xj) or tied[i] or tied[j]:
                return -math.inf
            si = max(sq_devs[i] / ni, 1e-300)
            sj = max(sq_devs[j] / nj, 1e-300)
            start = transport_pair(ni, means[i], si, nj, xj, sj)[1]
            margin = invariant_pair_margin(ni, means[i], sq_devs[i], nj, xj, sq_devs[j], level, precisions, start)
            if margin < worst:
                worst = margin
                if worst <= 0.0:
                    return worst
    return worst


class UnknownVarianceThreshold(PieceThreshold):
    """Proven count-dependent stopping rule for Gaussian arms with unknown variances (module docstring).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound (``K - 1`` for best arm, ``k (K - k)`` for top-k).

    Attributes
    ----------
    level : float
        ln x = ln m + y with (1 + y) e^(-y) = delta (:func:`bipartite_level`).
    min_statistic : float
        ``level - 2 ln 2``: a pair whose unknown-variance GLR (or plug-in GLR, which is larger) is at
        most that fails (ln B+-_c <= ln 2 + ln B_c <= ln 2 + (n/2) ln(1 + D) for every c).
    """

    name = "invariant-t-mixture"
    proven = True

    def __init__(self, delta: float, n_alternatives: int):
        super().__init__(delta)
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", type(self).__name__)
        self.level = bipartite_level(self.delta, self.n_alternatives)
        self.min_statistic = self.level - _TWO_LN2
        self._precisions = np.array(PRECISIONS)

    def __call__(self, t: float) -> float:
        """An exploration level for callers that know only ``t`` (LUCB's bounds), not a guarantee.

        ``level + 2 ln J + ln t``: about what a pair's GLR must reach for the rule to stop (the level,
        the mixture weights 1/J of both arms, and the (1/2) ln n price of each arm's mixture).
        """
        return self.level + 2.0 * math.log(len(PRECISIONS)) + math.log(max(t, 1.0))

    def values(self, t: Any) -> np.ndarray:
        t = np.maximum(np.asarray(t, dtype=float), 1.0)
        return self.level + 2.0 * math.log(len(PRECISIONS)) + np.log(t)

    def margin(self, pieces: PairPieces, model) -> float:
        """Smallest certified margin over the pairs (i in ``top``, j in ``bottom``); stop when > 0.

        ``model`` is a :class:`~pybai.models.unknown_variance.MeansAndVariances` (counts, means and
        sums of squared deviations; the rule needs no variance).  A pair with an arm the model marks
        ``tied`` (its variance rests on repeated rewards) does not pass (module docstring, "Repeated
        rewards").  A shift (1, e): the pieces {lambda_j >= lambda_i + e} (additive epsilon: the Bayes
        factor of arm j at lambda is that of its samples shifted by -e at lambda - e); the slope must be 1
        (a relative epsilon is not available for unknown variances).
        """
        slope, offset = pieces.shift
        if slope != 1.0:
            raise InvalidParameterError("a relative epsilon is not available under reward_model "
                                        "'gaussian-unknown-variance' (use epsilon_mode = \"additive\").")
        tied = getattr(model, "tied", None)
        if tied is None:
            tied = np.zeros(model.counts.shape[0], dtype=np.bool_)
        return float(_min_margin(model.counts, model.estimate, model.sq_devs, np.asarray(pieces.top, dtype=np.int64),
                                 np.asarray(pieces.bottom, dtype=np.int64), self.level, self._precisions,
                                 float(offset), tied))

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives}
