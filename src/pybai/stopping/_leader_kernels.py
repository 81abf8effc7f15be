"""Numba kernels of the leader-following hypothesis rule (:mod:`pybai.stopping.leader`).

The rule keeps a small state (a flat float array, :func:`state_size`): for every hypothesis
H_j = "arm j is the best", the arm its leader-following process currently follows, the counts and
sums of that arm when the current segment started, and the completed segments (arm, count, sum).

* :func:`leader_advance`: the leaders after the data seen so far (they decide which samples the
  next segment holds: a predictable choice).
* :func:`gaussian_hypothesis_margin`, :func:`tilt_hypothesis_margin`: a certified lower bound on the
  infimum over H_j of ln E_j, minus the level (Gaussian arms with known variances; rewards in [0, 1]).
* :func:`leader_min_margin`: the smallest margin over the hypotheses j != the empirical best.
* :func:`leader_step`: the run's own step in one call, :func:`leader_advance` then :func:`leader_min_margin`
  remembering the rejections (what the ask/tell check runs after each observation).

State layout for K arms (``M`` = :data:`MAX_SEGMENTS`): ``[0, K)`` the leader of each hypothesis
(-1: none yet), ``[K, 2K)`` and ``[2K, 3K)`` the count and sum of the leader when its segment started,
``[3K, 4K)`` the number of completed segments, ``[4K, 5K)`` 1.0 for a hypothesis rejected at some past
decision (remembered: its e-process crossed the level then), then ``K M`` triples (arm, count, sum).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.models._kl import GAUSSIAN, pair_cost
from pybai.stopping._pair_mixture_kernels import q_parts
from pybai.stopping._tilt_kernels import MAX_CELLS, add_log, insert_point, interval_bound, term_at_level

__all__ = ["MAX_SEGMENTS", "STICKY", "state_size", "leader_advance", "gaussian_hypothesis_margin",
           "tilt_hypothesis_margin", "leader_min_margin", "leader_step", "gauss_factor", "lse_parts", "lse2"]

#: Completed segments kept per hypothesis; when they are all used the current leader is kept for good.
MAX_SEGMENTS = 32
#: The pair GLR (nats) by which the empirical best of the other arms must beat a hypothesis' current
#: leader before the leader changes (a new segment restarts a mixture, which costs; near-tied arms
#: would otherwise swap the lead often).
STICKY = 2.0

_LN2 = math.log(2.0)
_MAX_STEPS = 200


@njit(cache=True)
def state_size(n_arms):
    """Length of the state of ``n_arms`` arms (module docstring)."""
    return n_arms * (5 + 3 * MAX_SEGMENTS)


@njit(cache=True)
def _seg(n_arms, j, k):
    return 5 * n_arms + 3 * (j * MAX_SEGMENTS + k)


@njit(cache=True)
def leader_advance(state, counts, sums, means, code, var, sticky, start=0.0):
    """Update the leaders of every hypothesis from the data seen so far (in place).

    The candidate leader of H_j is the empirical best of the arms other than j (first of ties).  It
    replaces the current leader when the pair GLR of the two (candidate over current) exceeds
    ``sticky``; then the current segment (the current leader's samples since it became the leader) is
    closed and stored, and a new one starts at the candidate's current count and sum.  With
    :data:`MAX_SEGMENTS` segments stored the leader is kept.  Every choice reads the past only.

    ``start`` > 0 (the settled-leader rule, kind ``"leader-settled"``): a hypothesis without a leader gets
    its first one only when the candidate's pair GLR over the runner-up of the arms other than j exceeds
    ``start`` (with K = 2 there is no runner-up and the leader starts at once); until then its leader
    process holds its wealth as cash (L_j = 1, no segment).  0 starts the first leader at once.
    """
    K = counts.shape[0]
    b1 = 0
    for i in range(1, K):
        if means[i] > means[b1]:
            b1 = i
    b2 = 1 if b1 == 0 else 0
    for i in range(K):
        if i != b1 and means[i] > means[b2]:
            b2 = i
    b3 = -1
    if start > 0.0:
        for i in range(K):
            if i != b1 and i != b2 and (b3 < 0 or means[i] > means[b3]):
                b3 = i
    for j in range(K):
        cand = b2 if j == b1 else b1
        cur = int(state[j])
        if cur == cand:
            continue
        if cur < 0 and start > 0.0:
            runner = b3 if (j == b1 or j == b2) else b2
            if runner >= 0 and pair_cost(code, counts[cand], means[cand], var[cand], counts[runner], means[runner],
                                         var[runner]) <= start:
                continue
        if cur >= 0:
            if pair_cost(code, counts[cand], means[cand], var[cand], counts[cur], means[cur], var[cur]) <= sticky:
                continue
            n = counts[cur] - state[K + j]
            if n > 0.0:
                k = int(state[3 * K + j])
                if k >= MAX_SEGMENTS:
                    continue
                base = _seg(K, j, k)
                state[base] = cur
                state[base + 1] = n
                state[base + 2] = sums[cur] - state[2 * K + j]
                state[3 * K + j] = k + 1
        state[j] = cand
        state[K + j] = counts[cand]
        state[2 * K + j] = sums[cand]


@njit(cache=True)
def gauss_factor(x, up, n, s, v, c):
    """ln of the one-sided half-normal mixture (precision c) of n samples of variance v summing to s, at level x,
    and its first two derivatives in x (the per-arm terms of pybai.stopping.pair_mixture)."""
    A = n * n / (2.0 * v * (n + c))
    y = (s / n - x) if up else (x - s / n)
    f, d, h = q_parts(y, A, math.sqrt(2.0 * A))
    return f + _LN2 - 0.5 * math.log1p(n / c), (-d if up else d), h


@njit(cache=True)
def _gauss_lead(x, state, j, counts, sums, var, c, f, d, h):
    """(f, d, h) plus ln L_j,c at x and its two derivatives: the leader process's stored segments, then the current
    one (added in this order)."""
    K = counts.shape[0]
    for k in range(int(state[3 * K + j])):
        base = _seg(K, j, k)
        f1, d1, h1 = gauss_factor(x, True, state[base + 1], state[base + 2], var[int(state[base])], c)
        f += f1
        d += d1
        h += h1
    lead = int(state[j])
    if lead >= 0:
        n = counts[lead] - state[K + j]
        if n > 0.0:
            f1, d1, h1 = gauss_factor(x, True, n, sums[lead] - state[2 * K + j], var[lead], c)
            f += f1
            d += d1
            h += h1
    return f, d, h


@njit(cache=True)
def _tilt_lead(y, state, j, counts, sums, c, eta_max, e_tilt, log_norm, f):
    """f plus ln L_j,c at the level y (rewards in [0, 1]), segments added in the order of :func:`_gauss_lead`."""
    K = counts.shape[0]
    for k in range(int(state[3 * K + j])):
        base = _seg(K, j, k)
        f += term_at_level(state[base + 1], state[base + 2], y, c, eta_max, e_tilt, log_norm, True)
    lead = int(state[j])
    if lead >= 0:
        n = counts[lead] - state[K + j]
        if n > 0.0:
            f += term_at_level(n, sums[lead] - state[2 * K + j], y, c, eta_max, e_tilt, log_norm, True)
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
def _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product=0.0):
    """ln E_j at the diagonal point x (the best arm's term stands for the fixed average), f' and f''.

    ``product``: the weight of the free-scale part (module :mod:`pybai.stopping.leader`); 0 is the common
    scale alone.
    """
    if product > 0.0:
        return _gauss_eval_free(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product)
    K = counts.shape[0]
    J = scales.shape[0]
    w_lead = math.log(0.5 / J)
    w_hold = math.log(0.5 / ((K - 1.0) * J))
    m = 0
    for q in range(J):
        c = scales[q]
        f0, d0, h0 = gauss_factor(x, False, counts[j], sums[j], var[j], c)
        vals[m], ds[m], hs[m] = _gauss_lead(x, state, j, counts, sums, var, c, f0 + w_lead, d0, h0)
        m += 1
        f1, d1, h1 = gauss_factor(x, True, counts[best], sums[best], var[best], c)
        vals[m] = f0 + f1 + w_hold
        ds[m] = d0 + d1
        hs[m] = h0 + h1
        m += 1
    return lse_parts(vals, ds, hs, m)


@njit(cache=True)
def _gauss_eval_free(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product):
    """ln E_j at x with the scale-pair prior: weight 1 - ``product`` on a common scale for D_j and G_j,
    ``product`` on independent scales, E_j = (1 - p) (1/J) sum_c D_c G_c + p D-bar G-bar (D-bar, G-bar
    the equal-weight scale mixtures); f' and f''.  ``vals``, ``ds``, ``hs`` need 3 J + 2 entries."""
    K = counts.shape[0]
    J = scales.shape[0]
    w_hold = math.log(1.0 / (K - 1.0))
    lnJ = math.log(J)
    # entries: [0, J) D_c; [J, 2J) G_c; [2J, 3J + 1) the terms of E_j
    for q in range(J):
        c = scales[q]
        f0, d0, h0 = gauss_factor(x, False, counts[j], sums[j], var[j], c)
        vals[q] = f0
        ds[q] = d0
        hs[q] = h0
        f, d, h = _gauss_lead(x, state, j, counts, sums, var, c, 0.0, 0.0, 0.0)
        f1, d1, h1 = gauss_factor(x, True, counts[best], sums[best], var[best], c)
        g, gd, gh = lse2(f - _LN2, d, h, f1 + w_hold - _LN2, d1, h1)
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
def gaussian_hypothesis_margin(state, j, best, counts, sums, means, var, scales, level, product=0.0):
    """Certified lower bound on inf over H_j of ln E_j minus ``level`` (Gaussian arms, known variances).

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
    x = (na * means[best] / var[best] + nb * means[j] / var[j]) / (na / var[best] + nb / var[j])
    width = math.sqrt(var[best] / na) + math.sqrt(var[j] / nb) + abs(means[best] - means[j])
    f, g, _ = _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product)
    if f <= level:
        return f - level
    lo = x
    hi = x
    if g > 0.0:
        lo = x - width
        for _ in range(_MAX_STEPS):
            fl, gl, _ = _gauss_eval(lo, state, j, best, counts, sums, var, scales, vals, ds, hs, product)
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
            fh, gh, _ = _gauss_eval(hi, state, j, best, counts, sums, var, scales, vals, ds, hs, product)
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
        f, g, h = _gauss_eval(x, state, j, best, counts, sums, var, scales, vals, ds, hs, product)
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
def _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product=0.0):
    """ln E_j at the diagonal level y in [0, 1] (rewards in [0, 1]: tilted half-normal mixtures); ``product`` as in
    :func:`_gauss_eval`."""
    if product > 0.0:
        return _tilt_eval_free(y, state, j, best, counts, sums, scales, emax, consts, product)
    K = counts.shape[0]
    J = scales.shape[0]
    w_lead = math.log(0.5 / J)
    w_hold = math.log(0.5 / ((K - 1.0) * J))
    acc = -math.inf
    for q in range(J):
        c = scales[q]
        down = term_at_level(counts[j], sums[j], y, c, emax[q], consts[1, q], consts[2, q], False)
        acc = add_log(acc, _tilt_lead(y, state, j, counts, sums, c, emax[q], consts[0, q], consts[2, q], down + w_lead))
        acc = add_log(acc, down + w_hold + term_at_level(counts[best], sums[best], y, c, emax[q], consts[0, q], consts[2, q],
                                                  True))
    return acc


@njit(cache=True)
def _tilt_eval_free(y, state, j, best, counts, sums, scales, emax, consts, product):
    """:func:`_gauss_eval_free` for rewards in [0, 1] (value only)."""
    K = counts.shape[0]
    J = scales.shape[0]
    w_hold = math.log(1.0 / (K - 1.0))
    lnJ = math.log(J)
    dbar = -math.inf
    gbar = -math.inf
    acc = -math.inf
    for q in range(J):
        c = scales[q]
        down = term_at_level(counts[j], sums[j], y, c, emax[q], consts[1, q], consts[2, q], False)
        f = _tilt_lead(y, state, j, counts, sums, c, emax[q], consts[0, q], consts[2, q], 0.0)
        g = add_log(f - _LN2, w_hold - _LN2 + term_at_level(counts[best], sums[best], y, c, emax[q], consts[0, q],
                                                          consts[2, q], True))
        dbar = add_log(dbar, down)
        gbar = add_log(gbar, g)
        acc = add_log(acc, down + g + math.log(1.0 - product) - lnJ)
    return add_log(acc, dbar + gbar + math.log(product) - 2.0 * lnJ)


@njit(cache=True)
def tilt_hypothesis_margin(state, j, best, counts, sums, means, scales, emax, consts, level, product=0.0):
    """Certified lower bound on inf over H_j (levels in [0, 1]) of ln E_j minus ``level`` (rewards in [0, 1]).

    ln E_j is convex in the diagonal level (each tilted term is, see :mod:`pybai.stopping._tilt_kernels`),
    so it is bounded below between evaluated points by the extensions of the neighbouring chords
    (:func:`~pybai.stopping._tilt_kernels.interval_bound`); points are added where that lower model is
    lowest.  Same returns as :func:`gaussian_hypothesis_margin`.
    """
    xa = means[best]
    xb = means[j]
    na = counts[best]
    nb = counts[j]
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
        f = _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product)
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
        f = _tilt_eval(y, state, j, best, counts, sums, scales, emax, consts, product)
        if f <= level:
            return f - level
        n = insert_point(xs, fs, n, y, f)
        if n >= MAX_CELLS + 8:
            break
    return -1.0


@njit(cache=True)
def leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, record, product=0.0):
    """Smallest margin over the hypotheses H_j, j != the empirical best, not rejected before; stop when > 0.

    ``-inf`` without a unique empirical best, ``inf`` when every such hypothesis was rejected before.
    Hypotheses are visited in increasing order of the pair GLR of (best, j) and the first margin <= 0 is
    returned at once; with ``record`` (the run's own decision, not a what-if) each hypothesis that passes
    is marked rejected in ``state``.  ``code``: GAUSSIAN (known variances ``var``) or BERNOULLI (rewards in
    [0, 1]; ``emax`` and ``consts`` from :func:`~pybai.stopping._tilt_kernels.tilt_caps` and
    :func:`~pybai.stopping._tilt_kernels.scale_constants`).
    """
    K = counts.shape[0]
    best = 0
    for i in range(1, K):
        if means[i] > means[best]:
            best = i
    zs = np.empty(K)
    for j in range(K):
        if j == best:
            zs[j] = math.inf
            continue
        if not means[j] < means[best]:  # no unique empirical best
            return -math.inf
        zs[j] = pair_cost(code, counts[best], means[best], var[best], counts[j], means[j], var[j])
    worst = math.inf
    for j in np.argsort(zs):
        if j == best or state[4 * K + j] > 0.0:
            continue
        if code == GAUSSIAN:
            m = gaussian_hypothesis_margin(state, j, best, counts, sums, means, var, scales, level, product)
        else:
            m = tilt_hypothesis_margin(state, j, best, counts, sums, means, scales, emax, consts, level, product)
        if m < worst:
            worst = m
        if worst <= 0.0:
            break
        if record:
            state[4 * K + j] = 1.0
    return worst


@njit(cache=True)
def leader_step(state, code, counts, sums, means, var, sticky, scales, emax, consts, level, product, seen, start=0.0):
    """The run's own step after an observation, in one compiled call: the leaders advanced
    (:func:`leader_advance`, ``start`` as there), then the smallest margin, remembering the hypotheses rejected
    (:func:`leader_min_margin` with ``record``).  ``seen`` (length K) receives the counts the margin was
    computed on.  Returns the margin; stop when > 0.
    """
    leader_advance(state, counts, sums, means, code, var, sticky, start)
    seen[:] = counts
    return leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, True, product)
