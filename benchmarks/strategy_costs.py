"""CPU cost per sample of every registered strategy on a reference instance of each family it serves.

The reference instances are the shipped experiment files (``src/pybai/experiments``), one per
family, with their ``[grid]`` and ``[reproduce]`` tables dropped and fixed-confidence runs capped at
``--cap`` samples (a capped run counts its samples like any other); the top-k instance with
b = r = 1 is made here (K = 10 Gaussian arms, k = 3).  Every registered strategy is run with its
default parameters on every instance whose file it parses on (a strategy that does not serve a
family is skipped).  Replications are run one after the other in this process, after one warm-up
replication (numba compilation and caches), until ``--budget`` CPU seconds or ``--runs`` runs;
the cost is the CPU time of the replications (``time.thread_time``) over their samples.
Compiled whole runs are used where a strategy offers one (the engine's default).

    .venv/bin/python benchmarks/strategy_costs.py [--quick] [--budget S] [--runs N] [--cap N] [--family TEXT]

``--family TEXT`` measures only the instances whose label contains TEXT (e.g. ``"b = r = 1"``) and
writes ``strategy_costs[_quick]_partial.json``, leaving the full table's file alone.

Writes benchmarks/results/strategy_costs.json (``_quick`` with --quick) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

from pybai.config.experiment import parse_experiment, read_document  # noqa: E402
from pybai.exceptions import PybaiError  # noqa: E402
from pybai.simulate.runner import run_replication  # noqa: E402
from pybai.simulate.seeding import replication_seed  # noqa: E402
from pybai.strategies.registry import registered_names  # noqa: E402

EXPERIMENTS = bc.ROOT / "src" / "pybai" / "experiments"

#: family label -> shipped file (None: the document below)
FAMILIES = {
    "best arm, Gaussian (bai-gaussian-5)": "bai-gaussian-5",
    "best arm, Bernoulli (gk16-bernoulli-mu2)": "gk16-bernoulli-mu2",
    "best arm, fixed budget, correlated (bayesgap-synthetic)": "bayesgap-synthetic",
    "top-k, b = r = 1, Gaussian K = 10, k = 3": None,
    "top-k, batches, fixed confidence (topk-table1-sparse)": "topk-table1-sparse",
    "top-k, batches, fixed budget (topk-virus)": "topk-virus",
    "best feasible arm (baics-example-1)": "baics-example-1",
    "linear (linear-modern)": "linear-modern",
}

TOP_K = {"name": "top-k-10", "problem": {"goal": "top-k", "k": 3, "delta": 0.01},
         "environment": {"kind": "gaussian", "means": np.linspace(1.0, 0.0, 10).round(6).tolist(), "sigma": 1.0}}


def base_document(stem: str | None, cap: int) -> dict:
    doc = copy.deepcopy(TOP_K) if stem is None else read_document(EXPERIMENTS / f"{stem}.toml")
    for key in ("grid", "reproduce", "strategy"):
        doc.pop(key, None)
    if "delta" in doc["problem"]:
        doc["problem"]["max_samples"] = min(int(doc["problem"].get("max_samples", cap)), cap)
    doc["seed"] = 2026
    return doc


def measure(doc: dict, name: str, budget: float, runs: int) -> dict | None:
    try:
        exp = parse_experiment(dict(doc, strategy=[{"name": name}]))
    except PybaiError:
        return None
    _, strategy = exp.strategies[0]
    run_replication(strategy, exp.environment, exp.problem, replication_seed(1, 10_000), 10_000)  # warm-up
    cpu, samples, n, censored = 0.0, 0, 0, 0
    while n < runs and cpu < budget:
        out = run_replication(strategy, exp.environment, exp.problem, replication_seed(2026, n), n)
        cpu += out.cpu_seconds
        samples += out.samples
        censored += out.status == "censored"
        n += 1
    return {"runs": n, "samples": samples, "cpu_seconds": round(cpu, 4), "censored": censored,
            "us_per_sample": round(1e6 * cpu / max(samples, 1), 3), "samples_per_run": samples / n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="0.3 CPU s and 3 runs per pair, runs capped at 5,000 samples")
    ap.add_argument("--budget", type=float, default=None, help="CPU seconds per (strategy, instance) (default 2)")
    ap.add_argument("--runs", type=int, default=None, help="at most this many runs per pair (default 20)")
    ap.add_argument("--cap", type=int, default=None, help="max_samples of fixed-confidence runs (default 20,000)")
    ap.add_argument("--family", default=None, help="only the instances whose label contains this text")
    args = ap.parse_args(argv)
    budget = args.budget or (0.3 if args.quick else 2.0)
    runs = args.runs or (3 if args.quick else 20)
    cap = args.cap or (5_000 if args.quick else 20_000)
    doc = {"machine": bc.machine(), "budget_cpu_seconds": budget, "max_runs": runs, "cap": cap, "rows": []}
    load0 = bc.load()
    started = time.perf_counter()
    for family, stem in FAMILIES.items():
        if args.family is not None and args.family not in family:
            continue
        base = base_document(stem, cap)
        for name in registered_names():
            row = measure(base, name, budget, runs)
            if row is None:
                continue
            row.update(strategy=name, family=family)
            doc["rows"].append(row)
            print(f"{family:55s} {name:20s} {row['us_per_sample']:10.2f} us/sample  ({row['runs']} runs, "
                  f"{row['samples_per_run']:.0f} samples/run)", file=sys.stderr, flush=True)
    doc["load"] = [load0, bc.load()]
    doc["wall_seconds"] = round(time.perf_counter() - started, 1)
    name = "strategy_costs_quick" if args.quick else "strategy_costs"
    bc.write_json(f"{name}_partial.json" if args.family is not None else f"{name}.json", doc)
    rows = [[r["family"], r["strategy"], bc.fmt(r["us_per_sample"], 2), bc.fmt(r["samples_per_run"]), r["runs"],
             r["censored"]] for r in doc["rows"]]
    print(bc.table(["instance", "strategy", "CPU us / sample", "samples / run", "runs", "capped"], rows, "llrrrr"))
    print(f"\nload average {bc.load_str(load0)} -> {bc.load_str()}; {doc['wall_seconds']} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
