"""Numba kernels of one set's e-process in the top-k set rule (:mod:`pybai.stopping.topk_leader`).

* :func:`set_eval`: ln E_S(theta) with its first two derivatives, from the side descriptors of a set (the leader
  process of each side, or cash, and the arms kept of each fixed sum);
* :func:`set_margin`: a certified lower bound on inf over theta of ln E_S, minus the level;
* :func:`fixed_margin`: the same for the common lower bound of untracked sets (cash leaders, fixed sums kept to
  given arms);
* :func:`tilt_set_eval`, :func:`tilt_set_margin`: the same e-process and bound for rewards in [0, 1], with the tilted
  half-normal mixtures of :mod:`pybai.stopping.tilt` and the chord lower model of the best-arm tilted kernel;
  :func:`any_set_margin` picks the family's.

A side's state (its leader, the count and sum of the leader at the segment's start, the number of completed
segments, then (arm, samples, sum) triples) is laid out as in :mod:`pybai.stopping._topk_leader_kernels`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import GAUSSIAN
from pybai.stopping._leader_kernels import gauss_factor, lse2, lse_parts, newton_certify_step
from pybai.stopping._tilt_kernels import MAX_CELLS, add_log, insert_point, interval_bound, term_at_level

__all__ = ["set_eval", "set_margin", "fixed_margin", "tilt_set_eval", "tilt_set_margin", "any_set_margin"]

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
        done, value, lo, hi, x = newton_certify_step(f, g, h, x, lo, hi, level)
        if done:
            return value
    return -1.0


@njit(cache=True)
def fixed_margin(state, n_arms, k, a1, a2, b1, b2, code, counts, sums, means, var, scales, emax, consts, level):
    """Margin of the lower bound shared by the untracked sets that hold arms a1 (and a2, when >= 0) outside the
    empirical top set and leave out b1 (and b2) of it: their leader processes are cash (1), their fixed parts are
    at least the factors of these arms (:func:`any_set_margin`)."""
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
    return any_set_margin(state, sides, math.log(1.0 / k), math.log(1.0 / (n_arms - k)), b1, a1, code, counts, sums,
                          means, var, scales, emax, consts, level)


@njit(cache=True)
def any_set_margin(state, sides, w_in, w_out, high, low, code, counts, sums, means, var, scales, emax, consts, level):
    """:func:`set_margin` (``code`` GAUSSIAN) or :func:`tilt_set_margin` (rewards in [0, 1])."""
    if code == GAUSSIAN:
        return set_margin(state, sides, w_in, w_out, high, low, counts, sums, means, var, scales, level)
    return tilt_set_margin(state, sides, w_in, w_out, high, low, counts, sums, means, scales, emax, consts, level)


@njit(cache=True)
def _tilt_side(y, state, base, up, single, kept1, kept2, w_fixed, counts, sums, c, eta_max, consts, q):
    """ln P_side,c at the level y in [0, 1] with the tilted mixtures (the layout of :func:`_side_value`)."""
    e_tilt = consts[0, q] if up else consts[1, q]
    log_norm = consts[2, q]
    if single >= 0:
        return term_at_level(counts[single], sums[single], y, c, eta_max, e_tilt, log_norm, up)
    f = 0.0
    if base >= 0:
        for m in range(int(state[base + 3])):
            seg = base + 4 + 3 * m
            f += term_at_level(state[seg + 1], state[seg + 2], y, c, eta_max, e_tilt, log_norm, up)
        lead = int(state[base])
        if lead >= 0:
            n = counts[lead] - state[base + 1]
            if n > 0.0:
                f += term_at_level(n, sums[lead] - state[base + 2], y, c, eta_max, e_tilt, log_norm, up)
    g = term_at_level(counts[kept1], sums[kept1], y, c, eta_max, e_tilt, log_norm, up)
    if kept2 >= 0:
        g = add_log(g, term_at_level(counts[kept2], sums[kept2], y, c, eta_max, e_tilt, log_norm, up))
    return add_log(f - _LN2, w_fixed - _LN2 + g)


@njit(cache=True)
def tilt_set_eval(y, state, sides, w_in, w_out, counts, sums, scales, emax, consts):
    """ln E at the level y in [0, 1] (rewards in [0, 1]), the scale-pair prior of :func:`set_eval` (value only)."""
    J = scales.shape[0]
    lnJ = math.log(J)
    dbar = -math.inf
    gbar = -math.inf
    acc = -math.inf
    for q in range(J):
        c = scales[q]
        down = _tilt_side(y, state, sides[0], False, sides[1], sides[2], sides[3], w_in, counts, sums, c, emax[q],
                          consts, q)
        g = _tilt_side(y, state, sides[4], True, sides[5], sides[6], sides[7], w_out, counts, sums, c, emax[q], consts,
                       q)
        dbar = add_log(dbar, down)
        gbar = add_log(gbar, g)
        acc = add_log(acc, down + g + math.log(1.0 - 0.5) - lnJ)
    return add_log(acc, dbar + gbar + math.log(0.5) - 2.0 * lnJ)


@njit(cache=True)
def tilt_set_margin(state, sides, w_in, w_out, high, low, counts, sums, means, scales, emax, consts, level):
    """Certified lower bound on inf over y in [0, 1] of ln E(y) minus ``level`` (rewards in [0, 1]).

    ln E is convex in y, so it is bounded below between evaluated points by the extensions of the neighbouring
    chords (:func:`~pybai.stopping._tilt_kernels.interval_bound`), points added where that lower model is lowest
    (the search of :func:`pybai.stopping._leader_kernels.tilt_hypothesis_margin`, from the pair (``high``,
    ``low``)).  Same returns as :func:`set_margin`.
    """
    xa = means[high]
    xb = means[low]
    na = counts[high]
    nb = counts[low]
    y0 = (na * xa + nb * xb) / (na + nb)
    xs = np.empty(MAX_CELLS + 8)
    fs = np.empty(MAX_CELLS + 8)
    n = 0
    h = math.sqrt(xa * (1.0 - xa) / na + xb * (1.0 - xb) / nb) + 1e-9
    for y in (y0, 0.0, 1.0, y0 - h, y0 + h):
        y = min(max(y, 0.0), 1.0)
        dup = False
        for i in range(n):
            if xs[i] == y:
                dup = True
        if dup:
            continue
        f = tilt_set_eval(y, state, sides, w_in, w_out, counts, sums, scales, emax, consts)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
    for _ in range(MAX_CELLS):
        lowest = math.inf
        k = 0
        for i in range(n - 1):
            b = interval_bound(xs, fs, n, i)
            if b < lowest:
                lowest = b
                k = i
        slack = 1e-9 * (1.0 + abs(lowest))
        if lowest - slack > level:
            return lowest - slack - level
        q = xs[k]
        r = xs[k + 1]
        y = 0.5 * (q + r)
        if k >= 1 and k + 2 <= n - 1:  # the lower model's own minimiser, kept away from the ends
            sl = (fs[k] - fs[k - 1]) / (xs[k] - xs[k - 1])
            sr = (fs[k + 2] - fs[k + 1]) / (xs[k + 2] - xs[k + 1])
            if sl != sr:
                cand = (fs[k + 1] - sr * r - fs[k] + sl * q) / (sl - sr)
                y = min(max(cand, q + 0.05 * (r - q)), r - 0.05 * (r - q))
        if not (q < y < r):
            return -1.0
        f = tilt_set_eval(y, state, sides, w_in, w_out, counts, sums, scales, emax, consts)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0
