"""Thresholds evaluated inside compiled loops, exactly as their Python ``__call__``.

A threshold that offers :meth:`~pybai.stopping.base.Threshold.compiled_form` (the log-log shape of
the heuristic and Kaufmann & Koolen thresholds) is evaluated by :func:`threshold_value` with the
same operations in the same order; numba's ``math.log`` is the C library's, as Python's is, so the
values are bit-identical (tests/stopping/test_compiled.py checks it).

A compiled loop reads each threshold as one row of numbers (:func:`compiled_rows`): columns 0-4 the
t-only form (``threshold(t)``, NaN when it has none), then, for the count-dependent per-pair rules
of :mod:`pybai.stopping.pair_mixture`, the numbers their margin kernel reads
(:meth:`~pybai.stopping.pair_mixture.PairMixtureThreshold.compiled_pair_form`), which the goal's
:func:`pybai.problems.compiled.run_pair_margin` passes to the very kernel the Python rule calls.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["threshold_value", "compiled_rows", "PLAIN_LOG", "PAIR_FLAG", "PAIR_CODE", "PAIR_LEVEL", "PAIR_MIN_STATISTIC",
           "PAIR_ALPHA", "PAIR_W_BETA", "PAIR_GVAR", "PAIR_ONE_SIDED", "PAIR_N_SCALES", "PAIR_SCALES"]

#: Columns of a row of :func:`compiled_rows` after the t-only form (columns 0-4): 1.0 for a per-pair rule
PAIR_FLAG = 5
#: the rule's kernel code (0 Gaussian, 1 Bernoulli), its level ln(m / delta) and its ``min_statistic``
PAIR_CODE, PAIR_LEVEL, PAIR_MIN_STATISTIC = 6, 7, 8
#: the Beta prior's alpha and weight, the sub-Gaussian variance, one-sided priors (1.0) or not (0.0)
PAIR_ALPHA, PAIR_W_BETA, PAIR_GVAR, PAIR_ONE_SIDED = 9, 10, 11, 12
#: the number J of prior scales, then the scales themselves
PAIR_N_SCALES, PAIR_SCALES = 13, 14


#: ``shift`` of a compiled form without the outer logarithm: ``const + coef ln(t / scale)``
PLAIN_LOG = -math.inf


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


def _row(threshold) -> np.ndarray | None:
    """One threshold's row (module docstring), or None when a compiled loop cannot evaluate it."""
    pair = getattr(threshold, "compiled_pair_form", None)
    if getattr(threshold, "count_dependent", False):
        if pair is None:
            return None
        time_form = threshold.fallback.compiled_form()
        head = np.full(5, np.nan) if time_form is None else np.asarray(time_form, dtype=float)
        return np.concatenate((head, [1.0], np.asarray(pair(), dtype=float)))
    form = threshold.compiled_form()
    return None if form is None else np.concatenate((np.asarray(form, dtype=float), [0.0]))


def _ordered(table: np.ndarray) -> bool:
    """Whether each row's rule stops no later than the next row's on every path.

    t-only rows: each at most the next at every t (checked on a geometric grid of t).  Per-pair rows:
    all of one rule differing only in their level and ``min_statistic``, both nondecreasing (a pair's
    margin is one number minus the level, so a row crossed implies every earlier row crossed).  No
    mixtures.
    """
    if table.shape[0] < 2:
        return True
    flags = table[:, PAIR_FLAG] > 0.0
    if flags.all():
        rest = np.delete(table, [0, 1, 2, 3, 4, PAIR_LEVEL, PAIR_MIN_STATISTIC], axis=1)
        rising = np.all(np.diff(table[:, [PAIR_LEVEL, PAIR_MIN_STATISTIC]], axis=0) >= 0.0)
        return bool((rest == rest[0]).all() and rising)
    if flags.any():
        return False
    return bool(np.all(np.diff(_grid_values(np.ascontiguousarray(table[:, :5]), _GRID), axis=0) >= 0.0))


#: the sample counts at which :func:`_ordered` compares t-only thresholds
_GRID = np.unique(np.round(np.geomspace(1.0, 1e9, 400)))


@njit(cache=True)
def _grid_values(forms, ts):
    """``threshold_value(forms[i], ts[j])`` for every row and grid point, in one compiled call."""
    out = np.empty((forms.shape[0], ts.shape[0]))
    for i in range(forms.shape[0]):
        for j in range(ts.shape[0]):
            out[i, j] = threshold_value(forms[i], ts[j])
    return out


def compiled_rows(thresholds) -> np.ndarray | None:
    """The thresholds as the rows a compiled loop reads (module docstring), padded to one width.

    None when one of them has no compiled form, or when they are not ordered so that each one stops
    no later than the next on every path (the order one shared trajectory crosses them in).
    """
    maybe = [_row(th) for th in thresholds]
    rows = [row for row in maybe if row is not None]
    if len(rows) < len(maybe):
        return None
    width = max(row.shape[0] for row in rows)
    table = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        table[i, : row.shape[0]] = row
    return table if _ordered(table) else None
