"""Bounded rewards: samples of the KL_inf rule vs the sub-Bernoulli rule (vs the Bernoulli family) (issue 21).

Beta arms of small variance (means 0.5, 0.45, 0.4, standard deviation 0.05) and Bernoulli arms of
the same means, delta = 0.01, proven ("delta-correct") stopping rules, Track-and-Stop and Top Two:
reward_model "bounded" with statistic "kl-inf" and "sub-bernoulli" on both, and the existing
Bernoulli family on the Bernoulli arms.  Reports the mean sample count, its standard error, the
error rate and the ratio to the reference of the table (sub-Bernoulli on Beta arms, the Bernoulli
family on Bernoulli arms).

    .venv/bin/python benchmarks/bounded_cost.py --runs 30
    .venv/bin/python benchmarks/bounded_cost.py --runs 70 --first-run 30 --rewards bernoulli \
        --learners "bernoulli family;bounded, kl-inf" --out bounded_cost_bernoulli.json

``--rewards`` keeps one kind of arms (``beta`` or ``bernoulli``); ``--first-run`` skips the first
runs (more seeds of the same instance without repeating the table's).

Writes benchmarks/results/bounded_cost.json (or ``--out``) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _bench_common import machine, machine_line, write_json
from pybai import Bernoulli, BernoulliEnvironment, BestArmProblem, BetaEnvironment, Bounded, FixedConfidence
from pybai import make_strategy

MEANS = [0.5, 0.45, 0.4]


def run(problem, env, strategy, runs, seed, first=0):
    taus, errors, seconds = [], 0, 0.0
    for r in range(first, first + runs):
        s = make_strategy(strategy, {"threshold": "delta-correct"}).start(problem, rng=seed + r)
        rng = np.random.default_rng([seed, r])
        start = time.perf_counter()
        while not s.stopped:
            a = s.ask()
            s.tell(a, env.sample(a, rng))
        seconds += time.perf_counter() - start
        taus.append(s.t_)
        errors += int(s.recommendation() != 0 or s.status_ != "stopped")
    return float(np.mean(taus)), float(np.std(taus) / np.sqrt(runs)), errors / runs, seconds / max(sum(taus), 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--strategies", default="tas,top-two")
    parser.add_argument("--rewards", choices=["all", "beta", "bernoulli"], default="all")
    parser.add_argument("--first-run", type=int, default=0)
    parser.add_argument("--learners", default="", help="labels to keep, separated by semicolons (default: all)")
    parser.add_argument("--out", default="bounded_cost.json")
    args = parser.parse_args(argv)
    info = machine()
    regime = FixedConfidence(args.delta, max_samples=2_000_000)
    k = len(MEANS)
    cases = [("Beta, sd 0.05", BetaEnvironment(MEANS, 0.05), [("bounded, sub-bernoulli", Bounded(k, 0, 1, "sub-bernoulli")),
                                                              ("bounded, kl-inf", Bounded(k, 0, 1, "kl-inf"))]),
             ("Bernoulli", BernoulliEnvironment(MEANS), [("bernoulli family", Bernoulli(n_sources=k)),
                                                         ("bounded, sub-bernoulli", Bounded(k, 0, 1, "sub-bernoulli")),
                                                         ("bounded, kl-inf", Bounded(k, 0, 1, "kl-inf"))])]
    cases = [c for c in cases if args.rewards == "all" or c[0].lower().startswith(args.rewards)]
    rows = []
    begin = time.time()
    for rewards, env, families in cases:
        for strategy in args.strategies.split(","):
            base = None
            for label, family in families:
                if args.learners and label not in args.learners.split(";"):
                    continue
                res = run(BestArmProblem(k, family, regime), env, strategy, args.runs, args.seed, args.first_run)
                base = res[0] if base is None else base
                rows.append({"rewards": rewards, "strategy": strategy, "learner": label, "mean_samples": res[0],
                             "se": res[1], "error_rate": res[2], "ratio": res[0] / base,
                             "us_per_sample": 1e6 * res[3]})
                print(f"{rewards} {strategy} {label}: {res[0]:.0f} ({time.time() - begin:.0f} s)", file=sys.stderr,
                      flush=True)
    runs = f"runs {args.first_run}..{args.first_run + args.runs - 1}" if args.first_run else f"{args.runs} runs"
    lines = [machine_line(info), f"delta = {args.delta}, proven thresholds, {runs} per cell", "",
             "| rewards | strategy | learner | mean samples (± s.e.) | ratio to first row | errors | µs per sample |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row['rewards']} | {row['strategy']} | {row['learner']} | {row['mean_samples']:.0f} ± "
                     f"{row['se']:.0f} | {row['ratio']:.2f} | {row['error_rate']:.3f} | {row['us_per_sample']:.0f} |")
    print("\n".join(lines))
    write_json(args.out, {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
