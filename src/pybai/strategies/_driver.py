"""The one compiled run driver: plan, select, draw, record, check the stopping rule, ``max_samples``.

:func:`run_trajectory` plays a whole simulated run of a sequential rule that asks one sample per
request.  Its loop is written once; the rule's choice of the next sample is one *step function*
per rule (:mod:`pybai.strategies._steps`: :func:`~pybai.strategies._steps.uniform_step`,
:func:`~pybai.strategies._steps.tas_step`, :func:`~pybai.strategies._steps.top_two_step`,
:func:`~pybai.strategies._steps.game_step`), dispatched on the integer code of the rule
(:data:`UNIFORM`, :data:`TAS`, :data:`TOP_TWO`, :data:`GAME`) by :func:`select`.  The ask/tell
``_select`` of each rule calls that same step function, so a rule's choice exists once.

The arguments are named tuples of arrays: :class:`Goal` (the problem's kernels: goal, family code,
variances, answer size, the shift (c, e) of its pieces), :class:`Arms` (the simulated truth),
:class:`Stats` (the model's counts, sums and estimate, updated in place), :class:`RuleState` (the
rule's own state, every compiled rule's fields; a rule uses its own, the others are empty) and
:class:`Records` (per delta: stopping time, statistic, counts and sums when it stopped); the
stopping rule is a :class:`~pybai.stopping.compiled.CompiledRule`.

Why one state type for every rule: numba compiles one function per combination of argument
types, so a state of one type makes the driver one compiled function for every rule (the common
checks compile it once, not once per rule).

KL-LUCB asks two samples per round (the weakest arm of the answer and its strongest challenger),
counted as one answered request: its loop stays its own (:func:`pybai.strategies.lucb._lucb_run`),
built from the same pieces (:func:`draw_reward`, :func:`record`, :func:`check_rule`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pybai.problems.compiled import run_glr, run_pieces
from pybai.stopping.compiled import (LEADER, PAIR_MIXTURE, leader_rule_check, pair_rule_margin, row_may_stop,
                                     threshold_value)
from pybai.strategies._game_kernels import game_step
from pybai.strategies._steps import tas_step, top_two_step, uniform_step

__all__ = ["Goal", "Arms", "Stats", "RuleState", "Records", "rule_state", "new_records", "run_trajectory", "select",
           "draw_reward", "record", "check_rule", "UNIFORM", "TAS", "TOP_TWO", "GAME"]

#: :attr:`RuleState.code` of each rule with a compiled step
UNIFORM, TAS, TOP_TWO, GAME = 0, 1, 2, 3


class Goal(NamedTuple):
    """The problem's kernels (:class:`~pybai.problems.run_kernels.RunKernels`) as numbers."""

    kind: int  # the goal's code (pybai.problems.run_kernels)
    code: int  # the family's kernel code (pybai.models._kl)
    var: np.ndarray  # the family's known variances
    k: int  # the size of the answer
    c: float  # the shift (c, e) of the pieces: (1, 0) plain, another with an answer tolerance
    e: float


class Arms(NamedTuple):
    """The simulated truth: rewards [u < mu_a] (``bernoulli``) or mu_a + sigma_a z."""

    truth: np.ndarray
    sd: np.ndarray
    bernoulli: bool


class Stats(NamedTuple):
    """The model's statistics (:class:`~pybai.models.base.EmpiricalMeans`), updated in place."""

    counts: np.ndarray
    sums: np.ndarray
    est: np.ndarray


class RuleState(NamedTuple):
    """Every compiled rule's parameters and state (a rule reads its own; the rest are empty arrays)."""

    code: int  # UNIFORM, TAS, TOP_TWO or GAME
    c_tracking: bool  # tas: C-tracking (else D)
    tci: bool  # top-two: the ln N_j penalty of the challenger
    leader_tracking: bool  # top-two: the leader's proportion tracked (else a coin)
    beta: float  # top-two: the leader's proportion
    optimistic: bool  # game: optimistic gains
    hint: np.ndarray  # tas: the oracle's warm start
    cumulative: np.ndarray  # tas, game: the tracking sums
    rounds: np.ndarray  # top-two: rounds as leader
    pulls: np.ndarray  # top-two: pulls as leader
    cum_loss: np.ndarray  # game: AdaHedge's cumulative losses
    mix_gap: np.ndarray  # game: AdaHedge's mixability gap (one number)
    scratch: np.ndarray  # (3, n) work rows: game's weights, gains, losses; top-two's costs


