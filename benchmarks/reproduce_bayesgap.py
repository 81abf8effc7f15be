"""Reproduce the experiments of Hoffman, Shahriari & de Freitas (2014) from the shipped files.

Runs ``bayesgap-synthetic``, ``bayesgap-sensors`` and ``bayesgap-automl`` (src/pybai/experiments/)
through ``pybai.config.load_sweep`` and the Monte Carlo runner, and writes

* ``benchmarks/results/bayesgap-<part>.json``: result documents (one per grid point), CPU times,
  the per-replication recommendations and regrets, and the machine record;
* ``docs/figures/bayesgap-*.png``: error and simple regret vs budget (synthetic), the Figure-2-like
  bar chart (sensors), RMSE box plots and pull / recommendation histograms (AutoML, like
  Figures 3-4);
* ``benchmarks/results/bayesgap-<part>.md``: the markdown tables quoted in docs/bayesgap.md.

Nothing is tuned: the files run as shipped; ``--replications`` only lowers the count (the
AutoML runs fit real scikit-learn models and are the slow part).

    .venv/bin/python benchmarks/reproduce_bayesgap.py --part synthetic
    .venv/bin/python benchmarks/reproduce_bayesgap.py --part sensors --jobs 2
    .venv/bin/python benchmarks/reproduce_bayesgap.py --part automl --replications 20,8   # per budget
    .venv/bin/python benchmarks/reproduce_bayesgap.py --wine-truth   # re-estimate wine-model-rmse.csv
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

from pybai.config import load_sweep  # noqa: E402
from pybai.simulate.montecarlo import run_outcomes  # noqa: E402
from pybai.simulate.summary import summarize  # noqa: E402

EXPERIMENTS = bc.ROOT / "src" / "pybai" / "experiments"
FIGURES = bc.ROOT / "docs" / "figures"
PARTS = {"synthetic": "bayesgap-synthetic", "sensors": "bayesgap-sensors", "automl": "bayesgap-automl"}


class _SampleClock:
    """Process time spent inside the environment's ``sample`` (the reward function), jobs = 1 only."""

    def __init__(self, cls):
        self.cls, self.seconds, self._orig = cls, 0.0, cls.sample

    def __enter__(self):
        clock, orig = self, self._orig

        def timed(env, sources, rng):
            t = time.process_time()
            try:
                return orig(env, sources, rng)
            finally:
                clock.seconds += time.process_time() - t

        self.cls.sample = timed
        return self

    def __exit__(self, *exc):
        self.cls.sample = self._orig


def run_part(part: str, replications: list[int] | None, jobs: int) -> dict:
    experiments = load_sweep(EXPERIMENTS / f"{PARTS[part]}.toml")
    points = []
    for i, experiment in enumerate(experiments):
        if replications:
            experiment.replications = min(replications[min(i, len(replications) - 1)], experiment.replications)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        clock = None
        if part == "automl" and jobs == 1:
            from pybai.environments.from_callable import CallableEnvironment

            with _SampleClock(CallableEnvironment) as clock:
                outcomes = run_outcomes(experiment, jobs=jobs)
        else:
            outcomes = run_outcomes(experiment, jobs=jobs)
        cpu = time.process_time() - cpu0
        results = [summarize(label, experiment.problem, outs) for (label, _), outs in zip(experiment.strategies, outcomes)]
        point = {
            "name": experiment.name, "grid": experiment.grid, "replications": experiment.replications,
            "budget": experiment.problem.regime.budget, "results": results,
            "cpu_seconds_driver": round(cpu, 2), "wall_seconds": round(time.perf_counter() - wall0, 2),
            "recommendations": {label: [o.recommendation for o in outs]
                                for (label, _), outs in zip(experiment.strategies, outcomes)},
            "regrets": {label: [o.simple_regret for o in outs] for (label, _), outs in zip(experiment.strategies, outcomes)},
        }
        if clock is not None:
            point["reward_function_cpu_seconds"] = round(clock.seconds, 2)
        points.append(point)
        print(f"{experiment.name}: {experiment.replications} replications, cpu {cpu:.1f} s, wall "
              f"{point['wall_seconds']:.1f} s", flush=True)
    return {"part": part, "file": f"src/pybai/experiments/{PARTS[part]}.toml", "points": points}


