"""Numba kernels of the leader-following hypothesis rule (:mod:`pybai.stopping.leader`).

The rule keeps a small state (a flat float array, :func:`state_size`): for every hypothesis
H_j = "arm j is the best", the arm its leader-following process currently follows, the counts and
sums of that arm when the current segment started, and the completed segments (arm, count, sum).

* :func:`leader_advance` (module :mod:`pybai.stopping._leader_state`, re-exported here with the layout's
  constants): the leaders after the data seen so far (they decide which samples the next segment holds: a
  predictable choice).
* :func:`gaussian_hypothesis_margin`, :func:`tilt_hypothesis_margin`: a certified lower bound on the
  infimum over H_j of ln E_j, minus the level (Gaussian arms with known variances; rewards in [0, 1]).
* :func:`leader_min_margin`: the smallest margin over the hypotheses j != the empirical best.
* :func:`leader_step`: the run's own step in one call, :func:`leader_advance` then :func:`leader_min_margin`
  remembering the rejections (what the ask/tell check runs after each observation).

State layout for K arms (``M`` = :data:`MAX_SEGMENTS`): ``[0, K)`` the leader of each hypothesis
(-1: none yet), ``[K, 2K)`` and ``[2K, 3K)`` the count and sum of the leader when its segment started,
``[3K, 4K)`` the number of completed segments, ``[4K, 5K)`` 1.0 for a hypothesis rejected at some past
decision (remembered: its e-process crossed the level then), or, with an answer tolerance, 2 + a for its
epsilon hypothesis H_j,a^eps rejected while a was the empirical best (remembered for that answer a only;
:func:`leader_min_margin`), then ``K M`` triples (arm, count, sum).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import GAUSSIAN, pair_cost
from pybai.stopping._leader_state import MAX_SEGMENTS, STICKY, leader_advance, segment_index, state_size
from pybai.stopping._pair_mixture_kernels import q_parts
from pybai.stopping._tilt_kernels import MAX_CELLS, add_log, insert_point, interval_bound, term_at_level

__all__ = ["MAX_SEGMENTS", "STICKY", "state_size", "leader_advance", "gaussian_hypothesis_margin",
           "tilt_hypothesis_margin", "leader_min_margin", "leader_step", "gauss_factor", "lse_parts", "lse2",
           "newton_certify_step"]

_LN2 = math.log(2.0)
_MAX_STEPS = 200
_seg = segment_index


@njit(cache=True)
def gauss_factor(x, up, n, s, v, c):
    """ln of the one-sided half-normal mixture (precision c) of n samples of variance v summing to s, at level x,
    and its first two derivatives in x (the per-arm terms of pybai.stopping.pair_mixture)."""
    A = n * n / (2.0 * v * (n + c))
    y = (s / n - x) if up else (x - s / n)
    f, d, h = q_parts(y, A, math.sqrt(2.0 * A))
    return f + _LN2 - 0.5 * math.log1p(n / c), (-d if up else d), h


@njit(cache=True)
def _gauss_factor_at(x, up, n, s, v, c, arm, best, a, e):
    """:func:`gauss_factor` of ``arm`` on the shifted diagonal: at the level a x - e when ``arm`` is ``best`` (the
    epsilon answer's factors; derivatives by the chain rule), at x otherwise (``best`` = -1: every arm at x)."""
    if arm == best:
        f, d, h = gauss_factor(a * x - e, up, n, s, v, c)
        return f, a * d, a * a * h
    return gauss_factor(x, up, n, s, v, c)


@njit(cache=True)
def _gauss_lead(x, state, j, counts, sums, var, c, f, d, h, best=-1, a=1.0, e=0.0):
    """(f, d, h) plus ln L_j,c at x and its two derivatives: the leader process's stored segments, then the current
    one (added in this order); the segments of arm ``best`` at the level a x - e (-1: none shifted)."""
    K = counts.shape[0]
    for k in range(int(state[3 * K + j])):
        base = _seg(K, j, k)
        arm = int(state[base])
        f1, d1, h1 = _gauss_factor_at(x, True, state[base + 1], state[base + 2], var[arm], c, arm, best, a, e)
        f += f1
        d += d1
        h += h1
    lead = int(state[j])
    if lead >= 0:
        n = counts[lead] - state[K + j]
        if n > 0.0:
            f1, d1, h1 = _gauss_factor_at(x, True, n, sums[lead] - state[2 * K + j], var[lead], c, lead, best, a, e)
            f += f1
            d += d1
            h += h1
    return f, d, h


@njit(cache=True)
def _shifted_level(y, a, e):
    """The epsilon answer's level a y - e on the shifted diagonal, at least 0 (rewards in [0, 1]; a level rounded
    below 0 is raised to 0, which lowers the arm's "above" factor: conservative)."""
    return max(a * y - e, 0.0)


@njit(cache=True)
def _tilt_lead(y, state, j, counts, sums, c, eta_max, e_tilt, log_norm, f, best=-1, a=1.0, e=0.0):
    """f plus ln L_j,c at the level y (rewards in [0, 1]), segments added in the order of :func:`_gauss_lead`; the
    segments of arm ``best`` at the level a y - e (-1: none shifted)."""
    K = counts.shape[0]
    for k in range(int(state[3 * K + j])):
        base = _seg(K, j, k)
        level = _shifted_level(y, a, e) if int(state[base]) == best else y
        f += term_at_level(state[base + 1], state[base + 2], level, c, eta_max, e_tilt, log_norm, True)
    lead = int(state[j])
    if lead >= 0:
        n = counts[lead] - state[K + j]
        if n > 0.0:
            level = _shifted_level(y, a, e) if lead == best else y
            f += term_at_level(n, sums[lead] - state[2 * K + j], level, c, eta_max, e_tilt, log_norm, True)
    return f


@njit(cache=True)
def lse_parts(vals, ds, hs, m):
    """ln sum_i e^(vals[i]) over the first m entries, with its first and second derivatives (each entry's
    value, first and second derivatives given)."""
    mx = -math.inf
    for i in range(m):
        mx = max(mx, vals[i])
    s = 0.0
    for i in range(m):
        s += math.exp(vals[i] - mx)
    f = mx + math.log(s)
    g1 = 0.0
    g2 = 0.0
    h1 = 0.0
    for i in range(m):
        p = math.exp(vals[i] - f)
        g1 += p * ds[i]
        g2 += p * ds[i] * ds[i]
        h1 += p * hs[i]
    return f, g1, h1 + g2 - g1 * g1


@njit(cache=True)
def lse2(a, da, ha, b, db, hb):
    """ln(e^a + e^b) with its first and second derivatives: :func:`lse_parts` of two entries, the same operations
    in the same order (same rounding)."""
    mx = max(a, b)
    f = mx + math.log(math.exp(a - mx) + math.exp(b - mx))
    pa = math.exp(a - f)
    pb = math.exp(b - f)
    g = pa * da + pb * db
    return f, g, (pa * ha + pb * hb) + (pa * da * da + pb * db * db) - g * g


@njit(cache=True)
def _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product=0.0, shifted=-1, a=1.0, e=0.0,
                lead=0.5):
    """ln E_j at the diagonal point x (the best arm's term stands for the fixed average), f' and f''.

    ``product``: the weight of the free-scale part (module :mod:`pybai.stopping.leader`); 0 is the common
    scale alone.  ``shifted``: the arm whose factors are read at the level a x - e (the epsilon answer; -1: none,
    the plain diagonal).  ``lead``: the weight w of the leader process in G_j (1 - w on the fixed average; 1/2 in
    the kinds up to ``"leader-settled"``).
    """
    if product > 0.0:
        return _gauss_eval_free(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted, a, e,
                                lead)
    K = counts.shape[0]
    J = scales.shape[0]
    w_lead = math.log(lead / J)
    w_hold = math.log((1.0 - lead) / ((K - 1.0) * J))
    m = 0
    for q in range(J):
        c = scales[q]
        f0, d0, h0 = gauss_factor(x, False, counts[j], sums[j], var[j], c)
        vals[m], ds[m], hs[m] = _gauss_lead(x, state, j, counts, sums, var, c, f0 + w_lead, d0, h0, shifted, a, e)
        m += 1
        f1, d1, h1 = _gauss_factor_at(x, True, counts[best], sums[best], var[best], c, best, shifted, a, e)
        vals[m] = f0 + f1 + w_hold
        ds[m] = d0 + d1
        hs[m] = h0 + h1
        m += 1
    return lse_parts(vals, ds, hs, m)


