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
from pybai.stopping._pair_mixture_kernels import _q_parts, pair_margin
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps, tilt_pair_margin
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.strategies.tracking import c_tracking_step

INSTANCES = {
    "mu1": ("b", [0.5, 0.45, 0.43, 0.4]),
    "mu2": ("b", [0.3, 0.21, 0.2, 0.19, 0.18]),
    "g5": ("g", [1.0, 0.8, 0.6, 0.4, 0.2]),
    "g10": ("g", [1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -0.2, -0.4, -0.6, -0.8]),
    "ab5": ("b", [0.055, 0.050]),
    "abn": ("b", [0.15, 0.12, 0.10]),
}

RULES = {"heur": 0, "pair": 1, "pairm": 2, "lse": 3, "lsem": 4,
         # diagnostics, NOT proven: the same rules at level ln(1/delta) (no union over the K - 1 pairs)
         "pair1": 101, "lsem1": 104,
         # Bernoulli: tilted sub-Gaussian half-normal mixtures (variance-adaptive), alone or with KT
         "tilt": 5, "tiltm": 6, "tiltkt": 7, "tiltktm": 8}


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
def run(stacks, var, code, rules, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples):
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
    left = R
    t = 0
    while t < max_samples and left > 0:
        if t < K:
            a = t
        else:
            w = oracle_best_arm_warm(code, means, var, hint)[1]
            a = c_tracking_step(cumulative, counts, w, float(t))
        x = stacks[a, int(counts[a])]
        counts[a] += 1.0
        sums[a] += x
        means[a] = sums[a] / counts[a]
        t += 1
        if t < K:
            continue
        for r in range(R):
            if stop_t[r] >= 0:
                continue
            rule = rules[r]
            lev = level
            mst = min_stat
            if rule > 100:
                rule -= 100
                lev = level - math.log(K - 1.0)
                mst = min_stat - math.log(K - 1.0)
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
        st, ans = run(stacks, var, code, rules, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples)
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