def from_store(part: str, store) -> dict:
    """The document of ``run_part`` rebuilt from an engine store (``pybai run FILE --out DIR``).

    The AutoML part costs about 100 CPU minutes at 100 runs (model fits); the engine keeps finished
    tasks and resumes (``--resume``), and this reads its ``outcomes.jsonl``.
    """
    import json
    import pathlib

    store = pathlib.Path(store)
    manifest = json.loads((store / "manifest.json").read_text())
    rows = [json.loads(line) for line in (store / "outcomes.jsonl").read_text().splitlines() if line.strip()]
    points = []
    for point in manifest["points"]:
        results, recs, regrets, cpu = [], {}, {}, 0.0
        budget = point["grid"].get("problem.budget", manifest["document"]["problem"].get("budget"))
        n = None
        for label in point["strategies"]:
            mine = sorted((r for r in rows if r["point"] == point["point"] and r["strategy"] == label),
                          key=lambda r: r["replication"])
            if not mine:
                continue
            n = len(mine) if n is None else min(n, len(mine))
            counts = np.array([r["counts"] for r in mine], dtype=float)
            results.append({"strategy": label, "replications": len(mine),
                            "correct_rate": float(np.mean([bool(r["correct"]) for r in mine])),
                            "mean_simple_regret": float(np.mean([r["simple_regret"] for r in mine])),
                            "mean_allocation": (counts / counts.sum(axis=1, keepdims=True)).mean(axis=0).tolist()})
            recs[label] = [int(r["recommendation"]) for r in mine]
            regrets[label] = [r["simple_regret"] for r in mine]
            cpu += sum(r["cpu_seconds"] for r in mine)
        points.append({"name": point["name"], "grid": point["grid"], "replications": n or 0, "budget": budget,
                       "results": results, "recommendations": recs, "regrets": regrets,
                       "cpu_seconds_runs": round(cpu, 1)})
    return {"part": part, "file": manifest["source"], "points": points}


# ------------------------------------------------------------------ figures and tables
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _error(r):
    e = r.get("error_probability_epsilon")
    return 1.0 - r["correct_rate"] if e is None else e


def _interval(p, n):
    return 1.96 * np.sqrt(max(p * (1 - p), 1e-12) / n)


def synthetic_outputs(doc: dict) -> str:
    plt = _plt()
    pts = doc["points"]
    budgets = [p["budget"] for p in pts]
    labels = [r["strategy"] for r in pts[0]["results"]]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    others = iter(["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
                   "tab:olive", "tab:cyan", "black", "gold"])  # distinct colours; red is BayesGap's
    for label in labels:
        color = "tab:red" if label == "bayes-gap" else next(others)
        rows = [next(r for r in p["results"] if r["strategy"] == label) for p in pts]
        err = np.array([_error(r) for r in rows])
        n = pts[0]["replications"]
        style = "-" if label in ("bayes-gap",) else "--"
        axes[0].errorbar(budgets, err, yerr=[_interval(e, n) for e in err], label=label, ls=style, marker="o",
                         capsize=2, lw=2.5 if label == "bayes-gap" else 1.2, color=color)
        axes[1].plot(budgets, [r["mean_simple_regret"] for r in rows], label=label, ls=style, marker="o",
                     lw=2.5 if label == "bayes-gap" else 1.2, color=color)
    axes[0].set(xlabel="budget T (K = 50 arms)", ylabel="probability of error (epsilon = 0)",
                title="GP draws: probability of error vs budget")
    axes[1].set(xlabel="budget T (K = 50 arms)", ylabel="mean simple regret", yscale="log",
                title="GP draws: simple regret vs budget")
    axes[1].legend(fontsize=8, ncol=2)
    fig.tight_layout()
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURES / "bayesgap-synthetic.png", dpi=110)
    plt.close(fig)
    headers = ["strategy"] + [f"T = {b}" for b in budgets]
    rows = []
    for label in labels:
        cells = []
        for p in pts:
            r = next(r for r in p["results"] if r["strategy"] == label)
            cells.append(f"{_error(r):.3f} / {r['mean_simple_regret']:.3f}")
        rows.append([label] + cells)
    return bc.table(headers, rows)


