r"""XY (transductive) designs (Soare et al. 2014, Eqs. 14, 17, 25).

The XY design minimises :math:`\max_{y \in Y} \|y\|^2_{A(w)^{-1}}` where the designs ``w`` live
on the arms X and the targets Y are directions: all differences ``x - x'`` of arms (the static
XY-allocation, Eq. 25) or a given set (XY-adaptive uses the differences of the arms still
active, Eq. 17).  Solved by :func:`pybai.design.minimax.solve_minimax`: an active-set barrier
method stopped on a certified duality gap (see that module for the dual bound).

Examples
--------
>>> import numpy as np
>>> res = xy_design(np.eye(3))           # y = e_i - e_j: 1/w_i + 1/w_j, uniform is optimal
>>> res.weights.round(6).tolist(), round(res.value, 6)
([0.333333, 0.333333, 0.333333], 6.0)
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_positive_float, fail
from pybai.design._linalg import check_features, span_coordinates
from pybai.design.minimax import DesignState, ExplicitDirections, PairDirections, solve_minimax
from pybai.design.optimal import DesignResult

__all__ = ["xy_design", "pair_directions", "active_directions"]


def pair_directions(features, arms=None) -> np.ndarray:
    """The differences x_i - x_j, i < j, of the arms (or of the rows ``arms`` only), (m, d)."""
    x = check_features(features, "pair_directions")
    rows = np.arange(x.shape[0]) if arms is None else np.asarray(arms, dtype=np.intp)
    i, j = np.triu_indices(rows.size, 1)
    return x[rows[i]] - x[rows[j]]


def active_directions(features, active) -> np.ndarray:
    """Directions of XY-adaptive (Eq. 17): differences of the arms listed in ``active``."""
    return pair_directions(features, active)


def xy_design(features, directions=None, *, rtol: float = 1e-6, state: DesignState | None = None) -> DesignResult:
    """XY design: minimise max_y ||y||^2_{A(w)^-1} over designs w on the arms.

    Parameters
    ----------
    features : array-like (K, d)
        The arms.  Designs live in their span (pseudo-inverse if they do not span R^d).
    directions : array-like (m, d), optional
        Target directions, each in the span of the arms.  Default: all differences of two
        arms, evaluated implicitly (O(K^2 d) memory-light per iteration).
    rtol : float
        Stop once (value - certified lower bound) <= rtol * value.
    state : DesignState, optional
        Warm start, updated in place (reuse it across calls on the same arms and directions).

    Returns
    -------
    DesignResult
    """
    owner = "xy_design"
    x = check_features(features, owner)
    rtol = check_positive_float(rtol, "rtol", owner)
    if directions is None:
        if x.shape[0] < 2:
            raise fail("features", owner, "at least 2 arms when 'directions' is not given", x)
        z, _ = span_coordinates(x, owner)
        dirs: PairDirections | ExplicitDirections = PairDirections(z)
    else:
        y = check_array(directions, "directions", owner, shape=(None, x.shape[1]))
        z, yz = span_coordinates(x, owner, y)
        norms = np.linalg.norm(yz, axis=1)
        if np.all(norms == 0):
            raise fail("directions", owner, "at least one non-zero direction", directions)
        dirs = ExplicitDirections(yz[norms > 0])
    return solve_minimax(z, dirs, rtol=rtol, state=state)