@njit(cache=True)
def _gauss_eval_free(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted=-1, a=1.0, e=0.0,
                     lead=0.5):
    """ln E_j at x with the scale-pair prior: weight 1 - ``product`` on a common scale for D_j and G_j,
    ``product`` on independent scales, E_j = (1 - p) (1/J) sum_c D_c G_c + p D-bar G-bar (D-bar, G-bar
    the equal-weight scale mixtures), G_j with the weight ``lead`` on the leader process; f' and f''.  ``vals``,
    ``ds``, ``hs`` need 3 J + 2 entries."""
    K = counts.shape[0]
    J = scales.shape[0]
    w_hold = math.log(1.0 / (K - 1.0))
    w_lead = math.log(lead)
    w_rest = math.log(1.0 - lead)
    lnJ = math.log(J)
    # entries: [0, J) D_c; [J, 2J) G_c; [2J, 3J + 1) the terms of E_j
    for q in range(J):
        c = scales[q]
        f0, d0, h0 = gauss_factor(x, False, counts[j], sums[j], var[j], c)
        vals[q] = f0
        ds[q] = d0
        hs[q] = h0
        f, d, h = _gauss_lead(x, state, j, counts, sums, var, c, 0.0, 0.0, 0.0, shifted, a, e)
        f1, d1, h1 = _gauss_factor_at(x, True, counts[best], sums[best], var[best], c, best, shifted, a, e)
        g, gd, gh = lse2(f + w_lead, d, h, f1 + w_hold + w_rest, d1, h1)
        vals[J + q] = g
        ds[J + q] = gd
        hs[J + q] = gh
        vals[2 * J + 1 + q] = f0 + g + math.log(1.0 - product) - lnJ
        ds[2 * J + 1 + q] = d0 + gd
        hs[2 * J + 1 + q] = h0 + gh
    fd, dd, hd = lse_parts(vals[:J], ds[:J], hs[:J], J)
    fg, dg, hg = lse_parts(vals[J: 2 * J], ds[J: 2 * J], hs[J: 2 * J], J)
    vals[2 * J] = fd + fg + math.log(product) - 2.0 * lnJ
    ds[2 * J] = dd + dg
    hs[2 * J] = hd + hg
    return lse_parts(vals[2 * J:], ds[2 * J:], hs[2 * J:], J + 1)