def sensors_outputs(doc: dict) -> str:
    plt = _plt()
    p = doc["points"][0]
    results = p["results"]
    n = p["replications"]
    labels = [r["strategy"] for r in results]
    err = np.array([_error(r) for r in results])
    fig, ax = plt.subplots(figsize=(9, 4.5))
    colors = ["tab:red" if s == "bayes-gap" else "tab:blue" if s in ("bayes-ucb", "gp-ucb", "thompson", "pi", "ei")
              else "tab:gray" for s in labels]
    ax.bar(labels, err, yerr=[_interval(e, n) for e in err], color=colors, capsize=3)
    ax.set(ylabel="probability of error (epsilon = 0)",
           title=f"Flight routes as sensors (K = 129, T = 400, {n} held-out days)")
    ax.tick_params(axis="x", rotation=40)
    fig.tight_layout()
    fig.savefig(FIGURES / "bayesgap-sensors.png", dpi=110)
    plt.close(fig)
    rows = [[r["strategy"], f"{_error(r):.3f}", f"{1 - r['correct_rate']:.3f}", f"{r['mean_simple_regret']:.3f}",
             f"{r['cpu_seconds']:.1f}"] for r in results]
    return bc.table(["strategy", "error (eps = 0)", "1 - correct_rate", "mean simple regret (min)", "CPU s"], rows)


