"""Markdown tables of docs/linear.md from benchmarks/results/linear/*.json (no simulation).

    PYTHONPATH=src python benchmarks/linear_tables.py > benchmarks/results/linear/tables.md
"""

from __future__ import annotations

import json
from pathlib import Path

RES = Path(__file__).parent / "results" / "linear"
PAPER_D5 = {"xy-oracle": 41652, "xy-adaptive": 52988, "xy-static": 147620, "g-allocation": 140075,
            "xy-fully-adaptive": 149964}
PAPER_E = {"xy-oracle": [207, 41440, 2, 2, 1, 0], "xy-adaptive": [263, 52713, 3, 5, 2, 2],
           "xy-static": [29523, 29524, 29524, 29524, 29524, 1], "g-allocation": [28014, 28015, 28015, 28015, 28015, 1],
           "xy-fully-adaptive": [740, 149220, 1, 1, 1, 1]}


def load(name):
    path = RES / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def fmt(x):
    return f"{x:,.0f}"


def figure4(data):
    docs = data["documents"]
    labels = [r["strategy"] for r in docs[0]["results"]]
    print("| d | T* | T* kl | " + " | ".join(labels) + " |")
    print("|---" * (len(labels) + 3) + "|")
    for d in docs:
        row = [str(d["grid"]["environment.d"]), fmt(d["characteristic_time"]), fmt(d["lower_bound"])]
        row += [fmt(r["mean_samples"]) + ("" if r["correct_rate"] == 1 else f" ({r['correct_rate']:.2f})")
                for r in d["results"]]
        print("| " + " | ".join(row) + " |")
    print()
    d5 = next(d for d in docs if d["grid"]["environment.d"] == 5)
    print("| strategy (d = 5) | paper | measured (95% CI) | measured / paper | measured / (T* kl) | correct | CPU s / run |")
    print("|---|---|---|---|---|---|---|")
    for r in d5["results"]:
        n = r["replications"]
        half = 1.96 * r["sd_samples"] / n**0.5
        paper = PAPER_D5.get(r["strategy"])
        print(f"| {r['strategy']}{' (reference)' if r['reference'] else ''} | {fmt(paper) if paper else '-'} | "
              f"{fmt(r['mean_samples'])} +- {fmt(half)} | {r['mean_samples'] / paper:.2f} | "
              f"{r['mean_samples'] / d5['lower_bound']:.2f} | {r['correct_rate']:.2f} | "
              f"{r['cpu_seconds'] / n:.2f} |" if paper else
              f"| {r['strategy']} | - | {fmt(r['mean_samples'])} +- {fmt(half)} | - | "
              f"{r['mean_samples'] / d5['lower_bound']:.2f} | {r['correct_rate']:.2f} | {r['cpu_seconds'] / n:.2f} |")
    print(f"\ntiming: {data['timing']}\n")


def appendix_e(data):
    d = data["documents"][0]
    print("| samples/arm | " + " | ".join(f"x{i + 1}" for i in range(6)) + " | budget |")
    print("|---" * 8 + "|")
    for r in d["results"]:
        print(f"| {r['strategy']} (measured) | " + " | ".join(fmt(c) for c in r["mean_counts"]) +
              f" | {fmt(r['mean_samples'])} |")
        p = PAPER_E[r["strategy"]]
        print(f"| {r['strategy']} (paper) | " + " | ".join(fmt(c) for c in p) + f" | {fmt(PAPER_D5[r['strategy']])} |")
    print(f"\ntiming: {data['timing']}\n")


def simple(data, extra=()):
    for d in data["documents"]:
        print(f"T* = {d['characteristic_time']:.1f}, T* kl(delta, 1-delta) = {d['lower_bound']:.1f}, answer = "
              f"{d['answer']}" + "".join(f", {k} = {d[k]:.1f}" for k in extra if k in d))
        print()
        few = len(d["optimal_weights"]) <= 8  # small instances: the mean samples per arm too
        print("| strategy | mean samples (95% CI) | median | correct | recommendations | CPU s / run |"
              + (" mean samples per arm |" if few else ""))
        print("|---|---|---|---|---|---|" + ("---|" if few else ""))
        for r in d["results"]:
            n = r["replications"]
            half = 1.96 * r["sd_samples"] / n**0.5
            recs = r.get("recommendations") or ""
            print(f"| {r['strategy']} | {fmt(r['mean_samples'])} +- {fmt(half)} | {fmt(r['median_samples'])} | "
                  f"{r['correct_rate']:.2f} | {recs} | {r['cpu_seconds'] / n:.2f} |"
                  + (" " + ", ".join(fmt(c) for c in r["mean_counts"]) + " |" if few else ""))
    print(f"\ntiming: {data['timing']}\n")


def main():
    for name, fn in (("figure4", figure4), ("appendix-e", appendix_e), ("modern", simple), ("wine", None)):
        data = load(name)
        if data is None:
            continue
        print(f"### {name}\n")
        if fn is None:
            simple(data, ("characteristic_time_uniform", "expected_samples_uniform"))
        else:
            fn(data)
    rnd = load("random_instances")
    if rnd:
        print("### random instances\n")
        print(json.dumps(rnd["settings"]), "\n")
        print(json.dumps(rnd["summary"]), "\n")


if __name__ == "__main__":
    main()
