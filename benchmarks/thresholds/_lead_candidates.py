"""Prototype (Gaussian arms, known variances): hypothesis tests "arm j is the best" without the union over pairs.

E_j = M_j^down(lambda_j) x [ 1/2 Lead_j + 1/2 (1/(K-1)) sum_i M_i^up(lambda_i) ]  (common prior scale, mixed over scales)

Lead_j: a self-financing portfolio fully invested in the current leader L (empirical best among i != j): when
the leader changes at time s, the wealth moves into a FRESH half-normal mixture of the new leader's samples
after s (a nonnegative martingale started at 1 at s).  So Lead_j is a product of per-segment mixtures, each
nonincreasing in its arm's level: E_j is nonincreasing in every lambda_i (i != j) and nondecreasing in lambda_j,
and its infimum over H_j = {lambda_j >= lambda_i for all i} is on the diagonal, where ln E_j is convex (a log of
sums of products of log-convex functions).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import pair_cost
from pybai.stopping._pair_mixture_kernels import _q_parts

LN2 = math.log(2.0)
MAX_SEG = 512


@njit(cache=True)
def lead_update(counts, sums, means, lead, seg_start, segs, nseg, sticky, code, var):
    """Before a sample: leaders from the current means; close the segment of a hypothesis whose leader changed.

    ``sticky`` > 0: keep the current leader unless the new one's pair GLR over it exceeds ``sticky``."""
    K = counts.shape[0]
    b1 = 0
    for i in range(1, K):
        if means[i] > means[b1]:
            b1 = i
    b2 = 1 if b1 == 0 else 0
    for i in range(K):
        if i != b1 and means[i] > means[b2]:
            b2 = i
    for j in range(K):
        L = b2 if j == b1 else b1
        if L != lead[j] and sticky > 0.0 and lead[j] >= 0:
            o = lead[j]
            if pair_cost(code, counts[L], means[L], var[L], counts[o], means[o], var[o]) <= sticky:
                L = o
        if L != lead[j]:
            if lead[j] >= 0:
                old = lead[j]
                n = counts[old] - seg_start[j, 0]
                if n > 0.0 and nseg[j] < MAX_SEG:
                    k = nseg[j]
                    segs[j, k, 0] = old
                    segs[j, k, 1] = n
                    segs[j, k, 2] = sums[old] - seg_start[j, 1]
                    nseg[j] = k + 1
            lead[j] = L
            seg_start[j, 0] = counts[L]
            seg_start[j, 1] = sums[L]


@njit(cache=True)
def _factor(x, up, n, s, var, c):
    """ln of the one-sided half-normal mixture (precision c) of n samples summing to s, at level x; d/dx, d2/dx2."""
    A = n * n / (2.0 * var * (n + c))
    k = math.sqrt(2.0 * A)
    y = (s / n - x) if up else (x - s / n)
    f, d, h = _q_parts(y, A, k)
    f += LN2 - 0.5 * math.log1p(n / c)
    return f, (-d if up else d), h


@njit(cache=True)
def _eval(x, j, best, counts, sums, var, lead, seg_start, segs, nseg, scales, K, vals, ds, hs, w_lead=0.5):
    J = scales.shape[0]
    n_terms = 0
    mx = -math.inf
    for m in range(J):
        c = scales[m]
        # leader part
        f, d, h = _factor(x, False, counts[j], sums[j], var[j], c)
        f += math.log(w_lead / J)
        for k in range(nseg[j]):
            a = int(segs[j, k, 0])
            f1, d1, h1 = _factor(x, True, segs[j, k, 1], segs[j, k, 2], var[a], c)
            f += f1
            d += d1
            h += h1
        L = lead[j]
        n = counts[L] - seg_start[j, 0]
        if n > 0.0:
            f1, d1, h1 = _factor(x, True, n, sums[L] - seg_start[j, 1], var[L], c)
            f += f1
            d += d1
            h += h1
        vals[n_terms] = f
        ds[n_terms] = d
        hs[n_terms] = h
        n_terms += 1
        if f > mx:
            mx = f
        # buy-and-hold part, the best arm's pair only (a lower bound)
        if w_lead >= 1.0:
            continue
        f, d, h = _factor(x, False, counts[j], sums[j], var[j], c)
        f1, d1, h1 = _factor(x, True, counts[best], sums[best], var[best], c)
        f += f1 + math.log((1.0 - w_lead) / ((K - 1.0) * J))
        vals[n_terms] = f
        ds[n_terms] = d + d1
        hs[n_terms] = h + h1
        n_terms += 1
        if f > mx:
            mx = f
    s = 0.0
    for k in range(n_terms):
        s += math.exp(vals[k] - mx)
    f = mx + math.log(s)
    g1 = 0.0
    h1 = 0.0
    g2 = 0.0
    for k in range(n_terms):
        p = math.exp(vals[k] - f)
        g1 += p * ds[k]
        h1 += p * hs[k]
        g2 += p * ds[k] * ds[k]
    return f, g1, h1 + g2 - g1 * g1


