"""Stopping rules inside compiled loops, exactly as their Python ``decide``: the one place that names their numbers.

A compiled loop reads a stopping rule at one delta or several (:class:`~pybai.stopping.rule.StoppingRule`)
as one :class:`CompiledRule`, a named tuple of arrays with one row per delta, built by
:func:`compile_rule` from what each threshold offers:

* every threshold of ``t`` alone its :meth:`~pybai.stopping.base.Threshold.compiled_form` (the log-log
  shape of the heuristic and Kaufmann & Koolen thresholds, the plain-log shape of the KT one),
  evaluated by :func:`threshold_value` with the same operations in the same order; numba's
  ``math.log`` is the C library's, as Python's is, so the values are bit-identical
  (tests/stopping/test_compiled.py checks it);
* a per-pair rule (:mod:`pybai.stopping.pair_mixture`, :mod:`pybai.stopping.tilt`) its
  :meth:`~pybai.stopping.base.Threshold.compiled_pieces` (a :class:`PairForm`: the numbers its margin
  kernel reads), which :func:`pair_rule_margin` passes to the very kernel the Python rule calls, and
  the t-only form of its fallback (what LUCB's confidence bounds read).

* the leader rule (:mod:`pybai.stopping.leader`) its :meth:`~pybai.stopping.base.Threshold.compiled_pieces`
  (a :class:`LeaderForm`: its numbers and a copy of its state), which :func:`leader_rule_check` advances
  and decides with the very kernels the Python rule calls; :meth:`StoppingRule.load_state
  <pybai.stopping.rule.StoppingRule.load_state>` gives each test the state its row reached.

A rule whose thresholds offer neither (the betting, unknown-variance and feasible rules, the
linear ones) has no compiled form: its runs take the ask/tell loop.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from pybai.stopping._leader_kernels import leader_advance, leader_min_margin
from pybai.stopping._pair_mixture_kernels import min_pair_margin
from pybai.stopping._tilt_kernels import TILT_RULE, min_tilt_margin

__all__ = ["threshold_value", "compile_rule", "CompiledRule", "PairForm", "LeaderForm", "pair_rule_margin",
           "leader_rule_check", "row_may_stop", "PLAIN_LOG", "T_ONLY", "PAIR_MIXTURE", "LEADER"]

#: :attr:`CompiledRule.kind` of a rule of ``t`` only: the statistic against :func:`threshold_value`
T_ONLY = 0
#: :attr:`CompiledRule.kind` of the per-pair mixture rules: the statistic above ``min_statistic``, then
#: every pair's margin positive (:func:`pair_rule_margin`)
PAIR_MIXTURE = 1
#: :attr:`CompiledRule.kind` of the leader rule: each row's state advanced, then the statistic above
#: ``min_statistic`` and every hypothesis rejected (:func:`leader_rule_check`)
LEADER = 2

#: ``shift`` of a compiled form without the outer logarithm: ``const + coef ln(t / scale)``
PLAIN_LOG = -math.inf


class PairForm(NamedTuple):
    """The numbers a per-pair mixture rule's margin kernel reads (:func:`~pybai.stopping._pair_mixture_kernels.min_pair_margin`)."""

    code: int  # the kernel code (0 Gaussian, 1 Bernoulli: pair_mixture's kernels; TILT_RULE: the tilted mixtures)
    level: float  # ln(m / delta)
    min_statistic: float  # no pair passes while the GLR statistic is at most this
    alpha: float  # the Beta prior's alpha
    w_beta: float  # the Beta mixture's weight
    gvar: float  # the sub-Gaussian variance of rewards in [0, 1]
    one_sided: bool  # half-normal priors
    scales: np.ndarray  # the prior scales of the normal mixtures


class LeaderForm(NamedTuple):
    """The numbers the leader rule's kernels read (:mod:`pybai.stopping._leader_kernels`) and its state."""

    code: int  # the family's kernel code (GAUSSIAN: known variances; BERNOULLI: rewards in [0, 1])
    level: float  # ln(1 / delta)
    min_statistic: float  # no stop while the GLR statistic is at most this
    sticky: float  # the pair GLR by which a new leader must beat the current one
    scales: np.ndarray  # the prior scales
    emax: np.ndarray  # the tilt caps of the scales (tilt_caps)
    consts: np.ndarray  # (3, J): the scales' constants (scale_constants)
    state: np.ndarray  # a copy of the run's state
    product: float  # the weight of the independent-scales part of the scale-pair prior (0: one common scale)
    start: float  # the pair GLR by which a first leader must beat the runner-up (0: at once; leader_advance)
    slope: float = 1.0  # the answer tolerance's shift (c, e) of the pieces {lambda_a <= c lambda_b - e}: (1, 0) plain
    offset: float = 0.0


