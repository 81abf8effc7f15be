r"""Primal-dual interior-point form of the restricted minimax solve of :mod:`pybai.design.minimax`.

:func:`restricted_pd` solves the same restricted problem as
:func:`pybai.design._minimax_kernels.restricted_compiled`,
:math:`\min t` s.t. :math:`f_j(w) = y_j^\top A(w)^{-1} y_j \le t`, :math:`w \ge 0`,
:math:`\sum w = 1`, with the same signature and return value, by Mehrotra's
predictor-corrector method on the perturbed KKT conditions of this convex problem instead of a
log-barrier path: primal ``(w, t)`` with slacks :math:`s > 0` of their own (the residual
:math:`f(w) - t + s`, the linearisation error of the convex f, enters the next step, so no step
is cut short to keep :math:`t - f(w)` positive: a barrier-like exact slack stalls there), duals
:math:`v \ge 0` (the constraints on the directions), :math:`\lambda \ge 0` (on ``w >= 0``)
and :math:`\nu` (on the simplex), complementarity :math:`s_j v_j = \lambda_i w_i = \sigma\mu`.
Eliminating the slacks and the bound multipliers leaves, per step, one symmetric positive
definite system in ``(dw, dt)`` of the barrier Hessian's shape,
:math:`\sum_j v_j \nabla^2 f_j + \mathrm{diag}(\lambda / w) + \nabla f^\top \mathrm{diag}(v / s)
\nabla f` bordered by the simplex row, factored once and solved twice (predictor and
corrector).  The centring parameter :math:`\sigma = (\mu_{aff} / \mu)^3` adapts the path
reduction to each step, so that fewer Newton-type steps reach a certified restricted gap.

Stopping rule: the restricted certificate of the barrier kernel, with ``v / sum(v)`` as the
dual weights: :math:`\max_j f_j - (2 v\cdot f - \max_a \sum_j v_j (x_a^\top A^{-1} y_j)^2)
\le` ``gap_stop`` (``rtol / 2`` when ``gap_stop`` is 0) times :math:`\max_j f_j`.  The returned
``v`` has the barrier kernel's meaning: normalised dual weights over the rows of ``y`` that
certify this bound; the returned value is ``max(t, max_j f_j)``.  When the method does not
certify within its step cap (or a factorisation fails, or rounding makes A(w) singular on the
way) the barrier kernel solves from ``w0`` instead (its steps are added to the count).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.design._minimax_kernels import cholesky_inverse_into, direction_variances, restricted_compiled, start_point

__all__ = ["restricted_pd"]

#: predictor-corrector steps before the barrier kernel takes over
MAX_STEPS = 40
#: fraction of the distance to the boundary a step may go
_TO_BOUNDARY = 0.99


@njit(cache=True)
def _solve_factored(lc, scale, b, out):
    """``out = K^-1 b`` from the Cholesky factor ``lc`` of the scaled ``diag(scale) K diag(scale)``."""
    k = b.size
    for p in range(k):
        acc = b[p] * scale[p]
        for q in range(p):
            acc -= lc[p, q] * out[q]
        out[p] = acc / lc[p, p]
    for p in range(k - 1, -1, -1):
        acc = out[p]
        for q in range(p + 1, k):
            acc -= lc[q, p] * out[q]
        out[p] = acc / lc[p, p]
    for p in range(k):
        out[p] *= scale[p]


@njit(cache=True)
def _max_step(x, dx, alpha):
    """The largest step <= ``alpha`` keeping ``x + step * dx`` nonnegative."""
    for i in range(x.size):
        if dx[i] < 0.0:
            alpha = min(alpha, -x[i] / dx[i])
    return alpha


@njit(cache=True)
def _direction(lc, scale, ebar, av, p2, s, v, w, lam, rp, rdw, rdt, req, rc, rl, rhs, x, dw, ds, dv, dlam):
    """Newton direction of the KKT system for complementarity targets ``rc`` (on s v) and ``rl`` (on w lam).

    Returns ``(dt, dnu)``; fills ``dw``, ``ds`` (linearised), ``dv``, ``dlam``.
    """
    n, m = p2.shape
    rhs_t = -rdt
    for j in range(m):
        rhs_t += (rc[j] + v[j] * rp[j]) / s[j]
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += p2[i, j] * (rc[j] + v[j] * rp[j]) / s[j]
        rhs[i] = -rdw[i] + acc + rl[i] / w[i]
    rhs[n] = rhs_t
    _solve_factored(lc, scale, rhs, x)
    ex = 0.0
    for i in range(n):
        ex += x[i]
    dnu = (ex - req) / av
    for i in range(n):
        dw[i] = x[i] - dnu * ebar[i]
    dt = x[n] - dnu * ebar[n]
    for j in range(m):
        acc = dt - rp[j]
        for i in range(n):
            acc += p2[i, j] * dw[i]
        ds[j] = acc
        dv[j] = (rc[j] - v[j] * acc) / s[j]
    for i in range(n):
        dlam[i] = (rl[i] - lam[i] * dw[i]) / w[i]
    return dt, dnu


@njit(cache=True)
def _certified(p2, f, v, tol):
    """The restricted certificate with dual weights ``v / sum(v)``: relative gap <= ``tol``."""
    n, m = p2.shape
    vs = 0.0
    vf = 0.0
    fmax = 0.0
    for j in range(m):
        vs += v[j]
        vf += v[j] * f[j]
        fmax = max(fmax, f[j])
    gmax = 0.0
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += p2[i, j] * v[j]
        gmax = max(gmax, acc)
    return vs > 0.0 and fmax - (2.0 * vf - gmax) / vs <= tol * fmax


@njit(cache=True)
def restricted_pd(z, y, w0, rtol, mu_rel, gap_stop=0.0):
    """Predictor-corrector method on min t s.t. ||y||^2_{A(w)^-1} <= t over the simplex of the rows of ``z``.

    Same arguments and return value as :func:`~pybai.design._minimax_kernels.restricted_compiled`:
    ``(w, v, t, steps, ok)``, design, normalised dual weights over the rows of ``y`` (they certify
    the restricted gap), restricted value, steps (predictor-corrector steps, plus the barrier
    kernel's when it finishes); ``ok`` is False when the start design is singular.  ``mu_rel``
    sets the start's distance to the constraints: t = (1 + mu_rel) max f.
    """
    n, r = z.shape
    m = y.shape[0]
    w, minv, f, ok = start_point(z, y, w0)
    if not ok:
        return w, np.full(m, 1.0 / m), 0.0, 0, False
    tol = gap_stop if gap_stop > 0.0 else 0.5 * rtol
    t = f.max() * (1.0 + mu_rel) + 1e-300
    s = np.empty(m)
    v = np.empty(m)
    lam = np.empty(n)
    inv_sum = 0.0
    for j in range(m):
        s[j] = t - f[j]
        inv_sum += 1.0 / s[j]
    mu0 = 1.0 / inv_sum
    for j in range(m):
        v[j] = mu0 / s[j]
    for i in range(n):
        lam[i] = mu0 / w[i]
    zm = np.empty((n, r))
    p = np.empty((n, m))
    p2 = np.empty((n, m))
    pv = np.empty((n, m))
    p2d = np.empty((n, m))
    qm = np.empty((n, n))
    h1 = np.empty((n, n))
    h2 = np.empty((n, n))
    k1 = n + 1
    hs = np.empty((k1, k1))
    scale = np.empty(k1)
    ebar = np.empty(k1)
    evec = np.zeros(k1)
    for i in range(n):
        evec[i] = 1.0
    rhs = np.empty(k1)
    x = np.empty(k1)
    rdw = np.empty(n)
    rp = np.empty(m)
    d = np.empty(m)
    rc = np.empty(m)
    rl = np.empty(n)
    dw_a = np.empty(n)
    ds_a = np.empty(m)
    dv_a = np.empty(m)
    dlam_a = np.empty(n)
    dw = np.empty(n)
    ds = np.empty(m)
    dv = np.empty(m)
    dlam = np.empty(n)
    w_new = np.empty(n)
    f_new = np.empty(m)
    minv_new = np.empty((r, r))
    work_a = np.empty((r, r))
    work_l = np.empty((r, r))
    work_il = np.empty((r, r))
    nu = 0.0  # any start: the simplex row of each step absorbs a shift of nu (the other iterates do not see it)
    steps = 0
    certified = False
    for _it in range(MAX_STEPS):
        np.dot(z, minv, zm)
        np.dot(zm, y.T, p)
        for i in range(n):
            for j in range(m):
                p2[i, j] = p[i, j] * p[i, j]
        if _certified(p2, f, v, tol):
            certified = True
            break
        np.dot(zm, z.T, qm)
        steps += 1
        comp = 0.0
        vsum = 0.0
        dsum = 0.0
        for j in range(m):
            rp[j] = f[j] - t + s[j]
            d[j] = v[j] / s[j]
            comp += s[j] * v[j]
            vsum += v[j]
            dsum += d[j]
        wsum = 0.0
        for i in range(n):
            comp += w[i] * lam[i]
            wsum += w[i]
        mu = comp / (n + m)
        rdt = 1.0 - vsum
        req = 1.0 - wsum
        for i in range(n):
            acc = 0.0
            acc2 = 0.0
            for j in range(m):
                pv[i, j] = p[i, j] * v[j]
                p2d[i, j] = p2[i, j] * d[j]
                acc += p2[i, j] * v[j]
                acc2 += p2d[i, j]
            rdw[i] = -acc - lam[i] + nu
            hs[i, n] = acc2
            hs[n, i] = acc2
        # K_ww = 2 (P V P^T) o Q + P2 D P2^T + diag(lam / w); K_wt = P2 d; K_tt = sum d
        np.dot(pv, p.T, h2)
        np.dot(p2d, p2.T, h1)
        for i in range(n):
            for k in range(n):
                hs[i, k] = h1[i, k] + 2.0 * h2[i, k] * qm[i, k]
            hs[i, i] += lam[i] / w[i]
        hs[n, n] = dsum
        positive_diag = True
        for i in range(k1):
            if not hs[i, i] > 0.0:
                positive_diag = False
                break
            scale[i] = 1.0 / math.sqrt(hs[i, i])
        if positive_diag:
            for i in range(k1):
                for k in range(k1):
                    hs[i, k] *= scale[i] * scale[k]
            try:
                lc = np.linalg.cholesky(hs)
            except Exception:  # noqa: BLE001 - not numerically positive definite: the barrier finishes
                break
            _solve_factored(lc, scale, evec, ebar)
            av = 0.0
            for i in range(n):
                av += ebar[i]
            if not av > 0.0:
                break
            # predictor (affine scaling): complementarity target 0
            for j in range(m):
                rc[j] = -s[j] * v[j]
            for i in range(n):
                rl[i] = -w[i] * lam[i]
            _direction(lc, scale, ebar, av, p2, s, v, w, lam, rp, rdw, rdt, req, rc, rl, rhs, x,
                       dw_a, ds_a, dv_a, dlam_a)
            a_aff = _max_step(w, dw_a, 1.0)
            a_aff = _max_step(s, ds_a, a_aff)
            a_aff = _max_step(v, dv_a, a_aff)
            a_aff = _max_step(lam, dlam_a, a_aff)
            mu_aff = 0.0
            for j in range(m):
                mu_aff += (s[j] + a_aff * ds_a[j]) * (v[j] + a_aff * dv_a[j])
            for i in range(n):
                mu_aff += (w[i] + a_aff * dw_a[i]) * (lam[i] + a_aff * dlam_a[i])
            mu_aff /= n + m
            sigma = min(1.0, max(0.0, mu_aff / mu)) ** 3
            # corrector: centring sigma mu and the second-order term of the predictor
            for j in range(m):
                rc[j] = sigma * mu - s[j] * v[j] - ds_a[j] * dv_a[j]
            for i in range(n):
                rl[i] = sigma * mu - w[i] * lam[i] - dw_a[i] * dlam_a[i]
            dt, dnu = _direction(lc, scale, ebar, av, p2, s, v, w, lam, rp, rdw, rdt, req, rc, rl, rhs, x,
                                 dw, ds, dv, dlam)
            alpha = _max_step(w, dw, 1.0 / _TO_BOUNDARY)
            alpha = _max_step(s, ds, alpha)
            alpha = _max_step(v, dv, alpha)
            alpha = _max_step(lam, dlam, alpha)
            alpha = min(1.0, _TO_BOUNDARY * alpha)
            accepted = False
            for _ls in range(30):  # A(w) stays positive definite unless rounding says otherwise
                positive = True
                for i in range(n):
                    w_new[i] = w[i] + alpha * dw[i]
                    if not w_new[i] > 0.0:
                        positive = False
                if positive and cholesky_inverse_into(z, w_new, minv_new, work_a, work_l, work_il):
                    direction_variances(y, minv_new, f_new)
                    accepted = True
                    break
                alpha *= 0.5
            if not accepted:
                break
            w[:] = w_new
            f[:] = f_new
            minv[:, :] = minv_new
            t += alpha * dt
            for j in range(m):
                s[j] += alpha * ds[j]
                v[j] += alpha * dv[j]
            for i in range(n):
                lam[i] += alpha * dlam[i]
            nu += alpha * dnu
            continue
        break
    if not certified:  # the barrier kernel finishes
        w_b, v_b, t_b, steps_b, ok_b = restricted_compiled(z, y, w0.copy(), rtol, mu_rel, gap_stop)
        return w_b, v_b, t_b, steps + steps_b, ok_b
    total = w.sum()
    vs = v.sum()
    return w / total, v / vs, max(t, f.max()), steps, True
