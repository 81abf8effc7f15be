"""Small linear-algebra helpers shared by the design solvers.

``A(w) = sum_a w_a x_a x_a^T`` is the design matrix of weights ``w`` over the rows of a
feature matrix; every solver works in coordinates of the row space of the features, where
``A(w)`` of a spanning design is invertible.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, fail

__all__ = ["design_matrix", "inverse_design", "span_coordinates", "check_features", "sherman_morrison"]


def check_features(features, owner: str, name: str = "features") -> np.ndarray:
    """``features`` as a finite float matrix with at least one row (K x d)."""
    return check_array(features, name, owner, ndim=2)


def design_matrix(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A(w) = sum_a w_a x_a x_a^T (d x d)."""
    return features.T @ (weights[:, None] * features)


def inverse_design(features: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """A(w)^-1, or ``None`` when A(w) is singular (relative eigenvalue below 1e-13)."""
    a = design_matrix(features, weights)
    a = 0.5 * (a + a.T)
    try:
        chol = np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        return None
    diag = np.diag(chol)
    if diag.min() ** 2 <= 1e-13 * max(diag.max() ** 2, 1e-300):
        return None
    inv_l = np.linalg.inv(chol)
    return inv_l.T @ inv_l


def span_coordinates(features: np.ndarray, owner: str, directions: np.ndarray | None = None):
    """Coordinates of the arms (and directions) in an orthonormal basis of the arms' span.

    Every quadratic form ``y^T A(w)^+ y`` with ``y`` in the span of the arms is unchanged in
    these coordinates, and there the design matrix of a spanning design is invertible.

    Returns
    -------
    z : ndarray (K, r)
        Arm coordinates, r = rank of ``features``.
    yz : ndarray (m, r) or None
        Direction coordinates.

    Raises
    ------
    InvalidParameterError
        Naming ``features`` when every arm is zero, or ``directions`` when a direction leaves
        the span of the arms (its variance would be infinite under every design).
    """
    _, s, vt = np.linalg.svd(features, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        raise fail("features", owner, "a matrix with at least one non-zero row", features)
    tol = s[0] * max(features.shape) * np.finfo(float).eps * 16
    basis = vt[s > tol].T  # d x r
    z = features @ basis
    if directions is None:
        return z, None
    yz = directions @ basis
    resid = np.linalg.norm(directions - yz @ basis.T, axis=1)
    scale = np.linalg.norm(directions, axis=1) + s[0]
    if np.any(resid > 1e-9 * scale):
        raise fail("directions", owner, "vectors in the span of the rows of 'features'", directions)
    return z, yz


def sherman_morrison(inverse: np.ndarray, x: np.ndarray, weight: float = 1.0, out: np.ndarray | None = None):
    """(A + weight x x^T)^-1 from A^-1 (matrix inversion lemma), in O(d^2).

    ``out`` may be ``inverse`` itself (in-place update).
    """
    u = inverse @ x
    denom = 1.0 + weight * float(x @ u)
    res = np.subtract(inverse, (weight / denom) * np.outer(u, u), out=out)
    return res