class CompiledRule(NamedTuple):
    """A stopping rule at n deltas as a compiled loop reads it: one row per delta, ordered so that each
    row stops no later than the next on every path (the order one trajectory crosses them in).

    One type for every kind (the fields a kind does not read are empty), so that a compiled loop is one
    function for every rule."""

    kind: int  # T_ONLY, PAIR_MIXTURE or LEADER
    times: np.ndarray  # (n, 5): each delta's t-only form (NaN: none), see threshold_value
    level: np.ndarray  # (n,): each delta's level (PAIR_MIXTURE, LEADER)
    min_statistic: np.ndarray  # (n,): each delta's min_statistic (PAIR_MIXTURE, LEADER)
    code: int  # the kernel code: PairForm.code (PAIR_MIXTURE), LeaderForm.code (LEADER)
    alpha: float  # PAIR_MIXTURE: the rest of the PairForm shared by every delta
    w_beta: float
    gvar: float
    one_sided: bool
    scales: np.ndarray  # PAIR_MIXTURE, LEADER: the prior scales
    sticky: float  # LEADER: the rest of the LeaderForm shared by every delta
    emax: np.ndarray
    consts: np.ndarray  # (3, J)
    state: np.ndarray  # (n, state size): each delta's state, advanced in place by the loop
    product: float  # LEADER: the weight of the scale-pair prior's independent-scales part
    start: float  # LEADER: the pair GLR by which a first leader must beat the runner-up (0: at once)
    slope: float  # LEADER: the answer tolerance's shift (c, e), (1, 0) without one (LeaderForm)
    offset: float


@njit(cache=True)
def threshold_value(form, t):
    """``const + coef ln(shift + ln(t / scale))``, or the value at one when ``t / scale <= 1``.

    ``form`` is ``[const, coef, shift, scale, value at one]`` from
    :meth:`~pybai.stopping.base.LogLogThreshold.compiled_form`; ``t`` a sample count (float).
    With ``shift`` = :data:`PLAIN_LOG` (-inf) the shape is ``const + coef ln(t / scale)``
    (:meth:`~pybai.stopping.kt.BernoulliKTThreshold.compiled_form`).
    """
    u = t / form[3]
    if u <= 1.0:
        return form[4]
    if form[2] == PLAIN_LOG:
        return form[0] + form[1] * math.log(u)
    return form[0] + form[1] * math.log(form[2] + math.log(u))


@njit(cache=True, inline="always")
def row_may_stop(kind, times, min_statistic, i, z, t):
    """Whether row ``i`` of a rule (its fields ``kind``, ``times`` and ``min_statistic`` of :class:`CompiledRule`,
    read once before the loop) can stop at ``t`` samples with GLR statistic ``z``: a necessary condition, cheap
    enough for every sample (the statistic above the row's ``threshold(t)``, or above its ``min_statistic`` for a
    per-pair rule; always for the leader rule, whose rows advance their state at every check).  A compiled loop
    checks the rule itself only when it holds.

    Inlined into the loops (numba's ``inline="always"``): a called check passing the rule at every sample cost
    the cheapest sampling rules a third of their time (uniform, 10 arms: 582 ns a sample against 403 ns gated).
    """
    if kind == LEADER:
        return True
    if kind == PAIR_MIXTURE:
        return z > min_statistic[i]
    return z > threshold_value(times[i], float(t))


@njit(cache=True)
def pair_rule_margin(rule, i, counts, means, var, top, bot, c, e):
    """The smallest margin of row ``i`` of a :data:`PAIR_MIXTURE` rule over the pairs (top x bot), pieces
    shifted by (c, e): what the rule's ``min_margin`` computes, by its kernel code (:attr:`PairForm.code`: the
    normal and Beta mixtures of :mod:`pybai.stopping.pair_mixture`, or the tilted mixtures of
    :mod:`pybai.stopping.tilt`)."""
    if rule.code == TILT_RULE:
        return min_tilt_margin(counts, means, top, bot, rule.level[i], rule.w_beta, rule.alpha, rule.scales, c, e)
    return min_pair_margin(rule.code, counts, means, var, top, bot, rule.level[i], rule.alpha, rule.w_beta,
                           rule.scales, rule.gvar, rule.one_sided, c, e)


@njit(cache=True)
def leader_rule_check(rule, i, z, counts, sums, means, var):
    """Row ``i`` of a :data:`LEADER` rule at a check of the run: its leaders advanced
    (:func:`~pybai.stopping._leader_kernels.leader_advance`), then, above the GLR filter, its decision,
    remembering the hypotheses it rejects (what :meth:`LeaderThreshold.advance
    <pybai.stopping.leader.LeaderThreshold.advance>` computes); True when the row stops."""
    state = rule.state[i]
    leader_advance(state, counts, sums, means, rule.code, var, rule.sticky, rule.start)
    return z > rule.min_statistic[i] and leader_min_margin(state, rule.code, counts, sums, means, var, rule.scales,
                                                           rule.emax, rule.consts, rule.level[i], True,
                                                           rule.product, rule.slope, rule.offset) > 0.0


