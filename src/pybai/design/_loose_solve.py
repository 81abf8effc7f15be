"""Compiled form of the loose solve of :func:`pybai.design.minimax.solve_minimax`.

``solve_minimax(z, ExplicitDirections(y), compiled=True, linear_program=False)`` -- the
approximate oracle of linear Track-and-Stop -- spends about a third of its time in numpy
calls around the restricted solves: working sets, the certificate over all arms and
directions, violator selection.  :func:`loose_solve` runs that whole outer loop in one numba
kernel, calling :func:`~pybai.design._restricted_pd.restricted_pd` for the restricted
solves (as the numpy loop does).  It is the same method step for step (start working sets, rounds, certificate,
violators -- the at most 8 largest, the set numpy's ``argsort(-g)[:8]`` selects unless values
tie (here the earlier index goes first) -- restart weights, warm-start state), with the full-set products in loops and BLAS instead of
numpy's order: results agree with the numpy outer loop to rounding.  :func:`gap_compiled` is
:func:`~pybai.design.minimax.duality_gap` compiled (the oracle's check of a stored design).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.design._minimax_kernels import cholesky_inverse
from pybai.design._restricted_pd import restricted_pd

__all__ = ["gap_compiled", "loose_solve"]

_MAX_OUTER = 80  # as minimax._MAX_OUTER
_SMALL = 160  # as minimax.SMALL
_CAP = 8  # as minimax._LOOSE_CAP
_GAP_STOP = 0.5  # as minimax._GAP_STOP
_START_MIX = 0.2  # as minimax._START_MIX


@njit(cache=True)
def _values(yy, minv, scale, out, work):
    """``out[j] = scale * y_j^T minv y_j`` for the rows of ``yy`` (``ExplicitDirections.values`` times ``scale``)."""
    np.dot(yy, minv, work)
    m, r = yy.shape
    for j in range(m):
        s = 0.0
        for p in range(r):
            s += work[j, p] * yy[j, p]
        out[j] = s * scale


@njit(cache=True)
def _inverse_rows(z, w, rows, minv):
    """A(w)^-1 from the rows ``rows`` of ``z`` and their weights ``w[rows]``; False when singular."""
    zs = np.empty((rows.size, z.shape[1]))
    ws = np.empty(rows.size)
    for i in range(rows.size):
        zs[i, :] = z[rows[i], :]
        ws[i] = w[rows[i]]
    return cholesky_inverse(zs, ws, minv)


@njit(cache=True)
def _arm_terms(z, minv, y, v, g):
    """``g[a] = sum_j v_j (x_a^T minv y_j)^2`` over all rows of ``z``; returns max_a g[a]."""
    b = np.dot(minv, y.T)
    p = np.dot(z, b)
    gmax = -math.inf
    for a in range(z.shape[0]):
        s = 0.0
        for j in range(y.shape[0]):
            s += p[a, j] * p[a, j] * v[j]
        g[a] = s
        gmax = max(gmax, s)
    return gmax


@njit(cache=True)
def _largest(values, candidates, cap):
    """The at most ``cap`` entries of ``candidates`` with the largest ``values`` (ties: earlier entry first).

    One pass keeping the best ``cap`` so far in descending order (the set of ``np.argsort(-values)[:cap]``).
    """
    n = min(cap, candidates.size)
    out = np.empty(n, dtype=np.int64)
    top = np.empty(n)
    count = 0
    for c in candidates:
        x = values[c]
        if count == n and not x > top[n - 1]:
            continue
        i = count if count < n else n - 1  # insert x, dropping the last when full
        while i > 0 and x > top[i - 1]:
            top[i] = top[i - 1]
            out[i] = out[i - 1]
            i -= 1
        top[i] = x
        out[i] = c
        count = min(count + 1, n)
    return out


@njit(cache=True)
def _gather(a, rows, factor):
    out = np.empty((rows.size, a.shape[1]))
    for i in range(rows.size):
        for p in range(a.shape[1]):
            out[i, p] = a[rows[i], p] * factor
    return out


@njit(cache=True)
def _kernel(z, yy, rtol, keep, start, has_weights, weights, old_arms, old_dirs):
    """The outer loop of the loose compiled solve; see :func:`loose_solve` for the returned tuple.

    Status 0: solved; 1: the state holds no usable design and ``start`` is empty (the caller
    computes ``cold_start``); 2: a singular design on the way (the caller runs the numpy loop).
    """
    k, r = z.shape
    m = yy.shape[0]
    empty_i = np.empty(0, dtype=np.int64)
    minv = np.empty((r, r))
    w = np.zeros(k)
    usable = False
    if has_weights and weights.size == k:
        total = 0.0
        for a in range(k):
            w[a] = max(weights[a], 0.0)
            total += w[a]
        if total > 0.0:
            w /= total
            usable = _inverse_rows(z, w, np.flatnonzero(w), minv)
    if not usable:
        if start.size != k:
            return 1, w, 0.0, 0.0, 0, empty_i, empty_i, empty_i, np.empty(0)
        w[:] = start
    wmax = w.max()
    in_arms = np.zeros(k, dtype=np.bool_)
    if k <= _SMALL:
        in_arms[:] = True
    else:
        for a in range(k):
            in_arms[a] = w[a] > max(keep, 1e-9) * wmax
        for a in old_arms:
            if a < k:
                in_arms[a] = True
    w_full = np.zeros(k)
    for attempt in range(2):
        if attempt == 1:  # ``keep`` left too few arms to span: every arm of the design
            for a in range(k):
                in_arms[a] = w[a] > 1e-9 * wmax
        arms = np.flatnonzero(in_arms)
        na = arms.size
        total = 0.0
        for a in arms:
            total += w[a] + 1e-3 / na
        w_full[:] = 0.0
        for a in arms:
            w_full[a] = (w[a] + 1e-3 / na) / total
        if na >= r and _inverse_rows(z, w_full, arms, minv):  # fewer than r arms cannot span
            break
    else:
        return 2, w, 0.0, 0.0, 0, empty_i, empty_i, empty_i, np.empty(0)
    f_all = np.empty(m)
    work = np.empty((m, r))
    _values(yy, minv, 1.0, f_all, work)
    scale = 1.0 / f_all.max()
    root = math.sqrt(scale)
    n_top = min(m, max(r + 1, 8))
    in_dirs = np.zeros(m, dtype=np.bool_)
    for j in _largest(f_all, np.arange(m), n_top):
        in_dirs[j] = True
    for j in old_dirs:
        if j < m:
            in_dirs[j] = True
    dirs = np.flatnonzero(in_dirs)
    best_value = math.inf
    best_w = w_full.copy()
    lower = -math.inf
    cert_dirs = empty_i
    cert_v = np.empty(0)
    cert_w = w_full.copy()  # the design of the round of the best bound, and its value
    cert_value = math.inf
    inner_rtol = rtol
    mu_rel = 0.1
    iterations = 0
    primal = math.inf
    g = np.empty(k)
    for _outer in range(_MAX_OUTER):
        y = _gather(yy, dirs, root)
        zs = _gather(z, arms, 1.0)
        w0 = np.empty(na)
        for i in range(na):
            w0[i] = (1.0 - _START_MIX) * w_full[arms[i]] + _START_MIX / na
        w_s, v, t, steps, ok = restricted_pd(zs, y, w0, inner_rtol, mu_rel, _GAP_STOP * inner_rtol)
        if not ok:
            return 2, w, 0.0, 0.0, 0, empty_i, empty_i, empty_i, np.empty(0)
        iterations += steps
        w_full[:] = 0.0
        for i in range(na):
            w_full[arms[i]] = w_s[i]
        if not cholesky_inverse(zs, w_s, minv):
            return 2, w, 0.0, 0.0, 0, empty_i, empty_i, empty_i, np.empty(0)
        _values(yy, minv, scale, f_all, work)
        primal = f_all.max()
        if primal < best_value:
            best_value = primal
            best_w[:] = w_full
        gmax = _arm_terms(z, minv, y, v, g)
        vf = 0.0
        for i in range(dirs.size):
            vf += v[i] * f_all[dirs[i]]
        bound = 2.0 * vf - gmax
        if bound > lower:
            lower, cert_dirs, cert_v = bound, dirs, v
            cert_value = primal
            cert_w[:] = w_full
        if best_value - lower <= rtol * best_value:
            break
        # enlarge the working sets with the worst violators of the restricted optimality
        nu = -math.inf
        for a in arms:
            nu = max(nu, g[a])
        out_arms = np.flatnonzero((g > nu * (1.0 + 0.1 * rtol)) & ~in_arms)
        out_dirs = np.flatnonzero((f_all > t * (1.0 + 0.1 * rtol)) & ~in_dirs)
        if out_arms.size:
            for a in _largest(g, out_arms, _CAP):
                in_arms[a] = True
            arms = np.flatnonzero(in_arms)
            na = arms.size
        if out_dirs.size:
            for j in _largest(f_all, out_dirs, _CAP):
                in_dirs[j] = True
            dirs = np.flatnonzero(in_dirs)
        if not out_arms.size and not out_dirs.size:
            inner_rtol *= 0.1  # the restricted problem was not solved accurately enough
            if inner_rtol < 1e-4 * rtol:
                break  # rounding-limited: return the best certified pair found
        # restart interior: new arms get a little weight
        total = 0.0
        w0 = np.empty(na)
        for i in range(na):
            wa = w_full[arms[i]]
            w0[i] = wa + 1e-4 * rtol / na + (1e-3 / na if wa == 0.0 else 0.0)
            total += w0[i]
        w_full[:] = 0.0
        for i in range(na):
            w_full[arms[i]] = w0[i] / total
        mu_rel = max(min(0.1, (best_value - lower) / best_value), rtol)
    if cert_value - lower <= rtol * cert_value:  # the design its own round's certificate closes
        best_value = cert_value
        best_w[:] = cert_w
    bmax = best_w.max()
    st_arms = np.flatnonzero(best_w > keep * bmax) if keep > 1e-12 else np.flatnonzero(best_w > 1e-12)
    n_keep = 0
    for j in dirs:
        n_keep += f_all[j] >= 0.5 * primal
    st_dirs = np.empty(n_keep, dtype=np.int64)
    n_keep = 0
    for j in dirs:
        if f_all[j] >= 0.5 * primal:
            st_dirs[n_keep] = j
            n_keep += 1
    lower = min(lower, best_value)
    return 0, best_w, best_value / scale, lower / scale, iterations, st_arms, st_dirs, cert_dirs, cert_v


def loose_solve(z, y, rtol, state, start, keep, cold_start):
    """The loose compiled solve of ``solve_minimax`` on explicit directions ``y``; None: use the numpy loop.

    Returns ``(weights, value, lower_bound, iterations)`` and updates ``state`` (a
    :class:`~pybai.design.minimax.DesignState` or None) as ``solve_minimax`` does, or None when
    a design on the way is singular (then ``solve_minimax`` runs its numpy loop, from the same
    state).  ``start``: the cold start, or None (then ``cold_start(z)`` is called when needed).
    """
    k = z.shape[0]
    has = state is not None and state.weights is not None and np.shape(state.weights) == (k,)
    weights = np.asarray(state.weights, dtype=float) if has else np.empty(0)
    old_arms = _indices(state.arms if state is not None else None)
    old_dirs = _indices(state.directions if state is not None else None)
    z = np.ascontiguousarray(z, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    start = np.empty(0) if start is None or np.shape(start) != (k,) else np.asarray(start, dtype=float)
    out = _kernel(z, y, float(rtol), float(keep), start, has, weights, old_arms, old_dirs)
    if out[0] == 1:
        out = _kernel(z, y, float(rtol), float(keep), cold_start(z), has, weights, old_arms, old_dirs)
    if out[0] != 0:
        return None
    _, w_best, value, lower, iterations, st_arms, st_dirs, cert_dirs, cert_v = out
    if state is not None:
        state.weights, state.arms, state.directions = w_best.copy(), st_arms, st_dirs
        state.dual_directions, state.dual = cert_dirs, cert_v
    return w_best, value, lower, iterations


def _indices(a) -> np.ndarray:
    return np.empty(0, dtype=np.int64) if a is None else np.asarray(a, dtype=np.int64).ravel()


@njit(cache=True)
def _gap_kernel(z, yy, w, dual_dirs, dual):
    k, r = z.shape
    minv = np.empty((r, r))
    if not _inverse_rows(z, w, np.flatnonzero(w), minv):
        return math.inf, -math.inf
    f_all = np.empty(yy.shape[0])
    _values(yy, minv, 1.0, f_all, np.empty(yy.shape))
    gmax = _arm_terms(z, minv, _gather(yy, dual_dirs, 1.0), dual, np.empty(k))
    vf = 0.0
    for i in range(dual_dirs.size):
        vf += dual[i] * f_all[dual_dirs[i]]
    return f_all.max(), 2.0 * vf - gmax


def gap_compiled(z, y, w, dual_directions, dual):
    """:func:`~pybai.design.minimax.duality_gap` on explicit directions ``y``, compiled: ``(f(w), L(w, v))``."""
    value, lower = _gap_kernel(np.ascontiguousarray(z, dtype=float), np.ascontiguousarray(y, dtype=float),
                               np.ascontiguousarray(w, dtype=float), _indices(dual_directions),
                               np.ascontiguousarray(dual, dtype=float))
    return float(value), float(lower)
