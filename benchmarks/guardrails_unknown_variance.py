"""Samples of the proven guardrail rule when a metric's variance is unknown, against the same metric told its sigma.

One small instance (3 arms): revenue (the objective, Gaussian sigma 1, known), latency (Gaussian, at most 0,
one sd per arm: 0.5, 1, 2) correlated -0.5 with revenue; the best-revenue arm breaks the latency bound.
The same experiment twice, on the same seeded replications: latency declared
``reward_model = "gaussian-unknown-variance"`` (estimated per arm), then ``sigma = 2`` (the largest sd: what a
known-variance metric must declare to stay proven when the sds differ).  Track-and-Stop and uniform with
``threshold = "delta-correct"``; prints mean samples +- standard error, errors, censored runs and the ratio
unknown / known per strategy, with T*(mu) of each (the unknown one at the true per-arm variances).

    .venv/bin/python benchmarks/guardrails_unknown_variance.py --runs 100

Writes ``benchmarks/results/guardrails_unknown_variance.json``.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import tomllib

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import machine, machine_line, table, write_json  # noqa: E402

from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.simulate.montecarlo import run_outcomes  # noqa: E402

EXPERIMENT = """
name = "guardrails-unknown-variance-bench"
replications = {runs}
seed = 38
[problem]
goal = "best-arm"
delta = 0.05
max_samples = 200000
[[problem.metric]]
name = "revenue"
[[problem.metric]]
name = "latency"
{latency}
at_most = 0.0
[environment]
kind = "multi-metric"
correlation = [[1.0, -0.5], [-0.5, 1.0]]
[[environment.metric]]
name = "revenue"
kind = "gaussian"
means = [0.0, 0.5, 1.0]
sigma = 1.0
[[environment.metric]]
name = "latency"
kind = "gaussian"
means = [-0.5, -0.5, 0.5]
sigma = [0.5, 1.0, 2.0]
[[strategy]]
name = "tas"
threshold = "delta-correct"
[[strategy]]
name = "uniform"
threshold = "delta-correct"
"""

MODELS = {"unknown": 'reward_model = "gaussian-unknown-variance"', "known": "sigma = 2.0"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    info = machine()
    results: dict = {}
    t_stars = {}
    for model, line in MODELS.items():
        exp = parse_experiment(tomllib.loads(EXPERIMENT.format(runs=args.runs, latency=line)))
        truth = exp.problem.truth_view(exp.environment)
        t_stars[model] = float(truth.oracle(exp.environment.source_means)[0])
        for (label, _), runs in zip(exp.strategies, run_outcomes(exp, jobs=args.jobs)):
            samples = np.array([o.samples for o in runs], dtype=float)
            results[f"{label} {model}"] = {
                "mean": float(samples.mean()), "se": float(samples.std(ddof=1) / math.sqrt(samples.size)),
                "errors": int(sum(not o.correct for o in runs if o.status == "stopped")),
                "censored": int(sum(o.status != "stopped" for o in runs))}
    rows = []
    for label in ("tas", "uniform"):
        u, k = results[f"{label} unknown"], results[f"{label} known"]
        rows.append([label, f"{u['mean']:.1f} +- {u['se']:.1f}", f"{k['mean']:.1f} +- {k['se']:.1f}",
                     f"{u['errors']} / {k['errors']}", f"{u['censored']} / {k['censored']}",
                     f"{u['mean'] / k['mean']:.3f}"])
    print(machine_line(info))
    print(f"delta = 0.05, {args.runs} runs; T*(mu): unknown (true per-arm variances) {t_stars['unknown']:.2f}, "
          f"known (sigma 2) {t_stars['known']:.2f}")
    print(table(["strategy", "unknown variance", "known sigma = 2", "errors (u / k)", "censored (u / k)",
                 "ratio u / k"], rows))
    write_json("guardrails_unknown_variance.json", {"machine": info, "runs": args.runs, "t_star": t_stars,
                                                    "results": results})


if __name__ == "__main__":
    main()
