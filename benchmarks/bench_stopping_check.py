"""Time of one stopping check of the ``"delta-correct"`` rule on 10 arms, ask/tell and compiled.

A stopping check is what a strategy runs after each sample in fixed confidence: for the leader rules
(``"leader-scales"``, the ``"delta-correct"`` default for plain best arm on Gaussian arms with known
variances and on Bernoulli arms) the leader update (:meth:`LeaderThreshold.advance`) and the decision
(:meth:`Problem.stopping_decision`, GLR filter and certified margin); for unknown variances the
invariant t-test rule's pair tests.  Measured per check, on real trajectories:

* **ask/tell**: the strategy's own check (``Strategy._should_stop``, the Python decide path) wrapped
  with ``time.process_time_ns`` (CPU time of this process: the machine is shared) during ask/tell runs of ``tas`` (C-tracking) and ``uniform``;
* **compiled**: the trajectories of those runs replayed in a numba loop that updates the counts and
  sums (:func:`pybai.strategies._compiled.record`) and calls the compiled runs' own check
  (:func:`pybai.strategies._compiled.check_deltas`, with the rule's row); the same loop without the
  check is subtracted (CPU time of each whole loop, the smaller of three).  (Unknown variances have no
  compiled run.)

The ``heuristic`` threshold (GLR > ln((1 + ln t)/delta)) is timed beside it for reference.  Instances:
10 Gaussian arms, means linspace(1, 0, 10), sd 1 (known, and unknown variances); 10 Bernoulli arms,
means linspace(0.6, 0.15, 10); delta = 0.01.  Each measurement is repeated (``--repeats``) and the
minimum and median over repeats of the mean per-check time are reported with the load average.

    .venv/bin/python benchmarks/bench_stopping_check.py [--runs 3] [--repeats 5]

Writes benchmarks/results/bench_stopping_check.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import _bench_common as bc  # noqa: E402

from pybai import (  # noqa: E402
    Bernoulli, BernoulliEnvironment, BestArmProblem, FixedConfidence, Gaussian, GaussianEnvironment,
    GaussianUnknownVariance, make_strategy,
)
from pybai.stopping.compiled import compiled_rows  # noqa: E402
from pybai.strategies._compiled import check_deltas, record  # noqa: E402

K = 10
DELTA = 0.01
GAUSS = np.linspace(1.0, 0.0, K)
BERN = np.linspace(0.6, 0.15, K)
#: name -> (problem factory, environment)
INSTANCES = {
    "gaussian-10 (known sd)": (lambda: BestArmProblem(K, Gaussian(1.0, n_sources=K), FixedConfidence(DELTA)),
                               GaussianEnvironment(GAUSS, 1.0)),
    "bernoulli-10": (lambda: BestArmProblem(K, Bernoulli(K), FixedConfidence(DELTA)), BernoulliEnvironment(BERN)),
    "gaussian-10 (unknown sd)": (lambda: BestArmProblem(K, GaussianUnknownVariance(K), FixedConfidence(DELTA)),
                                 GaussianEnvironment(GAUSS, 1.0)),
}
STRATEGIES = {"tas": {}, "uniform": {}}


def ask_tell(instance: str, strategy: str, threshold: str, seed: int):
    """One ask/tell run: (nanoseconds per check, number of checks, trajectory arms, rewards)."""
    make_problem, env = INSTANCES[instance]
    s = make_strategy(strategy, dict(STRATEGIES[strategy], threshold=threshold))
    s = s.start(make_problem(), rng=seed)
    inner = s._should_stop
    spent = [0, 0]

    def timed():
        t0 = time.process_time_ns()
        out = inner()
        spent[0] += time.process_time_ns() - t0
        spent[1] += 1
        return out

    s._should_stop = timed
    rng = np.random.default_rng([seed, 7])
    arms, rewards = [], []
    while not s.stopped:
        a = s.ask()
        r = env.sample(a, rng)
        arms.append(int(np.asarray(a).ravel()[0]))
        rewards.append(float(np.asarray(r).ravel()[0]))
        s.tell(a, r)
    return spent[0] / max(spent[1], 1), spent[1], np.array(arms, dtype=np.intp), np.array(rewards), s


@njit(cache=True)
def _replay(arms, rewards, n, n_plan, kind, k, code, var, forms, check):
    """The compiled runs' model update (and check) along a recorded trajectory; returns the checks made."""
    counts = np.zeros(n)
    sums = np.zeros(n)
    est = np.zeros(n)
    stop_t = np.full(forms.shape[0], -1, dtype=np.int64)
    stop_z = np.zeros(forms.shape[0])
    snap_counts = np.zeros((forms.shape[0], n))
    snap_sums = np.zeros((forms.shape[0], n))
    done = 0
    checks = 0
    for i in range(arms.shape[0]):
        record(counts, sums, est, arms[i], rewards[i])
        t = i + 1
        if check and t >= n_plan and done < forms.shape[0]:
            z, done = check_deltas(kind, k, code, counts, sums, est, var, forms, t, done, stop_t, stop_z, snap_counts,
                                   snap_sums)
            checks += 1
    return checks


