r"""Top-k identification without the union over pairs: one test per k-set, on a common separating level.

The per-pair rule tests each piece {lambda_j >= lambda_i} (i in the empirical top set, j outside) at level
ln(k (K - k)/delta).  This rule (kind ``"topk-leader"``) tests, for every set S of k arms, the hypothesis
H_S = {lambda : min_(a in S) lambda_a >= max_(b not in S) lambda_b} ("S is a top-k set") with one e-process, at
level ln(1/delta), and stops with the empirical top-k set S_hat when every other set has been rejected.

**The e-process.**  H_S is the union over theta of {lambda_a >= theta >= lambda_b for a in S, b not in S}.  With the
one-sided half-normal mixtures of the pair rules at a prior scale c (Gaussian arms, known variances): D_a,c(theta)
bets that a's mean is below theta, U_b,c(theta) that b's mean is above theta (each over all of the arm's samples), and

    P_in,c(theta)  = (1/2) L_in,c(theta)  + (1/2) (1/k) sum_(a in S) D_a,c(theta),
    P_out,c(theta) = (1/2) L_out,c(theta) + (1/2) (1/(K - k)) sum_(b not in S) U_b,c(theta),

L_out,c a leader process over the arms outside S (a self-financing portfolio in one arm at a time, the empirical best
of the complement; fresh mixtures of the leader's later samples; sticky changes; started once settled: the rule of
:mod:`pybai.stopping.leader`), L_in,c one over the arms of S (the empirical worst of S).  A side of one arm is that
arm's factor itself.  With the scale-pair prior of ``"leader-scales"`` (p = 1/2):

    E_S(theta) = (1/2) (1/J) sum_c P_in,c P_out,c + (1/2) [(1/J) sum_c P_in,c] [(1/J) sum_c P_out,c].

For k = 1 this is the e-process of ``"leader-settled"`` for H_j ("arm j is the best").

**Tracking.**  The leader processes of a set hold cash (value 1) until the set gets a slot: the empirical top-k set
and every set one swap away from it get one after each observation (once every arm has a sample), up to
:func:`default_cap` slots; a set never given a slot has L = 1 throughout.  Untracked sets are rejected together by a
common lower bound (:func:`pybai.stopping._topk_leader_kernels.topk_min_margin`).

**Theorem (delta-correct for every sampling rule)** and its proof: docs/thresholds.md, "Top-k without the union over
pairs".  Gaussian arms with known variances, or rewards in [0, 1] with the tilted half-normal mixtures of
:mod:`pybai.stopping.tilt` (:class:`BernoulliTopKLeaderThreshold`); compiled runs are not offered (the strategies run
the ask/tell loop).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import check_positive_int, fail
from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.stopping._leader_kernels import MAX_SEGMENTS, STICKY
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps
from pybai.stopping._topk_leader_kernels import (HEADER, side_base, slot_size, topk_min_margin, topk_state_size,
                                                 topk_step)
from pybai.stopping.base import Decision, Threshold
from pybai.stopping.kk21 import GaussianThreshold
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.pair_mixture import DEFAULT_SCALES

__all__ = ["GaussianTopKLeaderThreshold", "BernoulliTopKLeaderThreshold", "default_cap", "MAX_TRACKED"]

#: The most sets a run tracks, whatever K and k.
MAX_TRACKED = 128


def default_cap(n_arms: int, k: int) -> int:
    """Slots for tracked sets: min(4 k (K - k), :data:`MAX_TRACKED`, C(K, k))."""
    return int(min(4 * k * (n_arms - k), MAX_TRACKED, math.comb(n_arms, k)))


class GaussianTopKLeaderThreshold(Threshold):
    """Top-k identification, one e-process per k-set on a common separating level (module docstring); Gaussian arms
    with known variances.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_arms : int
        Number of arms ``K >= 2``.
    k : int
        Size of the answer, ``1 <= k < K``.
    cap : int, optional
        Slots for tracked sets (default :func:`default_cap`).

    Attributes
    ----------
    level : float
        ``ln(1 / delta)``.
    min_statistic : float
        0: no stop without a unique empirical top-k set.
    fallback : Threshold
        The t-only proven threshold answered by ``threshold(t)`` (LUCB's confidence bounds read it).
    state_ : ndarray
        The tracked sets (:mod:`pybai.stopping._topk_leader_kernels`).
    """

    name = "topk-leader-gaussian"
    count_dependent = True
    stateful = True
    proven = True
    _code = GAUSSIAN

    def __init__(self, delta: float, n_arms: int, k: int, cap: int | None = None):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_arms = check_positive_int(n_arms, "n_arms", owner, minimum=2)
        self.k = check_positive_int(k, "k", owner)
        if self.k >= self.n_arms:
            raise fail("k", owner, f"an int in [1, n_arms - 1] = [1, {self.n_arms - 1}]", k)
        self.cap = default_cap(self.n_arms, self.k) if cap is None else check_positive_int(cap, "cap", owner)
        self.level = math.log(1.0 / self.delta)
        self.min_statistic = 0.0
        self.sticky = STICKY
        self.start = STICKY
        #: the most 2 x 2 choices the untracked sets' bound enumerates (else one pair of arms each)
        self.limit = 4 * self.k * (self.n_arms - self.k)
        self._scales = np.array(DEFAULT_SCALES, dtype=float)
        self._emax = tilt_caps(self._scales)
        self._consts = scale_constants(self._scales, self._emax)
        self.fallback = self._make_fallback()
        self.state_ = self.fresh_state()
        self._decided: tuple | None = None
        self._seen = np.full(self.n_arms, -1.0)
        self._var_of: Any = None
        self._var = np.zeros(self.n_arms)

    def _make_fallback(self) -> Threshold:
        return GaussianThreshold(self.delta, self.k * (self.n_arms - self.k), 2)

    def fresh_state(self) -> np.ndarray:
        """The state before any observation: no set tracked."""
        return np.zeros(topk_state_size(self.n_arms, self.k, self.cap))

    def check_state(self, counts) -> str | None:
        """Why ``state_`` cannot be the run's at these per-arm ``counts`` (a restored state), or None."""
        K, k, state = self.n_arms, self.k, self.state_
        counts = np.asarray(counts, dtype=float)

        def whole(x, low, high) -> bool:
            x = np.asarray(x)
            return bool(np.all((x == np.floor(x)) & (x >= low) & (x <= high)))

        n = state[0]
        if not whole(n, 0, self.cap) or not whole(state[1], 0, 1) or state[2] != 0:
            return f"the header: a whole number of tracked sets in [0, {self.cap}], a flag 0 or 1, then 0"
        n = int(n)
        size = slot_size(k)
        if np.any(state[HEADER + n * size:] != 0):
            return "the unused slots: 0"
        for s in range(n):
            slot = state[HEADER + s * size: HEADER + (s + 1) * size]
            members = slot[:k]
            if not whole(members, 0, K - 1) or np.any(np.diff(members) <= 0) or not whole(slot[k], 0, 1):
                return "each tracked set: k distinct arms, ascending, and a rejection flag 0 or 1"
            inside = np.zeros(K, dtype=bool)
            inside[members.astype(int)] = True
            for side in range(2):
                problem = self._check_side(state, side_base(k, s, side), inside if side == 0 else ~inside, counts,
                                           whole)
                if problem:
                    return problem
        return None

    def _check_side(self, state, base: int, arms, counts, whole) -> str | None:
        lead, start, start_sum, done = state[base: base + 4]
        segments = state[base + 4: base + 4 + 3 * MAX_SEGMENTS].reshape(MAX_SEGMENTS, 3)
        if lead == -1:
            if start != 0 or start_sum != 0 or done != 0 or np.any(segments != 0):
                return "a side without a leader: no segment"
            return None
        if not whole(lead, 0, self.n_arms - 1) or not arms[int(lead)] or not whole(start, 0, counts[int(lead)]):
            return "each side's leader: an arm of its side, its count at the segment's start up to its count"
        if not whole(done, 0, MAX_SEGMENTS) or np.any(segments[int(done):] != 0):
            return f"completed segments in [0, {MAX_SEGMENTS}], the unused ones 0"
        for arm, samples, _ in segments[: int(done)]:
            if not whole(arm, 0, self.n_arms - 1) or not arms[int(arm)] or not whole(samples, 1, counts[int(arm)]):
                return "the completed segments (arm of the side, samples from 1 up to its count, sum)"
        return None

    def __call__(self, t: float) -> float:
        """The t-only proven threshold ``fallback(t)`` (for callers that know only ``t``)."""
        return self.fallback(t)

    def values(self, t: Any) -> np.ndarray:
        return self.fallback.values(t)

    def advance(self, model, variances) -> None:
        """The run's own step on its model after each observation: track, update the leaders, then test the sets
        and remember those rejected."""
        self._step(model, np.asarray(model.counts, dtype=float), np.asarray(model.sums, dtype=float),
                   np.asarray(model.estimate, dtype=float), variances)

    def run_check(self, problem, model, t: int) -> Decision:
        """:meth:`advance` then :meth:`decide` in one compiled call
        (:func:`~pybai.stopping._topk_leader_kernels.topk_step`)."""
        self._pieces_of(problem, model)
        z = problem.statistic(model)
        margin = self._step(model, np.asarray(model.counts, dtype=float), np.asarray(model.sums, dtype=float),
                            np.asarray(model.estimate, dtype=float), problem.family.variances)
        return Decision(z, z > self.min_statistic and margin > 0.0)

    def _step(self, model, counts, sums, means, variances) -> float:
        margin = topk_step(self.state_, self.n_arms, self.k, self.cap, self._code, counts, sums, means,
                           self._variances(variances), self.sticky, self.start, self._scales, self._emax, self._consts,
                           self.level, self.limit, self._seen)
        self._decided = (model, margin)
        return margin

    def _variances(self, variances) -> np.ndarray:
        if self._code != GAUSSIAN:
            return self._var
        if variances is not self._var_of:
            self._var = np.asarray(variances, dtype=float)
            self._var_of = variances
        return self._var

    def margin(self, counts, sums, means, variances) -> float:
        """Smallest margin over the sets other than the empirical top-k set not rejected before, with the current
        state, which it does not change (a what-if); stop when > 0."""
        return float(topk_min_margin(self.state_, self.n_arms, self.k, self.cap, self._code,
                                     np.asarray(counts, dtype=float), np.asarray(sums, dtype=float),
                                     np.asarray(means, dtype=float), self._variances(variances), self._scales,
                                     self._emax, self._consts, self.level, False, self.limit))

    def decide(self, problem, model, t: int) -> Decision:
        """Stop when the GLR statistic is above ``min_statistic`` and :meth:`model_margin` is positive."""
        z = problem.statistic(model)
        if not z > self.min_statistic:
            return Decision(z, False)
        return Decision(z, self._pieces_margin(problem, model) > 0.0)

    def _pieces_margin(self, problem, model) -> float:
        pieces = self._pieces_of(problem, model)
        return self.model_margin(model, pieces.variances, pieces.top, pieces.bottom, *pieces.shift)

    def _pieces_of(self, problem, model):
        pieces = problem.pieces(model)
        if pieces is not None:
            self._check_plain(pieces.top, pieces.bottom, *pieces.shift)
        return pieces

    def _check_plain(self, top, bottom, slope: float = 1.0, offset: float = 0.0) -> None:
        if slope != 1.0 or offset != 0.0 or len(top) != self.k or len(bottom) != self.n_arms - self.k:
            raise fail("threshold", type(self).__name__, f"a top-{self.k} problem without epsilon",
                       "pieces of another goal")

    def _evidence(self, problem, model, t: int) -> tuple[float, float]:
        """``(level + margin, level)``: the margin of the first set not rejected (:meth:`decide`)."""
        level = float(self.level)
        pieces = self._pieces_of(problem, model)
        if pieces is None:
            return -math.inf, level
        return level + float(self._pieces_margin(problem, model)), level

    def model_margin(self, model, variances, top, bottom, slope: float = 1.0, offset: float = 0.0) -> float:
        """The margin on a model: the result of the run's own step at its current count, else :meth:`margin`."""
        self._check_plain(top, bottom, slope, offset)
        decided = self._decided
        if decided is not None and decided[0] is model and np.array_equal(self._seen, model.counts):
            return decided[1]
        return self.margin(model.counts, model.sums, model.estimate, variances)

    def compiled_form(self) -> None:
        """None: compiled runs do not play this rule (the strategies run the ask/tell loop)."""
        return None

    def load_state(self, state: np.ndarray) -> None:
        self.state_[:] = state
        self._decided = None
        self._seen[:] = -1.0

    def __getstate__(self) -> dict:
        out = dict(self.__dict__)
        out["_decided"] = None
        out["_var_of"] = None
        return out

    def _params(self) -> dict:
        return {"delta": self.delta, "n_arms": self.n_arms, "k": self.k, "cap": self.cap}


class BernoulliTopKLeaderThreshold(GaussianTopKLeaderThreshold):
    """The same rule for rewards in [0, 1]: the tilted half-normal mixtures of :mod:`pybai.stopping.tilt`
    (variance-adaptive); ``threshold(t)`` answers :class:`~pybai.stopping.kt.BernoulliKTThreshold`."""

    name = "topk-leader-bernoulli"
    _code = BERNOULLI

    def _make_fallback(self) -> Threshold:
        return BernoulliKTThreshold(self.delta, self.k * (self.n_arms - self.k), 2)
