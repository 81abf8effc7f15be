"""Engine benchmarks: overhead on a sweep of many cheap tasks, and Dask LocalCluster speedup (1 vs 2 workers).

1. Overhead: a sweep of ``--tasks`` cheap tasks (default 10,000: 400 grid points x 1 strategy x
   25 blocks of 25 replications of ``uniform`` on two well-separated Bernoulli arms) run by
   :func:`pybai.simulate.run_sweep` in this process with the results store (one ``write`` +
   ``fsync`` per task), against a plain loop over the same replications
   (:func:`pybai.simulate.run_replication` with the same seeds, no engine) in the same process.
   Overhead = (engine - plain) / engine, in CPU time of this process (and in wall time); also
   reported: the engine's CPU time outside replications (scheduling, storing, summaries).
   Replay (``--only replay``): the same tasks computed once, then fed back through ``run_sweep``
   by a backend that returns them at once, so the engine's own CPU time (scheduling, storing,
   summaries) is measured apart from the replications: a measure that the machine's load barely
   disturbs, unlike the difference of two long runs.
2. Speedup: a CPU-bound sweep (``tas`` and ``top-two`` on Gaussian arms, 20 tasks) on a Dask
   LocalCluster of 1 and of 2 single-threaded worker processes (cluster start-up and one warm-up
   task per worker excluded and reported apart), and on local processes (``--jobs 1`` / ``--jobs 2``) for reference.

    .venv/bin/python benchmarks/bench_engine.py                 # all three (~15 min on an idle 2-core machine)
    .venv/bin/python benchmarks/bench_engine.py --only replay   # engine's own CPU share on 10,000 tasks
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
from pybai.simulate.executors import DaskExecutor  # noqa: E402
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


def engine_run(sweep: Sweep, fsync: str) -> tuple[float, float, float, dict]:
    """(wall, CPU, CPU inside replications) seconds of the engine with its store, and the document."""
    with tempfile.TemporaryDirectory() as folder:
        began, cpu = time.perf_counter(), time.process_time()
        document = run_sweep(sweep, out=f"{folder}/store", fsync=fsync)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        from pybai.simulate import read_store

        stored = read_store(f"{folder}/store")
        inside = sum(o.cpu_seconds for outs in stored.outcomes.values() for o in outs)
    return wall, cpu, inside, document


def overhead(tasks: int, fsync: str, repeats: int = 2) -> dict:
    """Engine in this process (inline backend, store on) vs the plain loop, after a warm-up, alternating
    ``repeats`` times and keeping each one's minimum.  CPU time is the main measure (the machine is
    shared: wall time includes other jobs' time slices)."""
    sweep = cheap_sweep(tasks)
    n_tasks = len(make_tasks(sweep.experiments))
    warm = cheap_sweep(BLOCK)
    plain_loop(warm)
    engine_run(warm, fsync)
    load0 = bc.load()
    plains, engines = [], []
    for _ in range(repeats):
        plains.append(plain_loop(sweep))
        engines.append(engine_run(sweep, fsync))
    load1 = bc.load()
    plain_wall, plain_cpu = min(p[0] for p in plains), min(p[1] for p in plains)
    engine_wall, engine_cpu = min(e[0] for e in engines), min(e[1] for e in engines)
    inside = min(e[2] for e in engines)
    result = {
        "tasks": n_tasks, "replications": n_tasks * BLOCK, "fsync": fsync, "repeats": repeats,
        "plain_wall_seconds": [round(p[0], 2) for p in plains], "plain_cpu_seconds": [round(p[1], 2) for p in plains],
        "engine_wall_seconds": [round(e[0], 2) for e in engines], "engine_cpu_seconds": [round(e[1], 2) for e in engines],
        "replication_cpu_seconds_inside_engine": round(inside, 2),
        "overhead_cpu_vs_plain": round((engine_cpu - plain_cpu) / engine_cpu, 4),
        "overhead_wall_vs_plain": round((engine_wall - plain_wall) / engine_wall, 4),
        "load_before": load0, "load_after": load1,
    }
    print(f"overhead: {n_tasks} tasks ({n_tasks * BLOCK} replications), fsync {fsync}, best of {repeats}: engine "
          f"{engine_cpu:.1f} s CPU ({engine_wall:.1f} s wall), plain loop {plain_cpu:.1f} s CPU ({plain_wall:.1f} s "
          f"wall) -> overhead {100 * result['overhead_cpu_vs_plain']:.1f}% CPU, "
          f"{100 * result['overhead_wall_vs_plain']:.1f}% wall (load {bc.load_str(load0)} -> {bc.load_str(load1)})",
          flush=True)
    return result


