r"""The greedy incremental design rule (Soare et al. 2014, Eqs. 22 and 26).

Given the current design matrix A (through its inverse M = A^-1), the next arm is

.. math:: x_t = \arg\min_{x} \max_{y \in Y} y^\top (A + x x^\top)^{-1} y
              = \arg\min_{x} \max_{y} \Big[ y^\top M y - \frac{(y^\top M x)^2}{1 + x^\top M x} \Big]

by the matrix inversion lemma (Eq. 22).  Y is the arms themselves for the G-allocation
(Eq. 22) or a set of directions for the XY-allocations (Eq. 26).  Cost O(K |Y| d), vectorised
over arms and directions (in chunks of arms to bound memory); ties go to the lowest index.
Once an arm is chosen, :class:`GreedyDesign` updates M by one Sherman-Morrison step.

Examples
--------
>>> import numpy as np
>>> g = GreedyDesign(np.eye(2), np.eye(2))   # start from A = I (as XY-adaptive does)
>>> [g.step() for _ in range(4)]
[0, 1, 0, 1]
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array
from pybai.design._linalg import check_features, sherman_morrison

__all__ = ["greedy_arm", "GreedyDesign"]

_CHUNK_ENTRIES = 2_000_000


def greedy_arm(features, inverse_design, directions=None) -> tuple[int, float]:
    """The arm minimising the largest variance after one more sample of it (Eq. 22 / 26).

    Parameters
    ----------
    features : array-like (K, d)
    inverse_design : array-like (d, d)
        M = A^-1 of the current (invertible, possibly regularised) design matrix.
    directions : array-like (m, d), optional
        Targets Y; default the arms (G-allocation).

    Returns
    -------
    (arm, value) : (int, float)
        The chosen arm and max_y y^T (A + x x^T)^-1 y for it.
    """
    owner = "greedy_arm"
    x = check_features(features, owner)
    d = x.shape[1]
    m = check_array(inverse_design, "inverse_design", owner, shape=(d, d))
    y = x if directions is None else check_array(directions, "directions", owner, shape=(None, d))
    mx = x @ m  # (K, d): rows M x
    gx = np.einsum("ij,ij->i", mx, x)
    fy = np.einsum("ij,jk,ik->i", y, m, y)
    best_val, best_arm = np.inf, 0
    chunk = max(1, _CHUNK_ENTRIES // max(y.shape[0], 1))
    for start in range(0, x.shape[0], chunk):
        stop = min(start + chunk, x.shape[0])
        cross = mx[start:stop] @ y.T  # (c, m): x^T M y
        vals = (fy[None, :] - cross**2 / (1.0 + gx[start:stop, None])).max(axis=1)
        j = int(np.argmin(vals))
        if vals[j] < best_val:
            best_val, best_arm = float(vals[j]), start + j
    return best_arm, best_val


class GreedyDesign:
    """Incremental greedy allocation with rank-one updates of A^-1.

    Parameters
    ----------
    features : array-like (K, d)
    initial : array-like (d, d)
        Initial (invertible) design matrix A_0, e.g. the identity (Fig. 3) or the design
        matrix of an initial spanning phase.
    directions : array-like (m, d), optional
        Targets Y (default: the arms, i.e. the G-allocation).

    Attributes
    ----------
    inverse : ndarray (d, d)
        Current A^-1.
    counts : ndarray of int (K,)
        Arms chosen so far.
    """

    def __init__(self, features, initial, directions=None):
        self.features = check_features(features, "GreedyDesign")
        d = self.features.shape[1]
        a0 = check_array(initial, "initial", "GreedyDesign", shape=(d, d))
        self.inverse = np.linalg.inv(a0)
        self.directions = None if directions is None else check_array(
            directions, "directions", "GreedyDesign", shape=(None, d))
        self.counts = np.zeros(self.features.shape[0], dtype=np.int64)

    def step(self) -> int:
        """Choose the next arm (Eq. 22), record it and update A^-1; returns the arm."""
        arm, _ = greedy_arm(self.features, self.inverse, self.directions)
        sherman_morrison(self.inverse, self.features[arm], out=self.inverse)
        self.counts[arm] += 1
        return arm

    def value(self) -> float:
        """max_y y^T A^-1 y for the current design matrix."""
        y = self.features if self.directions is None else self.directions
        return float(np.einsum("ij,jk,ik->i", y, self.inverse, y).max())
