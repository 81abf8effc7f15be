"""Numba kernels of one set's e-process in the top-k set rule (:mod:`pybai.stopping.topk_leader`).

* :func:`set_eval`: ln E_S(theta) with its first two derivatives, from the side descriptors of a set (the leader
  process of each side, or cash, and the arms kept of each fixed sum);
* :func:`set_margin`: a certified lower bound on inf over theta of ln E_S, minus the level;
* :func:`fixed_margin`: the same for the common lower bound of untracked sets (cash leaders, fixed sums kept to
  given arms).

A side's state (its leader, the count and sum of the leader at the segment's start, the number of completed
segments, then (arm, samples, sum) triples) is laid out as in :mod:`pybai.stopping._topk_leader_kernels`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.stopping._leader_kernels import gauss_factor, lse2, lse_parts

__all__ = ["set_eval", "set_margin", "fixed_margin"]

_LN2 = math.log(2.0)
_MAX_STEPS = 200

@njit(cache=True)
def _side_value(x, state, base, up, single, kept1, kept2, w_fixed, counts, sums, var, c):
    """ln P_side,c at the level x with its first two derivatives.

    ``single`` >= 0: the side is that one arm, P = its whole-history factor.  Otherwise
    P = (1/2) L + (1/2) w_fixed-weighted fixed part, L the leader process of the side at ``base`` (1 when
    ``base`` < 0 or the side has no leader: cash), the fixed part the factor of ``kept1`` (plus that of ``kept2``
    when >= 0) with weight e^w_fixed (1 / the side's size); ``up``: the out side's factors ("above x")."""
    if single >= 0:
        return gauss_factor(x, up, counts[single], sums[single], var[single], c)
    f = 0.0
    d = 0.0
    h = 0.0
    if base >= 0:
        done = int(state[base + 3])
        for m in range(done):
            seg = base + 4 + 3 * m
            f1, d1, h1 = gauss_factor(x, up, state[seg + 1], state[seg + 2], var[int(state[seg])], c)
            f += f1
            d += d1
            h += h1
        lead = int(state[base])
        if lead >= 0:
            n = counts[lead] - state[base + 1]
            if n > 0.0:
                f1, d1, h1 = gauss_factor(x, up, n, sums[lead] - state[base + 2], var[lead], c)
                f += f1
                d += d1
                h += h1
    g, gd, gh = gauss_factor(x, up, counts[kept1], sums[kept1], var[kept1], c)
    if kept2 >= 0:
        g2, gd2, gh2 = gauss_factor(x, up, counts[kept2], sums[kept2], var[kept2], c)
        g, gd, gh = lse2(g, gd, gh, g2, gd2, gh2)
    return lse2(f - _LN2, d, h, g + w_fixed - _LN2, gd, gh)


@njit(cache=True)
def set_eval(x, state, sides, w_in, w_out, counts, sums, var, scales, vals, ds, hs):
    """ln E at the level x with the scale-pair prior (p = 1/2: half on a common scale for both sides, half on
    independent scales), f' and f''.  ``sides``: (in base, in single, in kept1, in kept2, out base, out single,
    out kept1, out kept2)."""
    J = scales.shape[0]
    lnJ = math.log(J)
    for q in range(J):
        c = scales[q]
        f0, d0, h0 = _side_value(x, state, sides[0], False, sides[1], sides[2], sides[3], w_in, counts, sums, var, c)
        vals[q] = f0
        ds[q] = d0
        hs[q] = h0
        g, gd, gh = _side_value(x, state, sides[4], True, sides[5], sides[6], sides[7], w_out, counts, sums, var, c)
        vals[J + q] = g
        ds[J + q] = gd
        hs[J + q] = gh
        vals[2 * J + 1 + q] = f0 + g + math.log(1.0 - 0.5) - lnJ
        ds[2 * J + 1 + q] = d0 + gd
        hs[2 * J + 1 + q] = h0 + gh
    fd, dd, hd = lse_parts(vals[:J], ds[:J], hs[:J], J)
    fg, dg, hg = lse_parts(vals[J: 2 * J], ds[J: 2 * J], hs[J: 2 * J], J)
    vals[2 * J] = fd + fg + math.log(0.5) - 2.0 * lnJ
    ds[2 * J] = dd + dg
    hs[2 * J] = hd + hg
    return lse_parts(vals[2 * J:], ds[2 * J:], hs[2 * J:], J + 1)


@njit(cache=True)
def set_margin(state, sides, w_in, w_out, high, low, counts, sums, means, var, scales, level):
    """Certified lower bound on inf over theta of ln E(theta) minus ``level`` (Gaussian arms, known variances).

    ln E is convex in theta, so the minimiser is bracketed by the sign of the derivative and located by
    safeguarded Newton steps from the precision-weighted mean of ``high`` (the out side's best arm) and ``low``
    (the in side's worst); the bound f(x) - |f'(x)| (hi - lo) holds on the bracket (the search of
    :func:`pybai.stopping._leader_kernels.gaussian_hypothesis_margin`).  A value <= 0 at the first point seen at
    or below the level, the bound minus the level once above it (less a rounding allowance), -1.0 when undecided.
    """
    J = scales.shape[0]
    vals = np.empty(3 * J + 2)
    ds = np.empty(3 * J + 2)
    hs = np.empty(3 * J + 2)
    na = counts[high]
    nb = counts[low]
    x = (na * means[high] / var[high] + nb * means[low] / var[low]) / (na / var[high] + nb / var[low])
    width = math.sqrt(var[high] / na) + math.sqrt(var[low] / nb) + abs(means[high] - means[low])
    f, g, _ = set_eval(x, state, sides, w_in, w_out, counts, sums, var, scales, vals, ds, hs)
    if f <= level:
        return f - level
    lo = x
    hi = x
    if g > 0.0:
        lo = x - width
        for _ in range(_MAX_STEPS):
            fl, gl, _ = set_eval(lo, state, sides, w_in, w_out, counts, sums, var, scales, vals, ds, hs)
            if fl <= level:
                return fl - level
            if gl <= 0.0:
                break
            hi = lo
            width *= 2.0
            lo -= width
        else:
            return -1.0
    elif g < 0.0:
        hi = x + width
        for _ in range(_MAX_STEPS):
            fh, gh, _ = set_eval(hi, state, sides, w_in, w_out, counts, sums, var, scales, vals, ds, hs)
            if fh <= level:
                return fh - level
            if gh >= 0.0:
                break
            lo = hi
            width *= 2.0
            hi += width
        else:
            return -1.0
    else:
        return f - level
    x = 0.5 * (lo + hi)
    for _ in range(_MAX_STEPS):
        f, g, h = set_eval(x, state, sides, w_in, w_out, counts, sums, var, scales, vals, ds, hs)
        if f <= level:
            return f - level
        if g > 0.0:
            hi = x
        elif g < 0.0:
            lo = x
        else:
            lo = x
            hi = x
        bound = f - abs(g) * (hi - lo)
        bound -= 1e-9 * (1.0 + abs(bound))
        if bound > level:
            return bound - level
        if hi - lo <= 1e-13 * (1.0 + abs(x)):
            return -1.0
        nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        x = nx
    return -1.0


@njit(cache=True)
def fixed_margin(state, n_arms, k, a1, a2, b1, b2, counts, sums, means, var, scales, level):
    """Margin of the lower bound shared by the untracked sets that hold arms a1 (and a2, when >= 0) outside the
    empirical top set and leave out b1 (and b2) of it: their leader processes are cash (1), their fixed parts are
    at least the factors of these arms (:func:`set_margin`)."""
    sides = np.full(8, -1, dtype=np.int64)
    if k == 1:
        sides[1] = a1
    else:
        sides[2] = a1
        sides[3] = a2
    if n_arms - k == 1:
        sides[5] = b1
    else:
        sides[6] = b1
        sides[7] = b2
    return set_margin(state, sides, math.log(1.0 / k), math.log(1.0 / (n_arms - k)), b1, a1, counts, sums, means,
                      var, scales, level)