class Replay:
    """A backend that hands back stored task results at once: the engine then spends time only on its own work."""

    workers = 1

    def __init__(self, results):
        self.by_task = {r.task: r for r in results}

    def start(self, experiments, gridded):
        pass

    def results(self, tasks):
        for task in tasks:
            yield self.by_task[task]

    def stop(self, abort=False):
        pass


def replay(tasks: int, repeats: int = 3) -> dict:
    """Engine work alone (scheduling, storing with fsync, summaries): the sweep's tasks computed once,
    then fed back through run_sweep by :class:`Replay`; compared with the CPU time of computing them."""
    from pybai.simulate import read_store
    from pybai.simulate.tasks import TaskResult

    sweep = cheap_sweep(tasks)
    with tempfile.TemporaryDirectory() as folder:
        began = time.perf_counter()
        run_sweep(sweep, jobs=2, out=f"{folder}/store")
        compute_wall = time.perf_counter() - began
        stored = read_store(f"{folder}/store")
    results = [TaskResult(task, outs, 0.0, 0.0) for task, outs in stored.outcomes.items()]
    compute_cpu = sum(o.cpu_seconds for r in results for o in r.outcomes)
    load0 = bc.load()
    runs = []
    for i in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            began, cpu = time.perf_counter(), time.process_time()
            run_sweep(sweep, backend=Replay(results), out=f"{folder}/store")
            runs.append((time.perf_counter() - began, time.process_time() - cpu))
    wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
    result = {"tasks": len(results), "replication_cpu_seconds": round(compute_cpu, 2),
              "compute_wall_seconds_jobs2": round(compute_wall, 2),
              "engine_only_wall_seconds": [round(r[0], 3) for r in runs],
              "engine_only_cpu_seconds": [round(r[1], 3) for r in runs],
              "engine_cpu_share": round(cpu / (cpu + compute_cpu), 4),
              "load_before": load0, "load_after": bc.load()}
    print(f"replay: {len(results)} tasks: engine alone {cpu:.2f} s CPU ({wall:.2f} s wall), replications "
          f"{compute_cpu:.1f} s CPU -> engine share {100 * result['engine_cpu_share']:.2f}% of the total CPU "
          f"(load {bc.load_str(load0)} -> {bc.load_str()})", flush=True)
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
        ("dask-1", lambda: {"backend": DaskExecutor(n_workers=1)}),
        ("dask-2", lambda: {"backend": DaskExecutor(n_workers=2)}),
    ]:
        kwargs = make()
        backend = kwargs.get("backend")
        startup = 0.0
        if backend is not None:  # start and warm the cluster (imports, JIT) outside the timed section
            began = time.perf_counter()
            backend.start(sweep.experiments, sweep.gridded)
            warm = make_tasks(sweep.experiments)[: backend.workers]
            list(backend.results(warm))
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
    parser.add_argument("--only", choices=["overhead", "replay", "speedup"])
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
    if args.only in (None, "replay"):
        doc["replay"] = replay(args.tasks)
    if args.only in (None, "speedup"):
        doc["speedup"] = speedup()
    doc["load_at_end"] = bc.load()
    print(f"written {bc.write_json('bench_engine.json', doc)}")


if __name__ == "__main__":
    main()
