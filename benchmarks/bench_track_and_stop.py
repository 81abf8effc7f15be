"""Per-step cost of Track-and-Stop (C and D tracking) against uniform sampling, same process.

Two instances:

* ``gaussian-10``: K = 10 Gaussian arms, means linspace(1, 0, 10), sigma = 1, delta = 0.01;
* ``gk16-mu2``: the Bernoulli instance mu2 = (0.3, 0.21, 0.2, 0.19, 0.18) of Garivier &
  Kaufmann (2016), delta = 0.1;

heuristic threshold, default max_samples.  Two drivers:

* ``run_replication``: whole replications through :func:`pybai.run_replication` (what
  ``pybai run`` does in each worker);
* ``ask/tell``: the raw loop ``while not s.stopped: a = s.ask(); s.tell(a, env.sample(a, rng))``.

steps/second = samples taken / wall seconds over whole runs (start, sampling, stopping rule,
recommendation).  ``uniform`` runs the same loop and the same GLR stopping rule with a trivial
sampling rule, so it is the floor of the loop overhead; ``tas`` minus ``uniform`` (in
microseconds per step) is the cost of the oracle w*(mu_hat) plus tracking.  Every
configuration is timed in ``--rounds`` rounds on the same seeds (interleaved, after a warm-up
replication that loads numba's cache); the table shows the median round and the best.

    .venv/bin/python benchmarks/bench_track_and_stop.py [--quick]

Writes benchmarks/results/bench_track_and_stop.json (``..._quick.json`` with --quick).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

import pybai  # noqa: E402
from pybai.simulate.seeding import STREAM_NOISE, STREAM_STRATEGY, child, replication_seeds  # noqa: E402

INSTANCES = {
    "gaussian-10": {
        "environment": {"kind": "gaussian", "means": np.linspace(1.0, 0.0, 10).tolist(), "sigma": 1.0},
        "delta": 0.01,
        "reps": 20,
    },
    "gk16-mu2": {
        "environment": {"kind": "bernoulli", "means": [0.3, 0.21, 0.2, 0.19, 0.18]},
        "delta": 0.1,
        "reps": 100,
    },
}
STRATEGIES = [
    {"name": "tas", "label": "tas-C", "tracking": "C"},
    {"name": "tas", "label": "tas-D", "tracking": "D"},
    {"name": "uniform"},
]
MODES = ("run_replication", "ask/tell")


def experiment(spec: dict) -> pybai.Experiment:
    return pybai.parse_experiment({
        "name": "bench-tas", "replications": spec["reps"], "seed": 12345,
        "problem": {"goal": "best-arm", "delta": spec["delta"]},
        "environment": spec["environment"], "strategy": STRATEGIES,
    })


def time_run_replication(strategy, exp, seeds) -> tuple[int, float]:
    steps = 0
    t0 = time.perf_counter()
    for s in seeds:
        steps += pybai.run_replication(strategy, exp.environment, exp.problem, s).samples
    return steps, time.perf_counter() - t0


def time_ask_tell(strategy, exp, seeds) -> tuple[int, float]:
    env, problem = exp.environment, exp.problem
    steps = 0
    t0 = time.perf_counter()
    for seq in seeds:  # the same streams as run_replication, so the same samples
        rng = np.random.default_rng(child(seq, STREAM_NOISE))
        s = strategy.start(problem, rng=np.random.default_rng(child(seq, STREAM_STRATEGY)))
        ask, tell, sample = s.ask, s.tell, env.sample
        while not s.stopped:
            a = ask()
            tell(a, sample(a, rng))
        steps += s.result().samples
    return steps, time.perf_counter() - t0


def per_call(fn, n: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def components(exp: pybai.Experiment) -> dict:
    """Microseconds per call of the pieces of one Track-and-Stop step, near the truth.

    The oracle is called on 64 points within ~1e-3 of the true means, in turn, either cold or
    warm-started from the previous call (the hint Track-and-Stop keeps); GLR and tracking at
    counts ~ 5000 w*.
    """
    from pybai.strategies.tracking import c_tracking_step, d_tracking_step

    problem = exp.problem
    mu = exp.environment.source_means.astype(float)
    _, w = problem.oracle(mu)
    counts = np.maximum(np.round(w * 5000), 1.0)
    rng = np.random.default_rng(0)
    near = [mu + rng.normal(0, 1e-3, mu.shape) for _ in range(64)]
    if exp.environment.kind == "bernoulli":
        near = [np.clip(x, 1e-3, 1 - 1e-3) for x in near]
    hint = problem.oracle_hint()
    i = [0]

    def warm():  # warm-started from the previous call, as Track-and-Stop does
        i[0] = (i[0] + 1) % 64
        problem.oracle(near[i[0]], hint)

    def cold():
        i[0] = (i[0] + 1) % 64
        problem.oracle(near[i[0]])

    cum = np.zeros_like(w)
    return {
        "oracle_cold_us": per_call(cold, 5000) * 1e6,
        "oracle_warm_us": per_call(warm, 5000) * 1e6,
        "glr_us": per_call(lambda: problem.glr(counts, mu), 20000) * 1e6,
        "d_tracking_step_us": per_call(lambda: d_tracking_step(counts, w, 5000.0), 20000) * 1e6,
        "c_tracking_step_us": per_call(lambda: c_tracking_step(cum, counts, w, 5000.0), 20000) * 1e6,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 replications, 1 round")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    doc = {"machine": bc.machine(), "rounds": rounds, "instances": {}}
    for iname, spec in INSTANCES.items():
        spec = dict(spec, reps=3 if args.quick else spec["reps"])
        exp = experiment(spec)
        seeds = replication_seeds(exp.seed, spec["reps"])
        warm = replication_seeds(999, 1)
        for _, strat in exp.strategies:  # warm-up: numba cache load / compilation
            time_run_replication(strat, exp, warm)
            time_ask_tell(strat, exp, warm)
        timings = {(label, mode): [] for label, _ in exp.strategies for mode in MODES}
        loads = []
        for _ in range(rounds):
            loads.append(bc.load())
            for label, strat in exp.strategies:
                for mode in MODES:
                    fn = time_run_replication if mode == "run_replication" else time_ask_tell
                    steps, secs = fn(strat, exp, seeds)
                    timings[(label, mode)].append((steps, secs))
        loads.append(bc.load())
        rows = []
        for (label, mode), ts in timings.items():
            rates = [st / sec for st, sec in ts]
            rows.append({
                "strategy": label, "mode": mode, "replications": spec["reps"],
                "steps_per_run": ts[0][0] / spec["reps"],
                "steps_per_second_median": statistics.median(rates),
                "steps_per_second_best": max(rates),
                "us_per_step_median": 1e6 / statistics.median(rates),
                "seconds_per_round": [round(sec, 3) for _, sec in ts],
            })
        floor = {r["mode"]: r["us_per_step_median"] for r in rows if r["strategy"] == "uniform"}
        for r in rows:
            r["overhead_vs_uniform_us"] = r["us_per_step_median"] - floor[r["mode"]]
        doc["instances"][iname] = {
            "environment": spec["environment"], "delta": spec["delta"], "rows": rows,
            "loads_per_round": loads, "components": components(exp),
        }
    doc["machine"]["load_at_end"] = bc.load()
    out = bc.write_json("bench_track_and_stop_quick.json" if args.quick else "bench_track_and_stop.json", doc)

    print(f"# Track-and-Stop per-step cost\n\n{bc.machine_line(doc['machine'])}; "
          f"load at end {bc.load_str(doc['machine']['load_at_end'])}. Rounds: {rounds} (median and best shown).\n")
    for iname, inst in doc["instances"].items():
        env = inst["environment"]
        print(f"## {iname}: {env['kind']} means {np.round(env['means'], 3).tolist()}, delta = {inst['delta']}\n")
        print("Load (1 min) at the start of each round and at the end: "
              + ", ".join(f"{x[0]:.2f}" for x in inst["loads_per_round"]) + "\n")
        print(bc.table(
            ["strategy", "driver", "runs", "steps/run", "steps/s (median)", "steps/s (best)", "us/step",
             "us/step over uniform"],
            [[r["strategy"], r["mode"], r["replications"], bc.fmt(r["steps_per_run"]),
              bc.fmt(r["steps_per_second_median"]), bc.fmt(r["steps_per_second_best"]),
              f"{r['us_per_step_median']:.2f}", f"{r['overhead_vs_uniform_us']:+.2f}"] for r in inst["rows"]],
            "llrrrrrr"))
        c = inst["components"]
        print("\nPieces of one step (us per call, near the truth): "
              + ", ".join(f"{k[:-3]} {v:.2f}" for k, v in c.items()) + "\n")
    print(f"wrote {out.relative_to(bc.ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
