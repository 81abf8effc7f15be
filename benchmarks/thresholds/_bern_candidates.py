"""Prototype kernels (rewards in [0, 1]) of candidate proven rules for proof_rules.py.

Along the boundary lambda_a = lambda_b = x of a piece (x in [0, 1]) the log of a mixture of
* weighted-difference terms (tilt kappa w_s, kappa in [0, eta_max], truncated half-normal prior):
  U = U0 - I x, V = v+(x) Q+ + v-(x) Q-,
* the shipped per-arm tilted terms at a common scale,
is convex; the chord lower model of pybai.stopping._tilt_kernels certifies its infimum.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.stopping._tilt_kernels import MAX_CELLS, _add_log, _insert, _interval_bound, _term, log_phi_diff


@njit(cache=True)
def _vup(x, e_tilt):
    if x >= 0.5:
        return x * (1.0 - x)
    p = x * e_tilt / (1.0 - x + x * e_tilt)
    return p * (1.0 - p) if p <= 0.5 else 0.25


@njit(cache=True)
def _vdown(x, e_tilt):
    if x <= 0.5:
        return x * (1.0 - x)
    p = x * e_tilt / (1.0 - x + x * e_tilt)
    return p * (1.0 - p) if p >= 0.5 else 0.25


@njit(cache=True)
def diff_term(U, V, c, eta_max, log_norm):
    """ln of the truncated half-normal mixture over kappa in [0, eta_max] of exp(kappa U - kappa^2 V / 2)."""
    w = V + c
    m = U / w
    r = math.sqrt(w)
    return U * U / (2.0 * w) - 0.5 * math.log1p(V / c) + log_phi_diff(-r * m, r * (eta_max - m)) - log_norm


@njit(cache=True)
def cell(y, dparams, nd, log_wd, arm, log_wp, scales, emax, consts):
    """f(y) = ln( sum_k e^{log_wd[k]} (1/J) sum_j D_kj(y) + e^{log_wp} (1/J) sum_j A_j(y) B_j(y) ).

    dparams[k] = (U0, I, Qup, Qdown) of a weighted-difference process; arm = (na, sa, nb, sb) of the
    per-arm pair (skipped when log_wp = -inf)."""
    J = scales.shape[0]
    lj = math.log(1.0 / J)
    acc = -math.inf
    for k in range(nd):
        U = dparams[k, 0] - dparams[k, 1] * y
        for j in range(J):
            V = _vup(y, consts[0, j]) * dparams[k, 2] + _vdown(y, consts[1, j]) * dparams[k, 3]
            if V <= 0.0:
                V = 1e-300
            acc = _add_log(acc, log_wd[k] + lj + diff_term(U, V, scales[j], emax[j], consts[2, j]))
    if log_wp > -math.inf:
        for j in range(J):
            acc = _add_log(acc, log_wp + lj
                           + _term(arm[0], arm[1], y, scales[j], emax[j], consts[0, j], consts[2, j], True)
                           + _term(arm[2], arm[3], y, scales[j], emax[j], consts[1, j], consts[2, j], False))
    return acc


@njit(cache=True)
def bern_margin(xa, na, xb, nb, dparams, nd, log_wd, arm, log_wp, scales, emax, consts, level):
    """Certified lower bound on inf over y in [0, 1] of cell(y), minus level (same lower model and exits as
    pybai.stopping._tilt_kernels.tilt_pair_margin)."""
    if not xa > xb:
        return -math.inf
    y0 = (na * xa + nb * xb) / (na + nb)
    xs = np.empty(MAX_CELLS + 8)
    fs = np.empty(MAX_CELLS + 8)
    n = 0
    h = math.sqrt(xa * (1.0 - xa) / na + xb * (1.0 - xb) / nb) + 1e-9
    for y in (y0, 0.0, 1.0, y0 - h, y0 + h):
        y = min(max(y, 0.0), 1.0)
        dup = False
        for k in range(n):
            if xs[k] == y:
                dup = True
        if dup:
            continue
        f = cell(y, dparams, nd, log_wd, arm, log_wp, scales, emax, consts)
        if f <= level:
            return f - level
        n = _insert(xs, fs, n, y, f)
    for _ in range(MAX_CELLS):
        lowest = math.inf
        k = 0
        for i in range(n - 1):
            b = _interval_bound(xs, fs, n, i)
            if b < lowest:
                lowest = b
                k = i
        slack = 1e-9 * (1.0 + abs(lowest))
        if lowest - slack > level:
            return lowest - slack - level
        q = xs[k]
        r = xs[k + 1]
        y = 0.5 * (q + r)
        if k >= 1 and k + 2 <= n - 1:
            sl = (fs[k] - fs[k - 1]) / (xs[k] - xs[k - 1])
            sr = (fs[k + 2] - fs[k + 1]) / (xs[k + 2] - xs[k + 1])
            if sl != sr:
                cand = (fs[k + 1] - sr * r - fs[k] + sl * q) / (sl - sr)
                y = min(max(cand, q + 0.05 * (r - q)), r - 0.05 * (r - q))
        if not (q < y < r):
            return -1.0
        f = cell(y, dparams, nd, log_wd, arm, log_wp, scales, emax, consts)
        if f <= level:
            return f - level
        n = _insert(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0


@njit(cache=True)
def rest_cell(y, j, best, counts, sums, lead, seg_start, segs, nseg, scales, emax, consts, K):
    """ln E_j(y) on the diagonal: (1/J) sum_c T_j^down [1/2 prod_seg T_seg^up T_cur^up + 1/2 (1/(K-1)) T_best^up]."""
    J = scales.shape[0]
    acc = -math.inf
    L = lead[j]
    ncur = counts[L] - seg_start[j, 0]
    scur = sums[L] - seg_start[j, 1]
    for m in range(J):
        c = scales[m]
        down = _term(counts[j], sums[j], y, c, emax[m], consts[1, m], consts[2, m], False)
        f = down + math.log(0.5 / J)
        for k in range(nseg[j]):
            f += _term(segs[j, k, 1], segs[j, k, 2], y, c, emax[m], consts[0, m], consts[2, m], True)
        if ncur > 0.0:
            f += _term(ncur, scur, y, c, emax[m], consts[0, m], consts[2, m], True)
        acc = _add_log(acc, f)
        f = down + math.log(0.5 / ((K - 1.0) * J)) + _term(counts[best], sums[best], y, c, emax[m], consts[0, m],
                                                           consts[2, m], True)
        acc = _add_log(acc, f)
    return acc


@njit(cache=True)
def rest_margin(j, best, counts, sums, means, lead, seg_start, segs, nseg, scales, emax, consts, level):
    """Certified lower bound on inf over y in [0, 1] of rest_cell(y), minus level (chord lower model)."""
    xa = means[best]
    xb = means[j]
    na = counts[best]
    nb = counts[j]
    if not xa > xb:
        return -math.inf
    K = counts.shape[0]
    y0 = (na * xa + nb * xb) / (na + nb)
    xs = np.empty(MAX_CELLS + 8)
    fs = np.empty(MAX_CELLS + 8)
    n = 0
    h = math.sqrt(xa * (1.0 - xa) / na + xb * (1.0 - xb) / nb) + 1e-9
    for y in (y0, 0.0, 1.0, y0 - h, y0 + h):
        y = min(max(y, 0.0), 1.0)
        dup = False
        for k in range(n):
            if xs[k] == y:
                dup = True
        if dup:
            continue
        f = rest_cell(y, j, best, counts, sums, lead, seg_start, segs, nseg, scales, emax, consts, K)
        if f <= level:
            return f - level
        n = _insert(xs, fs, n, y, f)
    for _ in range(MAX_CELLS):
        lowest = math.inf
        k = 0
        for i in range(n - 1):
            b = _interval_bound(xs, fs, n, i)
            if b < lowest:
                lowest = b
                k = i
        slack = 1e-9 * (1.0 + abs(lowest))
        if lowest - slack > level:
            return lowest - slack - level
        q = xs[k]
        r = xs[k + 1]
        y = 0.5 * (q + r)
        if k >= 1 and k + 2 <= n - 1:
            sl = (fs[k] - fs[k - 1]) / (xs[k] - xs[k - 1])
            sr = (fs[k + 2] - fs[k + 1]) / (xs[k + 2] - xs[k + 1])
            if sl != sr:
                cand = (fs[k + 1] - sr * r - fs[k] + sl * q) / (sl - sr)
                y = min(max(cand, q + 0.05 * (r - q)), r - 0.05 * (r - q))
        if not (q < y < r):
            return -1.0
        f = rest_cell(y, j, best, counts, sums, lead, seg_start, segs, nseg, scales, emax, consts, K)
        if f <= level:
            return f - level
        n = _insert(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0
