r"""The variance-adaptive per-pair rule for rewards in [0, 1]: tilted half-normal mixtures.

The per-pair rules of :mod:`pybai.stopping.pair_mixture` test each piece of the alternative (two
arms) with a product of two mixture martingales.  For Bernoulli arms the shipped mixture pays either
the Krichevsky--Trofimov regret (about :math:`\frac12\ln N` per arm) or Hoeffding's variance proxy
1/4, which at conversion rates of a few percent is 5 to 25 times the variance :math:`x(1-x)`.  This
rule keeps the one-sided normal-mixture shape of the Gaussian rule but with the variance the
rewards have at the tested level.

**The martingales.**  For rewards in [0, 1] with mean :math:`x`,
:math:`E\,e^{\eta(Y-x)} \le e^{\psi_x(\eta)}`, :math:`\psi_x(\eta) = \ln(1-x+xe^\eta) - \eta x`
(equality for Bernoulli rewards; convexity of :math:`y \mapsto e^{\eta y}` otherwise).  Since
:math:`\psi_x(0) = \psi_x'(0) = 0` and :math:`\psi_x''(\eta) = p_\eta(1-p_\eta)`, with
:math:`p_\eta = xe^\eta/(1-x+xe^\eta)` the tilted mean, Taylor's theorem gives
:math:`\psi_x(\eta) \le v\,\eta^2/2` on an interval of tilts :math:`[0, \bar\eta]` (or
:math:`[-\bar\eta, 0]`) with :math:`v` the largest tilted variance over it
(:func:`~pybai.stopping._tilt_kernels.var_up`, :func:`~pybai.stopping._tilt_kernels.var_down`).  So for
the arm ranked above (``a``, betting that its mean exceeds the level) and each tilt
:math:`\eta \in [0, \bar\eta]`, :math:`\exp(\eta(S_a - N_a x) - N_a v^+(x)\eta^2/2)` is a nonnegative
supermartingale of initial value 1 under any law on [0, 1] of mean :math:`x` (one factor per sample
of ``a``, each of conditional mean :math:`\le 1` whatever the sampling rule chose from the past), and
likewise for the arm ranked below (``b``) with :math:`\eta \in [-\bar\eta, 0]`.  Mixing over
:math:`\eta` with the half-normal prior of precision :math:`c` truncated to the interval (a
probability measure fixed in advance) keeps the supermartingale property; the mixture has the closed
form of :func:`~pybai.stopping._tilt_kernels.tilt_term`.  The pair's test mixes the product of the two
arms' terms over the prior scales :math:`c_j = e^{2j}`, ``j = 0..7`` (a common scale for both arms,
equal weights), with :math:`\bar\eta_j = \min(2, 2/\sqrt{c_j})`: two prior standard deviations.

**Theorem (delta-correct for every sampling rule; rewards in [0, 1], arms independent given the
sampling rule's choices).**  The rule stops when, for every pair (a ranked above b) of the ``m`` pairs
of the empirical answer, a certified lower bound on the infimum over the piece
:math:`\{\lambda_a \le c\lambda_b - e\}` of :math:`\ln M_{ab}(\lambda)` exceeds :math:`\ln(m/\delta)`.
(i) For a pair (a, b) fixed by the truth (a outside the true answer set, b inside), the mixture
:math:`M_{ab}(\mu)` at the true means is a nonnegative supermartingale of initial value 1: each
term is a product of two supermartingales that change at different samples.  Ville's inequality:
it ever reaches :math:`m/\delta` with probability at most :math:`\delta/m`.  (ii) A wrong stop puts
the truth in the piece of one of these ``m`` pairs (the argument of :mod:`pybai.stopping.pair_mixture`,
and of the shifted pieces of epsilon-best-arm identification), where the infimum is at most
:math:`\ln M_{ab}(\mu)`.  The union bound over the ``m`` pairs gives ``delta``.  (iii) The infimum is
bounded below correctly: for every tilt, arm a's term is nonincreasing in :math:`\lambda_a` (the
derivative of its exponent :math:`\eta(S - N\lambda) - N v^+(\lambda)\eta^2/2` is
:math:`-N\eta(1 + \eta\, {v^+}'/2) \le 0`, since :math:`{v^+}' \ge -1` and :math:`\eta \le 2`) and arm
b's is nondecreasing in :math:`\lambda_b` (likewise, :math:`{v^-}' \le 1`); the prior does not depend
on the level, so the same holds for the mixtures.
Hence for a truth in the piece, :math:`M_{ab}(\mu_a, \mu_b) \ge M_{ab}(c\mu_b - e, \mu_b)`, a point of
the boundary, and on a cell :math:`y \in [q, r]` of the boundary each scale's product is at least
its value with arm a at :math:`cr - e` and arm b at :math:`q`.  The branch and bound stops only when
the cells cover the boundary and every cell's bound exceeds the level.  (The kernel uses convexity
instead of cells: both variance bounds are concave in the level, so each exponent is convex in it and
the log-mixture over tilts and scales is convex along the boundary; a convex function is bounded below
on each interval between evaluated points by the extensions of its neighbouring chords.)

Against the shipped Beta + sub-Gaussian mixture (same union, same scale grid) this pays no
:math:`\frac12\ln N` per arm and uses :math:`x(1-x)` (up to the tilt of :math:`\bar\eta`) instead of
1/4.  ``beta_weight > 0`` mixes in the Beta(alpha, alpha) mixtures as the shipped rule does.

Every object also answers ``threshold(t)``: the t-only proven threshold
:class:`~pybai.stopping.kt.BernoulliKTThreshold` at the same ``delta`` (for callers that know only
``t``); the two are alternative rules, never combined by a minimum.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, fail
from pybai.stopping._tilt_kernels import TILT_RULE, min_tilt_margin
from pybai.stopping.base import Threshold
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.pair_mixture import DEFAULT_SCALES, PairMixtureThreshold, check_scales

__all__ = ["BernoulliTiltThreshold"]


class BernoulliTiltThreshold(PairMixtureThreshold):
    """Rewards in [0, 1]: per-pair products of tilted half-normal mixtures (variance-adaptive).

    See the module docstring for the rule and its proof.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound (``K - 1`` for best arm, ``k (K - k)`` for top-k).
    beta_weight : float, default 0.0
        Weight in [0, 1) of the Beta(``prior``, ``prior``) mixtures in each pair's mixture; 0: the
        tilted mixtures alone.
    prior : float, default 0.5
        Parameter of the Beta prior (used when ``beta_weight > 0``).
    scales : sequence of float, optional
        Prior precisions ``c_j`` of the tilt; default :data:`~pybai.stopping.pair_mixture.DEFAULT_SCALES`.
    """

    name = "pair-tilt-bernoulli"
    _code = TILT_RULE
    _one_sided = True

    def __init__(self, delta: float, n_alternatives: int, beta_weight: float = 0.0, prior: float = 0.5,
                 scales=None):
        owner = type(self).__name__
        w = beta_weight
        if isinstance(w, bool) or not isinstance(w, (int, float, np.integer, np.floating)) or not 0.0 <= w < 1.0:
            raise fail("beta_weight", owner, "a number in [0, 1)", beta_weight)
        self.beta_weight = float(w)
        self.prior = check_positive_float(prior, "prior", owner)
        self._w_beta = self.beta_weight
        self._alpha = self.prior
        self._scale_arg = check_scales(scales, owner)
        super().__init__(delta, n_alternatives)
        #: A pair whose Bernoulli GLR is <= the level fails: every term of the mixture is at most
        #: exp(GLR) (the tilted exponents lie below the exact tilt, whose supremum is the KL divergence).
        self.min_statistic = self.level

    def _scale_values(self):
        return DEFAULT_SCALES if self._scale_arg is None else self._scale_arg

    def _make_fallback(self) -> Threshold:
        return BernoulliKTThreshold(self.delta, self.n_alternatives, 2)

    def min_margin(self, counts, means, variances, top, bottom, shift=(1.0, 0.0)) -> float:
        """Smallest margin over the pairs (i in ``top``, j in ``bottom``); stop when > 0.

        ``variances`` is not read (the rule's variances are those of the tested levels).  ``shift`` (c, e)
        gives the shifted pieces {lambda_i <= c lambda_j - e} of an answer tolerance.
        """
        c, e = shift
        return float(min_tilt_margin(np.asarray(counts, dtype=float), np.asarray(means, dtype=float),
                                     np.asarray(top, dtype=np.int64), np.asarray(bottom, dtype=np.int64),
                                     self.level, self._w_beta, self._alpha, self._scales, float(c), float(e)))

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "beta_weight": self.beta_weight,
                "prior": self.prior, "scales": self._scale_arg}