_EMPTY = np.empty(0)


def rule_state(code: int, n: int, *, c_tracking: bool = False, tci: bool = False, leader_tracking: bool = False,
               beta: float = 0.0, optimistic: bool = False, hint=_EMPTY, cumulative=_EMPTY, rounds=_EMPTY,
               pulls=_EMPTY, cum_loss=_EMPTY, mix_gap: float = 0.0) -> RuleState:
    """A :class:`RuleState` for rule ``code`` on ``n`` sources (arrays are shared, not copied)."""
    return RuleState(int(code), bool(c_tracking), bool(tci), bool(leader_tracking), float(beta), bool(optimistic),
                     hint, cumulative, rounds, pulls, cum_loss, np.array([float(mix_gap)]), np.empty((3, n)))


class Records(NamedTuple):
    """Per delta: stopping time (-1: not stopped), statistic and model statistics when it stopped."""

    stop_t: np.ndarray
    stop_z: np.ndarray
    counts: np.ndarray
    sums: np.ndarray


def new_records(n_deltas: int, n_sources: int) -> Records:
    return Records(np.full(n_deltas, -1, dtype=np.int64), np.zeros(n_deltas), np.zeros((n_deltas, n_sources)),
                   np.zeros((n_deltas, n_sources)))


@njit(cache=True, inline="always")
def draw_reward(noise, truth, sd, bernoulli, a):
    """One reward of arm ``a`` (the fields of :class:`Arms`): [u < mu_a] (Bernoulli) or mu_a + sigma_a z, drawn
    from ``noise``.  Arrays, not the named tuple, and inlined (numba's ``inline="always"``), as :func:`record`:
    the loops unpack their tuples once, before the first sample."""
    if bernoulli:
        return 1.0 if noise.random() < truth[a] else 0.0
    return truth[a] + sd[a] * noise.standard_normal()


@njit(cache=True, inline="always")
def record(counts, sums, est, a, r):
    """The model's single-sample update (the fields of :class:`Stats`): count, sum and mean of arm ``a``."""
    c = counts[a] + 1.0
    total = sums[a] + r
    counts[a] = c
    sums[a] = total
    est[a] = total / c


@njit(cache=True)
def check_rule(goal, rule, stats, t, z, done, records):
    """The stopping rule at ``t`` samples, GLR statistic ``z`` (:func:`~pybai.problems.compiled.run_glr`), for the
    rows ``done:`` of ``rule`` (a :class:`~pybai.stopping.compiled.CompiledRule`).

    Each row crossed, in order, records its stopping time, the statistic and the model's
    statistics: the GLR statistic above ``threshold(t)``, or for the per-pair rules
    (:class:`~pybai.stopping.base.PieceThreshold`) the statistic above the row's ``min_statistic``
    and every pair's margin positive (:func:`pybai.stopping.compiled.pair_rule_margin` on the pieces
    of :func:`pybai.problems.compiled.run_pieces`).  Returns the new ``done``; the run is over when
    every row is done.  The loops call it only when :func:`~pybai.stopping.compiled.row_may_stop` holds
    for row ``done`` (what it tests first), so that a sample where no row can stop costs no call.
    """
    n_rows = rule.times.shape[0]
    if rule.kind == LEADER:
        return _check_leader_rows(goal, rule, stats, t, z, done, records)
    while done < n_rows:
        if rule.kind == PAIR_MIXTURE:  # the GLR filter, then every pair's own test
            if not z > rule.min_statistic[done]:
                break
            top, bot = run_pieces(goal.kind, stats.est, goal.k)
            if not pair_rule_margin(rule, done, stats.counts, stats.est, goal.var, top, bot, goal.c, goal.e) > 0.0:
                break
        elif not z > threshold_value(rule.times[done], float(t)):
            break
        records.stop_t[done] = t
        records.stop_z[done] = z
        records.counts[done, :] = stats.counts
        records.sums[done, :] = stats.sums
        done += 1
    return done