@njit(cache=True)
def newton_certify_step(f, g, h, x, lo, hi, level):
    """A step of the certified minimum of convex f (f, f', f'' at x; bracket [lo, hi]): (done, margin, lo, hi, x):
    done at f <= level, at f - |f'| (hi - lo) above it (less rounding), or at a collapsed bracket (-1)."""
    if f <= level:
        return True, f - level, lo, hi, x
    if g > 0.0:
        hi = x
    elif g < 0.0:
        lo = x
    else:
        lo = hi = x
    bound = f - abs(g) * (hi - lo)
    bound -= 1e-9 * (1.0 + abs(bound))
    if bound > level:
        return True, bound - level, lo, hi, x
    if hi - lo <= 1e-13 * (1.0 + abs(x)):
        return True, -1.0, lo, hi, x
    nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
    if not (lo < nx < hi):
        nx = 0.5 * (lo + hi)
    return False, 0.0, lo, hi, nx


@njit(cache=True)
def gaussian_hypothesis_margin(state, j, best, counts, sums, means, var, scales, level, product=0.0, a=1.0, e=0.0,
                               lead=0.5):
    """Certified lower bound on inf over H_j of ln E_j minus ``level`` (Gaussian arms, known variances).

    With an answer tolerance, (a, e) != (1, 0): the infimum over H_j,best^eps = {lambda in H_j, lambda_best <=
    a lambda_j - e}, bounded by the infimum over the *shifted diagonal* (every arm at x, ``best`` at a x - e:
    docs/thresholds.md, "epsilon-best-arm identification with the leader rules").

    ln E_j is convex along the diagonal (a log of sums of products of log-convex terms), so the
    minimiser is bracketed by the sign of the derivative and located by safeguarded Newton steps;
    the bound f(x) - |f'(x)| (hi - lo) holds on the bracket.  Returns a value <= 0 at the first point
    seen at or below the level (no stop), the bound minus the level once it is above it (less a
    rounding allowance), and -1.0 when undecided.
    """
    J = scales.shape[0]
    vals = np.empty(3 * J + 2)
    ds = np.empty(3 * J + 2)
    hs = np.empty(3 * J + 2)
    na = counts[best]
    nb = counts[j]
    shifted = -1
    if a == 1.0 and e == 0.0:
        x = (na * means[best] / var[best] + nb * means[j] / var[j]) / (na / var[best] + nb / var[j])
        width = math.sqrt(var[best] / na) + math.sqrt(var[j] / nb) + abs(means[best] - means[j])
    else:  # best's factors as those of an arm of mean (mean + e) / a and variance var / a^2
        shifted = best
        mb = (means[best] + e) / a
        wb = na * a * a / var[best]
        x = (wb * mb + nb * means[j] / var[j]) / (wb + nb / var[j])
        width = math.sqrt(1.0 / wb) + math.sqrt(var[j] / nb) + abs(mb - means[j])
    f, g, _ = _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted, a, e,
                          lead)
    if f <= level:
        return f - level
    lo = x
    hi = x
    if g > 0.0:
        lo = x - width
        for _ in range(_MAX_STEPS):
            fl, gl, _ = _gauss_eval(lo, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted, a, e,
                                    lead)
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
            fh, gh, _ = _gauss_eval(hi, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted, a, e,
                                    lead)
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
        f, g, h = _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product, shifted, a, e,
                              lead)
        done, value, lo, hi, x = newton_certify_step(f, g, h, x, lo, hi, level)
        if done:
            return value
    return -1.0


