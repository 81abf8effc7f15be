r"""Minimax (transductive) designs: minimise :math:`f(w) = \max_{y \in Y} \|y\|^2_{A(w)^{-1}}`.

This one solver serves the XY design (Y = differences of arms, Soare et al. Eq. 25), its
adaptive variant (Y = directions of the remaining arms, Eq. 17) and the oracle of linear
best-arm identification (Y = (x* - x) / Delta_x, Eq. 6), all with a certified duality gap.

Duality.  Writing :math:`\|y\|^2_{A^{-1}} = \max_u 2u^\top y - u^\top A u` and exchanging min
and max (Sion), for every probability vector ``v`` over Y and every design ``w``

.. math:: f^* \ge L(w, v) = 2 \sum_y v_y \|y\|^2_{A(w)^{-1}}
          - \max_a \sum_y v_y (x_a^\top A(w)^{-1} y)^2,

(take :math:`u_y = A(w)^{-1} y`; this is also the Frank-Wolfe gap bound of the convex function
:math:`\sum_y v_y \|y\|^2_{A(w)^{-1}}`), with equality at a saddle point.  ``f(w) - L(w, v)`` is
the certified gap we stop on.

Method.  An active-set primal-dual barrier method.  The optimal design has few support arms
and few active directions (Caratheodory: at most r(r+1)/2 + 1 each), so we solve the problem
restricted to a working set S of arms and T of directions,
:math:`\min_{w \in \Delta_S, t} t` s.t. :math:`\|y\|^2_{A(w)^{-1}} \le t` (y in T), by a
log-barrier path-following Newton method (exact Hessian, O(|S|^2 |T|) per step), whose
central path also yields the dual weights :math:`v_y = \mu / (t - \|y\|^2_{A^{-1}})`.  Then the
certificate is evaluated on all arms and all directions; arms with
:math:`\sum_y v_y (x_a^\top A^{-1} y)^2` above the restricted multiplier and directions above
the restricted value enter the working sets, until the gap is below ``rtol``.  A warm start
(:class:`DesignState`) keeps the working sets and the design between calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pybai.design._linalg import inverse_design
from pybai.design._loose_solve import gap_compiled, loose_solve
from pybai.design._minimax_kernels import restricted_compiled
from pybai.design._restricted_pd import restricted_pd
from pybai.design.optimal import DesignResult, fedorov_wynn

__all__ = ["DesignState", "ExplicitDirections", "PairDirections", "cold_start", "duality_gap", "solve_minimax"]

#: Up to this many arms the working set is every arm.
SMALL = 160
_MAX_OUTER = 80
#: loose solves (``linear_program=False``): violators added to the working sets per round
_LOOSE_CAP = 8
#: loose compiled solves: a restricted solve stops once its own certificate is within this share of the tolerance
_GAP_STOP = 0.5
#: loose compiled solves: share of uniform weight mixed into the start of a restricted solve (nearer its central path)
_START_MIX = 0.2


class DesignState:
    """Warm-start state of :func:`solve_minimax`, updated in place.

    Attributes
    ----------
    weights : ndarray (K,) or None
        Last design.
    arms : ndarray of int or None
        Last working set of arms.
    directions : ndarray of int or None
        Last working set of directions (indices into the direction set).
    dual, dual_directions : ndarray or None
        The dual weights of the best certificate of the last solve, over the directions
        ``dual_directions`` (what :func:`duality_gap` re-checks the design with).
    """

    def __init__(self):
        self.weights = None
        self.arms = None
        self.directions = None
        self.dual = None
        self.dual_directions = None

    def reset(self):
        self.__init__()


class ExplicitDirections:
    """A direction set given as an (m, r) matrix."""

    def __init__(self, y: np.ndarray):
        self.y = np.ascontiguousarray(y, dtype=float)
        self.size = self.y.shape[0]
        self._work: np.ndarray | None = None  # (m, r) scratch of :meth:`values`

    def values(self, m: np.ndarray) -> np.ndarray:
        if self._work is None or self._work.shape != self.y.shape:
            self._work = np.empty_like(self.y)
        ym = np.matmul(self.y, m, out=self._work)  # the same products as (y @ m) * y, without temporaries
        return np.multiply(ym, self.y, out=ym).sum(axis=1)

    def vectors(self, idx: np.ndarray) -> np.ndarray:
        return self.y[idx]


class PairDirections:
    """All differences x_i - x_j (i < j) of the arms, evaluated in O(K^2 r) without storing them."""

    def __init__(self, z: np.ndarray):
        self.z = z
        self.first, self.second = np.triu_indices(z.shape[0], 1)
        self.size = self.first.size

    def values(self, m: np.ndarray) -> np.ndarray:
        q = (self.z @ m) @ self.z.T
        g = np.diag(q)
        return (g[self.first] + g[self.second]) - 2.0 * q[self.first, self.second]

    def vectors(self, idx: np.ndarray) -> np.ndarray:
        return self.z[self.first[idx]] - self.z[self.second[idx]]


def _barrier_change(dt, s, s_new, w, w_new, tau):
    """phi(new) - phi(old) for phi = tau t - sum log s - sum log w, without cancellation."""
    return tau * dt - np.log(s_new / s).sum() - np.log(w_new / w).sum()


def _inverse_support(z: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """``inverse_design(z, w)`` from the rows of positive weight only (zero rows add nothing to A(w)).

    The designs here are sparse (tens of arms out of thousands): this skips the other rows.
    """
    on = np.flatnonzero(w)
    return inverse_design(z, w) if on.size == w.size else inverse_design(z[on], w[on])


def _outside(mask: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Sorted indices where ``mask`` holds, without ``members`` (``np.setdiff1d`` without its sort)."""
    mask[members] = False
    return np.flatnonzero(mask)


