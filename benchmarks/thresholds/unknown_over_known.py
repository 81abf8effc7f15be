"""Price of unknown variances under the proven stopping rules: unknown over known, every strategy family.

For each instance and each strategy that runs under ``reward_model = "gaussian-unknown-variance"``
(``tas`` C-tracking, ``top-two``, ``lucb``, ``game``, ``uniform``; default parameters,
``threshold = "delta-correct"``), the same experiment is run (a) told the true sigmas (the Gaussian
family, whose proven best-arm rule is ``"leader-settled"``, ``"leader-scales"`` before it; compiled runs,
identical to ask/tell) and
(b) estimating them (``"gaussian-unknown-variance"``, statistic ``"glr"`` and optionally
``"ev-glr"``; its proven rule is the invariant t-test mixture rule; the ask/tell loop).  Both use
the same experiment seed, so replication i of (a) and of (b) read the same seed streams: the
ratio's standard error is the paired one (delta method on the per-run sample counts,
se(mean(U) / mean(K)) = sd(U_i - R K_i) / (sqrt(n) mean(K))).

Instances (delta = 0.01 unless ``--delta``):

* ``homo5``, ``hetero5``, ``homo10``, ``hetero10``: docs/reward_models.md's cost instances, gaps
  mu_1 - mu_a spread evenly from 0.1 to 1 noise sd of arm a; sd 1, or sd cycling 1, 0.5, 2, 1.5, 0.75;
* ``uv5``: the shipped experiment ``uv-gaussian-5`` (means 1 to 0.2, sd 1, 0.5, 2, 1.5, 0.75);
* ``var100-lo``, ``var100-hi``: two arms whose variances are 100-fold apart (sd 1 and 0.1), gap 0.2;
  the best arm has the small variance (``-lo``) or the large one (``-hi``).

Usage::

    .venv/bin/python benchmarks/thresholds/unknown_over_known.py --runs 100 [--strategies tas lucb]
        [--instances var100-lo homo5] [--statistics glr ev-glr] [--jobs 2]

Writes benchmarks/results/proof_rules/unknown_over_known.json (``--out``) after every cell and prints a
markdown table.  ``--table FILE [FILE ...]`` prints the table of stored results (files or glob patterns under
benchmarks/results/) without running anything; a cell found in two files is taken from the later one.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import _bench_common as bc  # noqa: E402

from pybai.config.experiment import parse_experiment  # noqa: E402
from pybai.simulate.engine import execute_sweep  # noqa: E402
from pybai.simulate.tasks import Sweep  # noqa: E402

STRATEGIES = ("tas", "top-two", "lucb", "game", "uniform")


def _gaps_instance(k: int, hetero: bool):
    gaps = np.concatenate(([0.0], np.linspace(0.1, 1.0, k - 1)))
    sigma = np.resize(np.array([1.0, 0.5, 2.0, 1.5, 0.75]), k) if hetero else np.ones(k)
    return (-gaps * sigma).round(12).tolist(), sigma.tolist()


INSTANCES = {
    "homo5": _gaps_instance(5, False),
    "hetero5": _gaps_instance(5, True),
    "homo10": _gaps_instance(10, False),
    "hetero10": _gaps_instance(10, True),
    "uv5": ([1.0, 0.8, 0.6, 0.4, 0.2], [1.0, 0.5, 2.0, 1.5, 0.75]),
    "var100-lo": ([0.0, -0.2], [0.1, 1.0]),
    "var100-hi": ([0.0, -0.2], [1.0, 0.1]),
}


def _document(instance: str, strategy: str, statistic: str | None, runs: int, delta: float, seed: int) -> dict:
    means, sigma = INSTANCES[instance]
    problem = {"goal": "best-arm", "delta": delta}
    if statistic is not None:
        problem.update(reward_model="gaussian-unknown-variance", statistic=statistic)
    return {"name": f"{instance}-{strategy}-{statistic or 'known'}", "replications": runs, "seed": seed,
            "problem": problem, "environment": {"kind": "gaussian", "means": means, "sigma": sigma},
            "strategy": [{"name": strategy, "threshold": "delta-correct"}]}


def _samples(doc: dict, jobs: int):
    sweep = Sweep.from_experiment(parse_experiment(doc), True)
    run = execute_sweep(sweep, jobs=jobs)
    outs = [o for task in sorted(run.outcomes) for o in run.outcomes[task]]
    samples = np.array([o.samples for o in outs], dtype=float)
    errors = int(sum(1 for o in outs if not o.correct))
    censored = int(sum(1 for o in outs if o.status != "stopped"))
    return samples, errors, censored


def paired_ratio(unknown: np.ndarray, known: np.ndarray) -> tuple[float, float]:
    """mean(unknown) / mean(known) and its standard error over paired replications (delta method)."""
    r = unknown.mean() / known.mean()
    n = unknown.size
    se = float(np.std(unknown - r * known, ddof=1) / (math.sqrt(n) * known.mean())) if n > 1 else float("nan")
    return float(r), se


def table(rows: list[dict]) -> str:
    """The markdown table of result rows: one row per instance, one column per strategy, each cell the ratio
    unknown / known with its paired standard error, then (runs: known mean, unknown mean)."""
    instances = [i for i in INSTANCES if any(r["instance"] == i for r in rows)]
    strategies = [s for s in STRATEGIES if any(r["strategy"] == s for r in rows)]
    by = {(r["instance"], r["strategy"], r["statistic"]): r for r in rows}
    statistics = sorted({r["statistic"] for r in rows})
    cells = []
    for instance in instances:
        for statistic in statistics:
            line = [instance if len(statistics) == 1 else f"{instance} ({statistic})"]
            for strategy in strategies:
                r = by.get((instance, strategy, statistic))
                line.append("not run" if r is None else
                            f"{r['ratio']:.2f} ± {r['ratio_se']:.2f} ({r['runs']}: {r['known_mean']:,.0f} / "
                            f"{r['unknown_mean']:,.0f})")
            cells.append(line)
    errors = sum(r["known_errors"] + r["unknown_errors"] for r in rows)
    censored = sum(r["known_censored"] + r["unknown_censored"] for r in rows)
    return (bc.table(["instance", *strategies], cells, "l" + "r" * len(strategies))
            + f"\n\nwrong answers: {errors}, censored runs: {censored} (known and unknown, every cell)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=STRATEGIES)
    ap.add_argument("--instances", nargs="+", default=list(INSTANCES), choices=list(INSTANCES))
    ap.add_argument("--statistics", nargs="+", default=["glr"], choices=["glr", "ev-glr"])
    ap.add_argument("--out", default="proof_rules/unknown_over_known.json", help="file under benchmarks/results/")
    ap.add_argument("--table", nargs="+", default=None,
                    help="print the table of these result files (glob patterns under benchmarks/results/) and exit")
    ap.add_argument("--refresh-known", nargs="+", default=None, metavar="PATTERN",
                    help="re-run only the known-variance side of the cells stored in these result files (the rule of "
                         "the Gaussian family may have changed since), pair it with the stored unknown-variance runs "
                         "and write the cells to --out; the first cell's unknown side is re-run and checked equal")
    args = ap.parse_args(argv)
    if args.table:
        paths = [path for name in args.table for path in sorted(bc.RESULTS.glob(name))]
        rows = [row for path in paths for row in json.loads(path.read_text())["rows"]]
        print(table(rows))
        return 0
    if args.refresh_known:
        return refresh_known(args)
    doc = {"machine": bc.machine(), "args": vars(args), "load_start": bc.load(), "rows": []}
    t0 = time.time()
    for instance in args.instances:
        for strategy in args.strategies:
            known, k_err, k_cens = _samples(_document(instance, strategy, None, args.runs, args.delta, args.seed),
                                            args.jobs)
            for statistic in args.statistics:
                unknown, u_err, u_cens = _samples(
                    _document(instance, strategy, statistic, args.runs, args.delta, args.seed), args.jobs)
                ratio, se = paired_ratio(unknown, known)
                row = {"instance": instance, "strategy": strategy, "statistic": statistic, "runs": args.runs,
                       "known_mean": float(known.mean()), "known_se": float(known.std(ddof=1) / math.sqrt(known.size)),
                       "unknown_mean": float(unknown.mean()),
                       "unknown_se": float(unknown.std(ddof=1) / math.sqrt(unknown.size)),
                       "ratio": ratio, "ratio_se": se, "known_errors": k_err, "unknown_errors": u_err,
                       "known_censored": k_cens, "unknown_censored": u_cens, "load": bc.load(),
                       "known_samples": known.tolist(), "unknown_samples": unknown.tolist()}
                doc["rows"].append(row)
                print(f"{instance} {strategy} {statistic}: known {row['known_mean']:.0f}, unknown "
                      f"{row['unknown_mean']:.0f}, ratio {ratio:.3f} +- {se:.3f} ({time.time() - t0:.0f} s, "
                      f"load {bc.load_str()})", file=sys.stderr, flush=True)
                doc["load_end"] = bc.load()
                bc.write_json(args.out, doc)
    print(table(doc["rows"]))
    print(f"\n{args.runs} runs per cell, delta = {args.delta}; load average {bc.load_str(doc['load_start'])} -> "
          f"{bc.load_str(doc['load_end'])}; {time.time() - t0:.0f} s")
    return 0


def refresh_known(args) -> int:
    """``--refresh-known``: the stored cells with their known side re-run under today's Gaussian rule."""
    paths = [path for name in args.refresh_known for path in sorted(bc.RESULTS.glob(name))]
    doc = {"machine": bc.machine(), "args": vars(args), "load_start": bc.load(), "rows": [],
           "sources": [str(path.relative_to(bc.RESULTS)) for path in paths]}
    t0 = time.time()
    checked = False
    for path in paths:
        stored = json.loads(path.read_text())
        delta, seed = stored["args"]["delta"], stored["args"]["seed"]
        for old in stored["rows"]:
            runs = int(old["runs"])
            unknown = np.array(old["unknown_samples"], dtype=float)
            if not checked:  # the stored unknown side must still be what the code gives (same seeds)
                again, _, _ = _samples(_document(old["instance"], old["strategy"], old["statistic"], runs, delta,
                                                 seed), args.jobs)
                if not np.array_equal(again, unknown):
                    print(f"{path.name}: the unknown-variance runs of {old['instance']} {old['strategy']} changed "
                          "since they were stored; re-run the cells instead", file=sys.stderr)
                    return 1
                checked = True
            known, k_err, k_cens = _samples(_document(old["instance"], old["strategy"], None, runs, delta, seed),
                                            args.jobs)
            ratio, se = paired_ratio(unknown, known)
            row = dict(old, known_mean=float(known.mean()),
                       known_se=float(known.std(ddof=1) / math.sqrt(known.size)), ratio=ratio, ratio_se=se,
                       known_errors=k_err, known_censored=k_cens, known_samples=known.tolist(), load=bc.load(),
                       previous_known_mean=old["known_mean"], previous_ratio=old["ratio"])
            doc["rows"].append(row)
            print(f"{old['instance']} {old['strategy']}: known {old['known_mean']:.0f} -> {row['known_mean']:.0f}, "
                  f"ratio {old['ratio']:.3f} -> {ratio:.3f} +- {se:.3f} ({time.time() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
            doc["load_end"] = bc.load()
            bc.write_json(args.out, doc)
    print(table(doc["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
