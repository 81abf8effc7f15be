"""epsilon-best-arm identification: the per-pair rule against the leader rule on the same runs.

The ``"delta-correct"`` rule of an epsilon problem on Gaussian (known variances) and Bernoulli arms was the per-pair
rule (``"pair-mixture"`` Gaussian, ``"pair-tilt"`` Bernoulli: one test per pair, union over the K - 1 pairs); it is
now ``"leader-settled"`` on the shifted hypotheses (docs/thresholds.md, "epsilon-best-arm identification with the
leader rules").  Both kinds stay reachable by name.  For each instance, strategy and run seed the two rules run
compiled (``simulate_run``) with the same strategy seed and the same reward stream, so their trajectories agree
until the first of them stops: the paired difference of the sample counts has a small standard error.

Usage::

    python benchmarks/thresholds/epsilon_leader.py [--runs 100] [--instances g5 g5-01 mu1 mu1-01 mu2 tie]
        [--strategies tas top-two] [--old KIND] [--new KIND]

(``--old leader-settled --new leader-favoured``: the leader weight 1/2 against 0.9 on the same runs.)

Prints, per cell, the mean samples of each rule with their standard errors, the paired difference new - old with its
standard error, the ratio of the means new / old, and the errors (stops on an arm that is not epsilon-good).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pybai import BestArmProblem, FixedConfidence, make_strategy
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.gaussian import GaussianEnvironment

#: name: (family "g"/"b", means, additive epsilon, delta)
INSTANCES = {
    "g5": ("g", [1.0, 0.97, 0.8, 0.6, 0.4], 0.1, 0.1),
    "g5-01": ("g", [1.0, 0.97, 0.8, 0.6, 0.4], 0.1, 0.01),
    "mu1": ("b", [0.5, 0.45, 0.43, 0.4], 0.03, 0.1),
    "mu1-01": ("b", [0.5, 0.45, 0.43, 0.4], 0.01, 0.01),
    "mu2": ("b", [0.3, 0.21, 0.2, 0.19, 0.18], 0.05, 0.1),
    "tie": ("b", [0.12, 0.12, 0.10], 0.01, 0.05),
}
OLD = {"g": "pair-mixture", "b": "pair-tilt"}
NEW = "leader-settled"


def run_cell(name, strategy, runs, max_samples, old=None, new=NEW):
    fam, means, eps, delta = INSTANCES[name]
    means = np.array(means)
    k = len(means)
    env = GaussianEnvironment(means, 1.0) if fam == "g" else BernoulliEnvironment(means)
    problem = BestArmProblem(k, env.family(), FixedConfidence(delta, max_samples=max_samples), epsilon=eps)
    var = np.ones(k) if fam == "g" else None
    out = {}
    t0 = time.process_time()
    old = old or OLD[fam]
    for kind in (old, new):
        ts, errors, censored = [], 0, 0
        for r in range(runs):
            s = make_strategy(strategy, {"threshold": kind}).start(problem, rng=1000 + r)
            assert s.simulate_run(env.means, np.random.default_rng(50_000 + r), var)
            ts.append(s.t_)
            censored += s.status_ == "censored"
            errors += s.status_ != "censored" and not problem.is_correct(s.recommendation(), means)
        out[kind] = (np.array(ts, dtype=float), errors, censored)
    old_t, new_t = out[old][0], out[new][0]
    diff = new_t - old_t
    se = lambda x: x.std(ddof=1) / np.sqrt(len(x))  # noqa: E731
    print(f"{name:<6} {strategy:<8} eps={eps:<5g} delta={delta:<5g} old {old} {old_t.mean():>10,.0f} +- "
          f"{se(old_t):>7,.0f} | new {new} {new_t.mean():>10,.0f} +- {se(new_t):>7,.0f} | new - old "
          f"{diff.mean():>9,.0f} +- {se(diff):>6,.0f} | new/old {new_t.mean() / old_t.mean():.3f} | errors "
          f"{out[old][1]}/{runs}, {out[new][1]}/{runs} | censored {out[old][2]}, {out[new][2]} | "
          f"{time.process_time() - t0:.0f} s CPU", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--instances", nargs="+", default=list(INSTANCES))
    parser.add_argument("--strategies", nargs="+", default=["tas", "top-two"])
    parser.add_argument("--max-samples", type=int, default=2_000_000)
    parser.add_argument("--old", default=None, help="the rule compared against (default: the per-pair rule)")
    parser.add_argument("--new", default=NEW, help=f"the rule measured (default: {NEW})")
    args = parser.parse_args(argv)
    for name in args.instances:
        for strategy in args.strategies:
            run_cell(name, strategy, args.runs, args.max_samples, args.old, args.new)


if __name__ == "__main__":
    main()
