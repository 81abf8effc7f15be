"""Best-feasible-arm family: mean samples under the heuristic, the new delta-correct rule and the old t-only one.

Usage: python benchmarks/thresholds/feasible_rules.py FILE.toml REPS [STRATEGY ...] [rules=heuristic,proven,t-only]

FILE is one of benchmarks/thresholds/cost-{baics1,baics2,star}.toml.  For every strategy name given
(default: tas-cs tas) it runs REPS replications (the seeds of ``pybai run``: replication_seed(seed, i))
with three stopping rules, the same sampling rule and the same seeds:

* ``heuristic``: GLR > ln((1 + ln t)/delta) (not proven);
* ``proven``: threshold = "delta-correct", the per-piece normal-mixture rule with effective counts
  (pybai.stopping.feasible);
* ``t-only``: the rule it replaces, GLR > the Kaufmann & Koolen (2021) Gaussian threshold with
  m = K |M| + K pieces of n = 2L cells (``threshold(t)`` of the new object).

Prints mean samples +- standard error, errors, censored runs, CPU seconds per run and the ratios to the
heuristic.
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
from pybai.config import load_experiment  # noqa: E402
from pybai.problems.base import Problem  # noqa: E402
from pybai.simulate.runner import run_replication  # noqa: E402
from pybai.simulate.seeding import replication_seed  # noqa: E402


def run(experiment, strategy, rule, reps):
    problem = experiment.problem
    kind = "heuristic" if rule == "heuristic" else "delta-correct"
    if rule == "t-only":  # a problem whose delta-correct rule is the old one: GLR > threshold(t)
        problem = type(problem).__new__(type(problem))
        problem.__dict__.update(experiment.problem.__dict__)
        problem.threshold = lambda k, d: Problem.threshold(problem, k, d)
    template = strategy.clone() if hasattr(strategy, "clone") else strategy
    template.threshold = kind
    samples, errors, censored, cpu = [], 0, 0, time.process_time()
    for i in range(reps):
        out = run_replication(template, experiment.environment, problem, replication_seed(experiment.seed, i), i)
        samples.append(out.samples)
        errors += not out.correct
        censored += out.status != "stopped"
    cpu = (time.process_time() - cpu) / reps
    s = np.array(samples, dtype=float)
    return s.mean(), s.std(ddof=1) / np.sqrt(reps), errors, censored, cpu


def main():
    path, reps = sys.argv[1], int(sys.argv[2])
    rules = ("heuristic", "proven", "t-only")
    names = []
    for arg in sys.argv[3:]:
        if arg.startswith("rules="):
            rules = tuple(arg[len("rules="):].split(","))
        else:
            names.append(arg)
    names = names or ["tas-cs", "tas"]
    experiment = load_experiment(path)
    strategies = {}
    for label, strat in experiment.strategies:
        strategies.setdefault(strat.name, strat)
    for name in names:
        base = None
        for rule in rules:
            mean, se, err, cens, cpu = run(experiment, strategies[name], rule, reps)
            base = base or mean
            print(f"{Path(path).stem} {name:7s} {rule:9s} mean {mean:9.0f} +- {se:6.0f}  errors {err:3d}  "
                  f"censored {cens:3d}  cpu/run {cpu:6.2f}s  ratio {mean / base:5.2f}", flush=True)


if __name__ == "__main__":
    main()
