"""Compiled form of the restricted barrier solve of :mod:`pybai.design.minimax`.

:func:`restricted_compiled` runs the same log-barrier path-following Newton method as
``minimax._restricted`` (same stages, tolerances, line search and stopping tests) in one numba
kernel, without numpy's per-call overhead: about 50 times faster on small working sets (8 arms,
7 directions); the products that build the Newton system (O(n^2 m)) go to BLAS.  The floating-point order differs from the numpy version (loops instead of BLAS),
so results agree to rounding, not bit for bit; ``solve_minimax(..., compiled=True)`` selects it.
With ``gap_stop > 0`` (the loose solves of ``solve_minimax``) the kernel may end the path earlier
than the numpy version, as soon as its own certificate suffices.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["restricted_compiled", "start_point", "cholesky_inverse", "cholesky_inverse_into", "direction_variances"]


@njit(cache=True)
def cholesky_inverse(z, w, out):
    """A(w)^-1 into ``out`` by Cholesky; False when A(w) is singular (as ``_linalg.inverse_design``)."""
    r = z.shape[1]
    return cholesky_inverse_into(z, w, out, np.empty((r, r)), np.empty((r, r)), np.empty((r, r)))


@njit(cache=True)
def cholesky_inverse_into(z, w, out, a, l, il):
    """:func:`cholesky_inverse` with the (r, r) work arrays ``a``, ``l``, ``il`` given (overwritten)."""
    n, r = z.shape
    a[:, :] = 0.0
    for i in range(n):
        wi = w[i]
        for p in range(r):
            zp = wi * z[i, p]
            for q in range(p + 1):
                a[p, q] += zp * z[i, q]
    # Cholesky a = l l^T (lower)
    l[:, :] = 0.0
    for p in range(r):
        s = a[p, p]
        for k in range(p):
            s -= l[p, k] * l[p, k]
        if not s > 0.0:
            return False
        l[p, p] = math.sqrt(s)
        for q in range(p + 1, r):
            s = a[q, p]
            for k in range(p):
                s -= l[q, k] * l[p, k]
            l[q, p] = s / l[p, p]
    dmin = l[0, 0]
    dmax = l[0, 0]
    for p in range(r):
        dmin = min(dmin, l[p, p])
        dmax = max(dmax, l[p, p])
    if dmin * dmin <= 1e-13 * max(dmax * dmax, 1e-300):
        return False
    # inverse of l (lower), then out = inv_l^T inv_l
    il[:, :] = 0.0
    for p in range(r):
        il[p, p] = 1.0 / l[p, p]
        for q in range(p):
            s = 0.0
            for k in range(q, p):
                s -= l[p, k] * il[k, q]
            il[p, q] = s / l[p, p]
    for p in range(r):
        for q in range(r):
            s = 0.0
            for k in range(max(p, q), r):
                s += il[k, p] * il[k, q]
            out[p, q] = s
    return True


@njit(cache=True)
def direction_variances(y, minv, f):
    """``f[j] = y_j^T minv y_j`` for every row ``y_j`` of ``y`` (written into ``f``)."""
    m, r = y.shape
    for j in range(m):
        s = 0.0
        for p in range(r):
            u = 0.0
            for q in range(r):
                u += minv[p, q] * y[j, q]
            s += y[j, p] * u
        f[j] = s


@njit(cache=True)
def _kkt_cholesky(hs, rhs, scale, n, sol, bu, bv):
    """The scaled Newton system [H a; a^T 0] by a Cholesky factor of its (n+1) block and the Schur complement.

    ``hs`` is the (n+2)-square scaled system (its (n+1) block H is positive definite: the
    barrier's Hessian), ``a`` the scaled simplex constraint (``scale`` on the weights, 0 on t).
    Writes the unscaled Newton direction into ``sol`` (as ``solve(hs, rhs * scale) * scale``,
    in half the flops); False when the factorisation fails (the caller then uses the LU solve).
    """
    m1 = n + 1
    try:
        lc = np.linalg.cholesky(np.ascontiguousarray(hs[:m1, :m1]))
    except Exception:  # noqa: BLE001 - not numerically positive definite
        return False
    for p in range(m1):  # forward substitution, two right-hand sides: H^-1 (D r) and H^-1 (D a)
        s1 = rhs[p] * scale[p]
        s2 = scale[p] if p < n else 0.0
        for k in range(p):
            s1 -= lc[p, k] * bu[k]
            s2 -= lc[p, k] * bv[k]
        bu[p] = s1 / lc[p, p]
        bv[p] = s2 / lc[p, p]
    for p in range(n, -1, -1):
        s1 = bu[p]
        s2 = bv[p]
        for k in range(p + 1, m1):
            s1 -= lc[k, p] * bu[k]
            s2 -= lc[k, p] * bv[k]
        bu[p] = s1 / lc[p, p]
        bv[p] = s2 / lc[p, p]
    au = 0.0
    av = 0.0
    for p in range(n):
        au += scale[p] * bu[p]
        av += scale[p] * bv[p]
    if not av > 0.0:
        return False
    lam = au / av
    for p in range(m1):
        sol[p] = (bu[p] - lam * bv[p]) * scale[p]
    sol[n + 1] = lam
    return True


@njit(cache=True)
def start_point(z, y, w0):
    """``(w, A(w)^-1, f, ok)`` at the start ``w0`` of a restricted solve (``w`` a copy; ``f`` the
    variances of the rows of ``y``, computed only when ``ok``: A(w0) invertible)."""
    r = z.shape[1]
    w = w0.copy()
    minv = np.empty((r, r))
    f = np.empty(y.shape[0])
    ok = cholesky_inverse(z, w, minv)
    if ok:
        direction_variances(y, minv, f)
    return w, minv, f, ok


@njit(cache=True)
def restricted_compiled(z, y, w0, rtol, mu_rel, gap_stop=0.0):
    """Barrier method on min t s.t. ||y||^2_{A(w)^-1} <= t over the simplex of the rows of ``z``.

    ``gap_stop`` > 0 ends the path as soon as the restricted certificate at the current point
    (dual weights v = (t - f)^-1 normalised, bound 2 v.f - max_a sum_y v_y (x_a^T A^-1 y)^2,
    the bound of ``minimax.duality_gap`` on the working sets) certifies a relative gap
    <= ``gap_stop``; 0 follows the path to the end, as the numpy version does.

    Returns ``(w, v, t, newton_steps, ok)``: design, dual weights over the rows of ``y``,
    restricted value, steps; ``ok`` is False when the start design is singular (the caller then
    uses the numpy version).
    """
    n, r = z.shape
    m = y.shape[0]
    w, minv, f, ok = start_point(z, y, w0)
    if not ok:
        return w, np.full(m, 1.0 / m), 0.0, 0, False
    t = f.max() * (1.0 + 10.0 * mu_rel) + 1e-300
    tau = (n + m) / (mu_rel * t)
    steps = 0
    final = False
    minv_new = np.empty((r, r))
    f_new = np.empty(m)
    p = np.empty((n, m))
    p2 = np.empty((n, m))
    p2c = np.empty((n, m))
    ps = np.empty((n, m))
    qm = np.empty((n, n))
    h = np.empty((n + 2, n + 2))
    rhs = np.empty(n + 2)
    s = np.empty(m)
    inv_s = np.empty(m)
    grad_w = np.empty(n)
    g_arm = np.empty(n)
    w_new = np.empty(n)
    zm = np.empty((n, r))
    h1 = np.empty((n, n))
    h2 = np.empty((n, n))
    hs = np.empty((n + 2, n + 2))
    scale = np.empty(n + 2)
    work_a = np.empty((r, r))
    work_l = np.empty((r, r))
    work_il = np.empty((r, r))
    done = False
    sol_c = np.empty(n + 2)
    bu = np.empty(n + 1)
    bv = np.empty(n + 1)
    for _stage in range(60):
        final = (n + m) / tau <= 0.25 * rtol * t
        for _ in range(80):
            steps += 1
            for j in range(m):
                s[j] = t - f[j]
                inv_s[j] = 1.0 / s[j]
            # p = z minv y^T, qm = z minv z^T (BLAS products)
            np.dot(z, minv, zm)
            np.dot(zm, y.T, p)
            np.dot(zm, z.T, qm)
            sum_inv = 0.0
            csum = 0.0
            for j in range(m):
                sum_inv += inv_s[j]
                csum += inv_s[j] * inv_s[j]
            for i in range(n):
                acc = 0.0
                acc2 = 0.0
                for j in range(m):
                    sq = p[i, j] * p[i, j]
                    p2c[i, j] = sq * inv_s[j] * inv_s[j]
                    p2[i, j] = sq
                    ps[i, j] = p[i, j] * inv_s[j]
                    acc += sq * inv_s[j]
                    acc2 += p2c[i, j]
                grad_w[i] = -acc - 1.0 / w[i]
                g_arm[i] = acc
                h[i, n] = acc2
                h[n, i] = acc2
                h[i, n + 1] = 1.0
                h[n + 1, i] = 1.0
            grad_t = tau - sum_inv
            if gap_stop > 0.0:  # the certificate at this point already suffices: stop the path here
                gmax = 0.0
                vf = 0.0
                fmax = 0.0
                for i in range(n):
                    gmax = max(gmax, g_arm[i])
                for j in range(m):
                    vf += f[j] * inv_s[j]
                    fmax = max(fmax, f[j])
                if fmax - (2.0 * vf - gmax) / sum_inv <= gap_stop * fmax:
                    done = True
                    break
            # h_ww = (p2 c) p2^T + 2 ((p / s) p^T) * qm, c = 1 / s^2
            np.dot(p2c, p2.T, h1)
            np.dot(ps, p.T, h2)
            for i in range(n):
                for k in range(n):
                    h[i, k] = h1[i, k] + 2.0 * h2[i, k] * qm[i, k]
                h[i, i] += 1.0 / (w[i] * w[i])
            h[n, n] = csum
            h[n, n + 1] = 0.0
            h[n + 1, n] = 0.0
            h[n + 1, n + 1] = 0.0
            for i in range(n):
                rhs[i] = -grad_w[i]
            rhs[n] = -grad_t
            rhs[n + 1] = 0.0
            scale[n + 1] = 1.0
            for i in range(n + 1):
                scale[i] = 1.0 / math.sqrt(h[i, i])
            for i in range(n + 2):
                for k in range(n + 2):
                    hs[i, k] = h[i, k] * scale[i] * scale[k]
            if gap_stop > 0.0 and _kkt_cholesky(hs, rhs, scale, n, sol_c, bu, bv):
                sol = sol_c
            else:
                sol = np.linalg.solve(hs, rhs * scale) * scale
            dt = sol[n]
            slope = grad_t * dt
            for i in range(n):
                slope += grad_w[i] * sol[i]
            if -slope <= (1e-9 if final else 1e-3):
                break
            alpha = 1.0
            neg = False
            amin = math.inf
            for i in range(n):
                if sol[i] < 0.0:
                    neg = True
                    amin = min(amin, -w[i] / sol[i])
            if neg:
                alpha = min(1.0, 0.99 * amin)
            accepted = False
            t_new = t
            for _ls in range(60):
                t_new = t + alpha * dt
                positive = True
                for i in range(n):
                    w_new[i] = w[i] + alpha * sol[i]
                    if not w_new[i] > 0.0:
                        positive = False
                if positive and cholesky_inverse_into(z, w_new, minv_new, work_a, work_l, work_il):
                    direction_variances(y, minv_new, f_new)
                    ok = True
                    change = tau * alpha * dt
                    for j in range(m):
                        sn = t_new - f_new[j]
                        if not sn > 0.0:
                            ok = False
                            break
                        change -= math.log(sn / s[j])
                    if ok:
                        for i in range(n):
                            change -= math.log(w_new[i] / w[i])
                        if change <= 0.25 * alpha * slope:
                            accepted = True
                            break
                alpha *= 0.5
            if not accepted:
                break
            total = 0.0
            for i in range(n):
                total += w_new[i]
            for i in range(n):
                w[i] = w_new[i] / total
            t = t_new
            minv[:, :] = minv_new
            f[:] = f_new
            if abs(total - 1.0) > 1e-12:
                cholesky_inverse_into(z, w, minv, work_a, work_l, work_il)
                direction_variances(y, minv, f)
                t = max(t, f.max() * (1.0 + 1e-12))
        if final or done:
            break
        tau = min(tau * 20.0, (n + m) / (0.25 * rtol * t))
    v = np.empty(m)
    vs = 0.0
    for j in range(m):
        v[j] = 1.0 / (t - f[j])
        vs += v[j]
    for j in range(m):
        v[j] /= vs
    return w, v, t, steps, True
