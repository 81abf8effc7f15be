"""Thresholds evaluated inside compiled loops, exactly as their Python ``__call__``.

A threshold that offers :meth:`~pybai.stopping.base.Threshold.compiled_form` (the log-log shape of
the heuristic and Kaufmann & Koolen thresholds) is evaluated by :func:`threshold_value` with the
same operations in the same order; numba's ``math.log`` is the C library's, as Python's is, so the
values are bit-identical (tests/stopping/test_compiled.py checks it).
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["threshold_value"]


@njit(cache=True)
def threshold_value(form, t):
    """``const + coef ln(shift + ln(t / scale))``, or the value at one when ``t / scale <= 1``.

    ``form`` is ``[const, coef, shift, scale, value at one]`` from
    :meth:`~pybai.stopping.base.LogLogThreshold.compiled_form`; ``t`` a sample count (float).
    """
    u = t / form[3]
    if u <= 1.0:
        return form[4]
    return form[0] + form[1] * math.log(form[2] + math.log(u))