@njit(cache=True)
def lead_margin(j, best, counts, sums, means, var, lead, seg_start, segs, nseg, scales, level, w_lead=0.5):
    """Certified lower bound on inf_x ln E_j(x) minus level (or a value <= 0 seen on the way)."""
    if not means[best] > means[j]:
        return -math.inf
    K = counts.shape[0]
    J = scales.shape[0]
    vals = np.empty(2 * J)
    ds = np.empty(2 * J)
    hs = np.empty(2 * J)
    na = counts[best]
    nb = counts[j]
    x0 = (na * means[best] / var[best] + nb * means[j] / var[j]) / (na / var[best] + nb / var[j])
    width = math.sqrt(var[best] / na) + math.sqrt(var[j] / nb) + abs(means[best] - means[j])
    f, g, h = _eval(x0, j, best, counts, sums, var, lead, seg_start, segs, nseg, scales, K, vals, ds, hs, w_lead)
    if f <= level:
        return f - level
    lo = x0
    hi = x0
    if g > 0.0:
        lo = x0 - width
        for _ in range(200):
            fl, gl, _ = _eval(lo, j, best, counts, sums, var, lead, seg_start, segs, nseg, scales, K, vals, ds, hs, w_lead)
            if fl <= level:
                return fl - level
            if gl <= 0.0:
                break
            hi = lo
            width *= 2.0
            lo -= width
    elif g < 0.0:
        hi = x0 + width
        for _ in range(200):
            fh, gh, _ = _eval(hi, j, best, counts, sums, var, lead, seg_start, segs, nseg, scales, K, vals, ds, hs, w_lead)
            if fh <= level:
                return fh - level
            if gh >= 0.0:
                break
            lo = hi
            width *= 2.0
            hi += width
    else:
        return f - level
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f, g, h = _eval(x, j, best, counts, sums, var, lead, seg_start, segs, nseg, scales, K, vals, ds, hs, w_lead)
        if f <= level:
            return f - level
        if g > 0.0:
            hi = x
        elif g < 0.0:
            lo = x
        else:
            return f - level
        bound = f - abs(g) * (hi - lo)
        if bound > level:
            return bound - level
        nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if hi - lo <= 1e-13 * (1.0 + abs(x)):
            return -1.0
        x = nx
    return -1.0


@njit(cache=True)
def plug_update(a, x, counts, means, var, acc):
    """Before counts/means include the new sample (a, x): for every hypothesis j whose leader (empirical best among
    i != j) is a, add the predictable plug-in tilt's factor exp(eta (x - lambda) - eta^2 var / 2):
    acc[j] += (eta x, eta, eta^2 var / 2), eta = max(0, mean_a - pooled mean of (a, j)) / var_a."""
    K = counts.shape[0]
    if counts[a] <= 0.0:
        return
    b1 = 0
    for i in range(1, K):
        if means[i] > means[b1]:
            b1 = i
    b2 = 1 if b1 == 0 else 0
    for i in range(K):
        if i != b1 and means[i] > means[b2]:
            b2 = i
    for j in range(K):
        L = b2 if j == b1 else b1
        if L != a or counts[j] <= 0.0:
            continue
        pa = counts[a] / var[a]
        pj = counts[j] / var[j]
        pooled = (pa * means[a] + pj * means[j]) / (pa + pj)
        eta = (means[a] - pooled) / var[a]
        if eta <= 0.0:
            continue
        acc[j, 0] += eta * x
        acc[j, 1] += eta
        acc[j, 2] += 0.5 * eta * eta * var[a]