@njit(cache=True)
def _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product=0.0, shifted=-1, a=1.0, e=0.0,
               lead=0.5):
    """ln E_j at the diagonal level y in [0, 1] (rewards in [0, 1]: tilted half-normal mixtures); ``product``,
    ``shifted``, ``a`` and ``e`` as in :func:`_gauss_eval`."""
    if product > 0.0:
        return _tilt_eval_free(y, state, j, best, counts, sums, scales, emax, consts, product, shifted, a, e, lead)
    yb = _shifted_level(y, a, e) if shifted == best else y
    K = counts.shape[0]
    J = scales.shape[0]
    w_lead = math.log(lead / J)
    w_hold = math.log((1.0 - lead) / ((K - 1.0) * J))
    acc = -math.inf
    for q in range(J):
        c = scales[q]
        down = term_at_level(counts[j], sums[j], y, c, emax[q], consts[1, q], consts[2, q], False)
        acc = add_log(acc, _tilt_lead(y, state, j, counts, sums, c, emax[q], consts[0, q], consts[2, q], down + w_lead,
                                      shifted, a, e))
        acc = add_log(acc, down + w_hold + term_at_level(counts[best], sums[best], yb, c, emax[q], consts[0, q],
                                                         consts[2, q], True))
    return acc


@njit(cache=True)
def _tilt_eval_free(y, state, j, best, counts, sums, scales, emax, consts, product, shifted=-1, a=1.0, e=0.0,
                    lead=0.5):
    """:func:`_gauss_eval_free` for rewards in [0, 1] (value only)."""
    yb = _shifted_level(y, a, e) if shifted == best else y
    K = counts.shape[0]
    J = scales.shape[0]
    w_hold = math.log(1.0 / (K - 1.0))
    w_lead = math.log(lead)
    w_rest = math.log(1.0 - lead)
    lnJ = math.log(J)
    dbar = -math.inf
    gbar = -math.inf
    acc = -math.inf
    for q in range(J):
        c = scales[q]
        down = term_at_level(counts[j], sums[j], y, c, emax[q], consts[1, q], consts[2, q], False)
        f = _tilt_lead(y, state, j, counts, sums, c, emax[q], consts[0, q], consts[2, q], 0.0, shifted, a, e)
        g = add_log(f + w_lead, w_hold + w_rest + term_at_level(counts[best], sums[best], yb, c, emax[q], consts[0, q],
                                                          consts[2, q], True))
        dbar = add_log(dbar, down)
        gbar = add_log(gbar, g)
        acc = add_log(acc, down + g + math.log(1.0 - product) - lnJ)
    return add_log(acc, dbar + gbar + math.log(product) - 2.0 * lnJ)