def _restricted(z, y, w, rtol, mu_rel):
    """Barrier method on min t s.t. ||y||^2_{A(w)^-1} <= t, w in the simplex of the rows of z.

    Returns (w, v, t): design, dual weights over the rows of y, restricted value.
    """
    n, m = z.shape[0], y.shape[0]
    minv = inverse_design(z, w)
    f = ((y @ minv) * y).sum(axis=1)
    t = f.max() * (1.0 + 10.0 * mu_rel) + 1e-300
    tau = (n + m) / (mu_rel * t)
    newton_steps = 0
    final = False
    for _stage in range(60):
        final = (n + m) / tau <= 0.25 * rtol * t
        for _ in range(80):
            newton_steps += 1
            s = t - f
            p = z @ (minv @ y.T)  # p[a, y] = x_a^T A^-1 y
            q = z @ minv @ z.T
            p2 = p * p
            inv_s = 1.0 / s
            grad_w = -(p2 @ inv_s) - 1.0 / w
            grad_t = tau - inv_s.sum()
            c = inv_s * inv_s
            h = np.empty((n + 2, n + 2))
            h[:n, :n] = (p2 * c) @ p2.T + 2.0 * ((p * inv_s) @ p.T) * q
            h[:n, :n][np.diag_indices(n)] += 1.0 / (w * w)
            h[:n, n] = h[n, :n] = p2 @ c
            h[n, n] = c.sum()
            h[:n, n + 1] = h[n + 1, :n] = 1.0
            h[n, n + 1] = h[n + 1, n] = h[n + 1, n + 1] = 0.0
            rhs = np.concatenate([-grad_w, [-grad_t, 0.0]])
            scale = np.ones(n + 2)
            scale[: n + 1] = 1.0 / np.sqrt(np.diag(h)[: n + 1])
            hs = h * scale[:, None] * scale[None, :]
            try:
                sol = np.linalg.solve(hs, rhs * scale) * scale
            except np.linalg.LinAlgError:
                sol = np.linalg.lstsq(hs, rhs * scale, rcond=None)[0] * scale
            dw, dt = sol[:n], sol[n]
            slope = grad_w @ dw + grad_t * dt
            if -slope <= (1e-9 if final else 1e-3):  # squared Newton decrement: centred enough
                break
            neg = dw < 0
            alpha = min(1.0, 0.99 * float(np.min(-w[neg] / dw[neg]))) if np.any(neg) else 1.0
            for _ls in range(60):
                w_new = w + alpha * dw
                t_new = t + alpha * dt
                minv_new = inverse_design(z, w_new) if np.all(w_new > 0) else None
                if minv_new is not None:
                    f_new = ((y @ minv_new) * y).sum(axis=1)
                    s_new = t_new - f_new
                    if np.all(s_new > 0) and _barrier_change(alpha * dt, s, s_new, w, w_new, tau) <= 0.25 * alpha * slope:
                        break
                alpha *= 0.5
            else:
                break
            w, t, minv, f = w_new / w_new.sum(), t_new, minv_new, f_new
            if abs(w_new.sum() - 1.0) > 1e-12:  # renormalised: refresh the derived quantities
                minv = inverse_design(z, w)
                f = ((y @ minv) * y).sum(axis=1)
                t = max(t, f.max() * (1.0 + 1e-12))
        if final:
            break
        tau = min(tau * 20.0, (n + m) / (0.25 * rtol * t))
    v = 1.0 / (t - f)
    return w, v / v.sum(), t, newton_steps


