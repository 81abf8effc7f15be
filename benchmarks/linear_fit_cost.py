"""Cost of the linear model's fit test (docs/linear.md): the shipped linear experiments with and without it.

Runs each experiment twice on the same seeds: as shipped, and with the test disabled (its
``fit_test`` replaced by one that never rejects).  Prints, per experiment and strategy, the mean
samples of both, the runs whose samples differ, and how often the test was evaluated and rejected
(it is evaluated only when a rule would stop, or when a status is read).

Usage: python benchmarks/linear_fit_cost.py [--replications 20] [--only linear-modern ...]
"""

from __future__ import annotations

import argparse
import time
import tomllib

from pybai.experiments import experiment_path
from pybai.problems.linear import fit as fit_module
from pybai.problems.linear import problem as problem_module
from pybai.simulate import Sweep, run_sweep
from pybai.simulate.executors import make_executor

EXPERIMENTS = ("linear-modern", "linear-figure4", "linear-appendix-e", "topk-table1-linear", "linear-wine")
COUNTS = {"evaluated": 0, "rejected": 0}


def counting(*args, **kwargs):
    out = fit_module.fit_test(*args, **kwargs)
    COUNTS["evaluated"] += 1
    COUNTS["rejected"] += int(out.rejected)
    return out


def never(*args, **kwargs):
    out = fit_module.fit_test(*args, **kwargs)
    return out._replace(statistic=0.0)


def run(name: str, replications: int, grid: list | None) -> dict:
    doc = tomllib.loads(experiment_path(name).read_text())
    doc["replications"] = min(replications, doc.get("replications", replications))
    if grid is not None and "grid" in doc:
        doc["grid"] = {key: [v for v in values if v in grid] or values[:1] for key, values in doc["grid"].items()}
    start = time.perf_counter()
    out = run_sweep(Sweep.from_document(doc), backend=make_executor(1, None, None), progress=False)
    return {"results": out["results"], "seconds": time.perf_counter() - start}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=20)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--grid", nargs="*", type=int, default=[2, 5], help="linear-figure4 dimensions")
    args = parser.parse_args(argv)
    for name in args.only or EXPERIMENTS:
        COUNTS.update(evaluated=0, rejected=0)
        problem_module.fit_test = counting
        with_test = run(name, args.replications, args.grid)
        counted = dict(COUNTS)
        problem_module.fit_test = never
        without = run(name, args.replications, args.grid)
        problem_module.fit_test = fit_module.fit_test
        print(f"{name}: fit test evaluated {counted['evaluated']} times, rejected {counted['rejected']}; "
              f"{with_test['seconds']:.1f} s with, {without['seconds']:.1f} s without")
        for a, b in zip(with_test["results"], without["results"]):
            label = a["strategy"] + "".join(f" {k}={v}" for k, v in (a.get("grid") or {}).items())
            same = a["mean_samples"] == b["mean_samples"] and a["correct_rate"] == b["correct_rate"]
            print(f"  {label:40s} mean samples {a['mean_samples']:>12} with, {b['mean_samples']:>12} without; "
                  f"correct {a['correct_rate']} / {b['correct_rate']}; {'identical' if same else 'DIFFERENT'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
