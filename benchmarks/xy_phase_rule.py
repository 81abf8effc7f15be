"""XY-adaptive's two phase rules (Eq. 18 / Fig. 3) against XY-static on Figure 4's instance (issue 26).

Three measurements, each with ``xy-adaptive`` under ``phase_rule = "eq18"`` (default) and
``"fig3"`` beside ``xy-static`` (check_growth = 0.02), delta = 0.05, w = 0.01, N(0, 1) noise:

1. ``figure4``: the shipped ``linear-figure4`` experiment (seed 2014, d = 2..10) with the
   heuristic threshold, through the engine (so the ``eq18`` column equals docs/linear.md's);
2. ``paper-level``: the same instances with a constant GLR-scale threshold of
   (1/2) ln(1/delta) = 1.50, the level the paper's XY-static and G numbers imply
   (docs/linear.md, "Why the paper's oracle and adaptive numbers are below the lower bound");
   seeds SeedSequence(2014, spawn_key=(r,));
3. ``phases``: the phase lengths of one run of each reading (d = 5 and 3).

    .venv/bin/python benchmarks/xy_phase_rule.py --runs 100 --jobs 2

Writes benchmarks/results/linear/phase_rule.json and prints markdown tables.
"""

from __future__ import annotations

import argparse
import copy
import math
import time

import numpy as np

from _bench_common import machine, machine_line, write_json
from pybai import FixedConfidence, make_strategy
from pybai.cli._common import experiment_file
from pybai.config.experiment import read_document
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.problems.linear import LinearBestArmProblem
from pybai.simulate.engine import run_sweep
from pybai.simulate.runner import run_replication
from pybai.simulate.tasks import Sweep
from pybai.stopping.base import Threshold

STRATEGIES = [{"name": "xy-adaptive", "label": "xy-adaptive eq18", "alpha": 0.1, "phase_rule": "eq18"},
              {"name": "xy-adaptive", "label": "xy-adaptive fig3", "alpha": 0.1, "phase_rule": "fig3"},
              {"name": "xy-static", "check_growth": 0.02}]
DIMS = (2, 3, 4, 5, 6, 7, 8, 9, 10)


class ConstantThreshold(Threshold):
    """A constant GLR-scale level (benchmark only: the paper's implied level, not a proven rule)."""

    name = "constant"

    def __init__(self, delta: float, level: float):
        super().__init__(delta)
        self.level = level

    def __call__(self, t):
        return self.level

    def values(self, t):
        return np.full(np.shape(t), self.level, dtype=float)


class PaperLevelProblem(LinearBestArmProblem):
    """The linear problem whose every threshold kind is the constant ``level``."""

    level = 0.5 * math.log(1 / 0.05)

    def threshold(self, kind, delta):
        return ConstantThreshold(delta, self.level)


def soare(d: int, omega: float = 0.01) -> LinearGaussianEnvironment:
    x = np.vstack([np.eye(d), np.r_[np.cos(omega), np.sin(omega), np.zeros(d - 2)]])
    theta = np.zeros(d)
    theta[0] = 2.0
    return LinearGaussianEnvironment(x, theta, 1.0)


def figure4(runs: int, jobs: int) -> list[dict]:
    doc = copy.deepcopy(read_document(experiment_file("linear-figure4")))
    doc.pop("reproduce", None)
    doc["replications"] = runs
    doc["strategy"] = copy.deepcopy(STRATEGIES)
    result = run_sweep(Sweep.from_document(doc, default_name="linear-figure4"), jobs=jobs)
    rows = []
    for point in result["points"]:
        for r in point["results"]:
            rows.append({"d": point["grid"]["environment.d"], "strategy": r["strategy"],
                         "mean_samples": r["mean_samples"], "sd_samples": r["sd_samples"],
                         "median_samples": r["median_samples"], "correct_rate": r["correct_rate"],
                         "censored": r["censored"],
                         "mean_counts": [round(a * r["mean_samples"], 1) for a in r["mean_allocation"]]})
    return rows


