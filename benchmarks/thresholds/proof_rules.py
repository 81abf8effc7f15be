"""The proven stopping rules of the library side by side on the same Track-and-Stop trajectories.

Track-and-Stop's sampling does not read the stopping rule, so one trajectory (C-tracking of the
oracle weights of the empirical means, one initial sample per arm, rewards read from per-arm
stacks drawn in advance from ``numpy.random.default_rng(seed + i)``) gives every rule's stopping
time and answer exactly as separate runs with the same seed would.  The trajectory goes on until
every rule has stopped (or ``max_samples``).  Every proven rule is the library's own kernel.

Rules (names on the command line):

* ``heur``     GLR > ln((1 + ln t)/delta) (not proven).
* ``pair``     kind ``"pair-mixture"`` (one test per pair, union over the K - 1 pairs).
* ``tilt``     kind ``"pair-tilt"`` (rewards in [0, 1]; variance-adaptive tilted mixtures).
* ``leader``   kind ``"leader"`` (one e-process per hypothesis, one common prior scale per term).
* ``scales``   kind ``"leader-scales"`` (the same with the scale-pair prior: half on a common scale,
  half on independent scales for the tested arm and its opponents).
* ``settled``  kind ``"leader-settled"`` (the scale-pair prior; a hypothesis' leader process starts only once
  its leader beats the runner-up of the other arms by the sticky margin).
* ``pair1``    diagnostic, NOT proven: ``pair`` at the level ln(1/delta), without the union over pairs.

A leader rule may carry its fixed prior weights after a colon: ``settled:w=0.75,p=0.5`` is ``settled`` with the
weight w of the leader process in G_j (1 - w on the fixed average; 1/2 by default) and the weight p of the
independent-scales part of the scale-pair prior (``SCALE_PAIR_WEIGHT`` by default; ``leader`` has p = 0).

Usage::

    python benchmarks/thresholds/proof_rules.py INSTANCE RUNS DELTA RULE [RULE ...]

INSTANCE: mu1, mu2 (GK16 Bernoulli), g5, g10 (Gaussian, sigma 1), ab5, abn (Bernoulli A/B tests), or a
comma list of means prefixed by ``g:`` or ``b:``.  Mean samples, their standard error, the ratio to the
first rule, the error rate, and the paired difference to the first rule are printed; with three rules or more,
also each later rule's paired difference to the second.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from numba import njit

from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.problems.best_arm._kernels import glr_best_arm, oracle_best_arm_warm
from pybai.stopping._leader_kernels import STICKY, leader_advance, leader_min_margin, state_size
from pybai.stopping._pair_mixture_kernels import pair_margin
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps, tilt_pair_margin
from pybai.stopping.leader import SCALE_PAIR_WEIGHT
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

RULES = {"heur": 0, "pair": 1, "tilt": 2, "leader": 3, "scales": 4, "pair1": 5, "settled": 6}


@njit(cache=True)
def pair_rule(rule, code, counts, means, var, level, min_stat, alpha, w_beta, scales, gvar):
    """Whether a per-pair rule stops; the recommended arm or -1."""
    z, best = glr_best_arm(code, counts, means, var, 1.0, 0.0)
    K = counts.shape[0]
    if rule == 5:  # no union over the pairs (diagnostic)
        level -= math.log(K - 1.0)
        min_stat -= math.log(K - 1.0)
    if not z > (level if rule == 2 else min_stat):
        return -1
    emax = tilt_caps(scales)
    consts = scale_constants(scales, emax)
    for b in range(K):
        if b == best:
            continue
        if rule == 2:
            m = tilt_pair_margin(counts[best], means[best], counts[b], means[b], level, 0.0, alpha, scales, emax, consts,
                                 1.0, 0.0)
        else:
            m = pair_margin(code, counts[best], means[best], var[best], counts[b], means[b], var[b], level, alpha, w_beta,
                            scales, gvar, True, 1.0, 0.0)
        if not m > 0.0:
            return -1
    return best


@njit(cache=True)
def run(stacks, var, code, rules, leads, products, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples):
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
    states = np.zeros((R, state_size(K)))
    states[:, :K] = -1.0
    emax = tilt_caps(scales)
    consts = scale_constants(scales, emax)
    lvar = var if code == GAUSSIAN else np.zeros(K)
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
            ans = -1
            if rule == 0:
                z, best = glr_best_arm(code, counts, means, var, 1.0, 0.0)
                if z > math.log((1.0 + math.log(t)) / delta):
                    ans = best
            elif rule == 3 or rule == 4 or rule == 6:
                leader_advance(states[r], counts, sums, means, code, lvar, STICKY, STICKY if rule == 6 else 0.0)
                if leader_min_margin(states[r], code, counts, sums, means, lvar, scales, emax, consts,
                                     math.log(1.0 / delta), True, products[r], lead=leads[r]) > 0.0:
                    ans = int(np.argmax(means))
            else:
                ans = pair_rule(rule, code, counts, means, var, level, min_stat, alpha, w_beta, scales, gvar)
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


def parse_rule(name):
    """(rule id, leader weight w, scale-pair weight p) of a rule name such as ``settled:w=0.75,p=0.5``."""
    base, _, rest = name.partition(":")
    rule = RULES[base]
    params = {"w": 0.5, "p": SCALE_PAIR_WEIGHT if rule in (4, 6) else 0.0}
    for item in filter(None, rest.split(",")):
        key, value = item.split("=")
        if key not in params or rule not in (3, 4, 6):
            raise ValueError(f"rule {name!r}: a leader rule takes w= and p=")
        params[key] = float(value)
    return rule, params["w"], params["p"]


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
    form = th.compiled_pieces()
    level, min_stat, alpha, w_beta, gvar = form.level, form.min_statistic, form.alpha, form.w_beta, form.gvar
    scales = np.array(form.scales, dtype=float)
    parsed = [parse_rule(r) for r in rule_names]
    rules = np.array([r[0] for r in parsed], dtype=np.int64)
    leads = np.array([r[1] for r in parsed], dtype=float)
    products = np.array([r[2] for r in parsed], dtype=float)
    times = np.zeros((runs, len(rules)), dtype=np.int64)
    errors = np.zeros((runs, len(rules)), dtype=bool)
    best = int(np.argmax(means))
    for i in range(runs):
        rng = np.random.default_rng(seed + i)
        if kind == "g":
            stacks = means[:, None] + rng.standard_normal((K, max_samples))
        else:
            stacks = (rng.random((K, max_samples)) < means[:, None]).astype(float)
        st, ans = run(stacks, var, code, rules, leads, products, delta, level, min_stat, alpha, w_beta, scales, gvar, max_samples)
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
        print(f"  {r:16s} {m:10.1f} +- {se:7.1f}  ratio {m / base:5.3f}  errors {errors[:, j].mean():.3f}"
              f"  paired diff vs first {d.mean():9.1f} +- {d.std(ddof=1) / math.sqrt(runs) if runs > 1 else 0:7.1f}")
    if len(rule_names) > 2:  # each later rule against the second (the paired difference of a new rule to the old)
        for j in range(2, len(rule_names)):
            d = times[:, j] - times[:, 1]
            print(f"  {rule_names[j]} - {rule_names[1]}: {d.mean():9.1f} +- "
                  f"{d.std(ddof=1) / math.sqrt(runs) if runs > 1 else 0:7.1f} samples, ratio of means "
                  f"{times[:, j].mean() / times[:, 1].mean():5.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
