"""BayesGap's exploration constant: Eq. (9) (the paper's, default) against fixed beta (issue 26).

For the shipped synthetic (GP-prior draws, 50 arms) and sensor experiments, runs ``bayes-gap`` with
``beta = "eq9"`` and fixed values, beside ``uniform`` and ``thompson``, on the same seeded
replications, and prints the probability of error and the mean simple regret at each budget.

    .venv/bin/python benchmarks/bayesgap_beta.py --replications 200

Writes benchmarks/results/bayesgap_beta.json.
"""

from __future__ import annotations

import argparse
import copy

from _bench_common import machine, machine_line, write_json
from pybai.cli._common import experiment_file
from pybai.config.experiment import read_document
from pybai.simulate.engine import run_sweep
from pybai.simulate.tasks import Sweep

BETAS = ("eq9", 0.5, 1.0, 2.0, 3.0, 5.0)


def document(name: str, replications: int, budgets) -> dict:
    doc = copy.deepcopy(read_document(experiment_file(name)))
    doc.pop("reproduce", None)
    doc["replications"] = replications
    if budgets:
        doc["grid"] = {"problem.budget": list(budgets)}
    doc["strategy"] = ([{"name": "bayes-gap", "label": f"bayes-gap beta={b}", "beta": b} for b in BETAS]
                       + [{"name": "uniform"}, {"name": "thompson"}])
    return doc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    info = machine()
    rows = []
    for name, budgets in (("bayesgap-synthetic", (50, 100, 200)), ("bayesgap-sensors", None)):
        doc = document(name, args.replications, budgets)
        sweep = Sweep.from_document(doc, default_name=name)
        result = run_sweep(sweep, jobs=args.jobs)
        for point in result.get("points") or [result]:
            budget = (point.get("grid") or {}).get("problem.budget", doc["problem"]["budget"])
            for r in point["results"]:
                rows.append({"experiment": name, "budget": budget, "strategy": r["strategy"],
                             "error": round(1.0 - r["correct_rate"], 4),
                             "simple_regret": r["mean_simple_regret"], "runs": r["replications"]})
    print(machine_line(info))
    print(f"{args.replications} replications per cell, the same seeds for every rule\n")
    print("| experiment | budget | strategy | P(error) | mean simple regret |")
    print("| --- | --- | --- | ---: | ---: |")
    for row in rows:
        print(f"| {row['experiment']} | {row['budget']} | {row['strategy']} | {row['error']:.3f} | "
              f"{row['simple_regret']:.4f} |")
    write_json("bayesgap_beta.json", {"machine": info, "args": vars(args), "rows": rows})


if __name__ == "__main__":
    main()