def paper_level(runs: int) -> list[dict]:
    rows = []
    for d in DIMS:
        env = soare(d)
        problem = PaperLevelProblem(**env.structure(), regime=FixedConfidence(0.05, max_samples=20_000_000))
        for spec in STRATEGIES:
            params = {k: v for k, v in spec.items() if k not in ("name", "label")}
            strategy = make_strategy(spec["name"], **params)
            outs = [run_replication(strategy, env, problem, np.random.SeedSequence(2014, spawn_key=(r,)))
                    for r in range(runs)]
            samples = np.array([o.samples for o in outs], dtype=float)
            rows.append({"d": d, "strategy": spec.get("label", spec["name"]),
                         "mean_samples": float(samples.mean()), "sd_samples": float(samples.std(ddof=1)),
                         "median_samples": float(np.median(samples)),
                         "correct_rate": float(np.mean([o.correct for o in outs])),
                         "censored": int(sum(o.status == "censored" for o in outs)),
                         "mean_counts": np.mean([o.counts for o in outs], axis=0).round(1).tolist()})
            print(f"  paper level d={d} {rows[-1]['strategy']}: {rows[-1]['mean_samples']:.0f}", flush=True)
    return rows


def phases(d: int, omega: float, rule: str, seed: int = 0) -> list[int]:
    """Sizes of the requests of one run (the initial spanning pulls, then one request per phase)."""
    env = soare(d, omega)
    problem = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05, max_samples=20_000_000))
    s = make_strategy("xy-adaptive", phase_rule=rule).start(problem, rng=seed)
    noise = np.random.default_rng(seed + 1)
    sizes = []
    while not s.stopped:
        req = s.ask()
        sizes.append(int(req.size))
        s.tell(*env.respond(req, noise))
    return sizes


def table(rows: list[dict], title: str) -> None:
    names = [s.get("label", s["name"]) for s in STRATEGIES]
    print(f"\n{title}\n\n| d | " + " | ".join(names) + " | fig3 / static | eq18 / static |")
    print("|---|" + "---|" * (len(names) + 2))
    for d in DIMS:
        by = {r["strategy"]: r for r in rows if r["d"] == d}
        cells = []
        for n in names:
            r = by[n]
            extra = f" ({r['correct_rate']:.2f})" if r["correct_rate"] < 1 else ""
            cells.append(f"{r['mean_samples']:,.0f}{extra}")
        st = by["xy-static"]["mean_samples"]
        print(f"| {d} | " + " | ".join(cells) + f" | {by['xy-adaptive fig3']['mean_samples'] / st:.2f}"
              f" | {by['xy-adaptive eq18']['mean_samples'] / st:.2f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: figure4,paper-level")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    info = machine()
    out = {"machine": info, "args": vars(args)}
    out["phases"] = {f"d={d}, w={w}, {rule}": phases(d, w, rule)
                     for d, w in ((5, 0.01), (3, 0.1)) for rule in ("eq18", "fig3")}
    cpu = time.process_time()
    if "figure4" not in skip:
        out["figure4"] = figure4(args.runs, args.jobs)
    if "paper-level" not in skip:
        out["paper_level"] = paper_level(args.runs)
    out["driver_cpu_seconds"] = round(time.process_time() - cpu, 1)
    print(machine_line(info))
    print(f"{args.runs} runs per cell; delta = 0.05, w = 0.01")
    for key, sizes in out["phases"].items():
        print(f"phases ({key}): {sizes}  total {sum(sizes):,}")
    if "figure4" in out:
        table(out["figure4"], "heuristic threshold ln((1 + ln t)/delta) (linear-figure4)")
    if "paper_level" in out:
        table(out["paper_level"], "constant level (1/2) ln(1/delta) = 1.50 (the paper's implied level)")
    write_json("linear/phase_rule.json", out)


if __name__ == "__main__":
    main()
