"""pybai's proven rules against the always-valid mixture SPRT: the epsilon tie and held-out A/B/n tests at 1-10%.

Issue 39's target: pybai's best rule with a proven threshold needs at most 1.5x the visitors of the
mixture SPRT (``mixture-sprt``, tau tuned to the effect of interest) on every instance of the issue's
table and on Bernoulli A/B/n tests at conversion rates of 1-10%.  Two parts:

* ``tie``: the table's epsilon row, the experiment file ``benchmarks/eps_tie_msprt.toml`` (Bernoulli
  [0.12, 0.12, 0.10], additive epsilon 0.01, delta = 0.05): every rule of the file, the same seeds.
* ``sweep``: held-out A/B/n tests drawn from the fixed seed :data:`SWEEP_SEED`, chosen before any
  result was seen: :data:`N_INSTANCES` instances, K uniform in {2, ..., 5} arms, the best rate p*
  uniform in [0.01, 0.10], every other arm p* / (1 + L) with a relative lift L uniform in [0.05, 0.30].
  On each: a pilot of :data:`PILOT` runs (seeds of their own) of tas (D-tracking), top-two (EB-TCI),
  lucb and game with ``threshold = "delta-correct"`` picks the best proven rule; that rule and the
  mixture SPRT with tau = the true gap of the best two arms then run the same ``--replications``
  seeds (common random numbers), and the ratio of their mean samples is reported with its standard
  error (delta method over the paired runs).

Every run is a compiled whole run (:func:`pybai.simulate.runner.run_replication`), seeded by
``SeedSequence(seed, spawn_key=(r,))``; re-running gives the same numbers (e.g. after a cheaper proven
epsilon rule is merged).

    .venv/bin/python benchmarks/msprt_epsilon.py tie --replications 20
    .venv/bin/python benchmarks/msprt_epsilon.py sweep --replications 12
    .venv/bin/python benchmarks/msprt_epsilon.py sweep --list          # the drawn instances only
    .venv/bin/python benchmarks/msprt_epsilon.py sweep --replications 30 --only 2 4 --every-candidate
    .venv/bin/python benchmarks/msprt_epsilon.py tie --report-only     # the table again from the JSON (same --replications)

Writes ``benchmarks/results/msprt_epsilon_{tie,sweep}_r{replications}.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time

import numpy as np

from _bench_common import ROOT, RESULTS, fmt, machine, machine_line, table, write_json
from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
from pybai.config.experiment import read_document
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.simulate.runner import run_replication
from pybai.simulate.tasks import Sweep

TIE_FILE = ROOT / "benchmarks" / "eps_tie_msprt.toml"
#: the held-out draw: fixed before any result was seen
SWEEP_SEED = 390_2026
N_INSTANCES = 8
DELTA = 0.05
PILOT = 3
#: the proven candidates of the pilot: (label, registry name, parameters)
CANDIDATES = [("tas-D", "tas", {"tracking": "D"}), ("top-two", "top-two", {}), ("lucb", "lucb", {}),
              ("game", "game", {})]
MAX_SAMPLES = 60_000_000


def draw_instances(seed: int = SWEEP_SEED, n: int = N_INSTANCES) -> list[list[float]]:
    """The held-out conversion rates, best arm first."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.integers(2, 6))
        best = float(rng.uniform(0.01, 0.10))
        lifts = rng.uniform(0.05, 0.30, size=k - 1)
        out.append([round(best, 5)] + [round(float(best / (1.0 + x)), 5) for x in lifts])
    return out


def _runs(strategy, env, problem, seed: int, replications: int, offset: int = 0) -> list:
    return [run_replication(strategy, env, problem, np.random.SeedSequence(seed, spawn_key=(offset + r,)))
            for r in range(replications)]


