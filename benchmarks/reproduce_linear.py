"""Run the shipped linear-bandit reproductions and write JSON, a figure and markdown tables.

Until ``pybai reproduce`` lands this is how docs/linear.md is produced::

    PYTHONPATH=src python benchmarks/reproduce_linear.py figure4 appendix-e modern wine --jobs 2
    PYTHONPATH=src python benchmarks/reproduce_linear.py figure4 --quick      # 10 runs, d in {2, 5, 10}
    PYTHONPATH=src python benchmarks/reproduce_linear.py figure4 --only game,tas   # re-run two strategies,
                                                          # merged into the stored JSON (others kept)

Outputs go to ``benchmarks/results/linear/`` (``<name>.json``: the result documents with the
per-strategy mean counts per arm and CPU times; ``figure4.png``; ``tables.md``).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from importlib.resources import files
from pathlib import Path

import numpy as np

from pybai.config import load_sweep
from pybai.config.experiment import parse_experiment, read_document
from pybai.config.grid import expand_grid
from pybai.problems.base import lower_bound_factor
from pybai.simulate.montecarlo import run_outcomes
from pybai.simulate.summary import summarize

FILES = {"figure4": "linear-figure4.toml", "appendix-e": "linear-appendix-e.toml", "modern": "linear-modern.toml",
         "wine": "linear-wine.toml"}
OUT = Path(__file__).parent / "results" / "linear"


def experiments(name: str, quick: bool):
    path = files("pybai") / "experiments" / FILES[name]
    if not quick:
        return load_sweep(path)
    doc = read_document(path)
    q = doc.get("reproduce", {}).get("quick", {})
    if "replications" in q:
        doc["replications"] = q["replications"]
    for key, values in q.get("grid", {}).items():
        doc["grid"][key] = values
    return [parse_experiment(p.document, default_name=name) if not p.values else _named(p, name)
            for p in expand_grid(doc)]


def _named(point, name):
    e = parse_experiment(point.document, default_name=name)
    e.name, e.grid = f"{e.name}[{point.label}]", dict(point.values)
    return e


def run(exp, jobs: int) -> dict:
    start = time.perf_counter()
    spans: dict[int, list[float]] = {}
    outs = run_outcomes(exp, jobs=jobs, spans=spans)
    truth = exp.environment.source_means
    t_star, w_star = exp.problem.oracle(truth)
    beta_factor = lower_bound_factor(exp.problem.delta)
    results = []
    for i, ((label, strategy), o) in enumerate(zip(exp.strategies, outs)):
        r = summarize(label, exp.problem, o, wall_seconds=spans[i][1] - spans[i][0])
        r["mean_counts"] = np.mean([x.counts for x in o], axis=0).round(1).tolist()
        r["reference"] = bool(getattr(strategy, "reference", False))
        results.append(r)
    return {"name": exp.name, "grid": exp.grid, "answer": int(exp.problem.answer(truth)),
            "characteristic_time": t_star, "lower_bound": t_star * beta_factor,
            "optimal_weights": np.round(w_star, 6).tolist(), "results": results,
            "elapsed_seconds": round(time.perf_counter() - start, 2)}


def uniform_cost(exp) -> dict:
    """Uniform allocation's characteristic time and its expected stopping time T_unif * beta(t)."""
    p = exp.problem
    truth = exp.environment.source_means
    x = p.features
    best = p.answer(truth)
    a = x.T @ x / x.shape[0]
    inv = np.linalg.inv(a)
    y = x[best] - x
    gaps = truth[best] - truth
    keep = gaps > 0
    var = ((y[keep] @ inv) * y[keep]).sum(axis=1)
    t_unif = float((2 * p.sigma**2 * var / gaps[keep] ** 2).max())
    n = t_unif * 5.0
    for _ in range(100):  # n = T_unif * ln((1 + ln n)/delta), the heuristic threshold at the stop
        n = t_unif * math.log((1 + math.log(n)) / p.delta)
    return {"characteristic_time_uniform": t_unif, "expected_samples_uniform": n}


def figure(docs, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = [r["strategy"] for r in docs[0]["results"]]
    ds = [d["grid"]["environment.d"] for d in docs]
    for j, label in enumerate(labels):
        means = np.array([d["results"][j]["mean_samples"] for d in docs])
        sds = np.array([d["results"][j]["sd_samples"] for d in docs])
        n = docs[0]["results"][j]["replications"]
        ref = docs[0]["results"][j]["reference"]
        ax.errorbar(ds, means, yerr=1.96 * sds / math.sqrt(n), marker="o", capsize=3,
                    linestyle="--" if ref else "-", label=label + (" (reference: knows theta)" if ref else ""))
    ax.plot(ds, [d["lower_bound"] for d in docs], color="black", linestyle=":", label="T* kl(delta, 1-delta)")
    ax.set_yscale("log")
    ax.set_xlabel("dimension d")
    ax.set_ylabel("mean samples at stopping (95% CI)")
    ax.set_title("Soare et al. (2014) Fig. 4 instance: w = 0.01, delta = 0.05, heuristic threshold", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def merge(path: Path, new_docs: list, timing: dict) -> tuple[list, dict]:
    """The stored documents with the results of the re-run strategies replaced (same order)."""
    stored = json.loads(path.read_text())
    fresh = {d["name"]: {r["strategy"]: r for r in d["results"]} for d in new_docs}
    for doc in stored["documents"]:
        doc["results"] = [fresh.get(doc["name"], {}).get(r["strategy"], r) for r in doc["results"]]
    reruns = stored["timing"].setdefault("reruns", [])
    reruns.append({"strategies": sorted({r for d in fresh.values() for r in d}), **timing})
    return stored["documents"], stored["timing"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", choices=sorted(FILES))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--figure-only", action="store_true", help="redraw figure4 from its stored JSON")
    parser.add_argument("--only", default=None,
                        help="comma-separated strategy labels to re-run; their results replace those of the "
                             "stored JSON, the other strategies' results are kept")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.figure_only:
        suffix = "-quick" if args.quick else ""
        figure(json.loads((OUT / f"figure4{suffix}.json").read_text())["documents"], OUT / f"figure4{suffix}.png")
        return
    for name in args.names:
        cpu = time.process_time()
        wall = time.perf_counter()
        docs = []
        only = None if args.only is None else set(args.only.split(","))
        for exp in experiments(name, args.quick):
            if only is not None:
                exp.strategies = [s for s in exp.strategies if s[0] in only]
            doc = run(exp, args.jobs)
            if name == "wine":
                doc.update(uniform_cost(exp))
            docs.append(doc)
            print(exp.name, [(r["strategy"], r["mean_samples"], r["correct_rate"], round(r["cpu_seconds"], 1))
                             for r in doc["results"]], flush=True)
        total = {"wall_seconds": round(time.perf_counter() - wall, 1),
                 "cpu_seconds_driver": round(time.process_time() - cpu, 1),
                 "cpu_seconds_runs": round(sum(r["cpu_seconds"] for d in docs for r in d["results"]), 1)}
        suffix = "-quick" if args.quick else ""
        if only is not None:
            docs, total = merge(OUT / f"{name}{suffix}.json", docs, total)
        (OUT / f"{name}{suffix}.json").write_text(json.dumps({"documents": docs, "timing": total}, indent=1))
        if name == "figure4":
            figure(docs, OUT / f"figure4{suffix}.png")
        print(name, total, flush=True)


if __name__ == "__main__":
    main()