@njit(cache=True)
def _check_leader_rows(goal, rule, stats, t, z, done, records):
    """:func:`check_rule` for the leader rule, whose rows hold a state: every row still running advances its
    leaders and decides (:func:`~pybai.stopping.compiled.leader_rule_check`), as each delta's own run does at
    this check; the rows that stop are the first ones in order.  Returns the new ``done``."""
    passed = True
    first = done
    for i in range(first, rule.times.shape[0]):
        stop = leader_rule_check(rule, i, z, stats.counts, stats.sums, stats.est, goal.var)
        if stop and passed:
            records.stop_t[i] = t
            records.stop_z[i] = z
            records.counts[i, :] = stats.counts
            records.sums[i, :] = stats.sums
            done += 1
        else:
            passed = False
    return done


@njit(cache=True, inline="always")
def select(code, kind, fam, var, k, c, e, counts, est, t, rng, c_tracking, tci, leader_tracking, beta, optimistic,
           hint, cumulative, rounds, pulls, cum_loss, mix_gap, w, g, loss):
    """The next sample of rule ``code`` after ``t`` samples: its step function.  Returns ``(sample, mix_gap)``
    (the game's AdaHedge gap after the step; ``mix_gap`` itself for the other rules).

    The arguments are the fields of the driver's tuples (:class:`Goal`: ``kind``, ``fam`` (its ``code``),
    ``var``, ``k``, ``c``, ``e``; :class:`Stats`; :class:`RuleState`; ``w``, ``g``, ``loss`` its scratch rows),
    unpacked once before the loop.  Inlined into the loop (numba's ``inline="always"``), with ``code`` read
    once before it: a called dispatch passing the whole state at every sample cost the cheapest rules about a
    quarter of their time (uniform: 554 ns a sample against 423 ns inlined, measured side by side)."""
    if code == TAS:
        return tas_step(kind, fam, counts, est, var, float(t), c, e, hint, cumulative, c_tracking), mix_gap
    if code == TOP_TWO:
        return top_two_step(fam, counts, est, var, c, e, rounds, pulls, beta, tci, leader_tracking, rng, w), mix_gap
    if code == GAME:
        return game_step(kind, fam, counts, est, var, k, c, e, t, cum_loss, mix_gap, cumulative, optimistic, w, g,
                         loss)
    return uniform_step(counts), mix_gap


@njit(cache=True)
def run_trajectory(state, goal, rule, arms, plan, max_samples, stats, noise, rng, records):
    """A whole trajectory: the initial ``plan``, then the rule's steps, until every row of the stopping
    ``rule`` is crossed or ``max_samples``.  Returns ``(samples, last statistic, stopping rule applied)``
    (one sample per answered request).

    Every tuple is unpacked once, before the first sample: reading a tuple's arrays inside the loop, and
    passing tuples to :func:`record` and :func:`draw_reward`, cost top-two about a quarter of its time.
    """
    kind, fam, var, k, c, e = goal
    truth, sd, bernoulli = arms
    counts, sums, est = stats
    code = state.code
    c_tracking, tci, leader_tracking, beta, optimistic = (state.c_tracking, state.tci, state.leader_tracking,
                                                          state.beta, state.optimistic)
    hint, cumulative, rounds, pulls, cum_loss = state.hint, state.cumulative, state.rounds, state.pulls, state.cum_loss
    w, g, loss = state.scratch[0], state.scratch[1], state.scratch[2]
    mix_gap = state.mix_gap[0]
    rule_kind, times, floor = rule.kind, rule.times, rule.min_statistic
    n_plan = plan.shape[0]
    n_rows = times.shape[0]
    t = 0
    z = 0.0
    done = 0
    while True:
        if t < n_plan:
            a = plan[t]
        else:
            a, mix_gap = select(code, kind, fam, var, k, c, e, counts, est, t, rng, c_tracking, tci, leader_tracking,
                                beta, optimistic, hint, cumulative, rounds, pulls, cum_loss, mix_gap, w, g, loss)
        record(counts, sums, est, a, draw_reward(noise, truth, sd, bernoulli, a))
        t += 1
        if t >= n_plan:
            z = run_glr(kind, fam, counts, est, var, k, c, e)
            if row_may_stop(rule_kind, times, floor, done, z, t):
                done = check_rule(goal, rule, stats, t, z, done, records)
                if done == n_rows:
                    state.mix_gap[0] = mix_gap
                    return t, z, True
        if t >= max_samples:
            state.mix_gap[0] = mix_gap
            return t, z, t >= n_plan
