r"""G-optimal designs over the simplex (Kiefer & Wolfowitz 1960; Soare et al. 2014, Eqs. 12, 21).

A design is a probability vector ``w`` over the arms (rows ``x_a`` of the K x d matrix ``X``)
with design matrix :math:`A(w) = \sum_a w_a x_a x_a^\top`.  The G-optimal design minimises the
largest prediction variance :math:`\max_x \|x\|^2_{A(w)^{-1}}`.

Method.  By the Kiefer-Wolfowitz equivalence theorem (Soare et al., Prop. 3), G- and D-optimal
designs coincide, :math:`\sum_a w_a \|x_a\|^2_{A(w)^{-1}} = r` for every design
(r = rank of X), hence :math:`\max_x \|x\|^2_{A(w)^{-1}} \ge r` with equality exactly at the
optimum.  So ``max - r`` is a certified gap: a design with ``max <= (1 + rtol) r`` is within a
factor ``1 + rtol`` of the optimal G-value.  We maximise ``log det A(w)`` by Frank-Wolfe
(Fedorov-Wynn) steps towards the arm of largest variance with the exact line search
``alpha = (g_j / r - 1) / (g_j - 1)``, plus Wolfe's away steps (Todd & Yildirim 2007), which
remove weight from the support arm of smallest variance and give linear convergence.  Each
step updates ``A^{-1}`` and all variances by a rank-one (Sherman-Morrison) formula in O(K r);
an exact recomputation every 200 steps prevents drift.

Examples
--------
>>> import numpy as np
>>> res = g_optimal_design(np.eye(3))
>>> res.weights.round(6).tolist(), round(res.value, 6)
([0.333333, 0.333333, 0.333333], 3.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pybai._validation import check_positive_float, check_positive_int
from pybai.design._linalg import check_features, inverse_design, span_coordinates

__all__ = ["DesignResult", "g_optimal_design", "design_value"]


@dataclass
class DesignResult:
    """A design and its certificate.

    Attributes
    ----------
    weights : ndarray (K,)
        The design (non-negative, sums to 1).
    value : float
        Objective of ``weights`` (the largest variance over the targets).
    lower_bound : float
        Certified lower bound on the optimal value (dual bound).
    iterations : int
        Iterations used by the solver.
    """

    weights: np.ndarray
    value: float
    lower_bound: float
    iterations: int

    @property
    def relative_gap(self) -> float:
        """(value - lower_bound) / value: the design is within this factor of optimal."""
        return (self.value - self.lower_bound) / self.value


def design_value(features, weights, directions=None) -> float:
    """max_y ||y||^2_{A(w)^-1} over ``directions`` (default: the arms themselves).

    Returns ``inf`` when a target leaves the span of the design's support.
    """
    x = check_features(features, "design_value")
    w = np.asarray(weights, dtype=float)
    y = x if directions is None else np.asarray(directions, dtype=float)
    a = x.T @ (w[:, None] * x)
    vals, vecs = np.linalg.eigh(0.5 * (a + a.T))
    keep = vals > 1e-12 * max(vals.max(), 1e-300)
    coef = y @ vecs
    if np.any(np.abs(coef[:, ~keep]) > 1e-9 * (np.linalg.norm(y, axis=1, keepdims=True) + 1e-300)):
        return float("inf")
    return float(np.max((coef[:, keep] ** 2) @ (1.0 / vals[keep])))


def fedorov_wynn(z: np.ndarray, w: np.ndarray, rtol: float, max_iter: int):
    """Frank-Wolfe with away steps on log det A(w); returns (w, max variance, iterations)."""
    r = z.shape[1]
    it = 0
    m: Any = None  # A(w)^-1, refreshed every 200 iterations
    for it in range(max_iter + 1):
        if it % 200 == 0 or m is None:
            m = inverse_design(z, w)
            if m is None:  # cannot happen from a spanning start; restart from uniform
                w = np.full(z.shape[0], 1.0 / z.shape[0])
                m = inverse_design(z, w)
            g = np.einsum("ij,jk,ik->i", z, m, z)
        j = int(np.argmax(g))
        gmax = g[j]
        if gmax <= (1.0 + rtol) * r or it == max_iter:
            break
        support = np.flatnonzero(w > 0)
        k = support[int(np.argmin(g[support]))]
        if gmax - r >= r - g[k] or w[k] >= 1.0:
            idx, alpha = j, (gmax / r - 1.0) / (gmax - 1.0)
        else:  # away step: move weight off arm k (alpha < 0), at most all of it
            # stationary point of log det along the away direction; none when g_k <= 1 (drop k)
            alpha = (g[k] / r - 1.0) / (g[k] - 1.0) if g[k] > 1.0 else -np.inf
            alpha = max(alpha, -w[k] / (1.0 - w[k]))
            idx = k
        # A' = (1 - alpha) A + alpha x x^T; rank-one update of A^-1 and of all variances
        beta = alpha / (1.0 - alpha)
        u = m @ z[idx]
        denom = 1.0 + beta * g[idx]
        zu = z @ u
        m = (m - (beta / denom) * np.outer(u, u)) / (1.0 - alpha)
        g = (g - (beta / denom) * zu**2) / (1.0 - alpha)
        w = (1.0 - alpha) * w
        w[idx] += alpha
        w[np.abs(w) < 1e-300] = 0.0
        w = np.maximum(w, 0.0)
    w = w / w.sum()
    m = inverse_design(z, w)
    g = np.einsum("ij,jk,ik->i", z, m, z)
    return w, float(g.max()), it


def g_optimal_design(features, *, rtol: float = 1e-6, weights0=None, max_iter: int = 1_000_000) -> DesignResult:
    """G-optimal design: minimise max_x ||x||^2_{A(w)^-1} over the simplex (Eq. 21).

    Parameters
    ----------
    features : array-like (K, d)
        The arms.  If they do not span R^d, the design is computed in their span (the
        variances use the pseudo-inverse) and the optimal value is the rank r.
    rtol : float
        Relative accuracy: stop once max variance <= (1 + rtol) r, certified by the
        Kiefer-Wolfowitz bound.
    weights0 : array-like (K,), optional
        Starting design (e.g. a previous solution); its support must span the arms.
    max_iter : int
        Iteration cap (the result then has a larger certified gap).

    Returns
    -------
    DesignResult
        ``value`` = max variance, ``lower_bound`` = r.
    """
    owner = "g_optimal_design"
    x = check_features(features, owner)
    rtol = check_positive_float(rtol, "rtol", owner)
    max_iter = check_positive_int(max_iter, "max_iter", owner)
    z, _ = span_coordinates(x, owner)
    k, r = z.shape
    w = np.full(k, 1.0 / k)
    if weights0 is not None:
        w0 = np.clip(np.asarray(weights0, dtype=float).reshape(-1), 0.0, None)
        if w0.shape == (k,) and w0.sum() > 0 and inverse_design(z, w0 / w0.sum()) is not None:
            w = w0 / w0.sum()
    w, value, it = fedorov_wynn(z, w, rtol, max_iter)
    return DesignResult(weights=w, value=value, lower_bound=float(r), iterations=it)
