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
>>> store_update(np.array([0, 0, 0]), np.array([1.0, 0.0, 1.0]), vals, cnts, nv)
>>> int(nv[0]), vals[0, :2].tolist(), cnts[0, :2].tolist()
(2, [1.0, 0.0], [2.0, 1.0])
>>> bets = np.array([0.5])
>>> round(log_mix_up(vals[0], cnts[0], 2, bets, 0.5), 12) == round(2 * math.log(1.5) + math.log(0.5), 12)
True
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["store_update", "log_mix_up", "log_mix_down", "OVERFLOWED"]

#: ``n_values`` of a source whose rewards took more distinct values than the store holds
OVERFLOWED = -1


@njit(cache=True)
def store_update(sources, y, values, counts, n_values):
    """Add the rescaled rewards ``y`` of ``sources`` to the stores (in place); overflow marks -1."""
    cap = values.shape[1]
    for k in range(sources.shape[0]):
        s = sources[k]
        n = n_values[s]
        if n < 0:
            continue
        x = y[k]
        found = False
        for i in range(n):
            if values[s, i] == x:
                counts[s, i] += 1.0
                found = True
                break
        if found:
            continue
        if n >= cap:
            n_values[s] = OVERFLOWED
            for i in range(cap):
                values[s, i] = 0.0
                counts[s, i] = 0.0
            continue
        values[s, n] = x
        counts[s, n] = 1.0
        n_values[s] = n + 1


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
def log_mix_up(values, counts, n, bets, lev):
    """ln((1/J) sum_j prod_v (1 + c_j (v - lev) / lev)^(n_v)) for a level ``lev`` in (0, 1]."""
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
    """ln((1/J) sum_j prod_v (1 - c_j (v - lev) / (1 - lev))^(n_v)) for a level ``lev`` in [0, 1)."""
    logs = bets.copy()
    for j in range(bets.shape[0]):
        scale = bets[j] / (1.0 - lev)
        acc = 0.0
        for i in range(n):
            acc += counts[i] * math.log1p(-scale * (values[i] - lev))
        logs[j] = acc
    return _log_mean_exp(logs)
