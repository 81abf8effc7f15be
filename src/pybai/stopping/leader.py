r"""Best-arm identification without the union over pairs: one test per hypothesis "arm j is the best".

The per-pair rules of :mod:`pybai.stopping.pair_mixture` and :mod:`pybai.stopping.tilt` test each piece
{lambda_b >= lambda_a_hat} at level ln((K - 1)/delta): the union over the K - 1 possible wrong answers
costs ln(K - 1).  This rule tests, for every arm j, the hypothesis H_j = {lambda : lambda_j >= lambda_i
for all i} with one e-process E_j, and stops with the empirical best arm a_hat when every H_j, j != a_hat,
is rejected at level ln(1/delta).  At most one hypothesis is true, so no union over them is needed; the
price moves inside E_j, which must find evidence against j in *some* other arm: half of it follows the
empirical leader (no ln(K - 1) when the leader is right), half is the fixed average over the other arms
(the per-pair rule's evidence, at ln(2 (K - 1)) instead of ln(K - 1)).

**The e-process.**  Per arm the one-sided mixtures of the pair rules at a prior scale c: for Gaussian
arms with known variances the half-normal mixtures of :mod:`pybai.stopping.pair_mixture`, for rewards in
[0, 1] the tilted half-normal mixtures of :mod:`pybai.stopping.tilt`.  D_j,c(lambda_j) ("j's mean is below
lambda_j", all of j's samples); U_i,c(lambda_i) ("i's mean is above lambda_i", all of i's samples); and
the *leader process* L_j,c(lambda): a self-financing portfolio fully invested in one arm at a time,
the leader of H_j.  The leader changes only to the empirical best of the arms other than j, and only
when that arm's pair GLR over the current leader exceeds :data:`~pybai.stopping._leader_kernels.STICKY`
nats; at a change the wealth moves into a *fresh* mixture of the new leader's later samples (up to
:data:`~pybai.stopping._leader_kernels.MAX_SEGMENTS` changes).  So L_j,c is the product over the
segments (arm i_k, its samples while it led) of fresh mixtures U_{i_k,c}^{(k)}(lambda_{i_k}).  Then

    E_j(lambda) = (1/J) sum_c D_j,c(lambda_j) [ (1/2) L_j,c(lambda) + (1/2) (1/(K - 1)) sum_{i != j} U_i,c(lambda_i) ],

with the scales c_j = e^(2j), j = 0..7, of the pair rules (one common scale for every factor of a term).

**The scale-pair prior** (kind ``"leader-scales"``).  With
G_j,c = (1/2) L_j,c + (1/2) (1/(K - 1)) sum_{i != j} U_i,c, a common scale fits at most one of the two sides when
their counts differ (Track-and-Stop's optimal allocation samples the last arms tens of times less than the first
two, and their hypotheses decide the stop).  The scale-pair prior lets the sides take independent scales:

    E_j = (1 - p) (1/J) sum_c D_j,c G_j,c + p [(1/J) sum_c D_j,c] [(1/J) sum_c G_j,c],   p = SCALE_PAIR_WEIGHT = 1/2,

a mixture over pairs of scales with a prior fixed in advance.  Every D_j,c G_j,c' is a nonnegative supermartingale
of initial value 1 at the truth (the factors change on disjoint samples), so the theorem below holds unchanged for
it; E_j is still monotone and log-convex along the diagonal (a sum of products of log-convex functions), and
E_j >= (1 - p) times the common-scale E_j.  Proof and measurements: docs/thresholds.md.

**Settled leaders** (kind ``"leader-settled"``).  The scale-pair
prior, except that a hypothesis has no leader until the candidate beats the runner-up of the arms other than j by a
pair GLR above ``STICKY``; until then its leader process holds its wealth as cash (L_j,c = 1).  A closed segment of
an early leader, evaluated near the eventual best arm's mean, is below 1 and multiplies every later one; waiting
avoids those segments.  The start is a
stopping time and the first segment holds only later samples, so the theorem below holds unchanged (the proof's
leader sequence may begin with "none").  Proof and measurements: docs/thresholds.md.

**The favoured leader** (kind ``"leader-favoured"``, the ``"delta-correct"`` default of plain best arm).  The settled
leaders with G_j,c = w L_j,c + (1 - w) (1/(K - 1)) sum_i U_i,c, w = ``FAVOURED_LEADER_WEIGHT`` = 0.9 instead of 1/2:
once settled, the leader process is the witness that rejects the binding hypotheses, and the fixed average keeps a
guarantee (the rule passes whenever the pair rule passes at delta (1 - w)).  Fixed weights chosen in advance: the
theorem below holds unchanged (G_j,c is still a fixed convex combination of the same supermartingales).

**Theorem (delta-correct for every sampling rule).**  Assumptions: the arms' rewards are Gaussian with
known variances, or lie in [0, 1]; given the sampling rule's choice a reward is drawn from the chosen
arm's law independently of the past; the sampling rule may use the whole past.  The rule stops at time
t with the empirical best arm a_hat (unique) when, for every j != a_hat, a certified lower bound on
inf over H_j of ln E_j(lambda) is at least ln(1/delta).  Then P(stop with an arm that is not the first
best arm a*) <= delta.

*Proof.*  (i) Fix mu and put j = a* (so mu is in H_j).  At lambda = mu every factor is a nonnegative
supermartingale of initial value 1 in the joint filtration: D_j,c and U_i,c as in the pair rules (a
factor per sample of its arm, of conditional mean <= 1 whatever the sampling rule chose), and L_j,c
because at each sample it is multiplied by the conditional-mean-<= 1 update of the current segment's
mixture when the sampled arm is the current leader (a choice made from the past), and by 1 otherwise;
a fresh mixture starts at 1, so moving the wealth into it is self-financing.  The leader process and
the average change only at samples of arms other than j and D_j,c only at samples of j, so each term
D_j,c ((1/2) L_j,c + (1/2) average) is a nonnegative supermartingale of initial value 1, and so is the
fixed-weight mixture E_j(mu).  Ville's inequality: P(exists t: E_a*(mu) >= 1/delta) <= delta.
(ii) A wrong stop (a* != a_hat) needs H_a* rejected at some decision time s <= t (now or remembered), so at
s inf over H_a* of E_a* >= 1/delta, hence E_a*(mu) >= 1/delta: the event of (i), which covers all times at once
(remembered rejections are sound).  No union over the other hypotheses is needed.
(iii) The infimum is bounded below correctly.  Each D_j,c is nondecreasing in lambda_j and each U factor
(fresh or not) nonincreasing in its arm's level (the monotonicity of the pair rules' terms), so E_j is
nonincreasing in every lambda_i, i != j, and nondecreasing in lambda_j: for lambda in H_j,
E_j(lambda) >= E_j(lambda_j, ..., lambda_j), and the infimum over H_j is the infimum over the diagonal.
There ln E_j is convex: each term is a product of log-convex functions of the common level (the pair
rules' convexity), and a sum of log-convex functions is log-convex.  Dropping the nonnegative terms of
the average other than the empirical best arm's only lowers E_j.  The kernels bound the convex
minimum from below (Newton bracket, or chord lower model on [0, 1]) and stop only above the level.
QED.

**epsilon-best-arm identification.**  With an answer tolerance (pieces {lambda_a <= c lambda_b - e},
:meth:`LeaderThreshold.set_shift`, set by the problem) the same E_j are tested on H_j,a^eps = {lambda in H_j :
lambda_a <= c lambda_j - e}, a the empirical best: a wrong stop on a puts the truth in H_a*,a^eps, a subset of
H_a*, so it still needs E_a*(mu) >= 1/delta (no union).  The infimum lies on the shifted diagonal (every arm at x,
a at c x - e), where ln E_j is still convex; rejections of H_j,a^eps are remembered for the answer a only.  Proof
and measurements: docs/thresholds.md, "epsilon-best-arm identification with the leader rules".

The leader state is the run's own (:meth:`LeaderThreshold.advance` after each observation, before the
decision; a new segment starts empty, so advancing before or after deciding gives the same E_j).  A
state restarted at a time chosen from the past (a new object) is still valid: its leader processes are
1 until then.  Called with ``t`` only, an object answers the family's t-only proven threshold
(``fallback``), for callers that know only ``t``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import check_positive_int, fail
from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.stopping._leader_kernels import MAX_SEGMENTS, STICKY, leader_min_margin, leader_step, state_size
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps
from pybai.stopping.base import Decision, Threshold
from pybai.stopping.compiled import LeaderForm
from pybai.stopping.kk21 import GaussianThreshold
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.pair_mixture import DEFAULT_SCALES

__all__ = ["LeaderThreshold", "GaussianLeaderThreshold", "BernoulliLeaderThreshold", "GaussianLeaderScalesThreshold",
           "BernoulliLeaderScalesThreshold", "GaussianLeaderSettledThreshold", "BernoulliLeaderSettledThreshold",
           "GaussianLeaderFavouredThreshold", "BernoulliLeaderFavouredThreshold", "LEADER_KINDS", "SCALE_PAIR_WEIGHT",
           "FAVOURED_LEADER_WEIGHT", "refuse_leader"]

#: The kinds of this module: common prior scales (``"leader"``), the scale-pair prior (``"leader-scales"``), the
#: scale-pair prior with leader processes that start once the leader has settled (``"leader-settled"``), the same with
#: the weight FAVOURED_LEADER_WEIGHT on the leader process (``"leader-favoured"``).
LEADER_KINDS = ("leader", "leader-scales", "leader-settled", "leader-favoured")
#: Weight of the independent-scales part of the scale-pair prior (kind ``"leader-scales"``; module docstring).
SCALE_PAIR_WEIGHT = 0.5
#: Weight w of the leader process in G_j of kind ``"leader-favoured"`` (1 - w on the fixed average; module docstring).
FAVOURED_LEADER_WEIGHT = 0.9


def refuse_leader(kind: Any, owner: str) -> None:
    """Refuse the leader kinds for a goal other than best-arm identification (the hypotheses they test are
    "arm j is the best"; :meth:`pybai.problems.best_arm.BestArmProblem.threshold` takes them, with or without
    epsilon)."""
    if isinstance(kind, str) and kind.strip().lower() in LEADER_KINDS:
        raise fail("threshold", owner, "a kind this goal supports ('leader', 'leader-scales', 'leader-settled' and "
                   "'leader-favoured' are for best-arm identification, with or without epsilon)", kind)


class LeaderThreshold(Threshold):
    """Best-arm identification, one e-process per hypothesis "arm j is the best" (module docstring).

    Holds the run's leader state (``state_``); a strategy runs :meth:`run_check` after each observation
    (the leaders advanced and the decision, in one compiled call: :func:`~pybai.stopping._leader_kernels.leader_step`,
    the kernels a compiled run's check calls); :meth:`decide` reads the decision on the problem's pieces (the
    empirical best arm against every other).

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_arms : int
        Number of arms ``K >= 2``.
    shift : tuple of float, default (1.0, 0.0)
        The answer tolerance's (c, e) (:meth:`set_shift`): epsilon-best-arm identification when not (1, 0).

    Attributes
    ----------
    count_dependent, stateful : bool
        True: the decision reads the counts and the run's state.
    level : float
        ``ln(1 / delta)``.
    min_statistic : float
        0: no stop without a unique empirical best.
    fallback : Threshold
        The t-only proven threshold answered by ``threshold(t)``.
    state_ : ndarray
        The leader state (:mod:`pybai.stopping._leader_kernels`).
    """

    count_dependent = True
    stateful = True
    proven = True
    _code = GAUSSIAN
    #: Weight of the independent-scales part of the scale-pair prior (0: one common scale per term).
    product_weight = 0.0
    #: The pair GLR by which a hypothesis' first leader must beat the runner-up of the other arms before its leader
    #: process starts (0: at once; :func:`~pybai.stopping._leader_kernels.leader_advance`).
    leader_start = 0.0
    #: The weight w of the leader process in G_j (1 - w on the fixed average over the other arms).
    lead_weight = 0.5

    def __init__(self, delta: float, n_arms: int, *, shift=(1.0, 0.0)):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_arms = check_positive_int(n_arms, "n_arms", owner)
        if self.n_arms < 2:
            raise fail("n_arms", owner, "an integer >= 2", n_arms)
        self.n_alternatives = self.n_arms - 1
        self.level = math.log(1.0 / self.delta)
        self.min_statistic = 0.0
        self.sticky = STICKY
        self._scales = np.array(DEFAULT_SCALES, dtype=float)
        self._emax = tilt_caps(self._scales)
        self._consts = scale_constants(self._scales, self._emax)
        self.fallback = self._make_fallback()
        self.state_ = self.fresh_state()
        self._decided: tuple | None = None  # (model, margin) of the last step, taken at the counts _seen
        self._seen = np.full(self.n_arms, -1.0)
        self._plain: Any = None  # the last problem whose pieces were checked (plain best arm)
        self._var_of: Any = None  # the variances _var was made from (Gaussian), held so its identity is stable
        self._var = np.zeros(self.n_arms)
        #: the answer tolerance's shift (c, e) of the pieces {lambda_a_hat <= c lambda_b - e} (:meth:`set_shift`)
        self.shift = (1.0, 0.0)
        self.set_shift(shift)

    def set_shift(self, shift) -> "LeaderThreshold":
        """Test the epsilon hypotheses of an answer tolerance: H_j,a^eps = {lambda in H_j : lambda_a <= c lambda_j - e}
        for the empirical best a, ``shift`` = (c, e) the problem's (:attr:`BestArmProblem.shift
        <pybai.problems.best_arm.BestArmProblem.shift>`; (1, 0) is plain best arm).  What the problem calls when it
        builds the rule, before the run (the rejections it remembers are the shift's).  Returns the threshold.
        """
        owner = type(self).__name__
        try:
            c, e = (float(v) for v in shift)
        except (TypeError, ValueError):
            raise fail("shift", owner, "a pair (c, e) with c in (0, 1] and e >= 0", shift) from None
        if not (0.0 < c <= 1.0 and 0.0 <= e < math.inf):
            raise fail("shift", owner, "a pair (c, e) with c in (0, 1] and e >= 0", shift)
        self.shift = (c, e)
        return self

    def _make_fallback(self) -> Threshold:
        return GaussianThreshold(self.delta, self.n_alternatives, 2)

    def fresh_state(self) -> np.ndarray:
        """The state before any observation: no leader, no segment."""
        state = np.zeros(state_size(self.n_arms))
        state[: self.n_arms] = -1.0
        return state

    def check_state(self, counts) -> str | None:
        """Why the leader state ``state_`` cannot be the run's at these per-arm ``counts`` (a restored state), or None.

        The layout of :mod:`pybai.stopping._leader_kernels`: each hypothesis' leader is -1 or another arm; the
        leader's count at its segment's start a whole number in [0, its count now] (0 with no leader); the
        completed segments a whole number in [0, MAX_SEGMENTS], each (arm, samples >= 1 and at most the arm's
        count, sum), the unused slots 0; the rejection flags 0 or 1 (with an answer tolerance, also 2 + an arm).
        """
        K, state = self.n_arms, self.state_
        counts = np.asarray(counts, dtype=float)

        def whole(x, low, high) -> bool:
            return bool(np.all((x == np.floor(x)) & (x >= low) & (x <= high)))

        lead, start, start_sum, done, flags = (state[i * K:(i + 1) * K] for i in range(5))
        if not whole(lead, -1, K - 1) or np.any(lead == np.arange(K)):
            return "the leader of each hypothesis: -1 or another arm"
        have = lead >= 0
        if np.any(~have & ((start != 0) | (start_sum != 0))) or not whole(
                start[have], 0, counts[lead[have].astype(int)] if have.any() else 0):
            return "each leader's count at its segment's start: a whole number up to its count (0 without a leader)"
        if not whole(done, 0, MAX_SEGMENTS) or not whole(flags, 0, 1 if self.shift == (1.0, 0.0) else K + 1):
            return ("completed segments in [0, 32] and rejection flags 0 or 1 (with an answer tolerance also 2 + "
                    "the empirical best arm of an epsilon rejection)")
        segments = state[5 * K:].reshape(K, MAX_SEGMENTS, 3)
        for j in range(K):
            used, unused = segments[j, : int(done[j])], segments[j, int(done[j]):]
            if np.any(unused != 0) or not whole(used[:, 0], 0, K - 1) or np.any(used[:, 0] == j):
                return "the completed segments (arm, samples, sum): another arm's, unused slots 0"
            if used.size and not whole(used[:, 1], 1, counts[used[:, 0].astype(int)]):
                return "the completed segments' samples: whole numbers from 1 up to the arm's count"
        return None

    def __call__(self, t: float) -> float:
        """The t-only proven threshold ``fallback(t)`` (for callers that know only ``t``)."""
        return self.fallback(t)

    def values(self, t: Any) -> np.ndarray:
        return self.fallback.values(t)

    def advance(self, model, variances) -> None:
        """The run's own decision step, on its model after each observation: update the leaders, then test
        the hypotheses and remember those rejected (:meth:`model_margin` on this model then reads the result)."""
        self._step(model, np.asarray(model.counts, dtype=float), np.asarray(model.sums, dtype=float),
                   np.asarray(model.estimate, dtype=float), variances)

    def run_check(self, problem, model, t: int) -> Decision:
        """The run's own check after an observation: :meth:`advance` then :meth:`decide`, with one compiled call
        (:func:`~pybai.stopping._leader_kernels.leader_step`) and the problem's GLR statistic.

        The model's arrays are read as they are (a best-arm model's are float arrays); the problem's pieces are
        checked to be plain best-arm pieces once per problem (they do not depend on the data).
        """
        if problem is not self._plain:
            self._pieces_of(problem, model)
            self._plain = problem
        z = problem.statistic(model)
        margin = self._step(model, model.counts, model.sums, model.estimate, problem.family.variances)
        return Decision(z, z > self.min_statistic and margin > 0.0)

    def _step(self, model, counts, sums, means, variances) -> float:
        margin = leader_step(self.state_, self._code, counts, sums, means, self._variances(variances), self.sticky,
                             self._scales, self._emax, self._consts, self.level, self.product_weight, self._seen,
                             self.leader_start, *self.shift, self.lead_weight)
        self._decided = (model, margin)
        return margin

    def _variances(self, variances) -> np.ndarray:
        """The variances the kernels read: the family's (Gaussian, converted once per array), zeros (Bernoulli)."""
        if self._code != GAUSSIAN:
            return self._var
        if variances is not self._var_of:
            self._var = np.asarray(variances, dtype=float)
            self._var_of = variances
        return self._var

    def margin(self, counts, sums, means, variances) -> float:
        """Smallest margin over the hypotheses j != the empirical best not rejected before, with the current
        state, which it does not change (a what-if); stop when > 0."""
        return float(leader_min_margin(self.state_, self._code, np.asarray(counts, dtype=float),
                                       np.asarray(sums, dtype=float), np.asarray(means, dtype=float),
                                       self._variances(variances), self._scales, self._emax, self._consts,
                                       self.level, False, self.product_weight, *self.shift, self.lead_weight))

    def decide(self, problem, model, t: int) -> Decision:
        """Stop when the GLR statistic is above ``min_statistic`` and :meth:`model_margin` on the problem's
        pieces (:meth:`~pybai.problems.base.Problem.pieces`: plain best-arm pieces only) is positive."""
        z = problem.statistic(model)
        if not z > self.min_statistic:
            return Decision(z, False)
        return Decision(z, self._pieces_margin(problem, model) > 0.0)

    def _pieces_margin(self, problem, model) -> float:
        pieces = self._pieces_of(problem, model)
        return self.model_margin(model, pieces.variances, pieces.top, pieces.bottom, *pieces.shift)

    def _pieces_of(self, problem, model):
        """The problem's pieces at ``model``, refused unless best-arm pieces of the threshold's shift."""
        pieces = problem.pieces(model)
        if pieces is None:
            raise fail("threshold", type(self).__name__, "a best-arm problem", type(problem).__name__)
        self._check_plain(pieces.top, pieces.bottom, *pieces.shift)
        return pieces

    def _check_plain(self, top, bottom, slope: float = 1.0, offset: float = 0.0) -> None:
        if len(top) != 1 or len(bottom) != self.n_arms - 1:
            raise fail("threshold", type(self).__name__, "a best-arm problem", "pieces of another goal")
        if (float(slope), float(offset)) != self.shift:
            raise fail("threshold", type(self).__name__, f"a best-arm problem of the shift {self.shift} the rule was "
                       "built for (the problem builds it: BestArmProblem.threshold)",
                       f"pieces of the shift {(slope, offset)}")

    def _evidence(self, problem, model, t: int) -> tuple[float, float]:
        """``(level + margin, level)``: the margin of the first hypothesis not rejected (:meth:`decide`)."""
        level = float(self.level)
        return level + float(self._pieces_margin(problem, model)), level

    def model_margin(self, model, variances, top, bottom, slope: float = 1.0, offset: float = 0.0) -> float:
        """The margin on a model (the hook problems call): the result of :meth:`advance` on the run's own model
        at its current count, else :meth:`margin`.  Best-arm pieces of the threshold's :attr:`shift` only."""
        self._check_plain(top, bottom, slope, offset)
        decided = self._decided
        if decided is not None and decided[0] is model and np.array_equal(self._seen, model.counts):
            return decided[1]
        return self.margin(model.counts, model.sums, model.estimate, variances)

    def compiled_form(self) -> np.ndarray | None:
        """The t-only form of ``threshold(t)`` (its fallback's; what LUCB's confidence bounds read)."""
        return self.fallback.compiled_form()

    def compiled_pieces(self) -> LeaderForm:
        """The numbers a compiled loop reads and a copy of the state (:func:`pybai.stopping.compiled.leader_rule_check`)."""
        return LeaderForm(int(self._code), self.level, self.min_statistic, self.sticky, self._scales, self._emax,
                          self._consts, self.state_.copy(), float(self.product_weight), float(self.leader_start),
                          *self.shift, float(self.lead_weight))

    def continue_from(self, other) -> None:
        """Keep the e-processes of ``other`` (a rule of the same class and arms, the one replaced when the answer
        tolerance changes): its leaders, segments and plain rejections (flag 1: valid for every tolerance); its
        epsilon rejections (flags 2 + a) are dropped, since they were of its own shift.  With one process for the
        whole run, a wrong stop before or after the change still needs E_a*(mu) >= 1/delta: probability at most
        delta (docs/thresholds.md)."""
        if type(other) is not type(self) or other.n_arms != self.n_arms:
            return
        state = other.state_.copy()
        flags = state[4 * self.n_arms: 5 * self.n_arms]
        flags[flags >= 2.0] = 0.0
        self.load_state(state)

    def process_id(self) -> str:
        """The class, leader weight, answer tolerance and delta: what the remembered rejections were decided by.
        The leaders and segments of the state do not depend on them (any predictable leader sequence is valid)."""
        return f"{type(self).__name__} lead={float(self.lead_weight)!r} shift={self.shift!r} delta={self.delta!r}"

    def forget_rejections(self, state: np.ndarray) -> np.ndarray:
        """A copy of ``state`` with every remembered rejection (plain and epsilon) cleared."""
        state = np.array(state, dtype=float)
        state[4 * self.n_arms: 5 * self.n_arms] = 0.0
        return state

    def load_state(self, state: np.ndarray) -> None:
        """Take the state a compiled run reached (:meth:`pybai.stopping.rule.StoppingRule.load_state`)."""
        self.state_[:] = state
        self._decided = None
        self._seen[:] = -1.0

    def __getstate__(self) -> dict:
        out = dict(self.__dict__)
        out["_decided"] = None  # a reference to a model, not part of the rule
        out["_plain"] = out["_var_of"] = None  # caches of the problem's
        return out

    def _params(self) -> dict:
        params: dict[str, Any] = {"delta": self.delta, "n_arms": self.n_arms}
        if self.shift != (1.0, 0.0):
            params["shift"] = self.shift
        return params


class GaussianLeaderThreshold(LeaderThreshold):
    """Gaussian arms with known variances: half-normal mixtures (module docstring).

    ``threshold(t)`` answers :class:`~pybai.stopping.kk21.GaussianThreshold`.
    """

    name = "leader-gaussian"
    _code = GAUSSIAN


class BernoulliLeaderThreshold(LeaderThreshold):
    """Rewards in [0, 1]: tilted half-normal mixtures, variance-adaptive (module docstring).

    ``threshold(t)`` answers :class:`~pybai.stopping.kt.BernoulliKTThreshold`.
    """

    name = "leader-bernoulli"
    _code = BERNOULLI

    def _make_fallback(self) -> Threshold:
        return BernoulliKTThreshold(self.delta, self.n_alternatives, 2)



class GaussianLeaderScalesThreshold(GaussianLeaderThreshold):
    """Gaussian arms with known variances, the scale-pair prior (kind ``"leader-scales"``, module docstring)."""

    name = "leader-scales-gaussian"
    product_weight = SCALE_PAIR_WEIGHT


class BernoulliLeaderScalesThreshold(BernoulliLeaderThreshold):
    """Rewards in [0, 1], the scale-pair prior (kind ``"leader-scales"``, module docstring)."""

    name = "leader-scales-bernoulli"
    product_weight = SCALE_PAIR_WEIGHT


class GaussianLeaderSettledThreshold(GaussianLeaderScalesThreshold):
    """Gaussian arms with known variances, the scale-pair prior, leader processes started once the leader has settled
    (kind ``"leader-settled"``, docs/thresholds.md)."""

    name = "leader-settled-gaussian"
    leader_start = STICKY


class BernoulliLeaderSettledThreshold(BernoulliLeaderScalesThreshold):
    """Rewards in [0, 1], the scale-pair prior, leader processes started once the leader has settled (kind
    ``"leader-settled"``, docs/thresholds.md)."""

    name = "leader-settled-bernoulli"
    leader_start = STICKY


class GaussianLeaderFavouredThreshold(GaussianLeaderSettledThreshold):
    """Gaussian arms with known variances, the settled leaders with the weight ``FAVOURED_LEADER_WEIGHT`` = 0.9 on the
    leader process (kind ``"leader-favoured"``, docs/thresholds.md)."""

    name = "leader-favoured-gaussian"
    lead_weight = FAVOURED_LEADER_WEIGHT


class BernoulliLeaderFavouredThreshold(BernoulliLeaderSettledThreshold):
    """Rewards in [0, 1], the settled leaders with the weight ``FAVOURED_LEADER_WEIGHT`` = 0.9 on the leader process
    (kind ``"leader-favoured"``, docs/thresholds.md)."""

    name = "leader-favoured-bernoulli"
    lead_weight = FAVOURED_LEADER_WEIGHT
