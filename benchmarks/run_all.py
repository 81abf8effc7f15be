"""Run every benchmark of benchmarks/ and gather their results in benchmarks/results/all.json.

Each benchmark runs a reference in its own process, so its figures compare across machines:

| script | reference in the same process |
| --- | --- |
| bench_oracles.py | a generic scipy (SLSQP) solve of the same oracle problem |
| bench_track_and_stop.py | uniform sampling: same loop and stopping rule, trivial sampling rule (per-step costs) |
| bench_vs_best_arm.py | the PyPI package best-arm 0.1.1 (Track-and-Stop), in its own venv |
| bench_replications.py | the same replications with jobs = 1 (parallel speed-up, identical results) |
| bench_linear_oracle.py | cold against warm-started oracle calls (linear best arm) |
| bench_lazy_oracle.py | linear `tas` and `tas-cs` with `oracle = "exact"` (per-step solves), same replications |
| bench_compiled.py | the ask/tell loop on the same replications, best-arm 0.1.1, the smallest delta of a sweep alone |
| strategy_costs.py | none: CPU per sample of every registered strategy on a reference instance of each family |
| bench_bernoulli_kernels.py | the Bernoulli oracle's nested solve alone, the KL bounds' plain bisection (same inputs) |

Each script runs in a subprocess (``--quick`` passed to those that take it); its own JSON file is
read back into ``all.json`` with its exit status and the CPU seconds of the subprocess
(``resource.getrusage(RUSAGE_CHILDREN)``: the machine is shared, CPU time is what compares).
A benchmark that fails (e.g. no network for the peer's venv) is recorded as failed; the others
still run.

    PYTHONPATH=src python benchmarks/run_all.py [--quick] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import RESULTS, ROOT, load, machine  # noqa: E402

#: name -> (script, arguments for --quick, arguments for a full run, JSON file written (quick, full))
BENCHMARKS = {
    "oracles": ("bench_oracles.py", ["--quick"], [], ("bench_oracles_quick.json", "bench_oracles.json")),
    "track_and_stop": ("bench_track_and_stop.py", ["--quick"], [],
                       ("bench_track_and_stop_quick.json", "bench_track_and_stop.json")),
    "vs_best_arm": ("bench_vs_best_arm.py", ["--quick"], [], ("bench_vs_best_arm_quick.json", "bench_vs_best_arm.json")),
    "replications": ("bench_replications.py", ["--quick", "--no-cli"], [],
                     ("bench_replications_quick.json", "bench_replications.json")),
    "linear_oracle": ("bench_linear_oracle.py", [], [], ("bench_linear_oracle.json", "bench_linear_oracle.json")),
    "lazy_oracle": ("bench_lazy_oracle.py", ["--quick"], [], ("bench_lazy_oracle_quick.json", "bench_lazy_oracle.json")),
    "compiled": ("bench_compiled.py", ["--quick"], [], ("bench_compiled_quick.json", "bench_compiled.json")),
    "strategy_costs": ("strategy_costs.py", ["--quick"], [], ("strategy_costs_quick.json", "strategy_costs.json")),
    "bernoulli_kernels": ("bench_bernoulli_kernels.py", [], [],
                          ("bench_bernoulli_kernels.json", "bench_bernoulli_kernels.json")),
}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(name: str, quick: bool, timeout: float) -> dict:
    script, quick_args, full_args, outputs = BENCHMARKS[name]
    output = RESULTS / outputs[0 if quick else 1]
    before_mtime = output.stat().st_mtime if output.exists() else None
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cpu, wall = _child_cpu(), time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *(quick_args if quick else full_args)],
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        status, tail = proc.returncode, (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    except subprocess.TimeoutExpired:
        status, tail = "timeout", [f"no result within {timeout:.0f} s"]
    record = {"script": script, "status": status, "cpu_seconds": round(_child_cpu() - cpu, 2),
              "wall_seconds": round(time.perf_counter() - wall, 2)}
    fresh = output.exists() and output.stat().st_mtime != before_mtime
    if status == 0 and fresh:
        record["result"] = json.loads(output.read_text())
    else:
        record["message"] = tail
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Run every benchmark; write benchmarks/results/all.json.")
    parser.add_argument("--quick", action="store_true", help="the short version of every benchmark")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per benchmark (default 3600)")
    args = parser.parse_args(argv)
    names = args.only or list(BENCHMARKS)
    document = {"quick": args.quick, "machine": machine(), "load_before": load(), "benchmarks": {}}
    for name in names:
        print(f"{name} ...", flush=True)
        record = run_one(name, args.quick, args.timeout)
        document["benchmarks"][name] = record
        print(f"  status {record['status']}, {record['cpu_seconds']} CPU s, {record['wall_seconds']} wall s", flush=True)
    document["load_after"] = load()
    out = RESULTS / "all.json"  # "quick" inside says which version ran
    out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0 if all(r["status"] == 0 for r in document["benchmarks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
