"""Bounded rewards, plain best arm: the leader rule of rewards in [0, 1] against the per-pair rules (issue 39).

Per instance, Track-and-Stop and Top Two with three proven rules on the same seeds (run r: the strategy's
seed ``seed + r``, the rewards' stream ``[seed, r]``):

* ``kl-inf pair``: statistic "kl-inf", the betting per-pair rule (its ``"delta-correct"``);
* ``sub-bernoulli pair-tilt``: statistic "sub-bernoulli", the tilted per-pair rule (``"pair-tilt"``, its
  ``"delta-correct"`` before issue 39);
* ``sub-bernoulli leader``: statistic "sub-bernoulli", ``"leader-settled"`` (the rule of Bernoulli arms on the
  rescaled rewards; its ``"delta-correct"`` after issue 39).

    .venv/bin/python benchmarks/bounded_leader_cost.py --runs 100
    .venv/bin/python benchmarks/bounded_leader_cost.py --runs 100 --first-run 100 --instances beta3 \
        --strategies top-two --rules "sub-bernoulli pair-tilt;sub-bernoulli leader" --out bounded_leader_beta3_more.json

Writes benchmarks/results/bounded_leader_cost.json (or ``--out``) and prints a markdown table: mean samples
(± s.e.), the ratio to the first rule run on the same instance and strategy (kl-inf by default), errors,
censored runs.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _bench_common import machine, machine_line, write_json
from pybai import BernoulliEnvironment, BestArmProblem, BetaEnvironment, Bounded, FixedConfidence, make_strategy

#: name -> (description, environment)
INSTANCES = {
    "beta3": ("Beta (0.5, 0.45, 0.4), sd 0.05", lambda: BetaEnvironment([0.5, 0.45, 0.4], 0.05)),
    "beta5": ("Beta (0.7, 0.6, 0.55, 0.5, 0.4), sd 0.2",
              lambda: BetaEnvironment([0.7, 0.6, 0.55, 0.5, 0.4], 0.2)),
    "beta10": ("Beta (0.8, 0.7, 0.65, ..., 0.3), sd 0.2",
               lambda: BetaEnvironment([0.8, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3], 0.2)),
    "bern5": ("Bernoulli (0.6, 0.5, 0.45, 0.4, 0.3)", lambda: BernoulliEnvironment([0.6, 0.5, 0.45, 0.4, 0.3])),
}
#: label -> (statistic, threshold kind)
RULES = {"kl-inf pair": ("kl-inf", "delta-correct"),
         "sub-bernoulli pair-tilt": ("sub-bernoulli", "pair-tilt"),
         "sub-bernoulli leader": ("sub-bernoulli", "leader-settled")}


def run(problem, env, strategy, kind, runs, seed, first=0):
    taus, errors, censored = [], 0, 0
    start = time.process_time()
    for r in range(first, first + runs):
        s = make_strategy(strategy, {"threshold": kind}).start(problem, rng=seed + r)
        rng = np.random.default_rng([seed, r])
        while not s.stopped:
            a = s.ask()
            s.tell(a, env.sample(a, rng))
        taus.append(s.t_)
        errors += int(s.recommendation() != 0)
        censored += int(s.status_ != "stopped")
    cpu = time.process_time() - start
    return float(np.mean(taus)), float(np.std(taus) / np.sqrt(runs)), errors, censored, cpu / max(sum(taus), 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--strategies", default="tas,top-two")
    parser.add_argument("--instances", default=",".join(INSTANCES))
    parser.add_argument("--first-run", type=int, default=0, help="skip the first runs (more seeds of the same cells)")
    parser.add_argument("--rules", default=";".join(RULES), help="labels of the rules to run, separated by semicolons")
    parser.add_argument("--out", default="bounded_leader_cost.json")
    args = parser.parse_args(argv)
    info = machine()
    regime = FixedConfidence(args.delta, max_samples=2_000_000)
    rows = []
    begin = time.time()
    for name in args.instances.split(","):
        label, make_env = INSTANCES[name]
        env = make_env()
        k = env.n_sources
        for strategy in args.strategies.split(","):
            base = None
            for rule, (statistic, kind) in RULES.items():
                if rule not in args.rules.split(";"):
                    continue
                problem = BestArmProblem(k, Bounded(k, 0.0, 1.0, statistic), regime)
                mean, se, errors, censored, cpu = run(problem, env, strategy, kind, args.runs, args.seed,
                                                      args.first_run)
                base = mean if base is None else base
                rows.append({"instance": name, "rewards": label, "strategy": strategy, "rule": rule,
                             "mean_samples": mean, "se": se, "ratio": mean / base, "errors": errors,
                             "censored": censored, "runs": args.runs, "cpu_us_per_sample": 1e6 * cpu})
                print(f"{name} {strategy} {rule}: {mean:.0f} ({time.time() - begin:.0f} s)", file=sys.stderr,
                      flush=True)
    runs = f"runs {args.first_run}..{args.first_run + args.runs - 1}" if args.first_run else f"{args.runs} runs"
    lines = [machine_line(info), f"delta = {args.delta}, {runs} per cell, seed {args.seed}", "",
             "| rewards | strategy | rule | mean samples (± s.e.) | ratio to first rule | errors | censored | "
             "CPU µs per sample |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row['rewards']} | {row['strategy']} | {row['rule']} | {row['mean_samples']:.0f} ± "
                     f"{row['se']:.0f} | {row['ratio']:.2f} | {row['errors']} | {row['censored']} | "
                     f"{row['cpu_us_per_sample']:.0f} |")
    print("\n".join(lines))
    write_json(args.out, {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
