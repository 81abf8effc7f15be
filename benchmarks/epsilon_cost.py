"""Cost of epsilon-best-arm identification (docs/epsilon.md): measured E[tau] against T*_eps x beta.

Part 1, random instances at delta = 0.01: Gaussian arms (sd 1), K uniform in {3, 4, 5}, epsilon uniform
in [0.1, 0.3], the best mean 0, a second arm tied (1/3 of the instances), within epsilon / 4 (1/3) or
absent (1/3), the others below the best by epsilon x U[1.1, 3].  For each strategy the table gives the
mean over instances of E[tau] / (T*_eps(mu) beta(E[tau], delta)), with beta the heuristic threshold
ln((1 + ln t) / delta) that the runs stop with (the seed papers'), and the same ratio against the lower
bound T*_eps kl(delta, 1 - delta).

Part 2, separated instances (gaps 10 to 50 times epsilon): mean samples with epsilon = 0.02 over
mean samples of exact identification, same seeds.

Usage: python benchmarks/epsilon_cost.py [--instances 12] [--runs 30] [--runs2 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from pybai import BestArmProblem, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.problems.base import lower_bound_factor

RULES = [("tas", {}), ("eb-tc-eps", {"name": "top-two", "challenger": "tc"}),
         ("eb-tc-eps-ids", {"name": "top-two", "challenger": "tc", "beta": "ids"}), ("lucb", {}), ("game", {}),
         ("uniform", {})]
DELTA = 0.01


def _instance(rng):
    k = int(rng.integers(3, 6))
    eps = float(rng.uniform(0.1, 0.3))
    means = -eps * rng.uniform(1.1, 3.0, k)
    means[0] = 0.0
    case = int(rng.integers(3))
    if case == 0:
        means[1] = 0.0
    elif case == 1:
        means[1] = -rng.uniform(0.0, eps / 4)
    rng.shuffle(means)
    return means, eps, ("tie", "near-tie", "separated")[case]


def _run(label, params, env, problem, seed):
    params = dict(params)
    name = params.pop("name", label)
    s = make_strategy(name, **params).start(problem, rng=seed)
    noise = np.random.default_rng(10_000 + seed)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    return s.t_, problem.is_correct(s.recommendation(), env.source_means), s.status_


def _beta(t):
    return math.log((1.0 + math.log(t)) / DELTA)


def part1(instances, runs, seed):
    rng = np.random.default_rng(seed)
    drawn = [_instance(rng) for _ in range(instances)]
    print(f"Part 1: {instances} random instances x {runs} runs, delta = {DELTA}, heuristic threshold")
    print(f"{'strategy':<15}{'E[tau]/(T* beta)':>18}{'max':>8}{'E[tau]/(T* kl)':>16}{'errors':>8}{'censored':>10}{'s':>7}")
    for label, params in RULES:
        ratios, lbs, errors, censored = [], [], 0, 0
        t0 = time.perf_counter()
        for i, (means, eps, _) in enumerate(drawn):
            env = GaussianEnvironment(means, 1.0)
            problem = BestArmProblem(len(means), env.family(), FixedConfidence(DELTA, max_samples=500_000),
                                     epsilon=eps)
            t_star = problem.oracle(means)[0]
            out = [_run(label, params, env, problem, 1000 * i + r) for r in range(runs)]
            tau = float(np.mean([o[0] for o in out]))
            errors += sum(not o[1] for o in out)
            censored += sum(o[2] == "censored" for o in out)
            ratios.append(tau / (t_star * _beta(tau)))
            lbs.append(tau / (t_star * lower_bound_factor(DELTA)))
        print(f"{label:<15}{np.mean(ratios):>18.3f}{np.max(ratios):>8.3f}{np.mean(lbs):>16.3f}{errors:>8}{censored:>10}"
              f"{time.perf_counter() - t0:>7.0f}")
    print("instances:", "; ".join(f"{c} eps={e:.2f} K={len(m)}" for m, e, c in drawn))


def part2(runs, seed):
    print(f"\nPart 2: separated instances, epsilon = 0.02 against exact identification, {runs} runs, delta = {DELTA}")
    instances = [[1.0, 0.5, 0.3, 0.2], [1.0, 0.8, 0.4], [0.5, 0.0, -0.2, -0.5, -0.6]]
    print(f"{'strategy':<15}" + "".join(f"{str(m):>32}" for m in instances))
    for label, params in RULES:
        cells = []
        for j, means in enumerate(instances):
            env = GaussianEnvironment(means, 1.0)
            plain = BestArmProblem(len(means), env.family(), FixedConfidence(DELTA))
            eps = BestArmProblem(len(means), env.family(), FixedConfidence(DELTA), epsilon=0.02)
            a = np.mean([_run(label, params, env, plain, seed + 100 * j + r)[0] for r in range(runs)])
            b = np.mean([_run(label, params, env, eps, seed + 100 * j + r)[0] for r in range(runs)])
            cells.append(f"{b:.0f} / {a:.0f} = {b / a:.3f}")
        print(f"{label:<15}" + "".join(f"{c:>32}" for c in cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=12)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--runs2", type=int, default=100, help="runs per instance of part 2")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    part1(args.instances, args.runs, args.seed)
    part2(args.runs2, args.seed)


if __name__ == "__main__":
    main()
