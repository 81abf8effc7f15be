"""Repeated rewards under the unknown-variance Gaussian model: wrong certifications and their cost.

An arm whose rewards repeat exactly has a sample variance that rests on ties (0 when every reward
is the same), which the Gaussian model never produces.  This script runs Track-and-Stop with the
proven rule (``threshold = "delta-correct"``) under ``reward_model = "gaussian-unknown-variance"``
on arms that repeat values and on Gaussian arms, and reports per instance the share of runs that
stopped with a wrong answer, the share censored at ``max_samples`` and the samples of the stopped
runs.

Instances (best arm first in the truth, ``mu`` the means):

* ``spike``: arm 0 pays 0 with probability 0.95 and 10 otherwise (mean 0.5), arm 1 is
  N(0.3, 0.1^2), delta = 0.2;
* ``spike-3``: the same spike arm against N(0.3, 0.1^2) and N(0.2, 0.1^2), delta = 0.05;
* ``likert``: arm 0 uniform on {1, 2, 3, 4, 5} (mean 3), arm 1 N(2.9, 0.1^2), delta = 0.1;
* ``rounded``: N(1, 1) and N(0, 1) rewards rounded to 0.001 (ties are rare but happen), delta = 0.05;
* ``rounded-2``: the same rounded to 0.01 (ties in most runs), delta = 0.05;
* ``gaussian``: N(1, 1) and N(0, 1) (no ties: the rule must behave as before), delta = 0.05.

    .venv/bin/python benchmarks/unknown_variance_ties.py --runs 400
    .venv/bin/python benchmarks/unknown_variance_ties.py --runs 100 --instances spike gaussian

Prints a markdown table; ``--out FILE`` also writes the rows as JSON.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from _bench_common import machine, machine_line, write_json
from pybai import BestArmProblem, FixedConfidence, GaussianUnknownVariance, make_strategy


def _spike(rng):
    return 10.0 if rng.random() < 0.05 else 0.0


INSTANCES = {
    # name -> (reward functions per arm, the arm(s) that are correct answers, delta)
    "spike": ([_spike, lambda rng: rng.normal(0.3, 0.1)], {0}, 0.2),
    "spike-3": ([_spike, lambda rng: rng.normal(0.3, 0.1), lambda rng: rng.normal(0.2, 0.1)], {0}, 0.05),
    "likert": ([lambda rng: float(rng.integers(1, 6)), lambda rng: rng.normal(2.9, 0.1)], {0}, 0.1),
    "rounded": ([lambda rng: round(rng.normal(1.0, 1.0), 3), lambda rng: round(rng.normal(0.0, 1.0), 3)], {0},
                0.05),
    "rounded-2": ([lambda rng: round(rng.normal(1.0, 1.0), 2), lambda rng: round(rng.normal(0.0, 1.0), 2)], {0},
                  0.05),
    "gaussian": ([lambda rng: rng.normal(1.0, 1.0), lambda rng: rng.normal(0.0, 1.0)], {0}, 0.05),
}


def run(name: str, runs: int, seed: int, max_samples: int) -> dict:
    arms, correct, delta = INSTANCES[name]
    problem = BestArmProblem(len(arms), GaussianUnknownVariance(len(arms)), FixedConfidence(delta, max_samples))
    wrong = censored = 0
    stopped_at = []
    start = time.process_time()
    for r in range(runs):
        strategy = make_strategy("tas", threshold="delta-correct").start(problem, rng=seed + r)
        rng = np.random.default_rng([seed, r])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while not strategy.stopped:
                req = strategy.ask()
                strategy.tell(req, np.array([arms[int(a)](rng) for a in req]))
        if strategy.status_ == "stopped":
            stopped_at.append(strategy.t_)
            wrong += int(int(strategy.recommendation()) not in correct)
        else:
            censored += 1
    return {"instance": name, "delta": delta, "runs": runs, "wrong": wrong / runs, "censored": censored / runs,
            "median_samples_stopped": float(np.median(stopped_at)) if stopped_at else None,
            "mean_samples_stopped": float(np.mean(stopped_at)) if stopped_at else None,
            "cpu_s": time.process_time() - start}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--max-samples", type=int, default=5000)
    parser.add_argument("--instances", nargs="+", default=list(INSTANCES), choices=list(INSTANCES))
    parser.add_argument("--out", default=None, help="write the rows as JSON to this file")
    args = parser.parse_args(argv)
    info = machine()
    rows = [run(name, args.runs, args.seed, args.max_samples) for name in args.instances]
    print(machine_line(info))
    print("| instance | delta | runs | wrong stops | censored | median samples (stopped) | CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        med = "-" if row["median_samples_stopped"] is None else f"{row['median_samples_stopped']:.0f}"
        print(f"| {row['instance']} | {row['delta']} | {row['runs']} | {row['wrong']:.3f} | {row['censored']:.3f} "
              f"| {med} | {row['cpu_s']:.1f} |")
    if args.out:
        write_json(args.out, {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
