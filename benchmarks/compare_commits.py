"""Side-by-side timing of two source trees of pybai (e.g. before and after a core change).

Each workload runs in a fresh process per round, the two trees alternating (A B A B ...), so
both see the same machine load; times are process CPU times (less sensitive to other load than
wall time), the table gives the median over rounds.  The workloads also
print the total number of samples, which must be equal when a change keeps results identical.

* ``tas-gaussian-10``: Track-and-Stop (C-tracking), 10 Gaussian arms linspace(1, 0, 10),
  sigma = 1, delta = 0.01, whole replications through ``run_replication``; steps per second;
* ``tas-cs-example-1``: T-a-SCS on BAICS example 1 (the paper's Table 1 instance), seconds per run;
* ``topk-twitter``: the Twitter-scale batch top-k file (500,000 arms, b = 60,000, r = 12) at the quick
  budget of 200 batches, one replication of each of its four strategies, seconds per run.

    .venv/bin/python benchmarks/compare_commits.py SRC_A SRC_B [--rounds 5]

SRC_* are ``src`` folders (for a commit: ``git worktree add /tmp/old COMMIT``, then ``/tmp/old/src``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

WORKLOAD = r"""
import json, sys, time, pathlib
import pybai
from pybai.simulate.seeding import replication_seeds
name, runs = sys.argv[1], int(sys.argv[2])
if name == "tas-gaussian-10":
    exp = pybai.parse_experiment({"name": "g10", "replications": runs, "seed": 1,
        "problem": {"goal": "best-arm", "delta": 0.01},
        "environment": {"kind": "gaussian", "means": [1 - i / 9 for i in range(10)], "sigma": 1.0},
        "strategy": [{"name": "tas"}]})
elif name == "topk-twitter":
    import tomllib
    doc = tomllib.loads((pathlib.Path(pybai.__file__).parent / "experiments" / "topk-twitter.toml").read_text())
    doc["problem"]["budget"] = 200
    doc.pop("reproduce", None)
    exp = pybai.parse_experiment(doc)
else:
    exp = pybai.load_experiment(pathlib.Path(pybai.__file__).parent / "experiments" / "baics-example-1.toml")
    exp.strategies = [s for s in exp.strategies if s[0] == "tas-cs"]
seeds = replication_seeds(1, runs + 1)
if name != "topk-twitter":  # warm-up (numba cache); the batch rules warm up on their first batch
    pybai.run_replication(exp.strategies[0][1], exp.environment, exp.problem, seeds[-1])
t0 = time.process_time()
samples = sum(pybai.run_replication(strat, exp.environment, exp.problem, s).samples
              for _, strat in exp.strategies for s in seeds[:runs])
dt = time.process_time() - t0
print(json.dumps({"seconds": dt, "samples": samples}))
"""

RUNS = {"tas-gaussian-10": 40, "tas-cs-example-1": 6, "topk-twitter": 1}


def run(src: str, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", WORKLOAD, name, str(RUNS[name])], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src_a")
    ap.add_argument("src_b")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(f"A = {args.src_a}\nB = {args.src_b}\n")
    print(f"{'workload':<20} {'A':>14} {'B':>14} {'B / A':>8}   samples A / B")
    for name in RUNS:
        times = {"A": [], "B": []}
        samples = {}
        for _ in range(args.rounds):
            for key, src in (("A", args.src_a), ("B", args.src_b)):
                res = run(src, name)
                times[key].append(res["seconds"])
                samples[key] = res["samples"]
        a, b = statistics.median(times["A"]), statistics.median(times["B"])
        if name.startswith("tas-gaussian"):
            fa, fb, unit = samples["A"] / a, samples["B"] / b, "steps/s"
        else:
            fa, fb, unit = a / RUNS[name], b / RUNS[name], "s/run"  # topk-twitter: all four strategies
        print(f"{name:<20} {fa:>10.4g} {unit:<3} {fb:>10.4g} {unit:<3} {fb / fa:>8.3f}   {samples['A']} / {samples['B']}")


if __name__ == "__main__":
    main()
