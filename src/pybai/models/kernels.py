"""Prior covariances of correlated arm means: validation, kernels and feature matrices.

Hoffman, Shahriari and de Freitas (2014, section 4) put a Gaussian prior over the K arm
means through features: mu = X theta with theta ~ N(0, eta^2 I), where X = V D^(1/2) comes
from the eigendecomposition G = V D V^T of a K x K covariance G (a Gaussian-process kernel
matrix over the arms, or an empirical covariance).  This module validates such a G, builds
it from a kernel over points, and turns it into X.

Conventions
-----------
* Squared-exponential ("rbf") kernel: ``k(x, x') = exp(-||x - x'||^2 / (2 lengthscale^2))``,
  the convention of scikit-learn (``sklearn.gaussian_process.kernels.RBF``), GPyTorch and
  BoTorch, so a lengthscale fitted there is the same prior here.  Hoffman, Shahriari and de
  Freitas (2014, sections 4 and 6.2) write the kernel without the 2 ("unit length scale, i.e.
  k(x, x') = e^{-(x - x')^2}"): their length scale ``l`` is ``lengthscale = l / sqrt(2)`` here,
  so their unit length scale is ``lengthscale = 1 / sqrt(2) = 0.7071067811865475``.  (pybai
  0.1.0 used the paper's form; its files convert by dividing lengthscales by sqrt(2).)
* A covariance is accepted when it is symmetric up to ``1e-8 * max|G|`` (then symmetrised),
  has a positive diagonal, and its smallest eigenvalue is ``>= -PSD_TOLERANCE * max(1,
  largest eigenvalue)`` with ``PSD_TOLERANCE = 1e-8``; eigenvalues within that tolerance
  below zero are rounding errors of a positive semi-definite matrix and are clipped to 0.

Examples
--------
>>> import numpy as np
>>> G = rbf_covariance([0.0, 1.0, 2.0], lengthscale=1.0)
>>> bool(np.isclose(G[0, 1], np.exp(-0.5)))
True
>>> X = feature_matrix(G)
>>> bool(np.allclose(X @ X.T, G))
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from pybai._validation import SIGMA_ABSOLUTE_RANGE, check_array, check_memory, check_positive_float, fail

__all__ = [
    "PSD_TOLERANCE",
    "KERNEL_NAMES",
    "check_covariance",
    "rbf_covariance",
    "kernel_covariance",
    "feature_matrix",
]

_SQRT2 = math.sqrt(2.0)

PSD_TOLERANCE = 1e-8
"""Relative tolerance on negative eigenvalues (see the module docstring)."""

SYMMETRY_TOLERANCE = 1e-8

KERNEL_NAMES = ("rbf", "squared-exponential")
"""Accepted kernel names (synonyms)."""


def _eigh_checked(matrix: np.ndarray, name: str, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """Eigendecomposition of a symmetric matrix, with the PSD check of the module docstring."""
    values, vectors = np.linalg.eigh(matrix)
    top = float(values[-1]) if values.size else 0.0
    if values[0] < -PSD_TOLERANCE * max(1.0, top):
        raise fail(
            name,
            owner,
            f"a positive semi-definite matrix (smallest eigenvalue >= -{PSD_TOLERANCE:g} x "
            "max(1, largest eigenvalue))",
            f"smallest eigenvalue {values[0]:.3g}",
        )
    return np.clip(values, 0.0, None), vectors


def check_covariance(value, name: str = "covariance", owner: str = "", *, n: int | None = None) -> np.ndarray:
    """Return ``value`` as a validated K x K covariance matrix (symmetrised float array).

    Parameters
    ----------
    value : array-like of shape (K, K)
    name, owner : str
        Used in the error message (``The 'covariance' parameter of ... must be ...``).
    n : int, optional
        Required size K.

    Raises
    ------
    InvalidParameterError
        Not a finite square matrix (of size ``n``), not symmetric, a non-positive diagonal
        entry, or not positive semi-definite (tolerance in the module docstring).
    """
    arr = check_array(value, name, owner, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise fail(name, owner, "a square matrix (K x K)", f"shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise fail(name, owner, f"of shape ({n}, {n}) (one row and column per arm)", f"shape {arr.shape}")
    scale = float(np.max(np.abs(arr)))
    if np.max(np.abs(arr - arr.T)) > SYMMETRY_TOLERANCE * max(scale, 1e-300):
        raise fail(name, owner, "a symmetric matrix", value)
    arr = 0.5 * (arr + arr.T)
    if np.any(np.diag(arr) <= 0.0):
        raise fail(name, owner, "a matrix with a positive diagonal (every arm has a prior variance > 0)", value)
    _eigh_checked(arr, name, owner)
    return arr


def rbf_covariance(points, lengthscale: float = 1.0, *, name: str = "points", owner: str = "") -> np.ndarray:
    """Squared-exponential kernel matrix ``exp(-||x_i - x_j||^2 / (2 lengthscale^2))``.

    Parameters
    ----------
    points : array-like of shape (K,) or (K, d)
        One point per arm (a 1-d array means scalar points).
    lengthscale : float > 0
        Length scale, as scikit-learn's ``RBF(length_scale)`` (see the module docstring).

    Returns
    -------
    ndarray of shape (K, K)
    """
    pts = check_array(points, name, owner)
    if pts.ndim == 1:
        pts = pts[:, None]
    if pts.ndim != 2:
        raise fail(name, owner, "a list of numbers or a list of points (K x d)", points)
    ell = _check_lengthscale(lengthscale, "lengthscale", owner)
    sq = np.sum(pts * pts, axis=1)
    dist2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * pts @ pts.T, 0.0)
    # 2 l^2 computed as (sqrt(2) l)^2: for a lengthscale converted from the paper's convention
    # (l_paper / sqrt(2), rounded), sqrt(2) l rounds back to l_paper for every value shipped or
    # tested, so converted files give bit-identical matrices
    out = np.exp(-dist2 / (_SQRT2 * ell) ** 2)
    np.fill_diagonal(out, 1.0)
    return out


def kernel_covariance(spec, n_arms: int | None = None, *, name: str = "kernel", owner: str = "") -> np.ndarray:
    """Covariance from a kernel specification ``{"name": "rbf", "lengthscale": 1.0, "points": [...]}``.

    Parameters
    ----------
    spec : mapping
        ``name`` in :data:`KERNEL_NAMES`; ``lengthscale`` (float > 0, default 1.0);
        ``points`` (K numbers or K points).
    n_arms : int, optional
        Required number of points.
    name : str
        Key of the specification, used in error messages (``kernel.points``, ...).

    Raises
    ------
    InvalidParameterError
        Unknown kernel name or key, missing points, or points of the wrong length; the
        message names the key (e.g. ``'kernel.points'``).
    """
    if not isinstance(spec, Mapping):
        raise fail(name, owner, "a table with keys name, lengthscale, points", spec)
    unknown = sorted(set(spec) - {"name", "lengthscale", "points"})
    if unknown:
        raise fail(f"{name}.{unknown[0]}", owner, "absent (known keys: name, lengthscale, points)", spec[unknown[0]])
    kind = spec.get("name", "rbf")
    if kind not in KERNEL_NAMES:
        raise fail(f"{name}.name", owner, "one of " + ", ".join(repr(k) for k in KERNEL_NAMES), kind)
    if "points" not in spec:
        raise fail(f"{name}.points", owner, "given (one point per arm)", None)
    pts = check_array(spec["points"], f"{name}.points", owner)
    if pts.ndim not in (1, 2):
        raise fail(f"{name}.points", owner, "a list of numbers or a list of points (K x d)", spec["points"])
    if n_arms is not None and pts.shape[0] != n_arms:
        raise fail(f"{name}.points", owner, f"{n_arms} points (one per arm)", f"{pts.shape[0]} points")
    if pts.shape[0] < 2:
        raise fail(f"{name}.points", owner, "at least 2 points (one per arm)", spec["points"])
    k = pts.shape[0]
    check_memory(4 * 8.0 * k * k, f"{name}.points", owner, f"the {k} x {k} covariance and its factorisation",
                 f"{k} points")
    ell = _check_lengthscale(spec.get("lengthscale", 1.0), f"{name}.lengthscale", owner)
    return rbf_covariance(pts, ell, name=f"{name}.points", owner=owner)


def _check_lengthscale(value, name: str, owner: str) -> float:
    """A positive lengthscale whose square neither underflows nor overflows."""
    ell = check_positive_float(value, name, owner)
    lo, hi = SIGMA_ABSOLUTE_RANGE
    if not lo <= ell <= hi:
        raise fail(name, owner, f"a number in [{lo:g}, {hi:g}] (numerically safe range)", value)
    return ell


def feature_matrix(covariance, *, name: str = "covariance", owner: str = "") -> np.ndarray:
    """Features ``X = V D^(1/2)`` with ``G = V D V^T`` (section 4 of the paper), so ``X X^T = G``.

    Directions with a zero (or clipped, within tolerance) eigenvalue carry no prior variance
    and are dropped, so X has shape (K, d) with d = rank of G.

    Parameters
    ----------
    covariance : array-like of shape (K, K)
        Validated with :func:`check_covariance`.

    Returns
    -------
    ndarray of shape (K, d)
    """
    cov = check_covariance(covariance, name, owner)
    values, vectors = _eigh_checked(cov, name, owner)
    # numerical rank, as numpy.linalg.matrix_rank: eigenvalues within K eps of the largest are roundoff
    # (kept, they made the feature dimension depend on the CPU's LAPACK kernels: a rank-1 prior had d = 2)
    keep = values > values[-1] * cov.shape[0] * np.finfo(float).eps
    return vectors[:, keep] * np.sqrt(values[keep])


def check_prior_mean(prior_mean, n: int, owner: str) -> np.ndarray:
    """The prior mean of ``n`` arms: a number (the same for every arm) or ``n`` numbers."""
    m0 = check_array(prior_mean, "prior_mean", owner)
    if m0.ndim == 0:
        return np.full(n, float(m0))
    if m0.shape != (n,):
        raise fail("prior_mean", owner, f"a number or {n} numbers (one per arm)", f"shape {m0.shape}")
    return m0
