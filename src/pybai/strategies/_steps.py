"""The step functions of the sequential rules: the choice of the next sample, in compiled code.

Each is called both by the rule's ask/tell ``_select`` (on a problem that offers its kernels,
:meth:`~pybai.problems.base.Problem.run_kernels`) and by the compiled run driver
(:func:`pybai.strategies._driver.select`), so the choice exists once.  The game's step is
:func:`pybai.strategies._game_kernels.game_step`.  A rule whose choice has a general form on other
problems builds it from the same pieces (top-two: :func:`penalized_argmin` and
:func:`leader_or_challenger`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._shifted import transport_costs
from pybai.problems.compiled import run_tracking_weights
from pybai.strategies.tracking import c_tracking_step, d_tracking_step

__all__ = ["uniform_step", "tas_step", "top_two_step", "penalized_argmin", "leader_or_challenger"]


@njit(cache=True, inline="always")
def uniform_step(counts):
    """Round robin: the least-sampled request (lowest index on ties)."""
    return np.argmin(counts)


@njit(cache=True, inline="always")
def tas_step(kind, code, counts, est, var, t, c, e, hint, cumulative, c_tracking):
    """Track-and-Stop after ``t`` samples: the problem's tracking weights of the estimate
    (:func:`~pybai.problems.compiled.run_tracking_weights`, warm-started from ``hint``), then C-tracking
    (``cumulative`` updated) or D-tracking."""
    w = run_tracking_weights(kind, code, counts, est, var, t, c, e, hint)
    if c_tracking:
        return c_tracking_step(cumulative, counts, w, t)
    return d_tracking_step(counts, w, t)


@njit(cache=True)
def penalized_argmin(costs, counts, leader, penalty):
    """argmin_{j != leader} costs[j] (+ ln N_j with ``penalty``: the TCI challenger); lowest index on ties."""
    best = -1
    best_val = math.inf
    for j in range(costs.shape[0]):
        if j == leader:
            continue
        val = costs[j]
        if penalty:
            val += math.log(counts[j])
        if val < best_val:
            best_val = val
            best = j
    return best


@njit(cache=True, inline="always")
def leader_or_challenger(leader, challenger, pulls, target, beta, tracking, rng):
    """Top-two's draw between the two: the leader when its pulls as leader are at most ``target``
    (``tracking``), else with probability ``beta`` (a coin of ``rng``); counts the leader's pull."""
    if tracking:
        take_leader = pulls[leader] <= target
    else:
        take_leader = rng.random() < beta
    if take_leader:
        pulls[leader] += 1.0
        return leader
    return challenger


@njit(cache=True, inline="always")
def top_two_step(code, counts, est, var, c, e, rounds, pulls, beta, tci, tracking, rng, costs):
    """Top-two with a fixed ``beta``: the empirical best leader, the challenger of smallest transportation
    cost (of the pieces shifted by (c, e); ``costs`` is work space), the leader's proportion ``beta``."""
    leader = np.argmax(est)
    rounds[leader] += 1.0
    transport_costs(code, counts, est, var, leader, c, e, costs)
    challenger = penalized_argmin(costs, counts, leader, tci)
    return leader_or_challenger(leader, challenger, pulls, beta * rounds[leader], beta, tracking, rng)