@njit(cache=True)
def _eval_plug(x, j, best, counts, sums, var, acc, scales, K, w_lead, vals, ds, hs):
    J = scales.shape[0]
    n_terms = 0
    mx = -math.inf
    lin = acc[j, 0] - acc[j, 1] * x - acc[j, 2]
    for m in range(J):
        c = scales[m]
        f, d, h = _factor(x, False, counts[j], sums[j], var[j], c)
        if w_lead > 0.0:
            vals[n_terms] = f + lin + math.log(w_lead / J)
            ds[n_terms] = d - acc[j, 1]
            hs[n_terms] = h
            if vals[n_terms] > mx:
                mx = vals[n_terms]
            n_terms += 1
        if w_lead < 1.0:
            f1, d1, h1 = _factor(x, True, counts[best], sums[best], var[best], c)
            vals[n_terms] = f + f1 + math.log((1.0 - w_lead) / ((K - 1.0) * J))
            ds[n_terms] = d + d1
            hs[n_terms] = h + h1
            if vals[n_terms] > mx:
                mx = vals[n_terms]
            n_terms += 1
    s = 0.0
    for k in range(n_terms):
        s += math.exp(vals[k] - mx)
    f = mx + math.log(s)
    g1 = 0.0
    h1 = 0.0
    g2 = 0.0
    for k in range(n_terms):
        p = math.exp(vals[k] - f)
        g1 += p * ds[k]
        h1 += p * hs[k]
        g2 += p * ds[k] * ds[k]
    return f, g1, h1 + g2 - g1 * g1


@njit(cache=True)
def plug_margin(j, best, counts, sums, means, var, acc, scales, w_lead, level):
    """Certified lower bound on inf_x ln E_j(x) - level, E_j = M_j^down x (w Lead_j + (1-w) BH_j) (BH: best's pair only)."""
    if not means[best] > means[j]:
        return -math.inf
    K = counts.shape[0]
    J = scales.shape[0]
    vals = np.empty(2 * J)
    ds = np.empty(2 * J)
    hs = np.empty(2 * J)
    na = counts[best]
    nb = counts[j]
    x0 = (na * means[best] / var[best] + nb * means[j] / var[j]) / (na / var[best] + nb / var[j])
    width = math.sqrt(var[best] / na) + math.sqrt(var[j] / nb) + abs(means[best] - means[j])
    f, g, h = _eval_plug(x0, j, best, counts, sums, var, acc, scales, K, w_lead, vals, ds, hs)
    if f <= level:
        return f - level
    lo = x0
    hi = x0
    if g > 0.0:
        lo = x0 - width
        for _ in range(200):
            fl, gl, _ = _eval_plug(lo, j, best, counts, sums, var, acc, scales, K, w_lead, vals, ds, hs)
            if fl <= level:
                return fl - level
            if gl <= 0.0:
                break
            hi = lo
            width *= 2.0
            lo -= width
    elif g < 0.0:
        hi = x0 + width
        for _ in range(200):
            fh, gh, _ = _eval_plug(hi, j, best, counts, sums, var, acc, scales, K, w_lead, vals, ds, hs)
            if fh <= level:
                return fh - level
            if gh >= 0.0:
                break
            lo = hi
            width *= 2.0
            hi += width
    else:
        return f - level
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f, g, h = _eval_plug(x, j, best, counts, sums, var, acc, scales, K, w_lead, vals, ds, hs)
        if f <= level:
            return f - level
        if g > 0.0:
            hi = x
        elif g < 0.0:
            lo = x
        else:
            return f - level
        bound = f - abs(g) * (hi - lo)
        if bound > level:
            return bound - level
        nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if hi - lo <= 1e-13 * (1.0 + abs(x)):
            return -1.0
        x = nx
    return -1.0
