"""Bounded rewards, KL_inf statistic: what a leader form of the betting rule could save at most (issue 39).

A leader form of the betting rule (docs/thresholds.md, "Bounded rewards", "A leader form of the betting rule?")
tests each hypothesis "j is the best" at ln(1/delta) with E_j >= (1/2) M^-_j L_j, L_j the leader's betting wealth.
When the leader is the empirical best arm from the first sample on, E_j is at least half the pair mixture of
(a_hat, j), so the rule stops whenever the betting pair rule stops at level ln(2/delta): the idealised leader
rule is the betting pair rule with m = 2 pairs in place of K - 1.  Optimistic: the settled leader starts later
(its earlier samples count only in the fixed half, at weight 1/(2 (K - 1))).  Same seeds for both rows.

    .venv/bin/python benchmarks/bounded_leader_ideal.py --runs 100

Writes benchmarks/results/bounded_leader_ideal.json (or ``--out``) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from _bench_common import machine, machine_line, write_json
from bounded_leader_cost import INSTANCES
from pybai import BestArmProblem, Bounded, FixedConfidence, make_strategy
from pybai.stopping.betting import BettingThreshold


class _IdealLeader(BestArmProblem):
    """The betting pair rule at level ln(2 / delta) (benchmark only: not a proven rule for K > 3)."""

    def threshold(self, kind, delta):
        return BettingThreshold(delta, 2)


def run(problem, env, strategy, runs, seed):
    taus, errors = [], 0
    for r in range(runs):
        s = make_strategy(strategy, {"threshold": "delta-correct"}).start(problem, rng=seed + r)
        rng = np.random.default_rng([seed, r])
        while not s.stopped:
            a = s.ask()
            s.tell(a, env.sample(a, rng))
        taus.append(s.t_)
        errors += int(s.recommendation() != 0 or s.status_ != "stopped")
    return float(np.mean(taus)), float(np.std(taus) / np.sqrt(runs)), errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--delta", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--strategies", default="tas,top-two")
    parser.add_argument("--instances", default="beta5,beta10")
    parser.add_argument("--out", default="bounded_leader_ideal.json")
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
            pair = run(BestArmProblem(k, Bounded(k, 0.0, 1.0, "kl-inf"), regime), env, strategy, args.runs, args.seed)
            ideal = run(_IdealLeader(k, Bounded(k, 0.0, 1.0, "kl-inf"), regime), env, strategy, args.runs, args.seed)
            rows.append({"instance": name, "rewards": label, "strategy": strategy, "pair": pair, "ideal": ideal,
                         "ratio": ideal[0] / pair[0], "runs": args.runs})
            print(f"{name} {strategy}: {pair[0]:.0f} -> {ideal[0]:.0f} ({time.time() - begin:.0f} s)",
                  file=sys.stderr, flush=True)
    lines = [machine_line(info), f"delta = {args.delta}, {args.runs} runs per cell, seed {args.seed}, statistic kl-inf",
             "", "| rewards | K | strategy | betting pair rule, ln((K-1)/delta) | idealised leader, ln(2/delta) | ratio |"
             " errors |", "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        (pm, ps, pe), (im, i_s, ie) = row["pair"], row["ideal"]
        k = INSTANCES[row["instance"]][1]().n_sources
        lines.append(f"| {row['rewards']} | {k} | {row['strategy']} | {pm:.0f} ± {ps:.0f} | {im:.0f} ± {i_s:.0f} | "
                     f"{row['ratio']:.2f} | {pe} / {ie} |")
    print("\n".join(lines))
    write_json(args.out, {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