def automl_outputs(doc: dict) -> str:
    from pybai.datasets.wine import wine_model_grid, wine_reference_means

    plt = _plt()
    rmse = -wine_reference_means()
    grid = wine_model_grid()
    classes = [s.model_class for s in grid]
    out = []
    for p in doc["points"]:
        labels = [r["strategy"] for r in p["results"]]
        data = [rmse[np.array(p["recommendations"][s], dtype=int)] for s in labels]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        ax.boxplot(data)
        ax.set_xticks(range(1, len(labels) + 1), labels)
        ax.axhline(rmse.min(), color="k", lw=0.8, ls=":", label="best model (estimate)")
        ax.set(ylabel="RMSE of the recommended model (estimate)",
               title=f"Red wine, 160 models, T = {p['budget']}, {p['replications']} runs (lower is better)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(FIGURES / f"bayesgap-automl-rmse-T{p['budget']}.png", dpi=110)
        plt.close(fig)
        shown = [s for s in ("bayes-gap", "ei") if s in labels]
        fig, axes = plt.subplots(len(shown), 1, figsize=(11, 3.2 * len(shown)), sharex=True, squeeze=False)
        for ax, s in zip(axes[:, 0], shown):
            r = next(r for r in p["results"] if r["strategy"] == s)
            alloc = np.array(r["mean_allocation"]) * p["budget"]
            recs = np.bincount(np.array(p["recommendations"][s], dtype=int), minlength=len(grid)) / p["replications"]
            ax.bar(np.arange(len(grid)), alloc, color="tab:blue", label="mean pulls per run")
            ax.bar(np.arange(len(grid)), -recs * 5, color="tab:orange", label="recommended (share x 5, downward)")
            twin = ax.twinx()
            twin.plot(np.arange(len(grid)), rmse, color="k", lw=0.8)
            twin.set_ylabel("RMSE estimate")
            ax.set(ylabel="pulls / recommendations", title=f"{s}: allocation and recommendations, T = {p['budget']}")
            ax.legend(fontsize=8, loc="lower left")
        starts = [i for i in range(len(grid)) if i == 0 or classes[i] != classes[i - 1]]
        axes[-1, 0].set_xticks(starts, [classes[i] for i in starts], rotation=20)
        axes[-1, 0].set_xlabel("model (arm index, by class)")
        fig.tight_layout()
        fig.savefig(FIGURES / f"bayesgap-automl-allocation-T{p['budget']}.png", dpi=110)
        plt.close(fig)
        rows = []
        for s, d in zip(labels, data):
            r = next(r for r in p["results"] if r["strategy"] == s)
            rows.append([s, f"{np.median(d):.4f}", f"{np.mean(d):.4f}", f"{r['correct_rate']:.2f}"])
        share = ""
        if "cpu_seconds_runs" in p:
            share = f"\n\nCPU of the runs (engine store, model fits included): {p['cpu_seconds_runs']:.0f} s."
        if "reward_function_cpu_seconds" in p:
            total = p["cpu_seconds_driver"]
            fits = p["reward_function_cpu_seconds"]
            share = (f"\n\nCPU: {total:.1f} s in all, {fits:.1f} s in the reward function (model fits): "
                     f"strategies and bookkeeping {100 * (total - fits) / total:.1f}%.")
        out.append(f"T = {p['budget']}, {p['replications']} runs (best model's estimated RMSE "
                   f"{rmse.min():.4f}):\n\n" + bc.table(["strategy", "median RMSE", "mean RMSE",
                                                          "recommends the best model"], rows) + share)
    return "\n\n".join(out)


OUTPUTS = {"synthetic": synthetic_outputs, "sensors": sensors_outputs, "automl": automl_outputs}


def wine_truth(pulls: int, seed: int) -> None:
    import csv

    from pybai.datasets.wine import estimate_wine_rmse, wine_model_grid

    t = time.process_time()
    rmse = estimate_wine_rmse(pulls=pulls, seed=seed)
    path = bc.ROOT / "src" / "pybai" / "data" / "wine-model-rmse.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["arm", "model", "rmse"])
        for i, (spec, r) in enumerate(zip(wine_model_grid(), rmse)):
            w.writerow([i, spec.label, f"{r:.6f}"])
    print(f"wrote {path} ({pulls} splits per model, cpu {time.process_time() - t:.1f} s)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=[*PARTS, "all"], default="all")
    ap.add_argument("--replications", default=None,
                    help="at most this many replications per grid point (comma-separated: one per point, the last repeats)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--render-only", action="store_true", help="redraw from the stored JSON")
    ap.add_argument("--wine-truth", action="store_true", help="re-estimate the shipped wine-model-rmse.csv")
    ap.add_argument("--from-store", metavar="DIR",
                    help="render --part from an engine store of its file (pybai run FILE --out DIR)")
    args = ap.parse_args(argv)
    if args.wine_truth:
        wine_truth(5, 0)
        return
    for part in (PARTS if args.part == "all" else [args.part]):
        path = bc.RESULTS / f"bayesgap-{part}.json"
        if args.from_store is not None:
            doc = from_store(part, args.from_store)
            doc["machine"] = bc.machine()
            doc["machine"]["command"] = (f"pybai run {doc['file']} --out DIR; benchmarks/reproduce_bayesgap.py "
                                         f"--part {part} --from-store DIR")
            bc.write_json(f"bayesgap-{part}.json", doc)
        elif args.render_only:
            import json

            doc = json.loads(path.read_text())
        else:
            info = bc.machine()
            caps = None if args.replications is None else [int(x) for x in args.replications.split(",")]
            doc = run_part(part, caps, args.jobs)
            doc["machine"] = info
            doc["load_at_end"] = bc.load()
            bc.write_json(f"bayesgap-{part}.json", doc)
        table = OUTPUTS[part](doc)
        header = f"<!-- {doc['machine']['command']} -->\n{bc.machine_line(doc['machine'])}\n\n"
        (bc.RESULTS / f"bayesgap-{part}.md").write_text(header + table + "\n", encoding="utf-8")
        print(table)


if __name__ == "__main__":
    main()
