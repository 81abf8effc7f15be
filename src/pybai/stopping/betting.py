r"""The proven stopping rules of bounded rewards (reward model ``"bounded"``).

``statistic = "sub-bernoulli"``: the rules of rewards in [0, 1] on the rescaled rewards, whose martingales stay
supermartingales for any law on [0, 1] (see :mod:`pybai.models.bounded`): the tilted per-pair rule
(:class:`~pybai.stopping.tilt.BernoulliTiltThreshold`, ``"delta-correct"`` here), and ``"pair-mixture"``
(:class:`~pybai.stopping.pair_mixture.BernoulliPairMixtureThreshold`).  Plain best arm takes the leader rules of
rewards in [0, 1] instead (``"delta-correct"``: ``"leader-settled"``, :mod:`pybai.stopping.leader`), through
:attr:`pybai.models.bounded.Bounded.leader_family`.

``statistic = "kl-inf"``: :class:`BettingThreshold`, a per-pair rule on the betting tables of
:class:`~pybai.models.betting.BettingModel` (rewards rescaled to [0, 1]):

    stop when, for every pair (a ranked above b),   min_i  ln M^+_a(l_{i+1}) + ln M^-_b(l_i)  >  ln(m / delta),

with m the number of pieces of the alternative (K - 1 for best arm, k (K - k) for top-k).  When
both arms of a pair keep their distinct rewards (:attr:`~pybai.models.betting.BettingModel.exact`:
at most 64 values, one of them seen twice), a pair that fails on the grid is decided on the
infimum over all levels instead: a certified branch and bound splits the failing cells with the
exact wealths at their midpoints (:func:`~pybai.stopping._betting_refine.refine_pair`).

**Theorem (delta-correct for every sampling rule).** Let l* be any number in [mu_a, mu_b] for a
pair with mu_a <= mu_b.  (i) Each W^+_{a,j}(l*) = prod_n (1 + c_j (Y_{a,n} - l*) / l*) is a
nonnegative supermartingale of initial value 1 in the filtration of all observations: at a
sample of arm a, which the sampling rule chose from the past, the new factor has conditional
expectation 1 + c_j (mu_a - l*) / l* <= 1, and it is >= 1 - c_j > 0; at a sample of another arm
it is unchanged.  The same holds for W^-_{b,j}(l*) = prod_n (1 - c_j (Y_{b,n} - l*) / (1 - l*))
since mu_b >= l*.  Mixtures with fixed weights and the product of the two (never both changed at
one sample, each factor conditionally of mean <= 1 given the past) are again such
supermartingales (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
betting", JRSS B 86(1), 2024, use the same martingales for confidence sequences).  By Ville's
inequality P(exists t: M^+_a(l*) M^-_b(l*) >= m / delta) <= delta / m.
(ii) ln M^+_a(l) is nonincreasing in l and ln M^-_b(l) nondecreasing (each factor is), so for l*
in any interval [q, r], ln M^+_a(l*) + ln M^-_b(l*) >= ln M^+_a(r) + ln M^-_b(q); the rule stops only
if this lower bound exceeds ln(m/delta) on every piece of a cover of [0, 1] (the grid's cells, or
the pieces of the branch and bound: a cover chosen from the data is fine, the bound holds for every
interval at once), hence on the piece holding l*.  A wealth is a product of one factor per
sample, so the stores give its exact value at any level (the same product in another order).
(ii') **Additive epsilon** (pieces {lambda_a <= lambda_b - e}, e in the rescaled units): a wrong
answer has mu_a + e <= mu_b for some b; take l* = mu_a, so W^+_a(l*) and W^-_b(l* + e) are both
supermartingales as in (i).  For l* in [l_i, l_{i+1}], ln M^+_a(l*) >= ln M^+_a(l_{i+1}) and, with
s = floor(e (L - 1)) grid steps, l_{i+s} <= l* + e, so ln M^-_b(l* + e) >= ln M^-_b(l_{i+s}); l* + e <= 1
keeps l* in the cells with i + s <= L - 1.  The rule tests min_i ln M^+_a(l_{i+1}) + ln M^-_b(l_{i+s});
with exact stores, a piece [q, r] of [0, 1 - e] has the bound ln M^+_a(r) + ln M^-_b(q + e).
(iii) A wrong answer at stopping ranks some arm a above an arm b with mu_a <= mu_b among the m
pairs fixed by the truth (for best arm: a = the answer, b = the best arm); (i) and (ii) give each
such pair probability at most delta / m; the union bound gives delta.  Nothing is assumed about
the laws but their support, nothing depends on t, and the sampling rule may be anything.

**Size of the statistic.** ln M^+_a(l) >= max_j ln W^+_{a,j}(l) - ln J and
max_j ln W^+_{a,j}(l) / N_a tends to KL_inf^below(F_a, l) as the bets fill [0, 1) (the dual form of
:mod:`pybai.models.kl_inf` with u = c / l), so the rule is the KL_inf GLR minus the prices of
the bet grid (ln J per arm, J = 25) and of the level grid (one cell, 1/400 of the range; none
for a pair of arms with exact stores, up to the branch and bound's 400 midpoints per check).

Called with ``t`` only (e.g. LUCB's confidence level) the object answers ln(m (1 + ln t) / delta):
an exploration level for sampling, not a stopping guarantee; only :meth:`BettingThreshold.margin`
decides stopping.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from pybai._validation import check_positive_int, fail
from pybai.stopping._betting_refine import DEFAULT_BUDGET, refine_pair
from pybai.stopping.base import PairPieces, PieceThreshold, Threshold
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold
from pybai.stopping.tilt import BernoulliTiltThreshold

__all__ = ["BettingThreshold", "HeuristicBettingThreshold", "bounded_rules", "pair_log_wealth"]


@njit(cache=True)
def _pair_value(ln_up_a, ln_down_b, shift=0):
    """min over cells i of ln M^+_a(l_{i+1}) + ln M^-_b(l_{i+shift}) (cells with i + shift on the grid).

    ``shift`` = floor(e (L - 1)) grid steps for the pieces {lambda_a <= lambda_b - e} of additive
    epsilon (module docstring); 0 for the plain pieces.
    """
    best = math.inf
    for i in range(ln_up_a.shape[0] - 1 - shift):
        v = ln_up_a[i + 1] + ln_down_b[i + shift]
        if v < best:
            best = v
    return best


@njit(cache=True)
def _min_margin(counts, means, ln_up, ln_down, top, bot, level, offset, shift, exact, grid, values, value_counts,
                n_values, bets):
    worst = math.inf
    for ii in range(top.shape[0]):
        a = top[ii]
        for jj in range(bot.shape[0]):
            b = bot[jj]
            if counts[a] < 1.0 or counts[b] < 1.0 or not (means[a] > means[b] - offset):
                return -math.inf
            margin = _pair_value(ln_up[a], ln_down[b], shift) - level
            if margin <= 0.0 and exact[a] and exact[b]:  # both stores usable: remove the level grid's loss
                margin = refine_pair(ln_up[a], ln_down[b], grid, shift, offset, level, True, 0.0, DEFAULT_BUDGET,
                                     values[a], value_counts[a], n_values[a], values[b], value_counts[b],
                                     n_values[b], bets) - level
            if margin < worst:
                worst = margin
                if worst <= 0.0:
                    return worst
    return worst


def pair_log_wealth(model, a: int, b: int, tol: float = 1e-3) -> float:
    """A certified lower bound of inf_l ln M^+_a(l) + ln M^-_b(l) on a :class:`~pybai.models.betting.BettingModel`.

    From the level grid (one cell apart), or, when both arms' stores are usable
    (:attr:`~pybai.models.betting.BettingModel.exact`), within ``tol`` of the infimum itself
    (:func:`~pybai.stopping._betting_refine.refine_pair`, at most 20 000 midpoints).
    """
    grid_value = float(_pair_value(model.ln_up[a], model.ln_down[b]))
    if not (model.exact[a] and model.exact[b]):
        return grid_value
    return float(refine_pair(model.ln_up[a], model.ln_down[b], model.grid, 0, 0.0, math.inf, False, float(tol),
                             20_000, model.values[a], model.value_counts[a], model.n_values[a], model.values[b],
                             model.value_counts[b], model.n_values[b], model.bets))


class BettingThreshold(PieceThreshold):
    """Proven count-dependent stopping rule of bounded rewards with the KL_inf statistic (module docstring).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m`` of pairs in the union bound.

    Attributes
    ----------
    level : float
        ln(m / delta).
    min_statistic : float
        -inf: the sampling rules' statistic (second-order KL_inf) is no bound on the betting
        statistic, so every check goes to :meth:`margin`.
    """

    name = "betting-mixture"
    proven = True
    min_statistic = -math.inf

    def __init__(self, delta: float, n_alternatives: int):
        super().__init__(delta)
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", type(self).__name__)
        self.level = math.log(self.n_alternatives / self.delta)

    def __call__(self, t: float) -> float:
        """An exploration level for callers that know only ``t``: ln(m (1 + ln t) / delta) (not a guarantee)."""
        return math.log((1.0 + math.log(max(t, 1.0))) * self.n_alternatives / self.delta)

    def values(self, t: Any) -> np.ndarray:
        t = np.maximum(np.asarray(t, dtype=float), 1.0)
        return np.log((1.0 + np.log(t)) * self.n_alternatives / self.delta)

    def margin(self, pieces: PairPieces, model) -> float:
        """Smallest certified margin over the pairs (a in ``top``, b in ``bottom``); stop when > 0.

        A shift (1, e) with e > 0 (additive epsilon, rescaled units): the pieces
        {lambda_a <= lambda_b - e}, tested on ln M^+_a(l) + ln M^-_b(l + e) (module docstring); the
        slope must be 1 (an additive epsilon only).
        """
        ln_up = getattr(model, "ln_up", None)
        if ln_up is None:
            raise fail("model", type(self).__name__, "a BettingModel (reward_model 'bounded', statistic 'kl-inf')",
                       type(model).__name__)
        slope, offset = pieces.shift
        if slope != 1.0 or not 0.0 <= offset < 1.0:
            raise fail("epsilon_mode", type(self).__name__, "an additive epsilon below the range of the rewards",
                       pieces.shift)
        steps = ln_up.shape[1] - 1
        shift = max(int(math.floor(offset * steps - 1e-9)), 0) if offset > 0.0 else 0
        return float(_min_margin(model.counts, model.estimate, ln_up, model.ln_down,
                                 np.asarray(pieces.top, dtype=np.int64), np.asarray(pieces.bottom, dtype=np.int64),
                                 self.level, float(offset), shift, model.exact, model.grid, model.values,
                                 model.value_counts, model.n_values, model.bets))

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives}


class HeuristicBettingThreshold(BettingThreshold):
    """The betting statistic against the seed papers' ln((1 + ln t)/delta), t the samples so far (not proven).

    The ``"heuristic"`` threshold of the KL_inf statistic: the same per-pair betting statistic as
    :class:`BettingThreshold` with the heuristic level in place of ln(m / delta).
    """

    name = "betting-heuristic"
    proven = False

    def margin(self, pieces: PairPieces, model) -> float:
        t = max(float(model.counts.sum()), 1.0)
        self.level = math.log((1.0 + math.log(t)) / self.delta)
        return super().margin(pieces, model)


def _kind(kind: str, family: str) -> str:
    if kind in ("heuristic", "delta-correct", "pair-mixture", "pair-tilt"):
        return kind
    raise fail("kind", "make_threshold", f"'heuristic' or 'delta-correct' for family '{family}'", kind)


def bounded_rules(statistic: str):
    """The ``(kind, delta, n_alternatives, n_terms) -> Threshold`` builder of family ``bounded-<statistic>``."""

    def rules(kind: str, delta: float, n_alternatives: int, n_terms: int) -> Threshold:
        family = f"bounded-{statistic}"
        named = _kind(kind, family)
        if named == "heuristic":
            return HeuristicThreshold(delta) if statistic == "sub-bernoulli" else HeuristicBettingThreshold(delta, 1)
        if n_terms != 2:
            raise fail("n_terms", "make_threshold", f"2 for family '{family}' (pieces of two arms)", n_terms)
        if named == "pair-tilt" or (named == "delta-correct" and statistic == "sub-bernoulli"):
            return BernoulliTiltThreshold(delta, n_alternatives)  # rewards in [0, 1]: valid for any such law
        if statistic == "sub-bernoulli":
            return BernoulliPairMixtureThreshold(delta, n_alternatives)
        return BettingThreshold(delta, n_alternatives)

    return rules
