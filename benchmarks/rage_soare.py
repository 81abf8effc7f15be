"""RAGE (or another linear rule) on the section-6 instance of Soare et al. (2014): samples, counts, CPU.

    PYTHONPATH=src python benchmarks/rage_soare.py --d 6 --omega 0.1 --delta 0.01 --runs 100
    PYTHONPATH=src python benchmarks/rage_soare.py --d 5 --omega 0.01 --delta 0.05 --runs 100
    PYTHONPATH=src python benchmarks/rage_soare.py --strategy xy-static --params '{"threshold": "delta-correct"}' --runs 30

Prints one JSON line (the numbers of docs/linear.md, section RAGE).  Seeds: SeedSequence([seed, r]).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pybai import FixedConfidence, make_strategy
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.problems.base import lower_bound_factor
from pybai.problems.linear import LinearBestArmProblem
from pybai.simulate.runner import run_replication


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=6)
    parser.add_argument("--omega", type=float, default=0.1)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2019)
    parser.add_argument("--strategy", default="rage")
    parser.add_argument("--params", default="{}", help="strategy parameters as JSON")
    args = parser.parse_args()
    d, w = args.d, args.omega
    x = np.vstack([np.eye(d), np.r_[np.cos(w), np.sin(w), np.zeros(d - 2)]])
    theta = np.zeros(d)
    theta[0] = 2.0
    env = LinearGaussianEnvironment(x, theta, 1.0)
    problem = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(args.delta, max_samples=10**8))
    t_star, _ = problem.oracle(x @ theta)
    params = json.loads(args.params)
    strategy = make_strategy(args.strategy, **params)
    cpu = time.process_time()
    outs = [run_replication(strategy, env, problem, np.random.SeedSequence([args.seed, r])) for r in range(args.runs)]
    samples = np.array([o.samples for o in outs], dtype=float)
    print(json.dumps({
        "d": d, "omega": w, "delta": args.delta, "runs": args.runs, "strategy": args.strategy, "params": params,
        "t_star": round(t_star, 1), "t_star_kl": round(t_star * lower_bound_factor(args.delta), 1),
        "mean_samples": round(samples.mean(), 1),
        "ci95": round(1.96 * samples.std(ddof=1) / np.sqrt(samples.size), 1),
        "median": float(np.median(samples)), "min": int(samples.min()), "max": int(samples.max()),
        "correct": float(np.mean([o.correct for o in outs])),
        "censored": int(sum(o.status == "censored" for o in outs)),
        "mean_counts": np.mean([o.counts for o in outs], axis=0).round(1).tolist(),
        "cpu_seconds_per_run": round((time.process_time() - cpu) / args.runs, 3),
    }))


if __name__ == "__main__":
    main()