def compiled(strategy_obj, arms, rewards, repeats_inner: int = 3) -> float:
    """Nanoseconds per compiled check on the recorded trajectory (loop with the check less loop without)."""
    problem = strategy_obj.problem_
    kernels = problem.run_kernels()
    fresh = type(strategy_obj.threshold_)(**strategy_obj.threshold_._params()) if strategy_obj.threshold_.stateful \
        else strategy_obj.threshold_
    table = compiled_rows([fresh])
    n_plan = len(strategy_obj._plan)
    var = np.asarray(kernels.variances, dtype=float)
    args = (arms, rewards, problem.n_sources, n_plan, kernels.kind, kernels.k, kernels.code, var)
    _replay(*args, table.copy(), True)  # compile
    best_with, best_without = np.inf, np.inf
    checks = 0
    for _ in range(repeats_inner):
        forms = table.copy()
        t0 = time.process_time_ns()
        checks = _replay(*args, forms, True)
        best_with = min(best_with, time.process_time_ns() - t0)
        t0 = time.process_time_ns()
        _replay(*args, table.copy(), False)
        best_without = min(best_without, time.process_time_ns() - t0)
    return max(best_with - best_without, 0.0) / max(checks, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="trajectories per cell (seeds 1..runs)")
    ap.add_argument("--repeats", type=int, default=5, help="repetitions of every measurement")
    args = ap.parse_args(argv)
    doc = {"machine": bc.machine(), "args": vars(args), "load_start": bc.load(), "rows": []}
    for instance in INSTANCES:
        for strategy in STRATEGIES:
            for threshold in ("delta-correct", "heuristic"):
                ask_us, comp_us, loads, checks = [], [], [], 0
                ask_tell(instance, strategy, threshold, 0)  # warm-up: numba's cached kernels are loaded
                for _ in range(args.repeats):
                    per_ask, per_comp, n_checks = [], [], 0
                    for seed in range(1, args.runs + 1):
                        ns, n, arms, rewards, s = ask_tell(instance, strategy, threshold, seed)
                        per_ask.append((ns, n))
                        n_checks += n
                        if s.problem_.run_kernels() is not None:
                            per_comp.append((compiled(s, arms, rewards), n))
                    ask_us.append(sum(ns * n for ns, n in per_ask) / n_checks / 1e3)
                    if per_comp:
                        comp_us.append(sum(ns * n for ns, n in per_comp) / n_checks / 1e3)
                    loads.append(bc.load()[0])
                    checks = n_checks
                row = {"instance": instance, "strategy": strategy, "threshold": threshold, "checks": checks,
                       "ask_tell_us": ask_us, "compiled_us": comp_us, "load_1min": loads}
                doc["rows"].append(row)
                comp = f"{min(comp_us):.2f} / {statistics.median(comp_us):.2f}" if comp_us else "-"
                print(f"{instance} {strategy} {threshold}: ask/tell {min(ask_us):.2f} / {statistics.median(ask_us):.2f}"
                      f" us, compiled {comp} us (min / median), load {loads}", file=sys.stderr, flush=True)
                bc.write_json("bench_stopping_check.json", dict(doc, load_end=bc.load()))
    doc["load_end"] = bc.load()
    bc.write_json("bench_stopping_check.json", doc)
    rows = []
    for r in doc["rows"]:
        a, c = r["ask_tell_us"], r["compiled_us"]
        rows.append([r["instance"], r["strategy"], r["threshold"], f"{r['checks']:,}",
                     f"{min(a):.2f} / {statistics.median(a):.2f}",
                     f"{min(c):.2f} / {statistics.median(c):.2f}" if c else "- (no compiled run)",
                     f"{min(r['load_1min']):.1f}-{max(r['load_1min']):.1f}"])
    print(bc.table(["instance", "strategy", "threshold", "checks per repeat", "ask/tell us per check (min / median)",
                    "compiled us per check (min / median)", "load (1 min)"], rows, "lllrrrr"))
    print(f"\n{args.runs} trajectories per cell, {args.repeats} repeats; load average {bc.load_str(doc['load_start'])} "
          f"-> {bc.load_str(doc['load_end'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
