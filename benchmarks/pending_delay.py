"""The price of delay: samples to stop against the number of outstanding requests (docs/sessions.md).

The README's A/B/n test: three Bernoulli variants with conversion rates 0.10, 0.15 and 0.25,
delta = 0.05 and the proven ``delta-correct`` threshold (what a session runs).  A strategy started
with ``max_pending = N`` always has N requests in flight: it is asked until N are outstanding, then
one outstanding answer arrives -- a uniformly chosen one, which is what delays drawn from one
memoryless (exponential) law give: answers arrive out of order -- and the strategy is asked again.
N = 1 is the sequential run.  A run ends when the stopping rule, applied to what has been told,
stops; the table gives the mean number of answers told then ("samples to stop") and of samples
handed out ("served": samples to stop plus those still in flight, visitors who were shown a
variant but were not needed), the error rate, and the samples to stop over the N = 1 run's
(± one standard error of the mean over the replications).

Usage: python benchmarks/pending_delay.py [--replications 100] [--seed 7] [--pending 1 10 100]
       [--rules top-two tas lucb uniform]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _bench_common import fmt, machine, machine_line, table, write_json
from pybai import BernoulliEnvironment, BestArmProblem, FixedConfidence, make_strategy

CONVERSION = [0.10, 0.15, 0.25]
DELTA = 0.05


def run(rule: str, max_pending: int, seed: int) -> tuple[int, int, bool]:
    """(samples told at the stop, samples handed out, correct) of one run."""
    env = BernoulliEnvironment(CONVERSION)
    problem = BestArmProblem(len(CONVERSION), env.family(), FixedConfidence(DELTA, max_samples=200_000))
    strategy = make_strategy(rule, threshold="delta-correct").start(problem, rng=seed, max_pending=max_pending)
    noise, delay = np.random.default_rng(10_000 + seed), np.random.default_rng(20_000 + seed)
    while not strategy.stopped:
        while len(strategy.outstanding) < max_pending:
            before = len(strategy.outstanding)
            strategy.ask()
            if len(strategy.outstanding) == before:  # max_samples leaves no room for another
                break
        ids = list(strategy.outstanding)
        rid = ids[int(delay.integers(len(ids)))]
        strategy.tell(*env.respond(strategy.outstanding[rid], noise), request_id=rid)
    served = strategy.t_ + sum(part.size for part in strategy.outstanding.values())  # samples handed out
    return strategy.t_, served, bool(problem.is_correct(strategy.recommendation(), env.source_means))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replications", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pending", type=int, nargs="+", default=[1, 10, 100])
    ap.add_argument("--rules", nargs="+", default=["top-two", "tas", "lucb", "uniform"])
    args = ap.parse_args()
    info = machine()
    rows, doc = [], {"machine": info, "args": vars(args), "results": []}
    for rule in args.rules:
        base = None
        for n in args.pending:
            t0 = time.perf_counter()
            out = [run(rule, n, args.seed + r) for r in range(args.replications)]
            told = float(np.mean([o[0] for o in out]))
            se = float(np.std([o[0] for o in out], ddof=1) / np.sqrt(len(out))) if len(out) > 1 else float("nan")
            served = float(np.mean([o[1] for o in out]))
            errors = sum(not o[2] for o in out)
            base = told if base is None else base
            seconds = time.perf_counter() - t0
            rows.append([rule, n, f"{fmt(told, 1)} ± {fmt(se, 1)}", fmt(served, 1), errors, f"{told / base:.3f}",
                         fmt(seconds, 1)])
            doc["results"].append({"rule": rule, "max_pending": n, "samples": told, "se": se, "served": served,
                                   "errors": errors, "ratio": told / base, "seconds": seconds})
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(machine_line(info))
    print(f"A/B/n {CONVERSION}, delta = {DELTA}, delta-correct, {args.replications} replications, seed {args.seed}")
    print(table(["rule", "max_pending", "samples to stop", "served", "errors", "vs N = 1", "s"], rows))
    write_json("pending_delay.json", doc)


if __name__ == "__main__":
    main()
