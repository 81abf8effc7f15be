"""The leaderboard: every fixed-confidence rule of pybai x {heuristic, proven} beside what practitioners run.

Runs ``pybai reproduce leaderboard`` (the experiment files ``src/pybai/experiments/leaderboard-*.toml``;
full form by default, ``--quick`` for the demo's form) into a folder of stores, then reads the stores
alone and writes

* ``benchmarks/results/leaderboard[-quick].json``: one row per (instance, delta, rule): replications,
  mean samples and its standard error, error rate, censored runs, T*(mu), T* kl(delta, 1 - delta),
  T* ln(1/delta) and the two ratios, whether the stop is proven, CPU seconds;
* ``benchmarks/results/leaderboard[-quick].md``: the headline table and one full table per instance;
* ``docs/figures/leaderboard[-quick].png``: mean samples over T* kl(delta, 1 - delta), rule x instance.

    .venv/bin/python benchmarks/leaderboard.py --quick --jobs 2      # the demo's form (minutes)
    .venv/bin/python benchmarks/leaderboard.py --jobs 2               # the full form (hours)
    .venv/bin/python benchmarks/leaderboard.py --report-only          # tables and figure from the stores

``--out DIR`` chooses the stores' folder (default ``out/reproduce/leaderboard[-quick]``); ``--resume``
continues an interrupted run (only the missing tasks run).
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

import numpy as np

from _bench_common import ROOT, fmt, load, machine, machine_line, table, write_json
from pybai.complexity import complexity_report
from pybai.reproductions import run_reproduction
from pybai.simulate.store import is_store, read_store

#: the headline columns: (label, rule labels of the files, first match wins)
HEADLINE = [
    ("best heuristic", None),
    ("best proven", None),
    ("mSPRT tau=gap", ["mSPRT tau=gap (not proven)"]),
    ("mSPRT tau=gap/2", ["mSPRT tau=gap/2 (not proven)"]),
    ("fixed horizon mde=gap", ["fixed-horizon mde=gap (not proven)"]),
    ("fixed horizon mde=gap/2", ["fixed-horizon mde=gap/2 (not proven)"]),
    ("TS P(best) > 0.95", ["TS P(best)>0.95 (no guarantee)"]),
]


#: the instances in the tables' order: the field's standard ones, then the practitioners' A/B/n tests
ORDER = ["gk16-mu1", "gk16-mu2", "gaussian-4", "gaussian-10", "unknown-variance", "bounded", "ab-5pct", "abn-1pct",
         "abn-10pct", "abn-20pct"]


def _rank(store: pathlib.Path) -> tuple[int, str]:
    name = store.name.removeprefix("leaderboard-")
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def collect(folder: pathlib.Path) -> list[dict]:
    """One row per (store, grid point, rule) from the stores under ``folder``."""
    rows = []
    for store in sorted((p for p in folder.iterdir() if p.is_dir() and is_store(p)), key=_rank):
        stored = read_store(store)
        experiments = stored.sweep.experiments
        lines: dict[tuple[int, str], list[dict]] = {}
        for line in stored.rows:
            lines.setdefault((int(line["point"]), str(line["strategy"])), []).append(line)
        for p, experiment in enumerate(experiments):
            report = complexity_report(experiment)
            t_star = report.get("characteristic_time")
            delta = float(experiment.problem.delta)
            title = (stored.sweep.document.get("reproduce") or {}).get("title", store.name)
            for label, strategy in experiment.strategies:
                runs = lines.get((p, label), [])
                if not runs:
                    continue
                samples = np.array([r["samples"] for r in runs], dtype=float)
                errors = sum(not r["correct"] for r in runs)
                kind = strategy.stopping_rule or ("proven" if strategy.threshold == "delta-correct" else "heuristic")
                row = {
                    "instance": store.name.removeprefix("leaderboard-"),
                    "title": title.removeprefix("Leaderboard: "),
                    "delta": delta,
                    "rule": label,
                    "stop": kind,
                    "proven": kind == "proven",
                    "replications": len(runs),
                    "mean_samples": float(samples.mean()),
                    "se_samples": float(samples.std(ddof=1) / math.sqrt(len(runs))) if len(runs) > 1 else None,
                    "errors": int(errors),
                    "error_rate": errors / len(runs),
                    "censored": sum(r["status"] == "censored" for r in runs),
                    "characteristic_time": t_star,
                    "lower_bound": report.get("lower_bound"),
                    "log_bound": None if t_star is None else t_star * math.log(1.0 / delta),
                    "cpu_seconds": float(sum(r.get("cpu_seconds") or 0.0 for r in runs)),
                }
                row["over_lower_bound"] = row["mean_samples"] / row["lower_bound"] if row["lower_bound"] else None
                row["over_log_bound"] = row["mean_samples"] / row["log_bound"] if row["log_bound"] else None
                rows.append(row)
    return rows


def _cell(row: dict | None) -> str:
    if row is None:
        return "-"
    err = f"{row['errors']}/{row['replications']}" if row["errors"] else "0"
    return f"{fmt(row['mean_samples'])} ({row['over_lower_bound']:.2f}x; err {err})"


def headline(rows: list[dict]) -> str:
    """Per (instance, delta): the best heuristic and proven pybai rules and every practitioners' baseline."""
    groups: dict[tuple[str, float], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["instance"], row["delta"]), []).append(row)
    body = []
    for (instance, delta), group in groups.items():
        cells = [group[0]["title"], f"{delta:g}", fmt(group[0]["lower_bound"])]
        for label, names in HEADLINE:
            if names is None:
                kind = "heuristic" if label == "best heuristic" else "proven"
                pool = [r for r in group if r["stop"] == kind]
                best = min(pool, key=lambda r: r["mean_samples"]) if pool else None
                cells.append("-" if best is None else f"{best['rule'].rsplit(' ', 1)[0]}: {_cell(best)}")
            else:
                cells.append(_cell(next((r for r in group if r["rule"] in names), None)))
        body.append(cells)
    return table(["instance", "delta", "T* kl(delta, 1-delta)"] + [h for h, _ in HEADLINE], body, "lrr" + "r" * len(HEADLINE))


