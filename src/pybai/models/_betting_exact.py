r"""Exact betting wealth at any level, from the distinct rewards of a source and their counts.

When a source's rescaled rewards take few distinct values (Bernoulli rewards, binomial fractions,
Likert scores, readouts on a coarse grid), :class:`~pybai.models.betting.BettingModel` keeps them
as at most ``cap`` pairs (value v, count n_v) per source.  The wealth of a betting martingale does
not depend on the order of the samples, so at ANY level l

    ln W^+(c, l) = sum_v n_v ln(1 + c (v - l) / l),      ln W^-(c, l) = sum_v n_v ln(1 - c (v - l) / (1 - l)),

exactly, and the equal-weight mixtures over the bets c_j are one log-sum-exp away
(:func:`log_mix_up`, :func:`log_mix_down`): 2 n_values J logarithms per evaluation.  A source whose
rewards leave more than ``cap`` distinct values is marked overflowed (``n_values = -1``) for good;
its fixed level grid (kept in every case) then serves alone.

Examples
--------
>>> import math
>>> import numpy as np
>>> vals = np.zeros((1, 4)); cnts = np.zeros((1, 4)); nv = np.zeros(1, dtype=np.int64)
>>> store_update(np.array([0, 0, 0]), np.array([1.0, 0.0, 1.0]), vals, cnts, nv)   # a reward repeated
True
>>> int(nv[0]), vals[0, :2].tolist(), cnts[0, :2].tolist()
(2, [1.0, 0.0], [2.0, 1.0])
>>> bets = np.array([0.5])
>>> round(log_mix_up(vals[0], cnts[0], 2, bets, 0.5), 12) == round(2 * math.log(1.5) + math.log(0.5), 12)
True
"""

from __future__ import annotations

import math

from numba import njit

from pybai.models._distinct import OVERFLOWED, store_update

__all__ = ["store_update", "log_mix_up", "log_mix_down", "OVERFLOWED"]

@njit(cache=True)
def _log_mean_exp(logs):
    top = -math.inf
    for j in range(logs.shape[0]):
        if logs[j] > top:
            top = logs[j]
    if top == -math.inf:
        return -math.inf
    total = 0.0
    for j in range(logs.shape[0]):
        total += math.exp(logs[j] - top)
    return top + math.log(total / logs.shape[0])


@njit(cache=True)
def _log_mix_end(values, counts, n, bets, end):
    """The mixture's limit at a range end: the up-bets as the level tends to 0, the down-bets as it tends to 1.

    A factor 1 + c (v - l) / l (up) tends to 1 - c at v = l = 0 and to +inf at any v > 0; a factor
    1 - c (v - l) / (1 - l) (down) to 1 - c at v = 1 and to +inf at any v < 1.  So the mixture tends
    to +inf once a reward left the end, and to (1/J) sum_j (1 - c_j)^N while every reward sat on it.
    That limit is the wealth of the bets at the end itself: a mean at the end of [0, 1] puts every
    reward there, where each factor is the constant 1 - c < 1 (still a nonnegative supermartingale
    of initial value 1, and still monotone in the level: no bound of the stopping rule changes).
    """
    total = 0.0
    for i in range(n):
        if counts[i] > 0.0 and values[i] != end:
            return math.inf
        total += counts[i]
    logs = bets.copy()
    for j in range(bets.shape[0]):
        logs[j] = total * math.log1p(-bets[j])
    return _log_mean_exp(logs)


@njit(cache=True)
def log_mix_up(values, counts, n, bets, lev):
    """ln((1/J) sum_j prod_v (1 + c_j (v - lev) / lev)^(n_v)) for a level ``lev`` in [0, 1].

    At ``lev`` <= 0 the value is the limit as the level decreases to 0 (:func:`_log_mix_end`).
    """
    if lev <= 0.0:
        return _log_mix_end(values, counts, n, bets, 0.0)
    logs = bets.copy()
    for j in range(bets.shape[0]):
        scale = bets[j] / lev
        acc = 0.0
        for i in range(n):
            acc += counts[i] * math.log1p(scale * (values[i] - lev))
        logs[j] = acc
    return _log_mean_exp(logs)


@njit(cache=True)
def log_mix_down(values, counts, n, bets, lev):
    """ln((1/J) sum_j prod_v (1 - c_j (v - lev) / (1 - lev))^(n_v)) for a level ``lev`` in [0, 1].

    At ``lev`` >= 1 the value is the limit as the level increases to 1 (:func:`_log_mix_end`).
    """
    if lev >= 1.0:
        return _log_mix_end(values, counts, n, bets, 1.0)
    logs = bets.copy()
    for j in range(bets.shape[0]):
        scale = bets[j] / (1.0 - lev)
        acc = 0.0
        for i in range(n):
            acc += counts[i] * math.log1p(-scale * (values[i] - lev))
        logs[j] = acc
    return _log_mean_exp(logs)
