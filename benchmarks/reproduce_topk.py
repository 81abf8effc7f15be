"""Reproduce the batch top-k experiments of Jun, Jamieson, Nowak & Zhu (AISTATS 2016) from the shipped files.

Runs ``topk-table1-linear``, ``topk-table1-sparse`` (Table 1), ``topk-virus`` (section 5.2) and
``topk-twitter`` (section 5.3) from src/pybai/experiments/ through the simulate API
(``pybai.config.load_sweep`` + ``pybai.simulate.run_outcomes``/``summarize``), as shipped unless
``--replications`` / ``--budget`` override, and writes

* benchmarks/results/topk-<part>.json: per grid point and strategy the result document, the
  per-replication outcomes needed for intervals, CPU seconds and the peak resident memory;
* docs/figures/topk-*.png and docs/results-topk-<part>.md: the figures and markdown tables.

    PYTHONPATH=src .venv/bin/python benchmarks/reproduce_topk.py table1 [--replications 10]
    PYTHONPATH=src .venv/bin/python benchmarks/reproduce_topk.py virus
    PYTHONPATH=src .venv/bin/python benchmarks/reproduce_topk.py twitter
    PYTHONPATH=src .venv/bin/python benchmarks/reproduce_topk.py PART --render-only   # from the JSON

Until ``pybai reproduce`` lands this is the command behind docs/topk.md.  Each part runs in one
process (``--jobs 1``), so CPU time and peak memory are those of the run.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import resource
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
FIGURES = ROOT / "docs" / "figures"
EXPERIMENTS = ROOT / "src" / "pybai" / "experiments"
PARTS = {"table1": ("topk-table1-linear", "topk-table1-sparse"), "virus": ("topk-virus",), "twitter": ("topk-twitter",)}


def interval(values) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval."""
    from scipy.stats import t

    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size < 2:
        return float(v.mean()) if v.size else math.nan, math.nan
    return float(v.mean()), float(t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))


def run_file(stem: str, replications: int | None, budget: int | None) -> dict:
    import tomllib

    from pybai.config import parse_experiment
    from pybai.config.grid import expand_grid
    from pybai.simulate.montecarlo import run_outcomes
    from pybai.simulate.summary import summarize

    data = tomllib.loads((EXPERIMENTS / f"{stem}.toml").read_text())
    if replications is not None:
        data["replications"] = replications
    if budget is not None:
        data["problem"]["budget"] = budget
    points = []
    for point in expand_grid(data) if "grid" in data else [None]:
        document = dict(point.document if point else data)
        document.pop("grid", None)
        exp = parse_experiment(document, default_name=stem)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        per_strategy = run_outcomes(exp)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        rows = []
        for (label, _), outcomes in zip(exp.strategies, per_strategy):
            summary = summarize(label, exp.problem, outcomes)
            summary.pop("mean_allocation")  # 522,062 numbers for Twitter; not needed here
            summary["outcomes"] = {"batches": [o.batches for o in outcomes], "samples": [o.samples for o in outcomes],
                                   "false_negative": [o.false_negative for o in outcomes],
                                   "correct": [bool(o.correct) for o in outcomes],
                                   "gain": [o.gain for o in outcomes],
                                   "cpu_seconds": [round(o.cpu_seconds, 3) for o in outcomes]}
            rows.append(summary)
        points.append({"grid": point.values if point else {}, "results": rows, "cpu_seconds": round(cpu, 2),
                       "wall_seconds": round(wall, 2)})
        print(stem, point.label if point else "", f"cpu {cpu:.1f} s", file=sys.stderr, flush=True)
    return {"file": stem, "replications": data["replications"], "points": points}


