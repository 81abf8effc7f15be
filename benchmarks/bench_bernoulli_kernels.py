"""The Bernoulli kernels that bound Track-and-Stop and KL-LUCB on GK16 mu2, per call.

1. The oracle (T*, w*) on the sequence of empirical means of real Track-and-Stop runs (D-tracking,
   GK16 mu2, delta = 0.1, heuristic threshold; each call from the warm-start hint the run had):
   the solver as shipped (joint Newton from the hint, nested solve as fallback) against the nested
   solve alone (Newton on y, every x_a(y) solved inside: the solver before 2026-11-25), with the
   number of fallbacks and the largest relative difference of T* and w*.
2. The KL confidence bounds (upper and lower) on means, counts and levels like those of KL-LUCB on
   mu2: the shipped bound (the bisection replayed) against the plain 60-step bisection, with the
   count of results that differ (must be 0).

    .venv/bin/python benchmarks/bench_bernoulli_kernels.py [--runs N]

CPU seconds (``time.process_time``), best of 5 passes.  Writes benchmarks/results/bench_bernoulli_kernels.json.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.models import _kl  # noqa: E402
from pybai.problems.best_arm import _kernels as K  # noqa: E402
from pybai.problems.best_arm.problem import BestArmProblem  # noqa: E402
from pybai.simulate.engine import execute_sweep  # noqa: E402
from pybai.simulate.tasks import Sweep  # noqa: E402

MU2 = [0.3, 0.21, 0.2, 0.19, 0.18]


def oracle_inputs(runs: int):
    """(means, hint) at every oracle call of ``runs`` ask/tell runs of tas-D on mu2."""
    means, hints = [], []
    original = BestArmProblem.tracking_weights

    def spy(self, counts, mu, t, hint=None):
        means.append(np.array(mu, dtype=float))
        hints.append(hint.copy())
        return original(self, counts, mu, t, hint)

    doc = {"name": "bench", "replications": runs, "seed": 2026, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "bernoulli", "means": MU2}, "strategy": [{"name": "tas", "tracking": "D"}]}
    BestArmProblem.tracking_weights = spy
    try:
        execute_sweep(Sweep.from_experiment(parse_experiment(doc), True), compiled=False)
    finally:
        BestArmProblem.tracking_weights = original
    return np.array(means), np.array(hints)


@njit(cache=True)
def _nested_oracle(means, hint):
    """The oracle with the nested solve only (the solver before the joint Newton step; T* = inf on ties)."""
    k = means.shape[0]
    var = np.ones(k)
    best, unique = K.best_index(means)
    w = np.full(k, 1.0 / k)
    if not unique:
        return math.inf, w
    y_max = math.inf
    for a in range(k):
        if a != best:
            y_max = min(y_max, K.kl(1, means[best], means[a], 1.0))
    xs = hint[1:]
    y = K._nested_newton(1, means, var, best, y_max, hint[0], xs)
    hint[0] = y
    return K.weights_from_roots(best, xs, y, w)


@njit(cache=True)
def _replay(means, hints, nested, out_t, out_w):
    var = np.ones(means.shape[1])
    h = np.empty(hints.shape[1])
    for i in range(means.shape[0]):
        h[:] = hints[i]
        if nested:
            t, w = _nested_oracle(means[i], h)
        else:
            t, w = K.oracle_best_arm_warm(1, means[i], var, h)
        out_t[i] = t
        out_w[i] = w


@njit(cache=True)
def _fallbacks(means, hints):
    """Calls whose joint Newton step was tried and failed (the nested solve ran)."""
    var = np.ones(means.shape[1])
    tried = 0
    failed = 0
    for i in range(means.shape[0]):
        best, unique = K.best_index(means[i])
        if not unique:
            continue
        y_max = math.inf
        for a in range(means.shape[1]):
            if a != best:
                y_max = min(y_max, K.kl(1, means[i, best], means[i, a], 1.0))
        h = hints[i].copy()
        if 0.0 < h[0] < y_max:
            tried += 1
            if K._joint_newton(1, means[i], var, best, y_max, h[0], h[1:]) < 0.0:
                failed += 1
    return tried, failed


@njit(cache=True)
def _plain_bound(x, n, level, edge):
    inside = min(max(x, 0.0), 1.0)
    outside = edge
    if n * _kl.kl(1, x, outside, 1.0) <= level:
        return edge
    for _ in range(60):
        mid = 0.5 * (inside + outside)
        if n * _kl.kl(1, x, mid, 1.0) > level:
            outside = mid
        else:
            inside = mid
    return inside


@njit(cache=True)
def _bounds(xs, ns, levels, plain, out):
    for i in range(xs.shape[0]):
        if plain:
            out[i, 0] = _plain_bound(xs[i], ns[i], levels[i], 1.0)
            out[i, 1] = _plain_bound(xs[i], ns[i], levels[i], 0.0)
        else:
            out[i, 0] = _kl.upper_bound(1, xs[i], ns[i], 1.0, levels[i])
            out[i, 1] = _kl.lower_bound(1, xs[i], ns[i], 1.0, levels[i])


def _best_time(fn, *args) -> float:
    fn(*args)
    best = math.inf
    for _ in range(5):
        c0 = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - c0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="tas-D runs whose oracle calls are replayed (default 10)")
    args = ap.parse_args(argv)
    doc = {"machine": bc.machine(), "load_start": bc.load()}
    means, hints = oracle_inputs(args.runs)
    n = means.shape[0]
    t_new, w_new = np.empty(n), np.empty_like(means)
    t_old, w_old = np.empty(n), np.empty_like(means)
    new = _best_time(_replay, means, hints, False, t_new, w_new)
    old = _best_time(_replay, means, hints, True, t_old, w_old)
    tried, failed = _fallbacks(means, hints)
    fin = np.isfinite(t_old)
    doc["oracle"] = {"calls": int(n), "us_per_call": 1e6 * new / n, "nested_us_per_call": 1e6 * old / n,
                     "speedup": old / new, "joint_tried": int(tried), "joint_fallbacks": int(failed),
                     "max_rel_diff_t": float(np.max(np.abs(t_new[fin] - t_old[fin]) / t_old[fin])),
                     "max_rel_diff_w": float(np.max(np.abs(w_new[fin] - w_old[fin]) / np.maximum(w_old[fin], 1e-300)))}
    rng = np.random.default_rng(5)
    m = 20_000
    ns = rng.integers(2, 3000, m).astype(float)
    xs = np.round(rng.uniform(0.1, 0.4, m) * ns) / ns
    levels = np.log((1.0 + np.log(rng.uniform(10, 5000, m))) / 0.1)  # the heuristic threshold at t
    out_new, out_old = np.empty((m, 2)), np.empty((m, 2))
    new_b = _best_time(_bounds, xs, ns, levels, False, out_new)
    old_b = _best_time(_bounds, xs, ns, levels, True, out_old)
    doc["bounds"] = {"bounds": 2 * m, "us_per_bound": 1e6 * new_b / (2 * m),
                     "plain_us_per_bound": 1e6 * old_b / (2 * m),
                     "speedup": old_b / new_b, "differing": int(np.sum(out_new != out_old))}
    doc["load_end"] = bc.load()
    bc.write_json("bench_bernoulli_kernels.json", doc)
    o, b = doc["oracle"], doc["bounds"]
    print(f"oracle, {o['calls']} calls of {args.runs} tas-D runs on mu2: {o['us_per_call']:.2f} us/call, nested only "
          f"{o['nested_us_per_call']:.2f} ({o['speedup']:.1f}x); joint step tried {o['joint_tried']}, fell back "
          f"{o['joint_fallbacks']}; max relative difference (finite T*) T* {o['max_rel_diff_t']:.1e}, w* "
          f"{o['max_rel_diff_w']:.1e}")
    print(f"KL bounds, {b['bounds']}: {b['us_per_bound']:.3f} us/bound, plain bisection {b['plain_us_per_bound']:.3f} "
          f"({b['speedup']:.1f}x); results differing: {b['differing']}")
    print(f"load average {doc['load_start']} -> {doc['load_end']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
