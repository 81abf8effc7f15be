"""Reproduce section 5 of the BAICS paper (Table 1, example 2, Figures 1-2) and the STAR study.

Runs the shipped experiment files (src/pybai/experiments/) and writes
``docs/results-baics.md`` plus heat maps in ``docs/figures/``:

* ``baics-example-1`` as shipped (T-a-SCS, T-a-S, uniform; 300 replications), timed;
* example 1 with the project's additions: T-a-SCS with D-tracking, the paper's cheap
  T-a-SCS (one projected subgradient step per round, step 1) and the oracle-free
  ``game`` rule; the ``delta-correct`` threshold for ``tas-cs`` and ``game``;
* example 1 with sigma = 1/sqrt(2) (a GLR without the factor 1/2), to test the reading
  that the paper's Table 1 omitted it;
* ``baics-example-2`` (tau_max = 15000) and ``star-class-size`` (Project STAR).

Nothing is tuned: the files are used as shipped; only replications may be reduced.

    .venv/bin/python benchmarks/reproduce_baics.py             # everything (~15 min on 2 cores)
    .venv/bin/python benchmarks/reproduce_baics.py --quick     # small counts, page -> benchmarks/results/
    .venv/bin/python benchmarks/reproduce_baics.py --render-only
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
import tomllib

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

import pybai  # noqa: E402

EXPERIMENTS = bc.ROOT / "src" / "pybai" / "experiments"
FIGURES = bc.ROOT / "docs" / "figures"
#: Wu, Zheng & Zhu, section 5: Table 1 (example 1) and the text of section 5.2 (example 2).
PAPER = {
    "example-1": {"tas-cs": (530, 0.987), "tas": (1703, 0.990), "uniform": (2432, 0.983)},
    "example-2": {"tas-cs": (3131, 0.980)},
}


def load(name: str) -> dict:
    with open(EXPERIMENTS / f"{name}.toml", "rb") as fh:
        return tomllib.load(fh)


def runs_plan(quick: bool) -> list[dict]:
    """(key, file, edits, replications) of every run."""
    r = (lambda full, small: small if quick else full)  # noqa: E731
    extra = [
        {"name": "tas-cs", "label": "tas-cs (D-tracking)", "n_init": 5, "tracking": "D"},
        {"name": "tas-cs", "label": "tas-cs (subgradient, paper)", "n_init": 5, "oracle": "subgradient"},
        {"name": "game", "n_init": 5},
    ]
    proven = [
        {"name": "tas-cs", "n_init": 5, "threshold": "delta-correct"},
        {"name": "game", "n_init": 5, "threshold": "delta-correct"},
    ]
    return [
        {"key": "example-1", "file": "baics-example-1", "reps": r(300, 30)},
        {"key": "example-1-extra", "file": "baics-example-1", "strategies": extra, "reps": r(300, 30)},
        {"key": "example-1-proven", "file": "baics-example-1", "strategies": proven, "reps": r(100, 10)},
        {"key": "example-1-no-half", "file": "baics-example-1", "sigma": 1 / math.sqrt(2), "reps": r(300, 30)},
        {"key": "example-2", "file": "baics-example-2", "add_game": True, "reps": r(100, 10)},
        {"key": "star", "file": "star-class-size", "add_game": True, "reps": r(100, 10)},
    ]


def build(plan: dict) -> pybai.Experiment:
    data = copy.deepcopy(load(plan["file"]))
    data["replications"] = plan["reps"]
    if "strategies" in plan:
        data["strategy"] = copy.deepcopy(plan["strategies"])
    if plan.get("add_game"):
        n_init = data["strategy"][0].get("n_init", 1)
        data["strategy"].insert(1, {"name": "game", "n_init": n_init})
    if "sigma" in plan:
        data["environment"]["sigma"] = plan["sigma"]
    return pybai.parse_experiment(data, default_name=plan["file"])


def run(args) -> dict:
    out = bc.RESULTS / ("baics-quick.json" if args.quick else "baics.json")
    doc = {"machine": bc.machine(), "jobs": args.jobs, "quick": args.quick, "runs": {}}
    for plan in runs_plan(args.quick):
        exp = build(plan)
        print(f"{plan['key']}: {exp.replications} x {len(exp.strategies)}", file=sys.stderr, flush=True)
        before = bc.load()
        t0 = time.perf_counter()
        res = pybai.run_experiment(exp, jobs=args.jobs, progress=True)
        doc["runs"][plan["key"]] = {
            "plan": plan,
            "complexity": pybai.complexity_report(exp),
            "wall_seconds": round(time.perf_counter() - t0, 2),
            "load_before": before,
            "load_after": bc.load(),
            "result": res,
        }
        bc.write_json(out.name, doc)
    return doc


def heatmaps(doc: dict, quick: bool) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.plots import plot_allocation_heatmap

    folder = bc.RESULTS if quick else FIGURES
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for key, figure in (("example-1", 1), ("example-2", 2)):
        if key not in doc["runs"]:
            continue
        res = doc["runs"][key]["result"]
        fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4))
        for ax, label in zip(axes, ("tas-cs", "tas")):
            plot_allocation_heatmap(res, ax, label, vmax=0.45)
        fig.suptitle(f"BAICS {key}: mean allocation (paper's Figure {figure}: T-a-SCS left, T-a-S right)", fontsize=9)
        fig.tight_layout()
        name = f"baics-{key}{'-quick' if quick else ''}.png"
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        names.append(name)
    return names


def rows_of(run_: dict) -> list[dict]:
    return run_["result"]["results"]


def se(r: dict) -> float:
    return r["sd_samples"] / math.sqrt(r["replications"])


def table(run_: dict, paper: dict | None = None, base: float | None = None) -> str:
    headers = ["strategy", "mean samples ± se", "median", "correct", "censored", "CPU s / run", "µs / sample"]
    if base:
        headers.insert(2, "ratio to tas-cs")
    if paper:
        headers.append("paper (mean, correct)")
    rows = []
    for r in rows_of(run_):
        row = [r["strategy"], f"{r['mean_samples']:.0f} ± {se(r):.0f}", f"{r['median_samples']:.0f}",
               f"{r['correct_rate']:.3f}", str(r["censored"]), f"{r['wall_seconds'] / r['replications']:.3f}",
               f"{1e6 * r['wall_seconds'] / (r['mean_samples'] * r['replications']):.0f}"]
        if base:
            row.insert(2, f"{r['mean_samples'] / base:.2f}")
        if paper:
            p = paper.get(r["strategy"])
            row.append(f"{p[0]}, {p[1]}" if p else "")
        rows.append(row)
    return bc.table(headers, rows)


def beta_fixed_point(t_star: float, delta: float) -> float:
    t = t_star * 5
    for _ in range(200):
        t = t_star * math.log((1 + math.log(t)) / delta)
    return t


def render(doc: dict, quick: bool) -> str:
    figs = heatmaps(doc, quick)
    R = doc["runs"]
    lines = ["# BAICS reproduction (Wu, Zheng & Zhu, section 5) and the STAR study", ""]
    lines += ["Generated by `.venv/bin/python benchmarks/reproduce_baics.py" + (" --quick" if quick else "") + "`",
              f"({bc.machine_line(doc['machine'])}; jobs = {doc['jobs']}). Nothing is tuned; the shipped",
              "experiment files are used as they are. CPU s / run is the time of one replication",
              "summed over workers; µs / sample the cost of one step of the strategy.", ""]
    if "example-1" in R:
        e1 = R["example-1"]
        cx = e1["complexity"]
        tas_cs = next(r for r in rows_of(e1) if r["strategy"] == "tas-cs")
        pred = beta_fixed_point(cx["characteristic_time"], cx["delta"])
        lines += ["## Example 1 (Table 1, Figure 1)", "",
                  f"T*(mu) = {cx['characteristic_time']:.2f}, lower bound T* kl(delta, 1 - delta) = "
                  f"{cx['lower_bound']:.1f}, and T* x beta(t) at its fixed point t = T* ln((1 + ln t)/delta) "
                  f"is {pred:.0f}. Wall time of the whole file ({e1['result']['results'][0]['replications']} "
                  f"replications x 3 strategies, jobs = {doc['jobs']}): **{e1['wall_seconds']:.0f} s** "
                  f"(load {e1['load_before'][0]:.1f} before).", "",
                  table(e1, PAPER["example-1"], base=tas_cs["mean_samples"]), ""]
        ratio = {r["strategy"]: r["mean_samples"] / tas_cs["mean_samples"] for r in rows_of(e1)}
        lines += [f"Ratios: tas / tas-cs = {ratio['tas']:.2f} (paper 3.2), uniform / tas-cs = "
                  f"{ratio['uniform']:.2f} (paper 4.6). tas-cs stops at {tas_cs['mean_samples'] / pred:.2f} x "
                  f"T* beta(t).", ""]
        for key, title in (("example-1-extra", "Additions on example 1"),
                           ("example-1-proven", "Example 1 with the proven (delta-correct) threshold"),
                           ("example-1-no-half", "Example 1 with sigma = 1/sqrt(2), i.e. a GLR without the factor 1/2")):
            if key in R:
                lines += [f"### {title}", "", table(R[key], PAPER["example-1"] if key.endswith("half") else None), ""]
        lines += [f"![allocations example 1](figures/{figs[0]})", ""] if figs else []
    if "example-2" in R:
        e2 = R["example-2"]
        cx = e2["complexity"]
        lines += ["## Example 2 (tau_max = 15000, Figure 2)", "",
                  f"T*(mu) = {cx['characteristic_time']:.1f}, lower bound T* kl(delta, 1 - delta) = "
                  f"{cx['lower_bound']:.0f}; censored runs count at 15000.", "",
                  table(e2, PAPER["example-2"]), ""]
        if len(figs) > 1:
            lines += [f"![allocations example 2](figures/{figs[1]})", ""]
    if "star" in R:
        st = R["star"]
        cx = st["complexity"]
        lines += ["## Project STAR (grade-1 math, class types x school types)", "",
                  f"True answer: arm {cx['answer']}; T*(mu) = {cx['characteristic_time']:.1f}, lower bound "
                  f"{cx['lower_bound']:.0f} pupils at delta = {cx['delta']}.", "",
                  table(st), ""]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--render-only", action="store_true")
    args = ap.parse_args()
    path = bc.RESULTS / ("baics-quick.json" if args.quick else "baics.json")
    doc = json.loads(path.read_text()) if args.render_only else run(args)
    page = render(doc, args.quick)
    target = (bc.RESULTS / "results-baics-quick.md") if args.quick else (bc.ROOT / "docs" / "results-baics.md")
    target.write_text(page)
    print(page)


if __name__ == "__main__":
    main()
