"""Price of unknown variances: Track-and-Stop told the true variances vs estimating them (issue 21).

For each instance (gaps between 0.1 and 1 noise standard deviation; homoscedastic and
heteroscedastic; 5 and 10 arms) and each threshold kind, runs Track-and-Stop (C-tracking) at
delta = 0.01 on Gaussian arms, (a) told the true variances (``Gaussian(sigma)``) and (b) under
``GaussianUnknownVariance`` (transportation costs ``"glr"``, and the plug-in ``"ev-glr"``), and
reports the mean sample count, its ratio to (a), the error rate and T*(mu) of both models.

    .venv/bin/python benchmarks/unknown_variance_cost.py --runs 100
    .venv/bin/python benchmarks/unknown_variance_cost.py --runs 100 --thresholds delta-correct

Writes benchmarks/results/unknown_variance_cost.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _bench_common import machine, machine_line, write_json
from pybai import BestArmProblem, FixedConfidence, Gaussian, GaussianEnvironment, GaussianUnknownVariance
from pybai import make_strategy


def instances():
    """name -> (means, sigma): gaps mu_1 - mu_a between 0.1 and 1 times the arm's noise sd."""
    out = {}
    for k in (5, 10):
        gaps = np.concatenate(([0.0], np.linspace(0.1, 1.0, k - 1)))
        out[f"homoscedastic K={k}"] = (-gaps, np.ones(k))
        sigma = np.resize(np.array([1.0, 0.5, 2.0, 1.5, 0.75]), k)
        out[f"heteroscedastic K={k}"] = (-gaps * sigma, sigma)
    return out


def run(problem, env, threshold, runs, seed):
    taus, errors = [], 0
    for r in range(runs):
        s = make_strategy("tas", {"threshold": threshold}).start(problem, rng=seed + r)
        rng = np.random.default_rng([seed, r])
        while not s.stopped:
            a = s.ask()
            s.tell(a, env.sample(a, rng))
        taus.append(s.t_)
        errors += int(s.recommendation() != 0 or s.status_ != "stopped")
    return float(np.mean(taus)), float(np.std(taus) / np.sqrt(runs)), errors / runs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--thresholds", nargs="+", default=["delta-correct", "heuristic"],
                        choices=["delta-correct", "heuristic"], help="threshold kinds to run (default both)")
    parser.add_argument("--instances", nargs="+", default=None,
                        help="instance names to run, e.g. 'heteroscedastic K=5' (default all)")
    parser.add_argument("--out", default="unknown_variance_cost.json", help="file name under benchmarks/results/")
    args = parser.parse_args(argv)
    info = machine()
    rows = []
    start = time.time()
    for name, (means, sigma) in instances().items():
        if args.instances is not None and name not in args.instances:
            continue
        k = means.size
        env = GaussianEnvironment(means, sigma)
        regime = FixedConfidence(args.delta, max_samples=2_000_000)
        known = BestArmProblem(k, Gaussian(sigma, n_sources=k), regime)
        t_known = known.oracle(means)[0]
        for threshold in args.thresholds:
            base = run(known, env, threshold, args.runs, args.seed)
            rows.append({"instance": name, "threshold": threshold, "model": "known variance", "T*": t_known,
                         "mean_samples": base[0], "se": base[1], "error_rate": base[2], "ratio": 1.0})
            for statistic in ("glr", "ev-glr"):
                problem = BestArmProblem(k, GaussianUnknownVariance(k, statistic), regime)
                t_uv = problem.truth_view(env).oracle(means)[0]
                res = run(problem, env, threshold, args.runs, args.seed)
                rows.append({"instance": name, "threshold": threshold, "model": f"unknown variance ({statistic})",
                             "T*": t_uv, "mean_samples": res[0], "se": res[1], "error_rate": res[2],
                             "ratio": res[0] / base[0]})
            print(f"{name} {threshold}: done ({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    lines = [machine_line(info), f"Track-and-Stop (C), delta = {args.delta}, {args.runs} runs per cell", "", "| instance | threshold | learner | T*(mu) | mean samples (± s.e.) | ratio to known | errors |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row['instance']} | {row['threshold']} | {row['model']} | {row['T*']:.0f} | "
                     f"{row['mean_samples']:.0f} ± {row['se']:.0f} | {row['ratio']:.2f} | {row['error_rate']:.3f} |")
    print("\n".join(lines))
    write_json(args.out, {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
