"""Stopping times and CPU of linear Track-and-Stop under lazy oracle schedules (issue 27, item 3).

Runs ``tas`` (fast oracle) on a case of ``bench_lazy_oracle.py`` (``linear-8x3``, ``linear-modern``,
``linear-wine``) with each ``oracle_growth`` given (``default``: the problem's own schedule,
``LinearBestArmProblem.tracking_oracle_growth``), on the same seeded replications (the case's seed
plus ``--seed-shift``), and prints mean samples ± standard error, errors, CPU microseconds per sample
and milliseconds per run, and Welch's t-test of each schedule's samples against the first's.  Each
schedule runs ``--passes`` times in one process (the samples are the same each time; the CPU
figures show how much this machine's speed drifts).  One unmeasured replication runs first.

    .venv/bin/python benchmarks/lazy_schedule.py linear-wine --runs 300 --seed-shift 1000 --growth 0.25 0.5

Comparing two source trees (e.g. before and after a change of the oracle): run the same command with
``PYTHONPATH=/tmp/old/src`` (``git worktree add /tmp/old COMMIT``) and with the current tree.
``--file-settings``: the tracking and stopping-check settings of ``linear-wine.toml`` (give its
``--growth 1.0`` too).  Writes ``benchmarks/results/lazy_schedule_CASE.json``.
"""

from __future__ import annotations

import argparse
import copy
import math
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import load, machine, machine_line, table, write_json  # noqa: E402
from bench_lazy_oracle import CASES, WINE_FILE, welch  # noqa: E402

from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.simulate.montecarlo import run_outcomes  # noqa: E402

LINEAR = ("linear-8x3", "linear-modern", "linear-wine")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", choices=LINEAR)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed-shift", type=int, default=1000)
    ap.add_argument("--growth", nargs="+", default=["default"], help="oracle_growth values, or 'default'")
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--file-settings", action="store_true", help="linear-wine.toml's tracking and check settings")
    args = ap.parse_args(argv)
    extra = {k: v for k, v in WINE_FILE.items() if k != "oracle_growth"} if args.file_settings else {}
    env, problem, _, _, _, seed = CASES[args.case]
    strategies = [dict(extra, name="tas", label="default") if g == "default" else
                  dict(extra, name="tas", label=f"oracle_growth {float(g)}", oracle_growth=float(g)) for g in args.growth]
    doc = {"name": args.case, "replications": args.runs, "seed": seed + args.seed_shift,
           "problem": dict(problem, goal="best-arm"), "environment": env, "strategy": strategies}
    run_outcomes(parse_experiment(dict(copy.deepcopy(doc), replications=1, seed=seed + 12345)), jobs=1)
    info, rows, out = machine(), [], []
    for p in range(args.passes):
        ref = None
        for strat, runs in zip(strategies, run_outcomes(parse_experiment(copy.deepcopy(doc)), jobs=1)):
            samples = np.array([o.samples for o in runs], dtype=float)
            cpu = sum(o.cpu_seconds for o in runs)
            ref = samples if ref is None else ref
            t, pv = welch(ref, samples)
            rec = {"pass": p, "schedule": strat["label"], "runs": int(samples.size), "mean_samples": float(samples.mean()),
                   "se": float(samples.std(ddof=1) / math.sqrt(samples.size)), "errors": sum(not o.correct for o in runs),
                   "us_per_sample": 1e6 * cpu / samples.sum(), "ms_per_run": 1e3 * cpu / samples.size,
                   "welch_t": t, "p_value": pv}
            out.append(rec)
            rows.append([p, rec["schedule"], rec["runs"], f"{rec['mean_samples']:,.1f} +- {rec['se']:,.1f}", rec["errors"],
                         f"{rec['us_per_sample']:,.1f}", f"{rec['ms_per_run']:,.2f}",
                         "" if math.isnan(t) else f"t = {t:+.2f}, p = {pv:.2f}"])
    print(machine_line(info))
    print(table(["pass", "schedule", "runs", "mean samples (se)", "errors", "CPU us/sample", "CPU ms/run",
                 "Welch vs first"], rows))
    write_json(f"lazy_schedule_{args.case}.json", {"machine": info, "load": load(), "args": vars(args), "rows": out})


if __name__ == "__main__":
    main()