def run_part(part: str, replications: int | None, budget: int | None) -> dict:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    files = [run_file(stem, replications, budget) for stem in PARTS[part]]
    return {"part": part, "date": time.strftime("%Y-%m-%d"), "machine": "2 shared cores",
            "command": "PYTHONPATH=src .venv/bin/python benchmarks/reproduce_topk.py " + " ".join(sys.argv[1:]),
            "cpu_seconds": round(time.process_time() - cpu0, 1), "wall_seconds": round(time.perf_counter() - wall0, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "files": files}


def from_store(part: str, store: pathlib.Path) -> dict:
    """The document of ``run_part`` rebuilt from an engine store (``pybai run FILE --out DIR``).

    Long parts (Twitter: about 10 CPU minutes per strategy) are best run by the engine, which
    keeps finished tasks and resumes (``--resume``); this reads its ``outcomes.jsonl``.
    """
    manifest = json.loads((store / "manifest.json").read_text())
    rows = [json.loads(line) for line in (store / "outcomes.jsonl").read_text().splitlines() if line.strip()]
    points = []
    for point in manifest["points"]:
        results = []
        for label in point["strategies"]:
            mine = sorted((r for r in rows if r["point"] == point["point"] and r["strategy"] == label),
                          key=lambda r: r["replication"])
            if not mine:
                continue
            results.append({"strategy": label, "replications": len(mine), "oracle_gain": mine[0].get("oracle_gain"),
                            "mean_batches": float(np.mean([r["batches"] for r in mine])),
                            "outcomes": {"batches": [r["batches"] for r in mine],
                                         "samples": [r["samples"] for r in mine],
                                         "false_negative": [r.get("false_negative") for r in mine],
                                         "correct": [bool(r["correct"]) for r in mine],
                                         "gain": [r.get("gain") for r in mine],
                                         "cpu_seconds": [round(r["cpu_seconds"], 3) for r in mine]}})
        points.append({"grid": point["grid"], "results": results})
    cpu = sum(r["cpu_seconds"] for r in rows)
    return {"part": part, "date": manifest["created"][:10], "machine": "2 shared cores",
            "command": f"pybai run {manifest['source']} --out {store.name} (engine store; rendered with "
                       f"benchmarks/reproduce_topk.py {part} --from-store DIR)",
            "cpu_seconds": round(cpu, 1), "wall_seconds": "n/a", "peak_rss_mb": "n/a",
            "files": [{"file": manifest["name"], "replications": manifest["document"]["replications"],
                       "points": points}]}


# --------------------------------------------------------------------------- rendering
def _paper_rows(stem: str) -> dict:
    import tomllib

    paper = tomllib.loads((EXPERIMENTS / f"{stem}.toml").read_text())["reproduce"]["paper"]
    return {(r[0], r[1]): (r[2], r[3]) for r in paper["rows"]}


def render_table1(doc: dict) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.batch import linear_instance, sparse_instance, theory_speedup

    means = {"topk-table1-linear": linear_instance(), "topk-table1-sparse": sparse_instance()}
    lines = ["| instance | b | r | theory (ours) | theory (paper) | actual (ours) | actual 95% CI (ours) | actual (paper) | "
             "ours / paper | mean batches (95% CI) | correct |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, f in zip(axes, doc["files"]):
        stem = f["file"]
        paper = _paper_rows(stem)
        by = {(p["grid"]["problem.batch.size"], p["grid"]["problem.batch.max_repeats"]): p["results"][0] for p in f["points"]}
        base = by.get((1, 1))
        xs, ours, theirs, theory = [], [], [], []
        for (b, r), res in by.items():
            if (b, r) == (1, 1):
                continue
            th = theory_speedup(means[stem], 10, 0.1, b, r, 0.5)
            act = base["mean_batches"] / res["mean_batches"] if base else math.nan
            pt, pa = paper.get((b, r), (math.nan, math.nan))
            m, h = interval(res["outcomes"]["batches"])
            # the ratio's interval: relative half-widths of the two means combined (delta method)
            m0, h0 = interval(base["outcomes"]["batches"]) if base else (math.nan, math.nan)
            rel = math.hypot(h / m, h0 / m0)
            lines.append(f"| {stem.rsplit('-', 1)[1]} | {b} | {r} | {th:.2f} | {pt:.2f} | {act:.2f} | "
                         f"{act * (1 - rel):.2f} - {act * (1 + rel):.2f} | {pa:.2f} | "
                         f"{act / pa:.3f} | {m:,.0f} ± {h:,.0f} | {res['correct_rate']:.2f} |")
            xs.append(f"{b},{r}")
            ours.append(act)
            theirs.append(pa)
            theory.append(th)
        if base:
            m, h = interval(base["outcomes"]["batches"])
            lines.append(f"| {stem.rsplit('-', 1)[1]} | 1 | 1 | 1 | 1 | 1 | - | 1 | - | {m:,.0f} ± {h:,.0f} | "
                         f"{base['correct_rate']:.2f} |")
        x = np.arange(len(xs))
        ax.plot(x, theory, "k_", markersize=14, label="theory (Theorem 1, ours)")
        ax.plot(x, theirs, "s", mfc="none", color="tab:blue", label="actual, paper")
        ax.plot(x, ours, "o", color="tab:red", markersize=4, label="actual, ours")
        ax.set_xticks(x, xs, rotation=60, fontsize=8)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("(b, r)")
        ax.set_ylabel("speedup in batches vs b = r = 1")
        ax.set_title(stem.rsplit("-", 1)[1].capitalize())
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "topk-table1.png", dpi=110)
    return lines


def render_virus(doc: dict) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = doc["files"][0]
    ks = sorted({p["grid"]["problem.k"] for p in f["points"]})
    lines = ["| k | budget | strategy | FNR (95% CI) | mean batches | CPU s / run |", "| ---: | ---: | --- | ---: | ---: | ---: |"]
    fig, axes = plt.subplots(1, len(ks), figsize=(3.4 * len(ks), 3.6), sharey=True, squeeze=False)
    for ax, k in zip(axes[0], ks):
        pts = sorted((p for p in f["points"] if p["grid"]["problem.k"] == k), key=lambda p: p["grid"]["problem.budget"])
        labels = [r["strategy"] for r in pts[0]["results"]]
        for j, label in enumerate(labels):
            xs, ms, hs = [], [], []
            for p in pts:
                res = p["results"][j]
                m, h = interval(res["outcomes"]["false_negative"])
                xs.append(p["grid"]["problem.budget"])
                ms.append(m)
                hs.append(h)
                lines.append(f"| {k} | {xs[-1]} | {label} | {m:.3f} ± {h:.3f} | {res['mean_batches']:.0f} | "
                             f"{np.mean(res['outcomes']['cpu_seconds']):.2f} |")
            ax.errorbar(xs, ms, yerr=hs, marker="o", capsize=3, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_xlabel("budget B (batches of 384)")
        ax.set_title(f"k = {k}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("false-negative rate")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "topk-virus-fnr.png", dpi=110)
    return lines


def render_twitter(doc: dict) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = doc["files"][0]
    res = f["points"][0]["results"]
    oracle = res[0]["oracle_gain"]
    lines = [f"Oracle gain (true top-100): {oracle:.4f}", "",
             "| strategy | gain (95% CI) | gain / oracle | FNR (95% CI) | mean batches | CPU s / run (max) |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for j, r in enumerate(res):
        m, h = interval(r["outcomes"]["gain"])
        fm, fh = interval(r["outcomes"]["false_negative"])
        cpu = r["outcomes"]["cpu_seconds"]
        lines.append(f"| {r['strategy']} | {m:.4f} ± {h:.4f} | {m / oracle:.3f} | {fm:.3f} ± {fh:.3f} | "
                     f"{r['mean_batches']:.0f} | {np.mean(cpu):.1f} ({max(cpu):.1f}) |")
        ax.bar(j, m, yerr=h, capsize=4, color=f"C{j}")
    ax.axhline(oracle, color="k", ls="--", label=f"oracle gain {oracle:.3f}")
    ax.set_xticks(range(len(res)), [r["strategy"] for r in res])
    ax.set_ylabel("gain = sum of mu over the answer")
    ax.set_title(f"n = 522,062, b = 60,000, r = 12, k = 100, B = {res[0]['mean_batches']:.0f}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(FIGURES / "topk-twitter-gain.png", dpi=110)
    return lines


RENDER = {"table1": render_table1, "virus": render_virus, "twitter": render_twitter}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=sorted(PARTS))
    parser.add_argument("--replications", type=int)
    parser.add_argument("--budget", type=int, help="override problem.budget (twitter)")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--tag", default="", help="suffix of the output names")
    parser.add_argument("--from-store", type=pathlib.Path, metavar="DIR",
                        help="render from an engine store of the part's file (pybai run FILE --out DIR)")
    args = parser.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    FIGURES.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"topk-{args.part}{args.tag}.json"
    if args.from_store is not None:
        doc = from_store(args.part, args.from_store)
        out.write_text(json.dumps(doc, indent=1) + "\n")
    elif args.render_only:
        doc = json.loads(out.read_text())
    else:
        doc = run_part(args.part, args.replications, args.budget)
        out.write_text(json.dumps(doc, indent=1) + "\n")
    lines = [f"# {args.part}: {doc['command']}", "",
             f"{doc['date']}, {doc['machine']}: CPU {doc['cpu_seconds']} s, wall {doc['wall_seconds']} s, "
             f"peak RSS {doc['peak_rss_mb']} MB.", ""] + RENDER[args.part](doc)
    (RESULTS / f"topk-{args.part}{args.tag}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
