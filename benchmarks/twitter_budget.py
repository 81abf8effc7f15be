"""Twitter-scale batch top-k (Jun et al. 2016, section 5.3): gain of the four rules against the budget B.

Runs the shipped ``topk-twitter-binomial`` experiment (522,062 power-law arms, rewards
Binomial(24, mu)/24, b = 60,000, r = 12, k = 100) at each budget of ``--budgets`` (batches) with
``--replications`` runs per (B, rule), the same seeds for every rule, two worker processes.
``--trials 1`` runs the Bernoulli stand-in (``topk-twitter.toml``'s reward model) instead.

    .venv/bin/python benchmarks/twitter_budget.py --budgets 100,300,1000,3000 --replications 3

Writes benchmarks/results/twitter_budget[_trialsN].json and, with ``--plot``, the figure
docs/figures/topk-twitter-budget.png (gain / oracle gain against B for the four rules).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import copy
import json
import math
import time

import numpy as np

from _bench_common import RESULTS, ROOT, machine, machine_line, write_json
from pybai.cli._common import experiment_file
from pybai.config.experiment import read_document
from pybai.simulate.tasks import Sweep, make_tasks, run_task

_SWEEP = None


def document(budgets, replications: int, trials: int) -> dict:
    doc = copy.deepcopy(read_document(experiment_file("topk-twitter-binomial")))
    doc.pop("reproduce", None)
    doc["replications"] = replications
    doc["grid"] = {"problem.budget": list(budgets)}
    if trials == 1:
        doc["environment"]["kind"] = "bernoulli"
        doc["environment"].pop("trials")
    else:
        doc["environment"]["trials"] = trials
    return doc


def _init(doc):
    global _SWEEP
    _SWEEP = Sweep.from_document(doc, default_name="twitter-budget")


def _run(task):
    result = run_task(_SWEEP.experiments, task, _SWEEP.gridded)
    return task, result.outcomes


def summarise(rows_by_key, budgets, labels):
    rows = []
    for b in budgets:
        for label in labels:
            outs = rows_by_key.get((b, label), [])
            if not outs:
                continue
            gains = np.array([o.gain for o in outs])
            n = gains.size
            half = 1.96 * gains.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
            rows.append({"budget": b, "strategy": label, "runs": n, "mean_gain": float(gains.mean()),
                         "ci95": float(half), "gains": gains.tolist(),
                         "oracle_gain": float(outs[0].oracle_gain),
                         "false_negative_rate": float(np.mean([o.false_negative for o in outs])),
                         "batches": float(np.mean([o.batches for o in outs])),
                         "cpu_seconds": float(np.mean([o.cpu_seconds for o in outs]))})
    return rows


def plot(rows, labels, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label, marker in zip(labels, "osD^"):
        pts = sorted((r["budget"], r["mean_gain"] / r["oracle_gain"], r["ci95"] / r["oracle_gain"])
                     for r in rows if r["strategy"] == label)
        if pts:
            x, y, e = map(np.array, zip(*pts))
            ax.errorbar(x, y, yerr=np.nan_to_num(e), marker=marker, capsize=3, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("budget B (batches of b = 60,000 pulls)")
    ax.set_ylabel("gain / gain of the true top-100")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="100,300,1000,3000")
    parser.add_argument("--replications", type=int, default=3)
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plot", action="store_true", help="write docs/figures/topk-twitter-budget.png")
    parser.add_argument("--plot-only", action="store_true", help="plot the stored JSON (also a partial one)")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    suffix = "" if args.trials == 24 else f"_trials{args.trials}"
    name = f"twitter_budget{suffix}.json"
    figure = "topk-twitter-budget.png" if args.trials == 24 else f"topk-twitter-budget-trials{args.trials}.png"
    title = (f"power-law stand-in, rewards Binomial({args.trials}, mu)/{args.trials}, k = 100, "
             f"{args.replications} runs")
    if args.plot_only:
        stored = json.loads((RESULTS / name).read_text())
        labels = list(dict.fromkeys(r["strategy"] for r in stored["rows"]))
        plot(stored["rows"], labels, ROOT / "docs" / "figures" / figure, title)
        return
    info = machine()
    doc = document(budgets, args.replications, args.trials)
    _init(doc)
    labels = [label for label, _ in _SWEEP.experiments[0].strategies]
    # smallest budgets first: a partial run (stored after every task) covers the low end
    tasks = sorted(make_tasks(_SWEEP.experiments), key=lambda t: budgets[t.point])
    found: dict = {}
    start = time.time()
    with cf.ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(doc,)) as pool:
        for task, outs in pool.map(_run, tasks):
            key = (budgets[task.point], labels[task.strategy])
            found.setdefault(key, []).extend(outs)
            print(f"  B={key[0]} {key[1]}: gains {[round(o.gain, 4) for o in outs]} "
                  f"({time.time() - start:.0f} s)", flush=True)
            write_json(name, {"machine": info, "args": vars(args), "partial": True,
                              "wall_seconds": round(time.time() - start, 1),
                              "rows": summarise(found, budgets, labels)})
    rows = summarise(found, budgets, labels)
    print(machine_line(info))
    print(f"{args.replications} runs per (B, rule), trials = {args.trials}\n")
    print("| B | " + " | ".join(labels) + " |")
    print("|---:|" + "---:|" * len(labels))
    for b in budgets:
        by = {r["strategy"]: r for r in rows if r["budget"] == b}
        print(f"| {b:,} | " + " | ".join(f"{by[s]['mean_gain']:.3f} +- {by[s]['ci95']:.3f}" for s in labels) + " |")
    write_json(name, {"machine": info, "args": vars(args), "partial": False,
                      "wall_seconds": round(time.time() - start, 1), "rows": rows})
    if args.plot:
        plot(rows, labels, ROOT / "docs" / "figures" / figure, title)


if __name__ == "__main__":
    main()
