"""Deciding epsilon-correctness: the one comparison, its stated tolerance, and where a relative epsilon is defined.

An arm a is *epsilon-good* for means mu when mu_a >= c mu_ref - e, with ``(c, e)`` the problem's
``pair_shift`` ((1, epsilon) additive, (1 - epsilon, 0) relative) and mu_ref the best mean (best
arm) or the k-th largest (top-k).  Decided in floating point, the boundary case itself would
depend on rounding: with means [0.8, 0.7] and epsilon 0.1, 0.8 - 0.1 is 0.7000000000000001 and
arm 1 would count as not epsilon-good.  Every decision of correctness with an epsilon (``is_correct``,
``epsilon_good``, the epsilon-good arms of ``pybai complexity``, the fixed-budget error at
tolerance epsilon) therefore goes through :func:`epsilon_good_mask` or :func:`regret_exceeds`, which
count a value within :data:`EPSILON_RTOL` times the scale of the numbers compared as on the
boundary (on the correct side).  Differences that small are rounding of the inputs, not
differences any experiment could resolve.

A **relative** epsilon reads mu_a >= (1 - epsilon) mu_ref: a fraction of a nonnegative reference.
With mu_ref < 0 the reading excludes the best arm itself ((1 - epsilon) mu_ref > mu_ref) and the
pieces {lambda_a <= (1 - epsilon) lambda_b} of the stopping rules stop meaning "within a fraction
of the best", so it is refused (:func:`check_relative_reference`): one line naming ``epsilon``
and the reference mean; ``epsilon_mode = "additive"`` is defined for every mean.

Examples
--------
>>> import numpy as np
>>> epsilon_good_mask(np.array([0.8, 0.7, 0.69]), 0.8, 1.0, 0.1).tolist()
[True, True, False]
>>> regret_exceeds(np.array([0.8 - 0.7, 0.2]), 0.1).tolist()
[False, True]
"""

from __future__ import annotations

import numpy as np

from pybai._validation import fail

__all__ = ["EPSILON_RTOL", "epsilon_good_mask", "regret_exceeds", "check_relative_reference"]

#: relative tolerance of the epsilon comparisons: mu_a >= c mu_ref - e - EPSILON_RTOL * scale, where
#: scale = max(|mu_a|, |c mu_ref|, e) (the numbers compared)
EPSILON_RTOL = 1e-9


def epsilon_good_mask(means: np.ndarray, reference: float, c: float, e: float) -> np.ndarray:
    """Mask of the means with mu_a >= c * reference - e, up to :data:`EPSILON_RTOL` of the scale."""
    means = np.asarray(means, dtype=float)
    bound = c * float(reference) - e
    scale = np.maximum(np.maximum(np.abs(means), abs(c * float(reference))), abs(e))
    return means >= bound - EPSILON_RTOL * scale


def regret_exceeds(regrets, epsilon: float) -> np.ndarray:
    """Mask of the simple regrets above ``epsilon``, up to :data:`EPSILON_RTOL` of the scale (NaN: False)."""
    regrets = np.asarray(regrets, dtype=float)
    with np.errstate(invalid="ignore"):
        return regrets > epsilon + EPSILON_RTOL * np.maximum(np.abs(regrets), abs(epsilon))


def check_relative_reference(reference: float, epsilon: float | None, owner: str, what: str = "best mean") -> None:
    """Refuse a relative epsilon whose reference mean (the best, or the k-th largest) is negative."""
    if float(reference) < 0.0:
        raise fail("epsilon", owner, f'epsilon_mode = "additive", or a {what} >= 0 for a relative epsilon '
                   f'(mu_a >= (1 - epsilon) x the {what} excludes the best arm itself when that mean is negative; '
                   f'here it is {float(reference):g})', epsilon)
