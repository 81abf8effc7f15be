"""Numba kernels of the BAICS oracle: the outer maximisation over the sampling weights.

With a feasible answer ``a``, T*(mu)^{-1} = max_{u in simplex} min_j g_j(u), where the
pieces ``g_j`` are the challenger QP values (one per arm b != a) and the feasibility
values ``w[a, l] d(mu[a, l], f_l)`` (one per constrained l); u is the (K*L) weight
vector ("pair" model) or the arm distribution v with ``w[k, l] = v_k q_l`` ("arm"
model).  Every g_j is concave, positively homogeneous and C^1 with a closed-form
Hessian (see :mod:`pybai.models._feasible_pieces`), so the epigraph problem

    max t   s.t.  g_j(u) >= t,  u >= 0,  sum(u) = 1

is solved by a primal log-barrier (interior-point) method: damped Newton steps on
``t + mub * (sum_j log(g_j - t) + sum_i log u_i)`` under the equality constraint, with
mub divided by ``_SHRINK`` per stage until the duality-gap bound ``m * mub`` is below
``tol * t`` (m = number of inequality constraints).  Each stage starts from a linear
extrapolation of the last two centred points (the central path is ~ affine in mub) and
the barrier-optimal t for that point.  All loops are bounded.

Numba caching caveat: ``cache=True`` keys on this file only, so after editing
``pybai/models/_feasible_pieces.py`` delete the ``__pycache__/_feasible_outer*.nb*`` files (stale kernels).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._feasible_pieces import challenger_piece

_SHRINK = 0.05
_MAX_STAGES = 60
_MAX_NEWTON = 60
_MAX_BACKTRACK = 60
_CENTERED = 1e-8  # squared Newton decrement (in units of mub) ending a centring stage


@njit(cache=True)
def _best_t(vals, t, mub):
    """Maximise the barrier over t alone: solve sum_j 1 / (g_j - t) = 1 / mub."""
    lo = t
    hi = vals.min()
    target = 1.0 / mub
    phi_lo = 0.0
    for j in range(vals.shape[0]):
        phi_lo += 1.0 / (vals[j] - lo)
    if phi_lo >= target:
        return t
    x = lo
    for _ in range(100):
        phi = 0.0
        dphi = 0.0
        for j in range(vals.shape[0]):
            inv = 1.0 / (vals[j] - x)
            phi += inv
            dphi += inv * inv
        phi -= target
        if phi < 0.0:
            lo = x
        else:
            hi = x
        xn = x - phi / dphi
        if not (xn > lo and xn < hi):
            xn = 0.5 * (lo + hi)
        if abs(xn - x) <= 1e-15 * abs(x) or hi - lo <= 1e-15 * abs(hi):
            x = xn
            break
        x = xn
    if not (x < vals.min()):
        return lo
    return x


@njit(cache=True)
def _fill_w(u, q, arm_mode, W):
    K = W.shape[0]
    L = W.shape[1]
    for k in range(K):
        for l in range(L):
            if arm_mode:
                W[k, l] = u[k] * q[l]
            else:
                W[k, l] = u[k * L + l]


@njit(cache=True)
def _pieces(mu, s2, q, floors, cmask, a, arm_mode, u, W, vals, gidx, gcoef, gw, hw, need, brk, state):
    """Values (and w-space derivatives) of all pieces at u.

    Piece j < K-1 is the challenger b (b skipping a); the others are the feasibility
    pieces of the constrained subpopulations in order.  For piece j, local cell c < 2L
    maps to u-index ``gidx[j, c]`` with coefficient ``gcoef[j, c]``; ``gw[j]`` and
    ``hw[j]`` hold the w-space gradient and Hessian.
    """
    K = mu.shape[0]
    L = mu.shape[1]
    _fill_w(u, q, arm_mode, W)
    j = 0
    for b in range(K):
        if b == a:
            continue
        vals[j] = challenger_piece(mu, s2, q, floors, cmask, a, b, W, gw[j], hw[j], need, brk, state)
        for l in range(L):
            if arm_mode:
                gidx[j, l] = a
                gidx[j, L + l] = b
                gcoef[j, l] = q[l]
                gcoef[j, L + l] = q[l]
            else:
                gidx[j, l] = a * L + l
                gidx[j, L + l] = b * L + l
                gcoef[j, l] = 1.0
                gcoef[j, L + l] = 1.0
        j += 1
    for l in range(L):
        if not cmask[l]:
            continue
        dl = mu[a, l] - floors[l]
        e = dl * dl / (2.0 * s2[a, l])
        vals[j] = W[a, l] * e
        if need >= 1:
            for c in range(2 * L):
                gw[j, c] = 0.0
                gcoef[j, c] = 0.0
                gidx[j, c] = 0
            gw[j, 0] = e
            gcoef[j, 0] = q[l] if arm_mode else 1.0
            gidx[j, 0] = a if arm_mode else a * L + l
        if need >= 2:
            for c in range(2 * L):
                for c2 in range(2 * L):
                    hw[j, c, c2] = 0.0
        j += 1


@njit(cache=True)
def _barrier_value(vals, u, t, mub):
    """Barrier objective, -inf outside the strict interior."""
    s = 0.0
    for j in range(vals.shape[0]):
        d = vals[j] - t
        if not (d > 0.0):
            return -math.inf
        s += math.log(d)
    for i in range(u.shape[0]):
        if not (u[i] > 0.0):
            return -math.inf
        s += math.log(u[i])
    return t + mub * s


@njit(cache=True)
def solve_barrier(mu, s2, q, floors, cmask, a, arm_mode, u0, tol, mub_scale):
    """Maximise min_j g_j(u) over the simplex; returns (u, value, newton_steps).

    ``u0`` must be strictly positive and sum to 1; the first barrier weight is
    ``mub_scale * min_j g_j(u0) / m`` (use < 1 for a warm start close to the optimum).
    """
    K = mu.shape[0]
    L = mu.shape[1]
    n = u0.shape[0]
    J = K - 1
    for l in range(L):
        if cmask[l]:
            J += 1
    W = np.empty((K, L))
    vals = np.empty(J)
    vals_new = np.empty(J)
    gidx = np.zeros((J, 2 * L), dtype=np.int64)
    gcoef = np.zeros((J, 2 * L))
    gw = np.zeros((J, 2 * L))
    hw = np.zeros((J, 2 * L, 2 * L))
    brk = np.empty(L)
    state = np.empty(L, dtype=np.int64)
    N = n + 1  # u and t
    H = np.empty((N + 1, N + 1))  # KKT matrix
    rhs = np.empty(N + 1)
    gu = np.empty(n)
    u = u0.copy()
    unew = np.empty(n)

    _pieces(mu, s2, q, floors, cmask, a, arm_mode, u, W, vals, gidx, gcoef, gw, hw, 0, brk, state)
    F = vals.min()
    if not (F > 0.0):
        return u, F, 0
    m = J + n
    t = 0.5 * F
    mub = mub_scale * F / m
    steps = 0
    u_prev = u.copy()
    have_prev = False
    for _stage in range(_MAX_STAGES):
        if have_prev:
            # predictor: the central path is ~ affine in mub (zero cells ~ proportional to
            # mub), so extrapolate the last two centred points (mub ratio _SHRINK)
            fac = _SHRINK
            for _try in range(4):
                ok = True
                for i in range(n):
                    unew[i] = u[i] + fac * (u[i] - u_prev[i])
                    if not (unew[i] > 0.0):
                        ok = False
                if ok:
                    _pieces(mu, s2, q, floors, cmask, a, arm_mode, unew, W, vals_new, gidx, gcoef, gw, hw, 0, brk, state)
                    if vals_new.min() > t:
                        break
                ok = False
                fac *= 0.5
            for i in range(n):
                u_prev[i] = u[i]
                if ok:
                    u[i] = unew[i]
        else:
            for i in range(n):
                u_prev[i] = u[i]
        have_prev = True
        _pieces(mu, s2, q, floors, cmask, a, arm_mode, u, W, vals, gidx, gcoef, gw, hw, 0, brk, state)
        t = _best_t(vals, t, mub)
        for _it in range(_MAX_NEWTON):
            _pieces(mu, s2, q, floors, cmask, a, arm_mode, u, W, vals, gidx, gcoef, gw, hw, 2, brk, state)
            steps += 1
            for i in range(N + 1):
                rhs[i] = 0.0
                for k2 in range(N + 1):
                    H[i, k2] = 0.0
            # log u_i terms
            for i in range(n):
                rhs[i] = mub / u[i]
                H[i, i] = -mub / (u[i] * u[i])
            gt = 1.0
            htt = 0.0
            for j in range(J):
                sj = vals[j] - t
                inv = 1.0 / sj
                inv2 = inv * inv
                # u-space gradient of piece j
                for i in range(n):
                    gu[i] = 0.0
                for c in range(2 * L):
                    gu[gidx[j, c]] += gcoef[j, c] * gw[j, c]
                for i in range(n):
                    rhs[i] += mub * inv * gu[i]
                gt -= mub * inv
                htt -= mub * inv2
                for c in range(2 * L):
                    ic = gidx[j, c]
                    cc = gcoef[j, c]
                    if cc == 0.0:
                        continue
                    for c2 in range(2 * L):
                        hv = hw[j, c, c2]
                        if hv != 0.0:
                            H[ic, gidx[j, c2]] += mub * inv * cc * gcoef[j, c2] * hv
                for i in range(n):
                    gi = gu[i]
                    if gi == 0.0:
                        continue
                    for k2 in range(n):
                        H[i, k2] -= mub * inv2 * gi * gu[k2]
                    H[i, n] += mub * inv2 * gi
                    H[n, i] += mub * inv2 * gi
            rhs[n] = gt
            H[n, n] = htt
            # equality constraint sum(u) = 1
            for i in range(n):
                H[i, N] = 1.0
                H[N, i] = 1.0
            H[n, N] = 0.0
            H[N, n] = 0.0
            H[N, N] = 0.0
            rhs[N] = 0.0
            # Newton: H dz + A^T eta = -grad  (maximisation, H negative definite)
            for i in range(N):
                rhs[i] = -rhs[i]
            dz = np.linalg.solve(H, rhs)
            slope = 0.0  # grad . dz (> 0 for an ascent direction)
            for i in range(N):
                slope -= rhs[i] * dz[i]
            if not (slope > 0.0) or slope / mub < _CENTERED:
                break
            psi0 = _barrier_value(vals, u, t, mub)
            step = 1.0
            accepted = False
            for _bt in range(_MAX_BACKTRACK):
                for i in range(n):
                    unew[i] = u[i] + step * dz[i]
                tnew = t + step * dz[n]
                ok = True
                for i in range(n):
                    if not (unew[i] > 0.0):
                        ok = False
                        break
                if ok:
                    _pieces(mu, s2, q, floors, cmask, a, arm_mode, unew, W, vals_new, gidx, gcoef, gw, hw, 0, brk, state)
                    psi1 = _barrier_value(vals_new, unew, tnew, mub)
                    if psi1 >= psi0 + 0.25 * step * slope:
                        accepted = psi1 > psi0 + 1e-15 * abs(psi0)  # else: round-off floor
                        break
                step *= 0.5
            if not accepted:
                break
            for i in range(n):
                u[i] = unew[i]
            t = tnew
        if m * mub <= tol * t:
            break
        mub *= _SHRINK
    s = u.sum()
    for i in range(n):
        u[i] /= s
    _pieces(mu, s2, q, floors, cmask, a, arm_mode, u, W, vals, gidx, gcoef, gw, hw, 0, brk, state)
    return u, vals.min(), steps
