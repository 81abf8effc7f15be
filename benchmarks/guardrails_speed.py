"""CPU per observation of simulated guardrail runs through the ask/tell path, per strategy, and an A/B of two trees.

Plays seeded runs of ``tas``, ``uniform`` and ``two-stage`` (proven ``delta-correct`` rule) on
instances of the ``guardrails`` validation family (3 metrics: revenue, latency at most 0, Bernoulli
refunds at most the control's + 0.1, correlated through a Gaussian copula; one of them with an arm
exactly on the latency bound, where two-stage never ends its first stage and is censored at
``--max-samples``), the loop the guardrail tests and ``pybai validate`` run, and prints the CPU
seconds per observation and a digest of the outcomes (samples, status, recommendation, counts) so
that two trees can be compared for speed *and* identical results:

    .venv/bin/python benchmarks/guardrails_speed.py --runs 3
    .venv/bin/python benchmarks/guardrails_speed.py --runs 3 --ab /tmp/old/src   # also the tree at /tmp/old/src,
                                                                                # alternating, same seeds

With ``--ab`` each round runs the two trees in two child processes one after the other (order alternating
between rounds), so that both see the same machine load; the medians over the rounds are printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

STRATEGIES = ("tas", "uniform", "two-stage")
INSTANCE_SEEDS = (2, 4, 11)  # draws: infeasible-best, on-bound (two-stage censored), feasible-best


def _measure(runs: int, max_samples: int) -> dict:
    from pybai import FixedConfidence, make_strategy
    from pybai.validation.generators import FAMILIES

    family = FAMILIES["guardrails"]
    out = {}
    for name in STRATEGIES:
        cpu = 0.0
        samples = 0
        digest = hashlib.sha256()
        for i in INSTANCE_SEEDS:
            inst = family.draw(np.random.default_rng(i))
            problem = inst.make_problem(FixedConfidence(family.delta, max_samples=max_samples))
            for r in range(runs + 1):  # run 0 warms the compiled kernels (not timed)
                s = make_strategy(name, threshold="delta-correct").start(problem, rng=r)
                noise = np.random.default_rng(1000 + r)
                t0 = time.process_time()
                while not s.stopped:
                    s.tell(*inst.environment.respond(s.ask(), noise))
                if r:
                    cpu += time.process_time() - t0
                    samples += s.t_
                    digest.update(repr((s.t_, s.status_, s.recommendation(), s.counts_.tolist(),
                                        s.model_.sums.tolist())).encode())
        out[name] = {"cpu": cpu, "samples": samples, "us_per_sample": 1e6 * cpu / max(samples, 1),
                     "digest": digest.hexdigest()[:16]}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="seeded runs per instance and strategy")
    ap.add_argument("--max-samples", type=int, default=20_000)
    ap.add_argument("--ab", metavar="SRC", help="another tree's src/ folder to compare with (child processes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_measure(args.runs, args.max_samples)))
        return 0
    if not args.ab:
        for name, row in _measure(args.runs, args.max_samples).items():
            print(f"{name:10} {row['samples']:8d} obs  {row['cpu']:7.2f} s CPU  {row['us_per_sample']:7.1f} us/obs  "
                  f"digest {row['digest']}")
        return 0
    trees = {"this": None, "other": args.ab}
    results: dict = {k: [] for k in trees}
    for rnd in range(args.rounds):
        for key in (list(trees) if rnd % 2 == 0 else list(trees)[::-1]):
            env = dict(os.environ)
            if trees[key]:
                env["PYTHONPATH"] = trees[key] + os.pathsep + env.get("PYTHONPATH", "")
            cmd = [sys.executable, __file__, "--child", "--runs", str(args.runs),
                   "--max-samples", str(args.max_samples)]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            results[key].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'strategy':10} {'obs':>8} {'this us/obs':>12} {'other us/obs':>13} {'ratio':>6}  same outcomes")
    for name in STRATEGIES:
        this = float(np.median([r[name]["us_per_sample"] for r in results["this"]]))
        other = float(np.median([r[name]["us_per_sample"] for r in results["other"]]))
        same = results["this"][0][name]["digest"] == results["other"][0][name]["digest"]
        obs = results["this"][0][name]["samples"]
        print(f"{name:10} {obs:8d} {this:12.1f} {other:13.1f} {this / other:6.2f}  {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
