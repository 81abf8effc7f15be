"""Cost of epsilon-top-k identification (docs/epsilon.md, "epsilon-top-k"): samples, stop rate and errors.

Gaussian arms (sd 1), k = 2 of K = 5, additive epsilon = 0.2, delta = 0.05, the proven threshold
(``threshold = "delta-correct"``: the pairwise rule on shifted pieces), max_samples 200,000.  Three
boundaries between the 2nd and 3rd means: an exact tie, a near tie (gap 0.04 < epsilon / 4) and a gap of
0.5 (2.5 epsilon).  Part 1: per strategy and instance, mean samples, the fraction of runs that stopped,
errors (a stopped run whose set holds an arm more than epsilon below mu_(2)) and exact answers; T is the
characteristic time of the pairwise rule (the top-k oracle on the shifted pieces), T kl(delta, 1 - delta)
its lower-bound form.  Part 2: on the separated instance with epsilon = 0.02 (gaps >= 25 epsilon), mean
samples with epsilon over mean samples of exact top-k, same seeds.

Usage: python benchmarks/epsilon_top_k_cost.py [--runs 50] [--runs2 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pybai import FixedConfidence, GaussianEnvironment, make_strategy
from pybai.problems.base import lower_bound_factor
from pybai.problems.top_k import TopKProblem

RULES = [("lucb", {}), ("lucb-ci", {"name": "lucb", "stopping": "confidence-intervals"}), ("game", {}),
         ("uniform", {})]
INSTANCES = [("tie", [1.0, 0.6, 0.6, 0.2, 0.0]), ("near-tie", [1.0, 0.6, 0.56, 0.2, 0.0]),
             ("separated", [1.0, 0.6, 0.1, 0.0, -0.2])]
DELTA, K, EPS = 0.05, 2, 0.2


def _run(label, params, env, problem, seed):
    params = dict(params)
    name = params.pop("name", label)
    s = make_strategy(name, threshold="delta-correct", **params).start(problem, rng=seed)
    noise = np.random.default_rng(10_000 + seed)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    answer = s.recommendation()
    exact = problem.answer_metrics(answer, env.source_means).get("exact_correct")
    return s.t_, s.status_ == "stopped", problem.is_correct(answer, env.source_means), exact


def part1(runs, seed):
    print(f"Part 1: k = {K} of 5 Gaussian arms, epsilon = {EPS}, delta = {DELTA}, threshold delta-correct, "
          f"{runs} runs per cell")
    print("| instance | T (pairwise rule) | T kl(delta, 1-delta) | strategy | mean samples | stopped | errors | "
          "exact | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case, means in INSTANCES:
        env = GaussianEnvironment(means, 1.0)
        problem = TopKProblem(5, K, env.family(), FixedConfidence(DELTA, max_samples=200_000), epsilon=EPS)
        t_star = problem.oracle(np.array(means))[0]
        for label, params in RULES:
            t0 = time.perf_counter()
            out = [_run(label, params, env, problem, seed + r) for r in range(runs)]
            tau = np.mean([o[0] for o in out])
            stopped = sum(o[1] for o in out)
            errors = sum(o[1] and not o[2] for o in out)
            exact = sum(bool(o[3]) for o in out)
            print(f"| {case} | {t_star:.1f} | {t_star * lower_bound_factor(DELTA):.1f} | `{label}` | {tau:.0f} | "
                  f"{stopped}/{runs} | {errors} | {exact}/{runs} | {time.perf_counter() - t0:.1f} |", flush=True)


def part2(runs, seed):
    means = INSTANCES[2][1]
    env = GaussianEnvironment(means, 1.0)
    plain = TopKProblem(5, K, env.family(), FixedConfidence(DELTA))
    eps = TopKProblem(5, K, env.family(), FixedConfidence(DELTA), epsilon=0.02)
    print(f"\nPart 2: {means}, epsilon = 0.02, {runs} runs: mean samples with epsilon / exact top-k")
    print("| strategy | with epsilon | exact | ratio |")
    print("| --- | --- | --- | --- |")
    for label, params in RULES:
        a = np.mean([_run(label, params, env, plain, seed + r)[0] for r in range(runs)])
        b = np.mean([_run(label, params, env, eps, seed + r)[0] for r in range(runs)])
        print(f"| `{label}` | {b:.0f} | {a:.0f} | {b / a:.3f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--runs2", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    part1(args.runs, args.seed)
    part2(args.runs2, args.seed)


if __name__ == "__main__":
    main()
