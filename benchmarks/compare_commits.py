"""Side-by-side timing of two source trees of pybai (e.g. before and after a core change).

Each workload runs in a fresh process per round, the two trees alternating (A B A B ...), so
both see the same machine load; times are process CPU times (less sensitive to other load than
wall time), the table gives the median over rounds.  The workloads also
print the total number of samples, which must be equal when a change keeps results identical.

* ``tas-gaussian-10``: Track-and-Stop (C-tracking), 10 Gaussian arms linspace(1, 0, 10),
  sigma = 1, delta = 0.01, whole replications through ``run_replication``; steps per second;
* ``tas-cs-example-1``: T-a-SCS on BAICS example 1 (the paper's Table 1 instance), seconds per run;
* ``topk-twitter``: the Twitter-scale batch top-k file (500,000 arms, b = 60,000, r = 12) at the quick
  budget of 200 batches, one replication of each of its four strategies, seconds per run;
* ``compiled-rules``: every rule with a compiled run (``tas`` C and D, ``uniform``, ``top-two``, ``lucb``,
  ``game``) on the 10 Gaussian arms above, and the top-k ones (``uniform``, ``lucb``, ``game``) with k = 3,
  compiled replications through ``run_replication``; one row per rule, CPU seconds;
* ``compiled-sweep-10``: ``tas`` on the same 10 arms over delta = 0.1, 0.01, 0.001, 0.0001 with
  ``share_trajectories`` (one compiled trajectory per replication), seconds per run;
* ``cold-compile``: with an empty numba cache (``NUMBA_CACHE_DIR`` a new directory), one compiled run of each
  rule above and of each with ``threshold = "delta-correct"`` on a 4-arm instance: what the first
  common check pays to compile, seconds (wall-clock included in the JSON).

    .venv/bin/python benchmarks/compare_commits.py SRC_A SRC_B [--rounds 5] [--only NAME ...]

SRC_* are ``src`` folders (for a commit: ``git worktree add /tmp/old COMMIT``, then ``/tmp/old/src``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

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
elif name in ("compiled-rules", "cold-compile"):
    from pybai.simulate.seeding import replication_seed
    means = [1 - i / 9 for i in range(10)] if name == "compiled-rules" else [1.0, 0.8, 0.5, 0.2]
    rules = [("tas-C", {"name": "tas"}), ("tas-D", {"name": "tas", "tracking": "D"}), ("uniform", {"name": "uniform"}),
             ("top-two", {"name": "top-two"}), ("lucb", {"name": "lucb"}), ("game", {"name": "game"})]
    cases = [("best-arm", label, s) for label, s in rules] + [("top-k", label, s) for label, s in rules
                                                             if label in ("uniform", "lucb", "game")]
    if name == "cold-compile":
        cases += [(g, label + "-proven", dict(s, threshold="delta-correct")) for g, label, s in cases]
    parts, part_samples, samples, w0, c0 = {}, {}, 0, time.perf_counter(), time.process_time()
    for goal, label, strat in cases:
        problem = {"goal": goal, "delta": 0.01, **({"k": 3} if goal == "top-k" else {})}
        exp = pybai.parse_experiment({"name": "c", "replications": 1, "seed": 1, "problem": problem,
            "environment": {"kind": "gaussian", "means": means, "sigma": 1.0}, "strategy": [strat]})
        seeds = replication_seeds(3, runs + 1)
        if name == "compiled-rules":  # warm-up: the numba cache
            pybai.run_replication(exp.strategies[0][1], exp.environment, exp.problem, seeds[-1])
        c1 = time.process_time()
        part = sum(pybai.run_replication(exp.strategies[0][1], exp.environment, exp.problem, s).samples
                   for s in seeds[:runs])
        parts[f"{goal} {label}"] = time.process_time() - c1
        part_samples[f"{goal} {label}"] = part
        samples += part
    print(json.dumps({"seconds": time.process_time() - c0, "wall": time.perf_counter() - w0, "samples": samples,
                      "parts": parts, "part_samples": part_samples}))
    raise SystemExit(0)
elif name == "compiled-sweep-10":
    doc = {"name": "s", "replications": runs, "seed": 2026, "share_trajectories": True,
           "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "gaussian", "means": [1 - i / 9 for i in range(10)], "sigma": 1.0},
           "strategy": [{"name": "tas"}], "grid": {"problem.delta": [0.1, 0.01, 0.001, 0.0001]}}
    from pybai.simulate.engine import execute_sweep
    from pybai.simulate.tasks import Sweep
    execute_sweep(Sweep.from_document(dict(doc, replications=1)))  # warm-up
    c0 = time.process_time()
    out = execute_sweep(Sweep.from_document(doc))
    dt = time.process_time() - c0
    print(json.dumps({"seconds": dt, "samples": sum(o.samples for outs in out.outcomes.values() for o in outs)}))
    raise SystemExit(0)
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

RUNS = {"tas-gaussian-10": 40, "tas-cs-example-1": 6, "topk-twitter": 1, "compiled-rules": 30, "compiled-sweep-10": 60,
        "cold-compile": 1}


def run(src: str, name: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    if name == "cold-compile":  # an empty numba cache: every kernel is compiled in this process
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="pybai-cold-")
    out = subprocess.run([sys.executable, "-c", WORKLOAD, name, str(RUNS[name])], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src_a")
    ap.add_argument("src_b")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=sorted(RUNS), default=None, help="these workloads only")
    args = ap.parse_args()
    print(f"A = {args.src_a}\nB = {args.src_b}\n")
    print(f"{'workload':<20} {'A':>14} {'B':>14} {'B / A':>8}   samples A / B  (B / A of each round)")
    for name in args.only or RUNS:
        times = {"A": [], "B": []}
        parts: dict = {"A": {}, "B": {}}
        part_samples: dict = {}
        samples = {}
        for _ in range(args.rounds):
            for key, src in (("A", args.src_a), ("B", args.src_b)):
                res = run(src, name)
                times[key].append(res["seconds"])
                samples[key] = res["samples"]
                for part, seconds in res.get("parts", {}).items():
                    parts[key].setdefault(part, []).append(seconds)
                part_samples.update(res.get("part_samples", {}))
        for part in parts["A"]:
            pa, pb = parts["A"][part], parts["B"][part]
            ratios = " ".join(f"{y / x:.2f}" for x, y in zip(pa, pb))
            n = part_samples.get(part)  # CPU per sample (the samples are equal when results are)
            per = (f"   {statistics.median(pa) / n * 1e9:.0f} / {statistics.median(pb) / n * 1e9:.0f} ns per sample"
                   if n else "")
            print(f"  {part:<22} {statistics.median(pa):>10.4g} s   {statistics.median(pb):>10.4g} s   "
                  f"{statistics.median(pb) / statistics.median(pa):>8.3f}   ({ratios}){per}")
        a, b = statistics.median(times["A"]), statistics.median(times["B"])
        spread = " ".join(f"{y / x:.2f}" for x, y in zip(times["A"], times["B"]))
        if name.startswith("tas-gaussian"):
            fa, fb, unit = samples["A"] / a, samples["B"] / b, "steps/s"
        else:
            fa, fb, unit = a / RUNS[name], b / RUNS[name], "s/run"  # topk-twitter: all four strategies
        print(f"{name:<20} {fa:>10.4g} {unit:<3} {fb:>10.4g} {unit:<3} {fb / fa:>8.3f}   {samples['A']} / {samples['B']}"
              f"  ({spread})", flush=True)


if __name__ == "__main__":
    main()
