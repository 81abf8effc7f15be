"""Track-and-Stop on the guardrail oracle against the two-stage baseline (certify every guardrail, then compare).

Runs the shipped experiment ``guardrails-latency`` (the best-revenue arm breaks the latency bound, two
weak arms sit close to it, revenue and latency correlated 0.6) with ``tas``, ``two-stage`` and
``uniform``, and the top-two rule of the goal (``top-two-guardrails``, beta = 0.5 and IDS), under the
proven ``delta-correct`` rule on the same seeded replications, and prints mean samples +- standard
error, errors, censored runs, T*(mu) ln(m/delta) and the ratio of each strategy's mean samples to
two-stage's (the target: tas <= 0.6 x two-stage).

With ``--heuristic``, also Track-and-Stop with the heuristic threshold beta(t) = ln((1 + ln t)/delta) on
the same replications, and per run the ratio tau / (T*(mu) beta(tau)) of its stopping time tau to
T*(mu) times the threshold at that time (the target: within 1.3).

    .venv/bin/python benchmarks/guardrails_two_stage.py --runs 200 --heuristic

Writes ``benchmarks/results/guardrails_two_stage.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import machine, machine_line, table, write_json  # noqa: E402

from pybai.config.experiment import parse_sweep, read_document  # noqa: E402
from pybai.experiments import experiment_path  # noqa: E402
from pybai.simulate.montecarlo import run_outcomes  # noqa: E402
from pybai.strategies import make_strategy  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--heuristic", action="store_true", help="also tas with the heuristic threshold, tau / (T* beta(tau))")
    ap.add_argument("--delta", type=float, default=None, help="another delta than the file's 0.05")
    ap.add_argument("--only", nargs="*", default=None, help="only these strategy labels (e.g. 'tas heuristic')")
    ap.add_argument("--oracle-growth", type=float, default=None,
                    help="Track-and-Stop's oracle_growth (default: the problem's lazy schedule; 0: the oracle at every step)")
    args = ap.parse_args(argv)
    document = read_document(experiment_path("guardrails-latency"))
    if args.delta is not None:
        document["problem"]["delta"] = args.delta
    exp = parse_sweep(document, default_name="guardrails-latency")[0]
    extra = [("top-two-guardrails", make_strategy("top-two-guardrails", threshold="delta-correct")),
             ("top-two-guardrails ids", make_strategy("top-two-guardrails", beta="ids", threshold="delta-correct"))]
    if args.heuristic:
        extra.append(("tas heuristic", make_strategy("tas", threshold="heuristic")))
    listed = list(exp.strategies) + extra
    if args.oracle_growth is not None:
        listed = [(label, make_strategy("tas", threshold=st.threshold, oracle_growth=args.oracle_growth)
                   if label.split()[0] == "tas" else st) for label, st in listed]
    chosen = [(label, st) for label, st in listed if args.only is None or label in args.only]
    exp = dataclasses.replace(exp, replications=args.runs, strategies=chosen)
    problem, mu = exp.problem, exp.environment.source_means
    t_star = problem.oracle(mu)[0]
    level = math.log(problem.n_alternatives / problem.delta)
    info = machine()
    results = {}
    beta = problem.threshold("heuristic", problem.delta)
    for (label, strategy), runs in zip(exp.strategies, run_outcomes(exp, jobs=args.jobs)):
        samples = np.array([o.samples for o in runs], dtype=float)
        results[label] = {"mean": float(samples.mean()), "se": float(samples.std(ddof=1) / math.sqrt(samples.size)),
                          "errors": int(sum(not o.correct for o in runs if o.status == "stopped")),
                          "censored": int(sum(o.status != "stopped" for o in runs))}
        if strategy.threshold == "heuristic":  # tau / (T* beta(tau)), run by run
            ratio = samples / np.array([t_star * beta(int(n)) for n in samples])
            results[label].update(ratio_mean=float(ratio.mean()), ratio_se=float(ratio.std(ddof=1) / math.sqrt(ratio.size)),
                                  ratio_median=float(np.median(ratio)), ratio_max=float(ratio.max()),
                                  ratio_of_means=float(samples.mean() / (t_star * beta(int(round(samples.mean()))))))
    base = results["two-stage"]["mean"] if "two-stage" in results else math.nan
    rows = [[label, f"{r['mean']:.1f} +- {r['se']:.1f}", r["errors"], r["censored"], f"{r['mean'] / base:.3f}"]
            for label, r in results.items()]
    print(machine_line(info))
    print(f"guardrails-latency, delta = {problem.delta}, {args.runs} runs; T*(mu) = {t_star:.3f}, "
          f"T* ln(m/delta) = {t_star * level:.1f} (m = {problem.n_alternatives})")
    print(table(["strategy", "mean samples", "errors", "censored", "ratio to two-stage"], rows))
    for label, r in results.items():
        if "ratio_mean" in r:
            print(f"{label}: tau / (T* beta(tau)) mean {r['ratio_mean']:.3f} +- {r['ratio_se']:.3f}, median "
                  f"{r['ratio_median']:.3f}, max {r['ratio_max']:.3f}; mean tau / (T* beta(mean tau)) {r['ratio_of_means']:.3f}")
    suffix = ("" if args.delta is None else f"_delta{args.delta:g}") + ("" if args.only is None else "_only")
    write_json(f"guardrails_two_stage{suffix}.json", {"machine": info, "runs": args.runs, "t_star": t_star,
                                        "t_star_log": t_star * level, "results": results})


if __name__ == "__main__":
    main()