def _best_dual(p2: np.ndarray, f: np.ndarray, v0: np.ndarray) -> np.ndarray:
    """Dual weights v maximising the bound 2 v.f - max_a (p2 v)_a at the current design (an LP).

    The barrier's own estimate v = mu / (t - f) loses its accuracy as mu -> 0 (t - f cancels), so
    the certificate uses the best v for the design found, by HiGHS; ``v0`` is the fallback.
    """
    from scipy.optimize import linprog

    m = f.size
    c = np.r_[-2.0 * f, 1.0]
    a_ub = np.hstack([p2, -np.ones((p2.shape[0], 1))])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(p2.shape[0]), A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0.0, None)] * m + [(None, None)], method="highs")
    if res.status != 0:
        return v0
    v = np.maximum(res.x[:m], 0.0)
    v /= v.sum()
    return v if 2.0 * v @ f - (p2 @ v).max() >= 2.0 * v0 @ f - (p2 @ v0).max() else v0


def cold_start(z: np.ndarray) -> np.ndarray:
    """The design :func:`solve_minimax` starts from without a warm start (it depends on ``z`` only).

    A rough G-optimal design (Fedorov-Wynn to a relative tolerance of 0.1); a caller that solves
    many problems on the same rows computes it once and passes it as ``start``.
    """
    return fedorov_wynn(z, np.full(z.shape[0], 1.0 / z.shape[0]), 0.1, 2_000)[0]


def duality_gap(z: np.ndarray, directions, w: np.ndarray, dual_directions, dual, compiled: bool = False):
    """``(f(w), L(w, v))``: the value of design ``w`` and the certified lower bound of the module docstring.

    ``v`` is ``dual`` on the directions ``dual_directions`` (zero elsewhere); f* lies in
    [L(w, v), f(w)] whatever ``w`` and ``v`` are, so ``(f - L) / f`` bounds the relative
    suboptimality of ``w``.  One evaluation of all directions and of all arms: O((K + |Y|) r^2 + K r |v|).
    ``(inf, -inf)`` when A(w) is singular.  ``compiled=True`` evaluates it in a numba kernel on
    :class:`ExplicitDirections` (:func:`pybai.design._loose_solve.gap_compiled`; equal up to rounding).
    """
    dual_directions, dual = np.asarray(dual_directions, dtype=np.intp), np.asarray(dual, dtype=float)
    if compiled and isinstance(directions, ExplicitDirections):
        return gap_compiled(z, directions.y, w, dual_directions, dual)
    minv = _inverse_support(z, w)
    if minv is None:
        return np.inf, -np.inf
    f_all = directions.values(minv)
    y = directions.vectors(dual_directions)
    p2 = (z @ (minv @ y.T)) ** 2
    return float(f_all.max()), float(2.0 * dual @ f_all[dual_directions] - (p2 @ dual).max())


