"""Engine benchmarks: overhead on a sweep of many cheap tasks, and Dask LocalCluster speedup (1 vs 2 workers).

1. Overhead: a sweep of ``--tasks`` cheap tasks (default 10,000: 400 grid points x 1 strategy x
   25 blocks of 25 replications of ``uniform`` on two well-separated Bernoulli arms) run by
   :func:`pybai.simulate.run_sweep` in this process with the results store (one ``write`` +
   ``fsync`` per task), against a plain loop over the same replications
   (:func:`pybai.simulate.run_replication` with the same seeds, no engine) in the same process.
   Overhead = (engine - plain) / engine, in CPU time of this process (and in wall time); also
   reported: the engine's CPU time outside replications (scheduling, storing, summaries).
2. Speedup: a CPU-bound sweep (``tas`` on Gaussian arms, about 0.1-0.3 s per task) on a Dask
   LocalCluster of 1 and of 2 single-threaded worker processes (cluster start-up excluded and
   reported apart), and on local processes (``--jobs 1`` / ``--jobs 2``) for reference.

    .venv/bin/python benchmarks/bench_engine.py                 # both (~5 min on an idle 2-core machine)
    .venv/bin/python benchmarks/bench_engine.py --only overhead --tasks 2000
    .venv/bin/python benchmarks/bench_engine.py --only speedup

The 1-minute load average is recorded before and after each timed section: on a shared
machine a speedup below 2 may come from other jobs, not from the engine.  Results:
``benchmarks/results/bench_engine.json``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

from pybai.simulate import Sweep, run_replication, run_sweep  # noqa: E402
from pybai.simulate.backends import DaskBackend  # noqa: E402
from pybai.simulate.tasks import BLOCK, make_tasks, task_replication_seed  # noqa: E402

CHEAP = {
    "name": "cheap",
    "seed": 1,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "bernoulli", "means": [0.95, 0.05]},
    "strategy": [{"name": "uniform"}],
}
CPU_BOUND = {
    "name": "cpu-bound",
    "replications": 50,
    "seed": 2,
    "problem": {"goal": "best-arm", "delta": 0.05},
    "environment": {"kind": "gaussian", "means": [1.0, 0.8, 0.6, 0.4]},
    "grid": {"environment.sigma": [0.6, 0.7, 0.8, 0.9, 1.0]},
    "strategy": [{"name": "tas"}, {"name": "top-two"}],
}


def cheap_sweep(tasks: int) -> Sweep:
    points = max(tasks // BLOCK, 1)
    doc = copy.deepcopy(CHEAP)
    doc["replications"] = BLOCK * BLOCK  # 25 tasks per point
    doc["grid"] = {"problem.delta": [round(0.1 + 1e-4 * i, 6) for i in range(points)]}
    return Sweep.from_document(doc)


def plain_loop(sweep: Sweep) -> tuple[float, float]:
    """The same replications without the engine (no tasks, no store, no summaries): (wall, CPU) seconds."""
    began, cpu = time.perf_counter(), time.process_time()
    for p, experiment in enumerate(sweep.experiments):
        for _, strategy in experiment.strategies:
            for r in range(experiment.replications):
                run_replication(strategy, experiment.environment, experiment.problem,
                                task_replication_seed(experiment.seed, p, r, sweep.gridded))
    return time.perf_counter() - began, time.process_time() - cpu


def overhead(tasks: int, fsync: str) -> dict:
    """Engine in this process (inline backend, store on) vs the plain loop; CPU time is the main measure
    (the machine is shared: wall time includes other jobs' time slices)."""
    sweep = cheap_sweep(tasks)
    n_tasks = len(make_tasks(sweep.experiments))
    load0 = bc.load()
    plain_wall, plain_cpu = plain_loop(sweep)
    with tempfile.TemporaryDirectory() as folder:
        began, cpu = time.perf_counter(), time.process_time()
        document = run_sweep(sweep, out=f"{folder}/store", fsync=fsync)
        engine_wall, engine_cpu = time.perf_counter() - began, time.process_time() - cpu
        from pybai.simulate import read_store

        stored = read_store(f"{folder}/store")
        inside = sum(o.cpu_seconds for outs in stored.outcomes.values() for o in outs)
    load1 = bc.load()
    result = {
        "tasks": n_tasks, "replications": n_tasks * BLOCK, "fsync": fsync,
        "plain_wall_seconds": round(plain_wall, 2), "plain_cpu_seconds": round(plain_cpu, 2),
        "engine_wall_seconds": round(engine_wall, 2), "engine_cpu_seconds": round(engine_cpu, 2),
        "replication_cpu_seconds_inside_engine": round(inside, 2),
        "overhead_cpu_vs_plain": round((engine_cpu - plain_cpu) / engine_cpu, 4),
        "overhead_wall_vs_plain": round((engine_wall - plain_wall) / engine_wall, 4),
        "overhead_cpu_outside_replications": round((engine_cpu - inside) / engine_cpu, 4),
        "elapsed_in_document": document["elapsed_seconds"], "load_before": load0, "load_after": load1,
    }
    print(f"overhead: {n_tasks} tasks ({n_tasks * BLOCK} replications), fsync {fsync}: engine {engine_cpu:.1f} s CPU "
          f"({engine_wall:.1f} s wall), plain loop {plain_cpu:.1f} s CPU ({plain_wall:.1f} s wall) -> overhead "
          f"{100 * result['overhead_cpu_vs_plain']:.1f}% CPU, {100 * result['overhead_wall_vs_plain']:.1f}% wall; "
          f"engine CPU outside replications {100 * result['overhead_cpu_outside_replications']:.1f}% "
          f"(load {bc.load_str(load0)} -> {bc.load_str(load1)})", flush=True)
    return result


def timed(sweep: Sweep, **kwargs) -> tuple[float, dict, list[float]]:
    load0 = bc.load()
    began = time.perf_counter()
    document = run_sweep(sweep, **kwargs)
    return time.perf_counter() - began, document, load0


def speedup() -> dict:
    sweep = Sweep.from_document(copy.deepcopy(CPU_BOUND))
    out = {"tasks": len(make_tasks(sweep.experiments))}
    reference = None
    for label, make in [
        ("local-1", lambda: {"jobs": 1}),
        ("local-2", lambda: {"jobs": 2}),
        ("dask-1", lambda: {"backend": DaskBackend(n_workers=1)}),
        ("dask-2", lambda: {"backend": DaskBackend(n_workers=2)}),
    ]:
        kwargs = make()
        backend = kwargs.get("backend")
        startup = 0.0
        if backend is not None:  # start the cluster outside the timed section
            began = time.perf_counter()
            backend.start(sweep.experiments, sweep.gridded)
            startup = time.perf_counter() - began
            backend.start = lambda *a: None  # already started
        seconds, document, load0 = timed(sweep, **kwargs)
        values = [(r["point"], r["strategy"], r["mean_samples"]) for r in document["results"]]
        reference = reference or values
        assert values == reference, f"{label}: results differ from local-1"
        out[label] = {"seconds": round(seconds, 2), "cluster_startup_seconds": round(startup, 2),
                      "load_before": load0, "load_after": bc.load()}
        print(f"speedup: {label}: {seconds:.1f} s (cluster start {startup:.1f} s; load {bc.load_str(load0)} -> "
              f"{bc.load_str()})", flush=True)
    out["dask_speedup_2_vs_1"] = round(out["dask-1"]["seconds"] / out["dask-2"]["seconds"], 3)
    out["local_speedup_2_vs_1"] = round(out["local-1"]["seconds"] / out["local-2"]["seconds"], 3)
    print(f"speedup: Dask 2 vs 1 workers {out['dask_speedup_2_vs_1']:.2f}x, local processes "
          f"{out['local_speedup_2_vs_1']:.2f}x (identical results)", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["overhead", "speedup"])
    parser.add_argument("--tasks", type=int, default=10_000, help="tasks of the overhead sweep (default 10,000)")
    parser.add_argument("--fsync", choices=["background", "each", "none"], default="background",
                        help="store durability mode of the overhead run (default: the engine's)")
    args = parser.parse_args()
    import json

    previous = bc.RESULTS / "bench_engine.json"  # --only keeps the other section's last results
    doc = json.loads(previous.read_text()) if args.only and previous.exists() else {}
    doc["machine"] = bc.machine()
    if args.only in (None, "overhead"):
        doc["overhead"] = overhead(args.tasks, args.fsync)
    if args.only in (None, "speedup"):
        doc["speedup"] = speedup()
    doc["load_at_end"] = bc.load()
    print(f"written {bc.write_json('bench_engine.json', doc)}")


if __name__ == "__main__":
    main()
