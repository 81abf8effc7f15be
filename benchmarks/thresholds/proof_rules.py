"""Candidate proven stopping rules side by side on the same Track-and-Stop trajectories.

Track-and-Stop's sampling does not read the stopping rule, so one trajectory (C-tracking of the
oracle weights of the empirical means, one initial sample per arm, rewards read from per-arm
stacks drawn in advance from ``numpy.random.default_rng(seed + i)``) gives every rule's stopping
time and answer exactly as separate runs with the same seed would.  The trajectory goes on until
every rule has stopped (or ``max_samples``).

Rules (names on the command line):

* ``heur``   GLR > ln((1 + ln t)/delta) (not proven).
* ``pair``   the shipped delta-correct per-pair mixture rule (``min_pair_margin``).
* ``pairm``  the same per-pair tests with certificates remembered (a pair (a, b) that passed once
  stays passed; stop when some arm has passed against every other arm).
* ``tilt``   Bernoulli: the variance-adaptive rule of ``pybai.stopping.tilt`` (kind ``"pair-tilt"``);
  ``tiltm`` with memory; ``tiltkt`` / ``tiltktm`` mixed half and half with the Beta(1/2, 1/2) mixtures.
* ``pair1``, ``lsem1``  diagnostics, NOT proven: ``pair`` and ``lsem`` at the level ln(1/delta), without
  the union over the K - 1 pairs.
* ``lse``    Gaussian: the exact infimum over the piece of the log of the scale mixture (one convex
  problem) instead of the log-mixture of the per-scale infima.  ``lsem``: with memory.

Usage::

    python benchmarks/thresholds/proof_rules.py INSTANCE RUNS DELTA RULE [RULE ...]

INSTANCE: mu1, mu2 (GK16 Bernoulli), g5, g10 (Gaussian, sigma 1), or a comma list of means
prefixed by ``g:`` or ``b:``.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from numba import njit

from pybai.models._kl import BERNOULLI, GAUSSIAN, pair_cost
from pybai.problems.best_arm._kernels import glr_best_arm, oracle_best_arm_warm
from pybai.stopping._leader_kernels import STICKY as LEADER_STICKY
from pybai.stopping._leader_kernels import leader_advance, leader_min_margin, state_size
from pybai.stopping._pair_mixture_kernels import _q_parts, pair_margin
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps, tilt_pair_margin
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.strategies.tracking import c_tracking_step

from _bern_candidates import bern_margin, rest_margin
from _lead_candidates import MAX_SEG, lead_update, plug_margin, plug_update
from _lead_candidates import lead_margin as restart_margin
from _gauss_candidates import convex_min, fill_a, fill_b, pair_weight

INSTANCES = {
    "mu1": ("b", [0.5, 0.45, 0.43, 0.4]),
    "mu2": ("b", [0.3, 0.21, 0.2, 0.19, 0.18]),
    "g5": ("g", [1.0, 0.8, 0.6, 0.4, 0.2]),
    "g10": ("g", [1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -0.2, -0.4, -0.6, -0.8]),
    "ab5": ("b", [0.055, 0.050]),
    "abn": ("b", [0.15, 0.12, 0.10]),
}

STICKY = float(__import__("os").environ.get("STICKY", "2.0"))

RULES = {"heur": 0, "pair": 1, "pairm": 2, "lse": 3, "lsem": 4,
         # diagnostics, NOT proven: the same rules at level ln(1/delta) (no union over the K - 1 pairs)
         "pair1": 101, "lsem1": 104, "pair2": 201, "tilt2": 205,
         # Bernoulli: tilted sub-Gaussian half-normal mixtures (variance-adaptive), alone or with KT
         "tilt": 5, "tiltm": 6, "tiltkt": 7, "tiltktm": 8,
         # Gaussian candidates with predictable weights (state per pair / per hypothesis)
         "gdiff": 20, "gdiffm": 21, "glead": 22, "gleadm": 23, "gdiff9": 25, "glead9": 26, "gleadb": 27,
         "gdiff1": 120,
         "bdiff": 30, "bdiffm": 31, "blead": 32, "bleadm": 33, "bdiff9": 35, "blead9": 36, "bdiff1": 130,
         "tilt1": 105, "grest": 40, "grestm": 41, "grest2": 42, "grest2m": 43, "grests": 44, "grestsm": 45, "grests1": 48, "grests1m": 49, "brests": 46, "brestsm": 47,
         "gplug": 50, "gplugm": 51, "gplug1": 52, "gplug1m": 53,
         # the library's leader rule (pybai.stopping.leader: sticky leader, memory), Gaussian or Bernoulli
         "leader": 60}


@njit(cache=True)
def lse_pair_min(na, xa, va, nb, xb, vb, scales, log_w, bonus):
    """Certified lower bound on min_x ln sum_j w_j exp(q_a,j(xa - x) + q_b,j(x - xb) + bonus - g_j).

    Each term is convex in x (half-normal mixtures), so the log-sum-exp is convex: bracket the
    minimiser by the sign of the derivative, Newton steps, and return f(x) - |f'(x)| (hi - lo).
    """
    J = scales.shape[0]
    Aa = np.empty(J)
    ka = np.empty(J)
    Ab = np.empty(J)
    kb = np.empty(J)
    off = np.empty(J)
    for j in range(J):
        c = scales[j]
        Aa[j] = na * na / (2.0 * va * (na + c))
        Ab[j] = nb * nb / (2.0 * vb * (nb + c))
        ka[j] = math.sqrt(2.0 * Aa[j])
        kb[j] = math.sqrt(2.0 * Ab[j])
        off[j] = log_w + bonus - 0.5 * (math.log1p(na / c) + math.log1p(nb / c))
    vals = np.empty(J)
    ds = np.empty(J)
    hs = np.empty(J)

    def parts(x):
        m = -math.inf
        for j in range(J):
            fa, da, ha = _q_parts(xa - x, Aa[j], ka[j])
            fb, db, hb = _q_parts(x - xb, Ab[j], kb[j])
            vals[j] = off[j] + fa + fb
            ds[j] = db - da
            hs[j] = ha + hb
            if vals[j] > m:
                m = vals[j]
        s = 0.0
        for j in range(J):
            s += math.exp(vals[j] - m)
        f = m + math.log(s)
        g = 0.0
        h = 0.0
        g2 = 0.0
        for j in range(J):
            p = math.exp(vals[j] - f)
            g += p * ds[j]
            h += p * hs[j]
            g2 += p * ds[j] * ds[j]
        return f, g, h + g2 - g * g

    width = math.sqrt(va / na) + math.sqrt(vb / nb) + abs(xa - xb)
    lo = min(xa, xb) - width
    hi = max(xa, xb) + width
    for _ in range(200):
        if parts(lo)[1] <= 0.0:
            break
        lo -= width
        width *= 2.0
    for _ in range(200):
        if parts(hi)[1] >= 0.0:
            break
        hi += width
        width *= 2.0
    x = 0.5 * (lo + hi)
    f = 0.0
    g = 0.0
    for _ in range(200):
        f, g, h = parts(x)
        if g > 0.0:
            hi = x
        elif g < 0.0:
            lo = x
        else:
            lo = x
            hi = x
            break
        nx = x - g / h if h > 0.0 else 0.5 * (lo + hi)
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= 1e-14 * (1.0 + abs(x)) or hi - lo <= 1e-14 * (1.0 + abs(x)):
            break
        x = nx
    return f - abs(g) * (hi - lo)


@njit(cache=True)
def pair_value(rule, code, na, xa, va, nb, xb, vb, level, alpha, w_beta, scales, gvar):
    """The margin of one pair (a looks better than b) under rule ``rule``."""
    if rule == 1 or rule == 2:
        return pair_margin(code, na, xa, va, nb, xb, vb, level, alpha, w_beta, scales, gvar, True)
    if rule >= 5:
        emax = tilt_caps(scales)
        wb = 0.5 if rule >= 7 else 0.0
        return tilt_pair_margin(na, xa, nb, xb, level, wb, alpha, scales, emax, scale_constants(scales, emax), 1.0,
                                0.0)
    if not xa > xb:
        return -math.inf
    log_w = math.log(1.0 / scales.shape[0])
    return lse_pair_min(na, xa, va, nb, xb, vb, scales, log_w, 2.0 * math.log(2.0)) - level


@njit(cache=True)
def check_rule(rule, code, counts, means, var, t, delta, level, min_stat, alpha, w_beta, scales, gvar, cert):
    """Whether rule ``rule`` stops at ``t``; returns the recommended arm or -1."""
    z, best = glr_best_arm(code, counts, means, var)
    K = counts.shape[0]
    if rule == 0:
        return best if z > math.log((1.0 + math.log(t)) / delta) else -1
    memory = rule == 2 or rule == 4 or rule == 6 or rule == 8
    if not memory:
        if not z > (level if rule >= 5 else min_stat):
            return -1
        for b in range(K):
            if b == best:
                continue
            if not pair_value(rule, code, counts[best], means[best], var[best], counts[b], means[b], var[b],
                              level, alpha, w_beta, scales, gvar) > 0.0:
                return -1
        return best
    # memory: certify the pairs (best, b) not yet certified whose GLR passes the filter
    for b in range(K):
        if b == best or cert[best, b]:
            continue
        zb = pair_cost(code, counts[best], means[best], var[best], counts[b], means[b], var[b])
        if zb > (level if rule >= 5 else min_stat) and pair_value(rule, code, counts[best], means[best], var[best], counts[b], means[b],
                                        var[b], level, alpha, w_beta, scales, gvar) > 0.0:
            cert[best, b] = True
    for a in range(K):
        ok = True
        for b in range(K):
            if b != a and not cert[a, b]:
                ok = False
                break
        if ok:
            return a
    return -1


@njit(cache=True)
def pair_state_margin(a, b, counts, means, var, pw, log_wd, log_wp, scales, level, ta, tb):
    """Margin of pair (a up, b down): inf_x ln(wd Diff_ab(x) + wp PerArm_ab(x)) - level."""
    if not means[a] > means[b]:
        return -math.inf
    J = scales.shape[0]
    na = 0
    nb = 0
    if log_wd > -math.inf:
        U0 = pw[a, b, 1] - pw[b, a, 1]
        I = pw[a, b, 0] - pw[b, a, 0]
        V = pw[a, b, 2] + pw[b, a, 2]
        na = fill_a(ta, 0, log_wd - math.log(J), U0, I, V, scales)
    if log_wp > -math.inf:
        nb = fill_b(tb, 0, log_wp - math.log(J), counts[a], means[a], var[a], counts[b], means[b], var[b], scales)
    x0 = (counts[a] * means[a] / var[a] + counts[b] * means[b] / var[b]) / (counts[a] / var[a] + counts[b] / var[b])
    width = math.sqrt(var[a] / counts[a]) + math.sqrt(var[b] / counts[b]) + abs(means[a] - means[b])
    return convex_min(ta, na, tb, nb, x0, width, level)


@njit(cache=True)
def lead_margin(best, j, counts, means, var, pw, hl, log_wl, log_wd, log_wp, K, scales, level, ta, tb):
    """Margin of hypothesis H_j (j best): inf_x ln(wl Lead_j(x) + (1 - wl)/(K - 1) PairMix_{best, j}(x)) - level
    (a lower bound: the other challengers' terms of the fixed average are dropped)."""
    if not means[best] > means[j]:
        return -math.inf
    J = scales.shape[0]
    U0 = hl[j, 0, 1] - hl[j, 1, 1]
    I = hl[j, 0, 0] - hl[j, 1, 0]
    V = hl[j, 0, 2] + hl[j, 1, 2]
    na = fill_a(ta, 0, log_wl - math.log(J), U0, I, V, scales)
    rest = math.log1p(-math.exp(log_wl)) - math.log(K - 1.0)
    if log_wd > -math.inf:
        U0 = pw[best, j, 1] - pw[j, best, 1]
        I = pw[best, j, 0] - pw[j, best, 0]
        V = pw[best, j, 2] + pw[j, best, 2]
        na = fill_a(ta, na, rest + log_wd - math.log(J), U0, I, V, scales)
    nb = fill_b(tb, 0, rest + log_wp - math.log(J), counts[best], means[best], var[best], counts[j], means[j],
                var[j], scales)
    x0 = (counts[best] * means[best] / var[best] + counts[j] * means[j] / var[j]) / (
        counts[best] / var[best] + counts[j] / var[j])
    width = math.sqrt(var[best] / counts[best]) + math.sqrt(var[j] / counts[j]) + abs(means[best] - means[j])
    return convex_min(ta, na, tb, nb, x0, width, level)


@njit(cache=True)
def check_state_rule(rule, counts, means, var, t, delta, scales, cert, pw, hl, ta, tb, no_union):
    K = counts.shape[0]
    z, best = glr_best_arm(GAUSSIAN, counts, means, var)
    if z != z or z <= 0.0:
        return -1
    level = math.log(1.0 / delta) if no_union else math.log((K - 1.0) / delta)
    memory = rule == 21 or rule == 23
    if rule == 20 or rule == 21 or rule == 25:
        log_wd = math.log(0.9) if rule == 25 else math.log(0.5)
        log_wp = math.log(0.1) if rule == 25 else math.log(0.5)
        ok = True
        for b in range(K):
            if b == best or cert[best, b]:
                continue
            if pair_state_margin(best, b, counts, means, var, pw, log_wd, log_wp, scales, level, ta, tb) > 0.0:
                if memory:
                    cert[best, b] = True
            else:
                ok = False
                if not memory:
                    return -1
        if ok:
            return best
        if memory:
            for a in range(K):
                good = True
                for b in range(K):
                    if b != a and not cert[a, b]:
                        good = False
                        break
                if good:
                    return a
        return -1
    # hypothesis tests: reject H_j for every j != best (level ln(1/delta), no union)
    level = math.log(1.0 / delta)
    log_wl = math.log(0.5)
    log_wd = math.log(0.9) if rule == 26 else (-math.inf if rule == 27 else math.log(0.5))
    log_wp = math.log(0.1) if rule == 26 else (0.0 if rule == 27 else math.log(0.5))
    ok = True
    for j in range(K):
        if j == best or cert[j, j]:
            continue
        if lead_margin(best, j, counts, means, var, pw, hl, log_wl, log_wd, log_wp, K, scales, level, ta, tb) > 0.0:
            if memory:
                cert[j, j] = True
        else:
            ok = False
            if not memory:
                return -1
    if ok:
        return best
    if memory:
        for a in range(K):
            good = True
            for j in range(K):
                if j != a and not cert[j, j]:
                    good = False
                    break
            if good:
                return a
    return -1


@njit(cache=True)
def _memory_answer(cert, K, hyp):
    for a in range(K):
        good = True
        for j in range(K):
            if j != a and not (cert[j, j] if hyp else cert[a, j]):
                good = False
                break
        if good:
            return a
    return -1


@njit(cache=True)
def check_bern_rule(rule, counts, means, t, delta, scales, cert, pw, hl, no_union):
    K = counts.shape[0]
    z, best = glr_best_arm(BERNOULLI, counts, means, np.zeros(K))
    if z <= 0.0:
        return -1
    emax = tilt_caps(scales)
    consts = scale_constants(scales, emax)
    memory = rule == 31 or rule == 33
    dparams = np.empty((2, 4))
    log_wd = np.empty(2)
    arm = np.empty(4)
    hyp = rule == 32 or rule == 33 or rule == 36
    if not hyp:
        level = math.log(1.0 / delta) if no_union else math.log((K - 1.0) / delta)
        wd = 0.9 if rule == 35 else 0.5
    else:
        level = math.log(1.0 / delta)
        wd = 0.9 if rule == 36 else 0.5
    ok = True
    for b in range(K):
        if b == best or (cert[b, b] if hyp else cert[best, b]):
            continue
        a = best
        arm[0] = counts[a]
        arm[1] = counts[a] * means[a]
        arm[2] = counts[b]
        arm[3] = counts[b] * means[b]
        if not hyp:
            dparams[0, 0] = pw[a, b, 1] - pw[b, a, 1]
            dparams[0, 1] = pw[a, b, 0] - pw[b, a, 0]
            dparams[0, 2] = pw[a, b, 2]
            dparams[0, 3] = pw[b, a, 2]
            log_wd[0] = math.log(wd)
            m = bern_margin(means[a], counts[a], means[b], counts[b], dparams, 1, log_wd, arm, math.log(1.0 - wd),
                            scales, emax, consts, level)
        else:
            rest = math.log(0.5 / (K - 1.0))
            dparams[0, 0] = hl[b, 0, 1] - hl[b, 1, 1]
            dparams[0, 1] = hl[b, 0, 0] - hl[b, 1, 0]
            dparams[0, 2] = hl[b, 0, 2]
            dparams[0, 3] = hl[b, 1, 2]
            log_wd[0] = math.log(0.5)
            dparams[1, 0] = pw[a, b, 1] - pw[b, a, 1]
            dparams[1, 1] = pw[a, b, 0] - pw[b, a, 0]
            dparams[1, 2] = pw[a, b, 2]
            dparams[1, 3] = pw[b, a, 2]
            log_wd[1] = rest + math.log(wd)
            m = bern_margin(means[a], counts[a], means[b], counts[b], dparams, 2, log_wd, arm,
                            rest + math.log(1.0 - wd), scales, emax, consts, level)
        if m > 0.0:
            if memory:
                if hyp:
                    cert[b, b] = True
                else:
                    cert[best, b] = True
        else:
            ok = False
            if not memory:
                return -1
    if ok:
        return best
    if memory:
        return _memory_answer(cert, K, hyp)
    return -1


@njit(cache=True)
def clock_weight(n_self, n_other, w_self):
    """Predictable weight of a new sample of an arm (n_self samples so far, cumulative weight w_self in this
    process) in a process against an arm with n_other samples: the step that brings w_self to the common
    clock T = n n' / (n + n') after the sample, clipped to [0, 1].  Both sides track T, so their cumulative
    weights stay balanced and each arm's weights are close to T / N (the efficient weights 1 / N)."""
    n = n_self + 1.0
    if n_other <= 0.0:
        return 0.0
    w = n * n_other / (n + n_other) - w_self
    if w < 0.0:
        return 0.0
    return w if w < 1.0 else 1.0


@njit(cache=True)
def check_plug_rule(rule, counts, sums, means, var, delta, scales, cert, acc):
    K = counts.shape[0]
    z, best = glr_best_arm(GAUSSIAN, counts, means, var)
    if z != z or z <= 0.0:
        return -1
    level = math.log(1.0 / delta)
    memory = rule == 51 or rule == 53
    w_lead = 1.0 if rule >= 52 else 0.5
    ok = True
    for j in range(K):
        if j == best or cert[j, j]:
            continue
        if plug_margin(j, best, counts, sums, means, var, acc, scales, w_lead, level) > 0.0:
            if memory:
                cert[j, j] = True
        else:
            ok = False
            if not memory:
                return -1
    if ok:
        return best
    if memory:
        return _memory_answer(cert, K, True)
    return -1


@njit(cache=True)
def check_brest_rule(rule, counts, sums, means, delta, scales, cert, lead, seg_start, segs, nseg):
    K = counts.shape[0]
    z, best = glr_best_arm(BERNOULLI, counts, means, np.zeros(K))
    if z <= 0.0:
        return -1
    emax = tilt_caps(scales)
    consts = scale_constants(scales, emax)
    level = math.log(1.0 / delta)
    memory = rule == 47
    ok = True
    for j in range(K):
        if j == best or cert[j, j]:
            continue
        if rest_margin(j, best, counts, sums, means, lead, seg_start, segs, nseg, scales, emax, consts, level) > 0.0:
            if memory:
                cert[j, j] = True
        else:
            ok = False
            if not memory:
                return -1
    if ok:
        return best
    if memory:
        return _memory_answer(cert, K, True)
    return -1


@njit(cache=True)
def check_rest_rule(rule, counts, sums, means, var, delta, scales, cert, lead, seg_start, segs, nseg):
    K = counts.shape[0]
    z, best = glr_best_arm(GAUSSIAN, counts, means, var)
    if z != z or z <= 0.0:
        return -1
    level = math.log(1.0 / delta)
    memory = rule == 41 or rule == 43 or rule == 45 or rule == 49
    w_lead = 1.0 if rule >= 48 else 0.5
    ok = True
    for j in range(K):
        if j == best or cert[j, j]:
            continue
        if restart_margin(j, best, counts, sums, means, var, lead, seg_start, segs, nseg, scales, level, w_lead) > 0.0:
            if memory:
                cert[j, j] = True
        else:
            ok = False
            if not memory:
                return -1
    if ok:
        return best
    if memory:
        return _memory_answer(cert, K, True)
    return -1


@njit(cache=True)
def update_state(a, x, counts, means, var, pw, hl):
    """Predictable-weight accumulators before counts/means include the new sample (a, x)."""
    K = counts.shape[0]
    vf = var[a] if var[a] > 0.0 else 1.0
    for j in range(K):
        if j == a:
            continue
        w = clock_weight(counts[a], counts[j], pw[a, j, 0])
        pw[a, j, 0] += w
        pw[a, j, 1] += w * x
        pw[a, j, 2] += w * w * vf
    # leaders: best and second best of the current means (first of ties)
    b1 = 0
    for i in range(1, K):
        if means[i] > means[b1]:
            b1 = i
    b2 = 1 if b1 == 0 else 0
    for i in range(K):
        if i != b1 and means[i] > means[b2]:
            b2 = i
    for j in range(K):
        lead = b2 if j == b1 else b1
        if a == lead:
            w = clock_weight(counts[a], counts[j], hl[j, 0, 0])
            hl[j, 0, 0] += w
            hl[j, 0, 1] += w * x
            hl[j, 0, 2] += w * w * vf
        elif a == j:
            w = clock_weight(counts[j], counts[lead], hl[j, 1, 0])
            hl[j, 1, 0] += w
            hl[j, 1, 1] += w * x
            hl[j, 1, 2] += w * w * vf


@njit(cache=True)
def run(stacks, var, code, rules, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples, sticky_value):
    """One trajectory; returns (stop times, answers) per rule (-1 if not stopped)."""
    K = stacks.shape[0]
    counts = np.zeros(K)
    sums = np.zeros(K)
    means = np.zeros(K)
    cumulative = np.zeros(K)
    hint = np.zeros(K + 1)
    R = rules.shape[0]
    stop_t = np.full(R, -1, dtype=np.int64)
    answer = np.full(R, -1, dtype=np.int64)
    certs = np.zeros((R, K, K), dtype=np.bool_)
    pw = np.zeros((K, K, 3))
    hl = np.zeros((K, 2, 3))
    J = scales.shape[0]
    ta = np.empty((3 * J, 5))
    tb = np.empty((J, 7))
    doubling = False
    sticky = 0.0
    for r in range(R):
        if rules[r] >= 44 and rules[r] <= 49:
            sticky = sticky_value
        if rules[r] == 42 or rules[r] == 43:
            doubling = True
    acc = np.zeros((K, 3))
    lstate = np.zeros(state_size(K))
    lstate[:K] = -1.0
    lemax = tilt_caps(scales)
    lconsts = scale_constants(scales, lemax)
    lvar = var if code == GAUSSIAN else np.zeros(K)
    lead = np.full(K, -1, dtype=np.int64)
    seg_start = np.zeros((K, 2))
    segs = np.zeros((K, MAX_SEG, 3))
    nseg = np.zeros(K, dtype=np.int64)
    left = R
    t = 0
    while t < max_samples and left > 0:
        if t < K:
            a = t
        else:
            w = oracle_best_arm_warm(code, means, var, hint)[1]
            a = c_tracking_step(cumulative, counts, w, float(t))
        x = stacks[a, int(counts[a])]
        update_state(a, x, counts, means, var, pw, hl)
        if code == GAUSSIAN:
            plug_update(a, x, counts, means, var, acc)
        if t >= K and (not doubling or (t & (t - 1)) == 0 or lead[0] < 0):
            lead_update(counts, sums, means, lead, seg_start, segs, nseg, sticky, code, var)
        counts[a] += 1.0
        sums[a] += x
        means[a] = sums[a] / counts[a]
        t += 1
        if t < K:
            continue
        for r in range(R):
            if rules[r] == 60 and stop_t[r] < 0:
                leader_advance(lstate, counts, sums, means, code, lvar, LEADER_STICKY)
            if stop_t[r] >= 0:
                continue
            rule = rules[r]
            lev = level
            mst = min_stat
            if rule > 200:
                rule -= 200
                lev = level - math.log(K - 1.0) + math.log(2.0)
                mst = min_stat - math.log(K - 1.0) + math.log(2.0)
            elif rule > 100:
                rule -= 100
                lev = level - math.log(K - 1.0)
                mst = min_stat - math.log(K - 1.0)
            if rule == 60:
                ans = -1
                if leader_min_margin(lstate, code, counts, sums, means, lvar, scales, lemax, lconsts,
                                     math.log(1.0 / delta), True) > 0.0:
                    ans = int(np.argmax(means))
            elif rule == 46 or rule == 47:
                ans = check_brest_rule(rule, counts, sums, means, delta, scales, certs[r], lead, seg_start, segs, nseg)
            elif rule >= 50:
                ans = check_plug_rule(rule, counts, sums, means, var, delta, scales, certs[r], acc)
            elif rule >= 40:
                ans = check_rest_rule(rule, counts, sums, means, var, delta, scales, certs[r], lead, seg_start, segs,
                                      nseg)
            elif rule >= 30:
                ans = check_bern_rule(rule, counts, means, float(t), delta, scales, certs[r], pw, hl, rules[r] > 100)
            elif rule >= 20:
                ans = check_state_rule(rule, counts, means, var, float(t), delta, scales, certs[r], pw, hl, ta, tb,
                                       rules[r] > 100)
            else:
                ans = check_rule(rule, code, counts, means, var, float(t), delta, lev, mst, alpha, w_beta,
                                 scales, gvar, certs[r])
            if ans >= 0:
                stop_t[r] = t
                answer[r] = ans
                left -= 1
    return stop_t, answer


def parse_instance(name):
    if name in INSTANCES:
        kind, means = INSTANCES[name]
    else:
        kind, rest = name.split(":")
        means = [float(v) for v in rest.split(",")]
    return kind, np.array(means, dtype=float)


def simulate(kind, means, runs, delta, rule_names, max_samples=400_000, seed=2024):
    K = means.size
    if kind == "g":
        code = GAUSSIAN
        var = np.ones(K)
        th = GaussianPairMixtureThreshold(delta, K - 1)
    else:
        code = BERNOULLI
        var = np.zeros(K)
        th = BernoulliPairMixtureThreshold(delta, K - 1)
    form = th.compiled_pair_form()
    level, min_stat, alpha, w_beta, gvar = form[1], form[2], form[3], form[4], form[5]
    scales = np.array(th._scales, dtype=float)
    rules = np.array([RULES[r] for r in rule_names], dtype=np.int64)
    times = np.zeros((runs, len(rules)), dtype=np.int64)
    errors = np.zeros((runs, len(rules)), dtype=bool)
    best = int(np.argmax(means))
    for i in range(runs):
        rng = np.random.default_rng(seed + i)
        if kind == "g":
            stacks = means[:, None] + rng.standard_normal((K, max_samples))
        else:
            stacks = (rng.random((K, max_samples)) < means[:, None]).astype(float)
        st, ans = run(stacks, var, code, rules, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples,
                      STICKY)
        times[i] = np.where(st >= 0, st, max_samples)
        errors[i] = (st >= 0) & (ans != best)
    return times, errors


def main(argv):
    name, runs, delta = argv[0], int(argv[1]), float(argv[2])
    rule_names = argv[3:]
    kind, means = parse_instance(name)
    t0 = time.time()
    times, errors = simulate(kind, means, runs, delta, rule_names)
    base = times[:, 0].mean()
    print(f"{name} delta={delta} runs={runs} ({time.time() - t0:.0f} s)")
    for j, r in enumerate(rule_names):
        m = times[:, j].mean()
        se = times[:, j].std(ddof=1) / math.sqrt(runs) if runs > 1 else 0.0
        d = times[:, j] - times[:, 0]
        print(f"  {r:6s} {m:10.1f} +- {se:7.1f}  ratio {m / base:5.3f}  errors {errors[:, j].mean():.3f}"
              f"  paired diff vs first {d.mean():9.1f} +- {d.std(ddof=1) / math.sqrt(runs) if runs > 1 else 0:7.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