def solve_minimax(z: np.ndarray, directions, *, rtol: float = 1e-6, state: DesignState | None = None,
                  compiled: bool = False, start: np.ndarray | None = None, linear_program: bool = True,
                  keep: float = 1e-12) -> DesignResult:
    """Minimise max_y ||y||^2_{A(w)^-1} over designs w on the rows of ``z`` (full column rank).

    ``directions`` is an :class:`ExplicitDirections` or :class:`PairDirections` in the same
    coordinates as ``z``.  Returns the best design found, its value and a certified lower bound
    (relative gap <= ``rtol`` unless the iteration cap is hit).

    ``compiled=True`` runs the restricted barrier solves in one numba kernel
    (:func:`pybai.design._minimax_kernels.restricted_compiled`, the same method) and certifies
    with the barrier's own dual weights when they already close the gap to ``rtol`` (the linear
    program of the certificate only runs when they do not): the same certified accuracy, equal
    to the default path up to rounding, tens of times faster on small problems.

    ``start``: the result of :func:`cold_start` on ``z``, used when ``state`` holds no design (the
    same start, computed once by the caller).  ``linear_program=False`` is the loose form (for
    tolerances of a few percent, which the barrier's dual weights reach): it certifies with those
    weights only (never the linear program), starts from the r + 1 largest directions and adds at
    most 8 violators per round, so that the restricted problems stay small; with ``compiled=True``
    each restricted solve also starts from 0.8 w + 0.2 uniform (further from the simplex's
    boundary), runs the primal-dual predictor-corrector method of
    :func:`pybai.design._restricted_pd.restricted_pd` instead of the barrier path (about a
    fifth of the Newton-type steps) and ends as soon as its own certificate on the working
    sets shows half the tolerance (the certificate over all arms and directions is
    unchanged), and on :class:`ExplicitDirections` the whole loop runs in one numba kernel
    (:func:`pybai.design._loose_solve.loose_solve`: the same steps, equal to rounding).  ``keep``: arms whose
    weight is below ``keep`` times the largest stay out of the next warm start's working set (and
    out of this solve's start when the design still spans).  ``state.dual`` and
    ``state.dual_directions`` receive the certificate, for :func:`duality_gap`.  In the loose
    form the design returned is the one of the round of the best certificate when that round's
    own gap is within ``rtol`` (else the best design seen): the stored pair then shows the gap
    again at the same means (the best design of another round could show a wider one).
    """
    k, r = z.shape
    if compiled and not linear_program and isinstance(directions, ExplicitDirections):
        solved = loose_solve(z, directions.y, rtol, state, start, keep, cold_start)  # the loop below, compiled
        if solved is not None:
            return DesignResult(weights=solved[0], value=float(solved[1]), lower_bound=float(solved[2]),
                                iterations=int(solved[3]))
    w = None
    if state is not None and state.weights is not None and state.weights.shape == (k,):
        w = np.clip(state.weights, 0.0, None)
        if w.sum() <= 0 or _inverse_support(z, w / w.sum()) is None:
            w = None
        else:
            w = w / w.sum()
    if w is None:
        w = start if start is not None and start.shape == (k,) else cold_start(z)
    # working set of arms: every arm for small problems, else the support (+ previous set)
    if k <= SMALL:
        arms = np.arange(k)
    else:
        arms = np.flatnonzero(w > max(keep, 1e-9) * w.max())
        if state is not None and state.arms is not None:
            arms = np.union1d(arms, state.arms[state.arms < k])
    w_s = w[arms] + 1e-3 / arms.size
    w_s /= w_s.sum()
    w_full = np.zeros(k)
    w_full[arms] = w_s
    minv = _inverse_support(z, w_full)
    if minv is None or arms.size < r:  # ``keep`` left too few arms to span: every arm of the design
        arms = np.flatnonzero(w > 1e-9 * w.max())
        w_full = np.zeros(k)
        w_full[arms] = (w[arms] + 1e-3 / arms.size) / (w[arms] + 1e-3 / arms.size).sum()
        minv = _inverse_support(z, w_full)
    f_all = directions.values(minv)
    scale = 1.0 / f_all.max()  # work with directions scaled so that the start value is 1
    root = np.sqrt(scale)
    # start from the directions of largest variance: at most r(r+1) (an optimal dual needs at
    # most r(r+1)/2 + 1); the certificate loop adds the others that matter
    n_top = min(directions.size, max(r * (r + 1), 8) if linear_program else max(r + 1, 8))
    neg = -f_all
    dirs = np.argpartition(neg, n_top - 1)[:n_top]
    n_few = min(directions.size, max(r + 1, 8))
    dirs = np.union1d(dirs[f_all[dirs] >= 0.5 * f_all.max()], np.argpartition(neg, n_few - 1)[:n_few])
    if state is not None and state.directions is not None:
        dirs = np.union1d(dirs, state.directions[state.directions < directions.size])
    best: tuple[float, Any] = (np.inf, None)  # (value, weights) of the best design seen
    lower = -np.inf
    cert: tuple[Any, Any] = (None, None)  # (directions, dual weights) of the best lower bound
    paired: tuple[float, Any] = (np.inf, None)  # (value, weights) of the design of that bound's round
    inner_rtol = rtol
    mu_rel = 0.1
    iterations = 0
    for _outer in range(_MAX_OUTER):
        y = directions.vectors(dirs) * root
        ok = False
        if compiled:
            w0 = w_full[arms] if linear_program else (1.0 - _START_MIX) * w_full[arms] + _START_MIX / arms.size
            solve = restricted_compiled if linear_program else restricted_pd
            w_s, v, t, steps, ok = solve(np.ascontiguousarray(z[arms]), np.ascontiguousarray(y), w0.copy(),
                                         inner_rtol, mu_rel, 0.0 if linear_program else _GAP_STOP * inner_rtol)
        if not ok:
            w_s, v, t, steps = _restricted(z[arms], y, w_full[arms], inner_rtol, mu_rel)
        iterations += steps
        w_round, w_full = w_full, np.zeros(k)
        w_full[arms] = w_s
        minv = _inverse_support(z, w_full)
        if minv is None:  # numerically singular (its arms barely span): the round's start design instead
            w_full = w_round
            minv = _inverse_support(z, w_full)
        f_all = directions.values(minv) * scale
        primal = f_all.max()
        if primal < best[0]:
            best = (primal, w_full.copy())
        p2 = (z @ (minv @ y.T)) ** 2  # p2[a, y] = (x_a^T A^-1 y)^2
        g = p2 @ v  # with the barrier's dual weights: the certificate's arm term, and which outside arms would enter
        if compiled:  # the barrier's dual weights first: the linear program only when they fall short
            bound = 2.0 * v @ f_all[dirs] - g.max()
            if bound > lower:
                lower, cert, paired = bound, (dirs, v), (primal, w_full.copy())
        if not compiled or (linear_program and best[0] - lower > rtol * best[0]):
            v_cert = _best_dual(p2, f_all[dirs], v)
            bound = 2.0 * v_cert @ f_all[dirs] - (p2 @ v_cert).max()
            if bound > lower:
                lower, cert = bound, (dirs, v_cert)
        if best[0] - lower <= rtol * best[0]:
            break
        # enlarge the working sets with the worst violators of the restricted optimality
        nu = g[arms].max()
        out_arms = _outside(g > nu * (1.0 + 0.1 * rtol), arms)
        out_dirs = _outside(f_all > t * (1.0 + 0.1 * rtol), dirs)
        cap = max(2 * r, 10) if linear_program else _LOOSE_CAP
        if out_arms.size:
            out_arms = out_arms[np.argsort(-g[out_arms])[:cap]]
            arms = np.union1d(arms, out_arms)
        if out_dirs.size:
            out_dirs = out_dirs[np.argsort(-f_all[out_dirs])[:cap]]
            dirs = np.union1d(dirs, out_dirs)
        if not out_arms.size and not out_dirs.size:
            inner_rtol *= 0.1  # the restricted problem was not solved accurately enough
            if inner_rtol < 1e-4 * rtol:
                break  # rounding-limited: return the best certified pair found
        # restart interior: new arms get a little weight
        w_s = w_full[arms] + 1e-4 * rtol / arms.size + (w_full[arms] == 0) * 1e-3 / arms.size
        w_full = np.zeros(k)
        w_full[arms] = w_s / w_s.sum()
        mu_rel = max(min(0.1, (best[0] - lower) / best[0]), rtol)
    if not linear_program and paired[0] - lower <= rtol * paired[0]:
        best = paired  # the design its own round's certificate closes (the state's check then reproduces the gap)
    w_best = best[1]
    if state is not None:
        state.weights = w_best.copy()
        state.arms = np.flatnonzero(w_best > keep * w_best.max()) if keep > 1e-12 else np.flatnonzero(w_best > 1e-12)
        state.directions = dirs[f_all[dirs] >= 0.5 * primal] if dirs.size else dirs
        state.dual_directions, state.dual = cert
    lower = min(lower, best[0])  # equal up to rounding at an exact optimum
    return DesignResult(weights=w_best, value=float(best[0] / scale), lower_bound=float(lower / scale),
                        iterations=iterations)