def _summary(runs: list) -> dict:
    samples = np.array([o.samples for o in runs], dtype=float)
    n = len(samples)
    return {"replications": n, "mean_samples": float(samples.mean()),
            "se": float(samples.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"),
            "errors": int(sum(not o.correct for o in runs)), "censored": int(sum(o.status != "stopped" for o in runs)),
            "cpu_seconds": float(sum(o.cpu_seconds for o in runs)), "samples": samples.tolist()}


def ratio_se(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """mean(a) / mean(b) and its standard error by the delta method over paired runs (a_r, b_r)."""
    n = len(a)
    ma, mb = a.mean(), b.mean()
    r = ma / mb
    cov = np.cov(a, b, ddof=1) if n > 1 else np.full((2, 2), np.nan)
    var = (cov[0, 0] / mb ** 2 - 2 * r * cov[0, 1] / mb ** 2 + r * r * cov[1, 1] / mb ** 2) / n
    return float(r), float(math.sqrt(max(var, 0.0)))


def run_tie(replications: int) -> dict:
    document = read_document(TIE_FILE)
    experiment = Sweep.from_document(document, TIE_FILE.stem).experiments[0]
    seed = int(document["seed"])
    rows = []
    for label, strategy in experiment.strategies:
        start = time.process_time()
        row = {"rule": label, **_summary(_runs(strategy, experiment.environment, experiment.problem, seed,
                                                  replications))}
        row["process_seconds"] = time.process_time() - start
        rows.append(row)
        print(f"{label:34s} {row['mean_samples']:>12,.0f} +- {row['se']:>9,.0f}  errors {row['errors']}  "
              f"censored {row['censored']}  cpu {row['process_seconds']:.1f}s", file=sys.stderr, flush=True)
    return {"part": "tie", "file": str(TIE_FILE.relative_to(ROOT)), "seed": seed, "replications": replications,
            "rows": rows}


def run_sweep(replications: int, only: list[int] | None = None, every: bool = False) -> dict:
    instances = draw_instances()
    rows = []
    for i, means in enumerate(instances):
        if only is not None and i not in only:
            continue
        k = len(means)
        env = BernoulliEnvironment(np.array(means))
        problem = BestArmProblem(k, Bernoulli(n_sources=k), FixedConfidence(DELTA, max_samples=MAX_SAMPLES))
        gap = means[0] - max(means[1:])
        seed = SWEEP_SEED + 1 + i
        start = time.process_time()
        pilot = {}
        for label, name, params in CANDIDATES:
            runs = _runs(make_strategy(name, dict(params, threshold="delta-correct")), env, problem, seed, PILOT,
                         offset=10_000)  # the pilot's own seeds
            pilot[label] = float(np.mean([o.samples for o in runs]))
        best = min(pilot, key=lambda lab: pilot[lab])
        name, params = next((n, p) for lab, n, p in CANDIDATES if lab == best)
        proven = _summary(_runs(make_strategy(name, dict(params, threshold="delta-correct")), env, problem, seed,
                                replications))
        msprt = _summary(_runs(make_strategy("mixture-sprt", {"tau": gap}), env, problem, seed, replications))
        ratio, se = ratio_se(np.array(proven["samples"]), np.array(msprt["samples"]))
        row = {"instance": i, "means": means, "gap": gap, "pilot": pilot, "best_proven": best, "proven": proven,
               "msprt": msprt, "ratio": ratio, "ratio_se": se}
        if every:  # every candidate on the main seeds (the pilot's pick is then one of these rows)
            row["candidates"] = {}
            for label, name, params in CANDIDATES:
                runs = proven if label == best else _summary(
                    _runs(make_strategy(name, dict(params, threshold="delta-correct")), env, problem, seed, replications))
                r, e = ratio_se(np.array(runs["samples"]), np.array(msprt["samples"]))
                row["candidates"][label] = {**runs, "ratio": r, "ratio_se": e}
        row["process_seconds"] = time.process_time() - start
        rows.append(row)
        print(f"#{i} {means} best {best}: {proven['mean_samples']:,.0f} vs mSPRT {msprt['mean_samples']:,.0f} = "
              f"{ratio:.2f} +- {se:.2f}  (cpu {row['process_seconds']:.0f}s)", file=sys.stderr, flush=True)
    return {"part": "sweep", "seed": SWEEP_SEED, "delta": DELTA, "pilot": PILOT, "replications": replications,
            "rows": rows}


#: the tie's reference row: tau = the effect the certification must detect (epsilon, on the tied pair)
TIE_REFERENCE = "mSPRT tau=eps (not proven)"


def tie_markdown(doc: dict) -> str:
    """Every rule's mean samples, errors, censored runs and its ratio to :data:`TIE_REFERENCE` (same seeds)."""
    reference = np.array(next(r["samples"] for r in doc["rows"] if r["rule"] == TIE_REFERENCE))
    rows = []
    for r in doc["rows"]:
        ratio, se = ratio_se(np.array(r["samples"]), reference)
        rows.append([r["rule"], f"{fmt(r['mean_samples'])} ± {fmt(r['se'])}", f"{ratio:.2f} ± {se:.2f}",
                     f"{r['errors']}/{r['replications']}", r["censored"]])
    return table(["rule", "mean samples ± se", "over mSPRT tau=eps ± se", "errors", "censored"], rows, "lrrrr")


def sweep_markdown(doc: dict) -> str:
    rows = []
    for r in doc["rows"]:
        p, m = r["proven"], r["msprt"]
        rows.append([r["instance"], "[" + ", ".join(f"{x:.4f}" for x in r["means"]) + "]", f"{r['gap']:.5f}",
                     r["best_proven"], f"{fmt(p['mean_samples'])} ± {fmt(p['se'])}",
                     f"{fmt(m['mean_samples'])} ± {fmt(m['se'])}", f"{r['ratio']:.2f} ± {r['ratio_se']:.2f}",
                     f"{p['errors']} / {m['errors']}"])
    text = table(["#", "conversion rates", "gap", "best proven (pilot)", "proven: mean ± se", "mSPRT tau=gap: mean ± se",
                  "ratio ± se", "errors (proven / mSPRT)"], rows, "rlrlrrrr")
    every = [r for r in doc["rows"] if "candidates" in r]
    if every:
        labels = [label for label, _, _ in CANDIDATES]
        lines = [[r["instance"]] + [f"{fmt(r['candidates'][lab]['mean_samples'])} ({r['candidates'][lab]['ratio']:.2f} ± "
                                    f"{r['candidates'][lab]['ratio_se']:.2f})" for lab in labels] for r in every]
        text += "\n\nEvery proven candidate on the same seeds (mean samples; over the mSPRT ± se):\n\n"
        text += table(["#"] + labels, lines, "r" + "r" * len(labels))
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["tie", "sweep"])
    parser.add_argument("--replications", type=int, default=None)
    parser.add_argument("--only", type=int, nargs="*", default=None, help="sweep: these instances only")
    parser.add_argument("--list", action="store_true", help="sweep: print the drawn instances and exit")
    parser.add_argument("--report-only", action="store_true", help="the markdown again from the JSON, no runs")
    parser.add_argument("--every-candidate", action="store_true", help="sweep: run every proven candidate in full")
    args = parser.parse_args(argv)
    replications = args.replications or {"tie": 20, "sweep": 12}[args.part]
    suffix = ("" if args.only is None else "_" + "_".join(str(i) for i in args.only)) + ("_every" if args.every_candidate
                                                                                           else "")
    name = f"msprt_epsilon_{args.part}_r{replications}{suffix}"
    if args.report_only:
        doc = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
        text = tie_markdown(doc) if args.part == "tie" else sweep_markdown(doc)
        (RESULTS / f"{name}.md").write_text(f"{machine_line(doc['machine'])}\n\n{text}\n", encoding="utf-8")
        print(text)
        return 0
    if args.list:
        for i, means in enumerate(draw_instances()):
            print(i, means, f"gap {means[0] - max(means[1:]):.5f}")
        return 0
    info = machine()
    if args.part == "tie":
        doc = run_tie(replications)
        text = tie_markdown(doc)
    else:
        doc = run_sweep(replications, args.only, args.every_candidate)
        text = sweep_markdown(doc)
    doc["machine"] = info
    write_json(f"{name}.json", doc)
    (RESULTS / f"{name}.md").write_text(f"{machine_line(info)}\n\n{text}\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