def _time_form(threshold) -> np.ndarray:
    """The t-only form of ``threshold`` (of its fallback for a count-dependent one); NaN when it has none."""
    form = threshold.compiled_form()
    return np.full(5, np.nan) if form is None else np.asarray(form, dtype=float)


def compile_rule(thresholds) -> CompiledRule | None:
    """``thresholds`` (one per delta) as a :class:`CompiledRule`, or None when a compiled loop cannot play them.

    None when one of them has no compiled form, when they mix a per-pair rule with another kind, or
    when they are not ordered so that each one stops no later than the next on every path.
    """
    pieces = [th.compiled_pieces() for th in thresholds]
    n = len(thresholds)
    times = np.array([_time_form(th) for th in thresholds]).reshape(n, 5)
    # the LEADER fields of another kind
    none = (0.0, np.zeros(0), np.zeros((3, 0)), np.zeros((n, 0)), 0.0, 0.0, 1.0, 0.0)
    if all(p is None for p in pieces):
        if np.isnan(times).any() or not _rising(times):
            return None
        empty = np.zeros(n)
        return CompiledRule(T_ONLY, times, empty, empty, 0, 0.0, 0.0, 0.0, False, np.zeros(0), *none)
    if any(p is None for p in pieces) or any(not th.count_dependent for th in thresholds):
        return None
    if all(isinstance(p, LeaderForm) for p in pieces):
        return _leader_rule(pieces, times)
    if not all(isinstance(p, PairForm) for p in pieces):
        return None
    first = pieces[0]
    same = all((p.code, p.alpha, p.w_beta, p.gvar, p.one_sided) == (first.code, first.alpha, first.w_beta, first.gvar,
                                                                    first.one_sided)
               and np.array_equal(p.scales, first.scales) for p in pieces)
    level = np.array([p.level for p in pieces])
    floor = np.array([p.min_statistic for p in pieces])
    if not (same and np.all(np.diff(level) >= 0.0) and np.all(np.diff(floor) >= 0.0)):
        return None  # a pair's margin is one number minus the level: a row crossed implies every earlier one
    return CompiledRule(PAIR_MIXTURE, times, level, floor, int(first.code), float(first.alpha), float(first.w_beta),
                        float(first.gvar), bool(first.one_sided), np.asarray(first.scales, dtype=float), *none)


def _leader_rule(pieces, times) -> CompiledRule | None:
    """Leader rows: one rule in one state differing only in its level and ``min_statistic``, both nondecreasing
    (the e-processes do not read delta: a row crossed implies every earlier one crossed)."""
    first = pieces[0]
    same = all(p.code == first.code and p.sticky == first.sticky and p.product == first.product
               and p.start == first.start and (p.slope, p.offset) == (first.slope, first.offset)
               and np.array_equal(p.scales, first.scales) and np.array_equal(p.state, first.state) for p in pieces)
    level = np.array([p.level for p in pieces])
    floor = np.array([p.min_statistic for p in pieces])
    if not (same and np.all(np.diff(level) >= 0.0) and np.all(np.diff(floor) >= 0.0)):
        return None
    state = np.array([np.asarray(p.state, dtype=float) for p in pieces])
    return CompiledRule(LEADER, times, level, floor, int(first.code), 0.0, 0.0, 0.0, False,
                        np.asarray(first.scales, dtype=float), float(first.sticky), np.asarray(first.emax, dtype=float),
                        np.ascontiguousarray(first.consts, dtype=float), state, float(first.product), float(first.start),
                        float(first.slope), float(first.offset))


def _rising(times: np.ndarray) -> bool:
    """Whether each t-only row is at most the next at every t (checked on a geometric grid of t)."""
    if times.shape[0] < 2:
        return True
    return bool(np.all(np.diff(_grid_values(np.ascontiguousarray(times), _GRID), axis=0) >= 0.0))


#: the sample counts at which :func:`_rising` compares t-only thresholds
_GRID = np.unique(np.round(np.geomspace(1.0, 1e9, 400)))


@njit(cache=True)
def _grid_values(forms, ts):
    """``threshold_value(forms[i], ts[j])`` for every row and grid point, in one compiled call."""
    out = np.empty((forms.shape[0], ts.shape[0]))
    for i in range(forms.shape[0]):
        for j in range(ts.shape[0]):
            out[i, j] = threshold_value(forms[i], ts[j])
    return out
