"""Compiled whole runs against the ask/tell loop and the PyPI package best-arm, and a shared delta sweep.

Three measurements, side by side in one process (CPU time, ``time.process_time``):

1. every sequential rule with a compiled run (``tas`` C and D, ``uniform``, ``top-two``, ``lucb``,
   ``game``; default parameters, heuristic threshold) on two best-arm instances -- 10 Gaussian arms,
   means linspace(1, 0, 10), sigma = 1, delta = 0.01, and GK16's mu2 (Bernoulli
   (0.3, 0.21, 0.2, 0.19, 0.18), delta = 0.1) -- and the top-k rules (``uniform``, ``lucb``,
   ``game``) on two top-k instances -- the same 10 Gaussian arms with k = 3, delta = 0.01, and
   Bernoulli arms (0.7, 0.6, 0.55, 0.45, 0.4, 0.3, 0.2, 0.1) with k = 2, delta = 0.1 -- through the
   engine with ``compiled=True`` and ``compiled=False`` (the ask/tell loop) on the same replications:
   CPU per sample, samples per CPU second and their ratio (the outcomes are identical, which is
   checked);
2. Track-and-Stop with D-tracking on mu2 against best-arm 0.1.1 (``benchmarks/peer_env.py``, its
   own venv and process; skipped with a note when the venv cannot be made): seconds per run;
3. a 4-point sweep over delta (0.1, 0.01, 0.001, 0.0001) of ``tas`` on the Gaussian instance with
   ``share_trajectories = true``, against its smallest delta alone (the same replications; the two
   timed alternately three times, the smallest of each kept).

    .venv/bin/python benchmarks/bench_compiled.py [--quick] [--runs N] [--peer-runs N] [--no-peer]
        [--only-rules GOAL [--threshold KIND]]

``--only-rules best-arm`` or ``--only-rules top-k``: the first measurement alone, on that goal's
instances (no sweep, no peer; written to ``bench_compiled_GOAL[_THRESHOLD][_quick].json``), with
``--threshold`` for every rule (e.g. ``delta-correct``: the per-pair rule).

Writes benchmarks/results/bench_compiled.json (``_quick`` with --quick) and prints markdown tables.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402
import peer_env  # noqa: E402

from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.simulate.engine import execute_sweep  # noqa: E402
from pybai.simulate.tasks import Sweep  # noqa: E402

MU2 = (0.3, 0.21, 0.2, 0.19, 0.18)
GAUSSIAN_10 = {"kind": "gaussian", "means": np.linspace(1.0, 0.0, 10).round(6).tolist(), "sigma": 1.0}
TOP_K_BERNOULLI = (0.7, 0.6, 0.55, 0.45, 0.4, 0.3, 0.2, 0.1)
#: instance -> (environment, delta, goal keys of [problem])
INSTANCES = {
    "gaussian-10": (GAUSSIAN_10, 0.01, {"goal": "best-arm"}),
    "gk16-mu2": ({"kind": "bernoulli", "means": list(MU2)}, 0.1, {"goal": "best-arm"}),
    "top-3-gaussian-10": (GAUSSIAN_10, 0.01, {"goal": "top-k", "k": 3}),
    "top-2-bernoulli-8": ({"kind": "bernoulli", "means": list(TOP_K_BERNOULLI)}, 0.1, {"goal": "top-k", "k": 2}),
}
RULES = [("tas-C", {"name": "tas"}), ("tas-D", {"name": "tas", "tracking": "D"}), ("uniform", {"name": "uniform"}),
         ("top-two", {"name": "top-two"}), ("lucb", {"name": "lucb"}), ("game", {"name": "game"})]
#: the rules with a compiled top-k run
TOP_K_RULES = [("uniform", {"name": "uniform"}), ("lucb", {"name": "lucb"}), ("game", {"name": "game"})]
SWEEP = [0.1, 0.01, 0.001, 0.0001]


def _document(env: dict, delta: float, strategy: dict, runs: int, seed: int = 2026, goal: dict | None = None) -> dict:
    problem = dict(goal or {"goal": "best-arm"}, delta=delta)
    return {"name": "bench", "replications": runs, "seed": seed, "problem": problem,
            "environment": env, "strategy": [strategy]}


def _timed(sweep: Sweep, compiled: bool | None = None):
    c0, w0 = time.process_time(), time.perf_counter()
    run = execute_sweep(sweep, compiled=compiled)
    return run, time.process_time() - c0, time.perf_counter() - w0


def _outcomes(run) -> list:
    return [(o.samples, o.status, np.asarray(o.recommendation).tolist(), o.counts.tolist())
            for task in sorted(run.outcomes) for o in run.outcomes[task]]


def compiled_vs_ask_tell(runs: int, goal: str | None = None, threshold: str | None = None) -> list[dict]:
    rows = []
    for iname, (env, delta, keys) in INSTANCES.items():
        if goal is not None and keys["goal"] != goal:
            continue
        for label, strategy in (TOP_K_RULES if keys["goal"] == "top-k" else RULES):
            if threshold is not None:
                strategy = dict(strategy, threshold=threshold)
            warm = Sweep.from_experiment(parse_experiment(_document(env, delta, strategy, 1, seed=1, goal=keys)), True)
            execute_sweep(warm, compiled=True)
            execute_sweep(warm, compiled=False)
            sweep = Sweep.from_experiment(parse_experiment(_document(env, delta, strategy, runs, goal=keys)), True)
            fast, cpu_fast, _ = _timed(sweep, True)
            slow, cpu_slow, _ = _timed(sweep, False)
            samples = sum(o.samples for outs in fast.outcomes.values() for o in outs)
            row = {"instance": iname, "strategy": label, "runs": runs, "samples": samples,
                   "identical": _outcomes(fast) == _outcomes(slow),
                   "compiled_us_per_sample": 1e6 * cpu_fast / samples, "ask_tell_us_per_sample": 1e6 * cpu_slow / samples,
                   "compiled_steps_per_s": samples / cpu_fast, "ask_tell_steps_per_s": samples / cpu_slow,
                   "speedup": cpu_slow / cpu_fast, "load": bc.load()}
            rows.append(row)
            print(f"{iname} {label}: {row['compiled_us_per_sample']:.2f} vs {row['ask_tell_us_per_sample']:.2f} us/sample "
                  f"({row['speedup']:.1f}x), identical={row['identical']}", file=sys.stderr, flush=True)
    return rows


def against_peer(peer_runs: int, runs: int) -> dict:
    try:
        python = peer_env.ensure_peer_python()
    except Exception as exc:  # no network, no pip: measured without the peer
        return {"skipped": f"{type(exc).__name__}: {exc}"}
    c0 = time.perf_counter()
    peer = peer_env.run_peer(peer_runs, 2016, 0.1, MU2, python=python)
    peer_wall = time.perf_counter() - c0
    peer_cpu = float(np.sum([r["cpu_seconds"] for r in peer["runs"]]))
    peer_samples = float(np.mean([r["samples"] for r in peer["runs"]]))
    strategy = {"name": "tas", "tracking": "D", "threshold": "heuristic"}
    sweep = Sweep.from_experiment(parse_experiment(_document(INSTANCES["gk16-mu2"][0], 0.1, strategy, runs)), True)
    fast, cpu_fast, _ = _timed(sweep, True)
    slow, cpu_slow, _ = _timed(sweep, False)
    ours_samples = float(np.mean([o.samples for outs in fast.outcomes.values() for o in outs]))
    out = {"peer_runs": peer_runs, "peer_cpu_per_run": peer_cpu / peer_runs, "peer_wall_seconds": peer_wall,
           "peer_mean_samples": peer_samples, "runs": runs, "compiled_cpu_per_run": cpu_fast / runs,
           "ask_tell_cpu_per_run": cpu_slow / runs, "mean_samples": ours_samples, "load": bc.load()}
    out["compiled_vs_peer"] = out["peer_cpu_per_run"] / out["compiled_cpu_per_run"]
    out["ask_tell_vs_peer"] = out["peer_cpu_per_run"] / out["ask_tell_cpu_per_run"]
    return out


def delta_sweep(runs: int) -> dict:
    env = INSTANCES["gaussian-10"][0]
    base = _document(env, SWEEP[0], {"name": "tas"}, runs)
    shared_doc = dict(base, share_trajectories=True, grid={"problem.delta": SWEEP})
    alone_doc = dict(base, problem=dict(base["problem"], delta=min(SWEEP)))
    warm = Sweep.from_document(dict(shared_doc, replications=1))
    execute_sweep(warm)
    # the two timings alternate, three times, and the smallest of each counts: this machine's speed can
    # drift by a third within a minute, which a single pair of timings reads as a change of cost
    shared_cpu, alone_cpu = [], []
    for _ in range(3):
        shared_cpu.append(_timed(Sweep.from_document(shared_doc))[1])
        alone_cpu.append(_timed(Sweep.from_document(dict(alone_doc, grid={"problem.delta": [min(SWEEP)]})))[1])
    separate, cpu_separate, _ = _timed(Sweep.from_document(dict(shared_doc, share_trajectories=False)))
    cpu_shared, cpu_alone = min(shared_cpu), min(alone_cpu)
    return {"deltas": SWEEP, "runs": runs, "shared_cpu": cpu_shared, "smallest_delta_alone_cpu": cpu_alone,
            "ratio": cpu_shared / cpu_alone, "separate_points_cpu": cpu_separate, "shared_cpu_repeats": shared_cpu,
            "alone_cpu_repeats": alone_cpu, "load": bc.load()}


def _rules_table(rules: list[dict]) -> str:
    rows = [[r["instance"], r["strategy"], bc.fmt(r["compiled_us_per_sample"], 2), bc.fmt(r["ask_tell_us_per_sample"], 2),
             bc.fmt(r["compiled_steps_per_s"]), bc.fmt(r["ask_tell_steps_per_s"]), f"{r['speedup']:.1f}x",
             "yes" if r["identical"] else "NO"] for r in rules]
    return bc.table(["instance", "rule", "compiled us/sample", "ask/tell us/sample", "compiled samples/s",
                     "ask/tell samples/s", "speed-up", "identical"], rows, "llrrrrrl")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 runs per rule, 3 peer runs")
    ap.add_argument("--runs", type=int, default=None, help="replications per rule and instance (default 200)")
    ap.add_argument("--peer-runs", type=int, default=None, help="best-arm runs (default 10)")
    ap.add_argument("--no-peer", action="store_true", help="skip best-arm")
    ap.add_argument("--only-rules", choices=("best-arm", "top-k"), default=None,
                    help="only the compiled vs ask/tell rows of this goal's instances")
    ap.add_argument("--threshold", default=None, help="with --only-rules: every rule's threshold (default heuristic)")
    args = ap.parse_args(argv)
    runs = args.runs or (20 if args.quick else 200)
    peer_runs = args.peer_runs or (3 if args.quick else 10)
    doc = {"machine": bc.machine(), "load_start": bc.load()}
    doc["rules"] = compiled_vs_ask_tell(runs, args.only_rules, args.threshold if args.only_rules else None)
    if args.only_rules:
        doc["load_end"] = bc.load()
        doc["threshold"] = args.threshold or "heuristic"
        tag = f"_{args.threshold}" if args.threshold else ""
        bc.write_json(f"bench_compiled_{args.only_rules}{tag}{'_quick' if args.quick else ''}.json", doc)
        print(_rules_table(doc["rules"]))
        print(f"\nload average {bc.load_str(doc['load_start'])} -> {bc.load_str(doc['load_end'])}")
        return 0
    doc["sweep"] = delta_sweep(runs)
    doc["peer"] = {"skipped": "--no-peer"} if args.no_peer else against_peer(peer_runs, runs)
    doc["load_end"] = bc.load()
    bc.write_json("bench_compiled_quick.json" if args.quick else "bench_compiled.json", doc)
    print(_rules_table(doc["rules"]))
    s = doc["sweep"]
    print(f"\ndelta sweep {s['deltas']} ({s['runs']} runs, tas): shared {s['shared_cpu']:.2f} CPU s, smallest delta "
          f"alone {s['smallest_delta_alone_cpu']:.2f} CPU s: {s['ratio']:.2f}x; four separate points "
          f"{s['separate_points_cpu']:.2f} CPU s")
    p = doc["peer"]
    if "skipped" in p:
        print(f"\nbest-arm: skipped ({p['skipped']})")
    else:
        print(f"\nbest-arm 0.1.1, tas-D on mu2: {p['peer_cpu_per_run']:.3f} CPU s/run ({p['peer_runs']} runs, "
              f"{p['peer_mean_samples']:.0f} samples); pybai compiled {1e3 * p['compiled_cpu_per_run']:.3f} ms/run "
              f"({p['compiled_vs_peer']:,.0f}x faster), ask/tell {1e3 * p['ask_tell_cpu_per_run']:.3f} ms/run "
              f"({p['ask_tell_vs_peer']:,.0f}x)")
    print(f"\nload average {bc.load_str(doc['load_start'])} -> {bc.load_str(doc['load_end'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