@njit(cache=True)
def tilt_hypothesis_margin(state, j, best, counts, sums, means, scales, emax, consts, level, product=0.0, a=1.0,
                           e=0.0, lead=0.5):
    """Certified lower bound on inf over H_j (levels in [0, 1]) of ln E_j minus ``level`` (rewards in [0, 1]).

    With an answer tolerance, (a, e) != (1, 0): over the shifted diagonal (``best`` at a y - e), y in [e / a, 1],
    the levels at which best's level a y - e lies in [0, 1] (:func:`gaussian_hypothesis_margin`).

    ln E_j is convex in the diagonal level (each tilted term is, see :mod:`pybai.stopping._tilt_kernels`),
    so it is bounded below between evaluated points by the extensions of the neighbouring chords
    (:func:`~pybai.stopping._tilt_kernels.interval_bound`); points are added where that lower model is
    lowest.  Same returns as :func:`gaussian_hypothesis_margin`.
    """
    xa = means[best]
    xb = means[j]
    na = counts[best]
    nb = counts[j]
    shifted = -1
    low = 0.0
    if a == 1.0 and e == 0.0:
        y0 = (na * xa + nb * xb) / (na + nb)
    else:
        shifted = best
        low = min(max(e / a, 0.0), 1.0)
        y0 = (na * (xa + e) / a + nb * xb) / (na + nb)
    xs = np.empty(MAX_CELLS + 8)
    fs = np.empty(MAX_CELLS + 8)
    n = 0
    h = math.sqrt(xa * (1.0 - xa) / na + xb * (1.0 - xb) / nb) + 1e-9
    for y in (y0, low, 1.0, y0 - h, y0 + h):
        y = min(max(y, low), 1.0)
        dup = False
        for k in range(n):
            if xs[k] == y:
                dup = True
        if dup:
            continue
        f = _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product, shifted, a, e, lead)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
    if n == 1:  # a one-point domain (e / a = 1)
        return fs[0] - 1e-9 * (1.0 + abs(fs[0])) - level
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
        f = _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product, shifted, a, e, lead)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0


@njit(cache=True)
def leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, record, product=0.0, a=1.0,
                      e=0.0, lead=0.5):
    """Smallest margin over the hypotheses H_j, j != the empirical best, not rejected before; stop when > 0.

    ``-inf`` without a unique empirical best, ``inf`` when every such hypothesis was rejected before.
    With an answer tolerance, (a, e) != (1, 0) (epsilon-best-arm identification, pieces {lambda_best <= a lambda_j -
    e}): the hypotheses H_j,best^eps = {lambda in H_j : lambda_best <= a lambda_j - e} of the empirical best ``best``
    (the first of tied maxima: a tie does not block), each rejection remembered *for this best arm only* (flag
    2 + best; a plain rejection, flag 1, holds for every best arm).
    Hypotheses are visited in increasing order of the pair GLR of (best, j) and the first margin <= 0 is
    returned at once; with ``record`` (the run's own decision, not a what-if) each hypothesis that passes
    is marked rejected in ``state``.  ``code``: GAUSSIAN (known variances ``var``) or BERNOULLI (rewards in
    [0, 1]; ``emax`` and ``consts`` from :func:`~pybai.stopping._tilt_kernels.tilt_caps` and
    :func:`~pybai.stopping._tilt_kernels.scale_constants`).
    """
    K = counts.shape[0]
    shifted = not (a == 1.0 and e == 0.0)
    best = 0
    for i in range(1, K):
        if means[i] > means[best]:
            best = i
    zs = np.empty(K)
    for j in range(K):
        if j == best:
            zs[j] = math.inf
            continue
        if not means[j] < means[best] and not shifted:  # no unique empirical best
            return -math.inf
        zs[j] = pair_cost(code, counts[best], means[best], var[best], counts[j], means[j], var[j])
    worst = math.inf
    mark = 2.0 + best if shifted else 1.0
    for j in np.argsort(zs):
        flag = state[4 * K + j]
        if j == best or (flag > 0.0 and not shifted) or flag == 1.0 or flag == mark:
            continue
        if code == GAUSSIAN:
            m = gaussian_hypothesis_margin(state, j, best, counts, sums, means, var, scales, level, product, a, e, lead)
        else:
            m = tilt_hypothesis_margin(state, j, best, counts, sums, means, scales, emax, consts, level, product, a, e,
                                       lead)
        if m < worst:
            worst = m
        if worst <= 0.0:
            break
        if record:
            state[4 * K + j] = mark
    return worst


@njit(cache=True)
def leader_step(state, code, counts, sums, means, var, sticky, scales, emax, consts, level, product, seen, start=0.0,
                a=1.0, e=0.0, lead=0.5):
    """The run's own step after an observation, in one compiled call: the leaders advanced
    (:func:`leader_advance`, ``start`` as there), then the smallest margin, remembering the hypotheses rejected
    (:func:`leader_min_margin` with ``record``; ``a``, ``e`` the answer tolerance's shift as there).  ``seen``
    (length K) receives the counts the margin was computed on.  Returns the margin; stop when > 0.
    """
    leader_advance(state, counts, sums, means, code, var, sticky, start)
    seen[:] = counts
    return leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, True, product, a, e,
                             lead)