def full_tables(rows: list[dict]) -> str:
    """One table per instance: every rule at every delta."""
    out = []
    by_instance: dict[str, list[dict]] = {}
    for row in rows:
        by_instance.setdefault(row["instance"], []).append(row)
    for instance, group in by_instance.items():
        first = group[0]
        out.append(f"**{first['title']}** (`leaderboard-{instance}.toml`; T* = {fmt(first['characteristic_time'], 1)}, "
                   f"{first['replications']} runs per rule)\n")
        body = []
        for r in group:
            se = "" if r["se_samples"] is None else f" ± {fmt(r['se_samples'])}"
            body.append([f"{r['delta']:g}", r["rule"], r["stop"], f"{fmt(r['mean_samples'])}{se}",
                         f"{r['error_rate']:.3f}", "-" if r["over_lower_bound"] is None else f"{r['over_lower_bound']:.2f}",
                         "-" if r["over_log_bound"] is None else f"{r['over_log_bound']:.2f}", str(r["censored"])])
        out.append(table(["delta", "rule", "stop", "mean samples ± s.e.", "error rate", "/ T* kl(delta, 1-delta)",
                          "/ T* ln(1/delta)", "censored"], body, "llrrrrrr"))
        out.append("")
    return "\n".join(out)


def figure(rows: list[dict], path: pathlib.Path) -> None:
    """Mean samples over T* kl(delta, 1 - delta): one column per (instance, delta), one row per rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = list(dict.fromkeys((r["instance"], r["delta"]) for r in rows))
    rules = list(dict.fromkeys(r["rule"] for r in rows))
    grid = np.full((len(rules), len(columns)), np.nan)
    errs = np.zeros_like(grid)
    for r in rows:
        if r["over_lower_bound"] is not None:
            i, j = rules.index(r["rule"]), columns.index((r["instance"], r["delta"]))
            grid[i, j] = r["over_lower_bound"]
            errs[i, j] = r["error_rate"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(columns), 1.2 + 0.32 * len(rules)))
    image = ax.imshow(np.log10(grid), cmap="viridis_r", aspect="auto", vmin=0.0, vmax=math.log10(30.0))
    for i in range(len(rules)):
        for j in range(len(columns)):
            if np.isfinite(grid[i, j]):
                text = f"{grid[i, j]:.1f}" + ("*" if errs[i, j] > columns[j][1] else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                        color="white" if grid[i, j] > 6 else "black")
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([f"{name}\n{delta:g}" for name, delta in columns], fontsize=6.5, rotation=60, ha="right")
    ax.set_yticks(range(len(rules)))
    ax.set_yticklabels(rules, fontsize=7)
    bar = fig.colorbar(image, ax=ax, fraction=0.03)
    ticks = [1, 2, 3, 5, 10, 20, 30]
    bar.set_ticks([math.log10(t) for t in ticks])
    bar.set_ticklabels([str(t) for t in ticks])
    bar.set_label("mean samples / T* kl(delta, 1 - delta)", fontsize=7)
    ax.set_title("Leaderboard: mean samples over the lower bound (* error rate above delta)", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the files' quick settings (the demo's form)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=None, help="the stores' folder (default out/reproduce/leaderboard[-quick])")
    parser.add_argument("--resume", action="store_true", help="continue the stores (only missing tasks run)")
    parser.add_argument("--report-only", action="store_true", help="no simulation: tables and figure from the stores")
    args = parser.parse_args(argv)
    suffix = "-quick" if args.quick else ""
    folder = pathlib.Path(args.out) if args.out else ROOT / "out" / "reproduce" / f"leaderboard{suffix}"
    info = machine()
    began = time.time()
    if not args.report_only:
        run_reproduction("leaderboard", quick=args.quick, out=folder, jobs=args.jobs, resume=args.resume, progress=False,
                         note=lambda text: print(text, flush=True))
    info["wall_seconds"] = round(time.time() - began, 1)
    info["load_at_end"] = load()
    rows = collect(folder)
    top = headline(rows)
    full = full_tables(rows)
    figure(rows, ROOT / "docs" / "figures" / f"leaderboard{suffix}.png")
    text = (f"# Leaderboard{' (quick form)' if args.quick else ''}\n\n{machine_line(info)}; "
            f"{'simulation' if not args.report_only else 'report'} wall time {info['wall_seconds']} s.\n\n"
            f"Mean samples (mean over T* kl(delta, 1 - delta); errors / runs) of the best pybai rule with each threshold "
            f"and of the practitioners' baselines:\n\n{top}\n\n{full}")
    (ROOT / "benchmarks" / "results" / f"leaderboard{suffix}.md").write_text(text, encoding="utf-8")
    write_json(f"leaderboard{suffix}.json", {"machine": info, "stores": str(folder), "rows": rows})
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
