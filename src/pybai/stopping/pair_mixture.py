r"""Count-dependent stopping rules from per-piece products of mixture martingales.

The GLR statistic of best-arm and top-k identification is a minimum over pieces of the
alternative, and each piece involves two arms only: for an empirical answer that ranks arm
``a`` above arm ``b`` the piece is :math:`\{\lambda: \lambda_b \ge \lambda_a\}`.  The thresholds
of :mod:`pybai.stopping.kk21` and :mod:`pybai.stopping.kt` bound the deviation of a piece by a function of the total
count ``t``; here each piece gets its own test that reads the two arms' counts (and, for
Bernoulli arms, their sums), so it pays for time uniformity only through the counts of its own
two arms.  The rule:

    stop when, for every piece P of the alternative to the empirical answer,
    inf over lambda in P of ln( M_a(lambda_a) M_b(lambda_b) ) >= ln(m / delta),

where ``m`` is the number of pieces (``K - 1`` for best-arm identification, ``k (K - k)`` for
top-k) and :math:`M_i(\lambda_i)` is a mixture of the likelihood ratios of arm ``i``'s samples
against mean :math:`\lambda_i`.

Theorem (delta-correctness, any sampling rule).  Let the truth :math:`\mu` have a unique answer.
If the rule stops with a wrong answer, some piece ``P`` of the alternative to that answer contains
:math:`\mu`, with ``a`` the arm that the answer ranks above arm ``b`` while :math:`\mu_b > \mu_a`.
Then the infimum over ``P`` is at most its value at :math:`\mu`, so
:math:`M_a(\mu_a) M_b(\mu_b) \ge m/\delta` at that time.  For each of the ``m`` ordered pairs
``(a, b)`` with :math:`\mu_b > \mu_a` and ``b`` in the true answer set, ``a`` outside it (``K - 1``
pairs ``(a, a*)`` for best-arm identification, ``k (K - k)`` for top-k), the product
:math:`M_a(\mu_a) M_b(\mu_b)` is a nonnegative (super)martingale of mean at most 1 for *any*
sampling rule.  Each factor changes only when its arm is sampled, by a factor of conditional mean
at most 1 given the past and the predictable choice.  By Ville's maximal inequality it ever exceeds
``m/delta`` with probability at most ``delta/m``, and a union bound over the ``m`` pairs gives
``delta``.  Nothing else is used: the infimum is computed exactly (a certified lower bound,
:mod:`pybai.stopping._pair_mixture_kernels`), not bounded by a function of ``t``.

Which mixtures.

* **Bernoulli** (:class:`BernoulliPairKTThreshold`): the Krichevsky--Trofimov mixture (prior
  Beta(1/2, 1/2)), :math:`M_i(\lambda) = q_{KT}(s_i, N_i) / (\lambda^{s_i}(1-\lambda)^{N_i-s_i})`.
  Since :math:`\ln M_i(\lambda) = N_i\,\mathrm{kl}(\hat\mu_i, \lambda) - r(s_i, N_i)` with the exact
  KT regret ``r`` (:func:`~pybai.stopping._pair_mixture_kernels.kt_regret`, at most
  :math:`\ln 2 + \frac12 \ln N_i`, about :math:`\frac12\ln(\pi N_i/2)` for :math:`\hat\mu_i` away
  from 0 and 1), the infimum over the piece is the GLR of the pair minus both regrets, and the rule is

      GLR_{a,b} > ln(m/delta) + r(s_a, N_a) + r(s_b, N_b)   for every pair.

  The t-only threshold :math:`\ln(2t(K-1)/\delta)` of Garivier & Kaufmann (2016, Prop. 12) follows
  from it by :math:`r \le \ln 2 + \frac12 \ln N` and AM--GM (:mod:`pybai.stopping.kt`), so this rule
  stops no later, pathwise.  Rewards in [0, 1] that are not {0, 1}-valued keep the supermartingale
  property (the likelihood-ratio factor is convex in the reward).
* **Gaussian**, known variances (:class:`GaussianPairMixtureThreshold`): for arm ``a`` (ranked
  above) the half-normal mixture over :math:`\eta = \theta - \lambda_a \ge 0` with prior density
  :math:`2\,\mathcal N(0, \sigma_a^2/c)` restricted to :math:`\eta \ge 0`; for arm ``b`` the same
  over :math:`\eta \le 0`.  In closed form, with :math:`y_a = \hat\mu_a - \lambda_a`,

      ln M_a,c(lambda_a) = A_a y_a^2 + ln Phi(k_a y_a) + ln 2 - (1/2) ln(1 + N_a/c),
      A_a = N_a^2 / (2 sigma_a^2 (N_a + c)),   k_a = N_a / (sigma_a sqrt(N_a + c)),

  and symmetrically for ``b`` with :math:`y_b = \lambda_b - \hat\mu_b`.  (A half-normal prior is a
  probability measure, so each mixture is a mean-1 martingale under the mean :math:`\lambda`; on a
  wrong stop ``a`` is the arm whose true mean is lower, so the half-line priors point the right way.)
  Both log-mixtures are monotone in their argument (``ln M_a,c`` is nonincreasing in
  :math:`\lambda_a` because :math:`q(y) = Ay^2 + \ln\Phi(ky)` has
  :math:`q'(y) \ge |y|(k^2 - 2A) = 0` for ``y < 0`` by the Mills-ratio bound), so the infimum over
  the piece is attained on the diagonal :math:`\lambda_a = \lambda_b = x` and is a one-dimensional
  *convex* problem (:math:`q'' = 2A + k^2 (\ln\Phi)'' > 0`).  No prior scale has to be guessed:
  the rule uses the equal-weight mixture over the scales :math:`c_j = e^{2j}`, ``j = 0..7`` (one
  common scale for both arms of the piece, so the product over the scales is still a probability
  mixture of martingales), and bounds its logarithm from below by its largest term minus
  :math:`\ln J`:

      stop when, for every pair, max_j [ inf_x (q_a,j(mu_a - x) + q_b,j(x - mu_b)) + 2 ln 2
                                         - (1/2) ln(1 + N_a/c_j) - (1/2) ln(1 + N_b/c_j) ]
                                 > ln(m/delta) + ln J.

  With ``one_sided=False`` the two-sided normal mixtures are used instead (no ``Phi`` term, no
  ``2 ln 2``); the infimum is then the closed form GLR of the pair with effective counts
  :math:`N_i^2/(N_i + c)`.  This is the normal-mixture bound of Robbins (1970) (see also
  Kaufmann & Koolen 2021, Section 3), taken over a grid of scales.

Every object also answers ``threshold(t)``, a proven threshold that depends on ``t`` only (the
family's one of :mod:`pybai.stopping.kk21` or :mod:`pybai.stopping.kt`, at the same ``delta``), for
callers that know only ``t`` (e.g. LUCB's confidence level).  On a problem that gives its pieces
(:meth:`pybai.problems.base.Problem.pieces`) the rule decides with :meth:`PairMixtureThreshold.min_margin`
instead; the two are alternative rules, never combined by a minimum.

References
----------
.. [GK16] A. Garivier and E. Kaufmann. Optimal best arm identification with fixed confidence.
   COLT 2016.
.. [KK21] E. Kaufmann and W. M. Koolen. Mixture martingales revisited with applications to
   sequential tests and confidence intervals. JMLR 22(246), 2021.
.. [R70] H. Robbins. Statistical methods related to the law of the iterated logarithm. Ann.
   Math. Statist. 41(5), 1970.
.. [KT81] R. Krichevsky and V. Trofimov. The performance of universal encoding. IEEE Trans.
   Inform. Theory 27(2), 1981.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, fail
from pybai.stopping._pair_mixture_kernels import min_pair_margin
from pybai.stopping.base import PairPieces, PieceThreshold, Threshold
from pybai.stopping.compiled import PairForm
from pybai.stopping.kk21 import GaussianThreshold
from pybai.stopping.kt import BernoulliKTThreshold

__all__ = ["PairMixtureThreshold", "GaussianPairMixtureThreshold", "BernoulliPairMixtureThreshold",
           "BernoulliPairKTThreshold", "DEFAULT_SCALES"]

#: Prior scales c_j = e^(2j), j = 0..7 (prior variance sigma^2 / c_j): from 1 sample to
#: e^14 ~ 1.2e6 samples, the default ``max_samples``; adjacent scales differ by a factor e^2.
DEFAULT_SCALES = tuple(math.exp(2.0 * j) for j in range(8))


class PairMixtureThreshold(PieceThreshold):
    """Base of the count-dependent per-piece rules: union bound over ``n_alternatives`` pairs.

    Each pair's test is a mixture, with weights fixed in advance, of a Beta-prior martingale
    (weight ``_w_beta``, Bernoulli only) and normal-mixture martingales at the scales ``_scales``
    (the rest of the weight, equally).

    Attributes
    ----------
    level : float
        ``ln(n_alternatives / delta)``.
    min_statistic : float
        No pair whose GLR is at most this value can pass (a cheap filter).
    fallback : Threshold
        The t-only proven threshold answered by ``threshold(t)``.
    """

    proven = True
    _code = 0
    _one_sided = False
    _alpha = 0.5
    _w_beta = 0.0
    _gvar = 0.25

    def __init__(self, delta: float, n_alternatives: int):
        super().__init__(delta)
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", type(self).__name__)
        self.level = math.log(self.n_alternatives / self.delta)
        self._scales = np.array(self._scale_values(), dtype=float)
        self.fallback = self._make_fallback()
        bonus = 2.0 * math.log(2.0) if (self._one_sided and self._scales.size) else 0.0
        #: A pair whose GLR is <= this value fails its test: every term of the mixture is at most the
        #: pair's GLR (the Beta regrets are >= 0, the sub-Gaussian GLR is at most the Bernoulli one by
        #: Pinsker's inequality) plus ln 2 per arm for one-sided priors, and the weights are <= 1.
        self.min_statistic = self.level - bonus

    def _scale_values(self):
        return ()

    def _make_fallback(self) -> Threshold:
        raise NotImplementedError

    def __call__(self, t: float) -> float:
        """The t-only proven threshold ``fallback(t)`` (for callers that know only ``t``)."""
        return self.fallback(t)

    def values(self, t: Any) -> np.ndarray:
        return self.fallback.values(t)

    def margin(self, pieces: PairPieces, model) -> float:
        """:meth:`min_margin` over the problem's pieces, on the model's counts and estimate."""
        return self.min_margin(model.counts, model.estimate, pieces.variances, pieces.top, pieces.bottom, pieces.shift)

    def min_margin(self, counts, means, variances, top, bottom, shift=(1.0, 0.0)) -> float:
        """Smallest margin over the pairs (i in ``top``, j in ``bottom``); stop when > 0.

        The margin of pair (i, j) is a certified lower bound on the infimum over the piece
        {lambda_i <= c lambda_j - e} of ln M_ij, minus ``level``, with ``shift`` = (c, e) ((1, 0): the
        plain piece {lambda_j >= lambda_i}; another shift: an answer tolerance, docs/thresholds.md);
        ``-inf`` when i does not look better than j or one arm has no sample.  Returns early at the first
        margin <= 0 (pairs are visited from the smallest GLR up).
        """
        c, e = shift
        return float(min_pair_margin(self._code, np.asarray(counts, dtype=float), np.asarray(means, dtype=float),
                                     np.asarray(variances, dtype=float), np.asarray(top, dtype=np.int64),
                                     np.asarray(bottom, dtype=np.int64), self.level, self._alpha, self._w_beta,
                                     self._scales, self._gvar, self._one_sided, float(c), float(e)))

    def compiled_form(self) -> np.ndarray | None:
        """The t-only form of ``threshold(t)`` (its fallback's; what LUCB's confidence bounds read)."""
        return self.fallback.compiled_form()

    def compiled_pieces(self) -> PairForm:
        """The numbers :meth:`min_margin` passes to its kernel, for compiled loops
        (:func:`pybai.stopping.compiled.compile_rule`)."""
        return PairForm(self._code, self.level, self.min_statistic, float(self._alpha), float(self._w_beta),
                        float(self._gvar), bool(self._one_sided), self._scales)

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives}


def check_scales(scales, owner: str):
    """Prior scales as a tuple of positive finite floats (None stays None: the defaults), checked."""
    if scales is None:
        return None
    out = tuple(float(c) for c in scales)
    if not out or min(out) <= 0.0 or not all(math.isfinite(c) for c in out):
        raise fail("scales", owner, "a non-empty sequence of positive numbers", scales)
    return out


class GaussianPairMixtureThreshold(PairMixtureThreshold):
    """Gaussian arms, known variances: half-normal (or normal) mixtures over a grid of scales.

    See the module docstring for the rule and its proof.  ``threshold(t)`` answers the
    Kaufmann & Koolen (2021) Gaussian threshold (:class:`~pybai.stopping.kk21.GaussianThreshold`).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound (``K - 1`` for best arm, ``k (K - k)`` for top-k).
    one_sided : bool, default True
        Half-normal priors pointing at the alternative (tighter by up to ``2 ln 2``); False for
        the two-sided normal mixtures.
    scales : sequence of float, optional
        Prior scales ``c_j`` (prior variance ``sigma^2 / c_j``), weighted equally;
        default :data:`DEFAULT_SCALES`.
    """

    name = "pair-mixture-gaussian"
    _code = 0

    def __init__(self, delta: float, n_alternatives: int, one_sided: bool = True, scales=None):
        self._one_sided = bool(one_sided)
        self._scale_arg = check_scales(scales, type(self).__name__)
        super().__init__(delta, n_alternatives)

    def _scale_values(self):
        return DEFAULT_SCALES if self._scale_arg is None else self._scale_arg

    def _make_fallback(self) -> Threshold:
        return GaussianThreshold(self.delta, self.n_alternatives, 2)

    def _params(self) -> dict:
        return {**super()._params(), "one_sided": self._one_sided, "scales": self._scale_arg}


class BernoulliPairMixtureThreshold(PairMixtureThreshold):
    """Bernoulli arms (rewards in [0, 1]): Beta-prior mixtures mixed with sub-Gaussian normal mixtures.

    Each pair's martingale is ``w * KT + (1 - w) * (1/J) sum_j N_j``: the product of the two arms'
    Beta(alpha, alpha) mixtures (exact regrets; tight when a mean is near 0 or 1) and, at each scale
    ``c_j`` of :data:`DEFAULT_SCALES`, the product of the two arms' one-sided normal mixtures of the
    sub-Gaussian martingales exp(eta (S - N lambda) - N eta^2 / 8), valid for any rewards in [0, 1]
    with mean lambda (Hoeffding's lemma); nearly flat in the counts, tight for means near 1/2.
    The weights are fixed in advance, so the mixture is a nonnegative supermartingale of mean at
    most 1 for every sampling rule; the infimum over a piece is bounded below by the mixture of the
    terms' infima.  ``threshold(t)`` answers ``ln(m/delta) + 2 ln 2 + ln(t/2)``
    (:class:`~pybai.stopping.kt.BernoulliKTThreshold`).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound.
    prior : float, default 0.5
        Parameter ``alpha`` of the Beta(alpha, alpha) prior of each arm's mixture: 1/2 is the
        Krichevsky--Trofimov (Jeffreys) mixture, whose regret is at most ln 2 + (1/2) ln N for
        every mean; 1 (Laplace, uniform prior) has a smaller regret, by
        (1/2) ln(pi^2 p (1 - p)) <= 0.45, when the empirical mean p is in [0.114, 0.886], and a
        larger one near 0 and 1.  Every fixed prior gives a proven rule.
    beta_weight : float, default 0.5
        Weight ``w`` of the Beta-prior term, in (0, 1]; 1 gives the Beta-prior rule alone.
    scales : sequence of float, optional
        Prior scales of the normal mixtures (prior variance (1/4) / c_j); default :data:`DEFAULT_SCALES`.
    """

    name = "pair-mixture-bernoulli"
    _code = 1
    _one_sided = True

    def __init__(self, delta: float, n_alternatives: int, prior: float = 0.5, beta_weight: float = 0.5,
                 scales=None):
        self.prior = check_positive_float(prior, "prior", type(self).__name__)
        w = check_positive_float(beta_weight, "beta_weight", type(self).__name__)
        if not w <= 1.0:
            raise fail("beta_weight", type(self).__name__, "a number in (0, 1]", beta_weight)
        self.beta_weight = w
        self._alpha = self.prior
        self._w_beta = w
        self._scale_arg = check_scales(scales, type(self).__name__)
        super().__init__(delta, n_alternatives)

    def _scale_values(self):
        if self.beta_weight >= 1.0:
            return ()
        return DEFAULT_SCALES if self._scale_arg is None else self._scale_arg

    def _params(self) -> dict:
        return {**super()._params(), "prior": self.prior, "beta_weight": self.beta_weight,
                "scales": self._scale_arg}

    def _make_fallback(self) -> Threshold:
        return BernoulliKTThreshold(self.delta, self.n_alternatives, 2)


class BernoulliPairKTThreshold(BernoulliPairMixtureThreshold):
    """Bernoulli arms: product of the two arms' Beta(alpha, alpha) mixtures alone, exact regrets.

    Stop when GLR_{a,b} > ln(m/delta) + r(s_a, N_a) + r(s_b, N_b) for every pair (module
    docstring): :class:`BernoulliPairMixtureThreshold` with ``beta_weight = 1``.  ``threshold(t)``
    answers ``ln(m/delta) + 2 ln 2 + ln(t/2)`` (:class:`~pybai.stopping.kt.BernoulliKTThreshold`),
    which this rule never exceeds.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound.
    prior : float, default 0.5
        Parameter ``alpha`` of the Beta(alpha, alpha) prior (1/2: Krichevsky--Trofimov).
    """

    name = "pair-kt-bernoulli"

    def __init__(self, delta: float, n_alternatives: int, prior: float = 0.5):
        super().__init__(delta, n_alternatives, prior=prior, beta_weight=1.0)

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "prior": self.prior}
