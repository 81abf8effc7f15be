"""Time of one stopping check of the ``"delta-correct"`` rule on 10 arms, ask/tell and compiled.

A stopping check is what a strategy runs after each sample in fixed confidence: for the leader rules
(``"leader-settled"``, the ``"delta-correct"`` default for plain best arm on Gaussian arms with known
variances and on Bernoulli arms, and ``"leader-scales"``) the leader update and the decision (:meth:`LeaderThreshold.run_check`: the
problem's GLR statistic and one compiled call advancing the leaders and testing the hypotheses); for unknown
variances the GLR filter and the invariant t-test rule's pair tests.  Measured per check, on real trajectories:

* **ask/tell**: the trajectories of ask/tell runs of ``tas`` (C-tracking) and ``uniform`` replayed
  in Python on a fresh strategy: the model update (``model_.update``) and the strategy's own check
  (``Strategy._should_stop``, the Python decide path), less the same loop without the check;
* **compiled**: the same trajectories replayed in a numba loop that updates the counts and sums
  (:func:`pybai.strategies._driver.record`) and runs the compiled driver's own check: the GLR statistic
  (:func:`pybai.problems.compiled.run_glr`), the gate (:func:`pybai.stopping.compiled.row_may_stop`) and the
  rule (:func:`pybai.strategies._driver.check_rule`, with the rule's row), less the loop without the check.
  (Unknown variances have no compiled run.)

Both are CPU times of whole loops (``time.process_time_ns``, the smaller of three; the machine is shared),
divided by the number of checks.

The ``heuristic`` threshold (GLR > ln((1 + ln t)/delta)) is timed beside it for reference.  Instances:
10 Gaussian arms, means linspace(1, 0, 10), sd 1 (known, and unknown variances); 10 Bernoulli arms,
means linspace(0.6, 0.15, 10); the same two with an additive epsilon (0.05 Gaussian, 0.02 Bernoulli);
delta = 0.01.  Each measurement is repeated (``--repeats``) and the
minimum and median over repeats of the mean per-check time are reported with the load average.

    .venv/bin/python benchmarks/bench_stopping_check.py [--runs 3] [--repeats 5] [--strategies tas]
        [--instances bernoulli-10 ...]

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
from pybai.problems.compiled import run_glr  # noqa: E402
from pybai.stopping.compiled import compile_rule, row_may_stop  # noqa: E402
from pybai.strategies._compiled import goal_of  # noqa: E402
from pybai.strategies._driver import Stats, check_rule, new_records, record  # noqa: E402

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
    # epsilon-best-arm identification (the leader rules on the shifted diagonal)
    "gaussian-10 eps 0.05": (lambda: BestArmProblem(K, Gaussian(1.0, n_sources=K), FixedConfidence(DELTA), epsilon=0.05),
                             GaussianEnvironment(GAUSS, 1.0)),
    "bernoulli-10 eps 0.02": (lambda: BestArmProblem(K, Bernoulli(K), FixedConfidence(DELTA), epsilon=0.02),
                              BernoulliEnvironment(BERN)),
}
STRATEGIES = {"tas": {}, "uniform": {}}


def trajectory(instance: str, strategy: str, threshold: str, seed: int):
    """One ask/tell run: (strategy, checks made, arms, rewards)."""
    make_problem, env = INSTANCES[instance]
    s = make_strategy(strategy, dict(STRATEGIES[strategy], threshold=threshold)).start(make_problem(), rng=seed)
    rng = np.random.default_rng([seed, 7])
    arms, rewards = [], []
    while not s.stopped:
        a = s.ask()
        r = env.sample(a, rng)
        arms.append(int(np.asarray(a).ravel()[0]))
        rewards.append(float(np.asarray(r).ravel()[0]))
        s.tell(a, r)
    return s, np.array(arms, dtype=np.intp), np.array(rewards)


def _python_replay(instance: str, strategy: str, threshold: str, arms, rewards, check: bool) -> tuple[int, int]:
    """The ask/tell model update (and the strategy's own check) along a recorded trajectory: (CPU ns, checks)."""
    make_problem, _ = INSTANCES[instance]
    s = make_strategy(strategy, dict(STRATEGIES[strategy], threshold=threshold)).start(make_problem(), rng=0)
    n_plan = len(s._plan)
    update, should_stop = s.model_.update, s._should_stop
    sources = [np.array([a], dtype=np.intp) for a in arms]
    values = [np.array([r]) for r in rewards]
    checks = 0
    t0 = time.process_time_ns()
    for i in range(len(sources)):
        update(sources[i], values[i])
        s.t_ += 1
        if check and i + 1 >= n_plan:
            should_stop()
            checks += 1
    return time.process_time_ns() - t0, checks


def ask_tell(instance: str, strategy: str, threshold: str, arms, rewards, repeats_inner: int = 3) -> float:
    """Nanoseconds per ask/tell check (``Strategy._should_stop``) on the recorded trajectory: the Python replay
    with the check less the replay without (CPU time of each whole loop, the smaller of three)."""
    best_with, best_without, checks = np.inf, np.inf, 0
    for _ in range(repeats_inner):
        spent, checks = _python_replay(instance, strategy, threshold, arms, rewards, True)
        best_with = min(best_with, spent)
        best_without = min(best_without, _python_replay(instance, strategy, threshold, arms, rewards, False)[0])
    return max(best_with - best_without, 0.0) / max(checks, 1)


@njit(cache=True)
def _replay(arms, rewards, n, n_plan, goal, rule, records, check):
    """The compiled runs' model update (and check) along a recorded trajectory; returns the checks made."""
    stats = Stats(np.zeros(n), np.zeros(n), np.zeros(n))
    n_rows = rule.times.shape[0]
    done = 0
    checks = 0
    for i in range(arms.shape[0]):
        record(stats.counts, stats.sums, stats.est, arms[i], rewards[i])
        t = i + 1
        if check and t >= n_plan and done < n_rows:
            z = run_glr(goal.kind, goal.code, stats.counts, stats.est, goal.var, goal.k, goal.c, goal.e)
            if row_may_stop(rule.kind, rule.times, rule.min_statistic, done, z, t):
                done = check_rule(goal, rule, stats, t, z, done, records)
            checks += 1
    return checks


def compiled(strategy_obj, arms, rewards, repeats_inner: int = 3) -> float:
    """Nanoseconds per compiled check on the recorded trajectory (loop with the check less loop without)."""
    problem = strategy_obj.problem_
    goal = goal_of(problem.run_kernels())
    fresh = type(strategy_obj.threshold_)(**strategy_obj.threshold_._params()) if strategy_obj.threshold_.stateful \
        else strategy_obj.threshold_
    n_plan = len(strategy_obj._plan)
    n = problem.n_sources
    args = (arms, rewards, n, n_plan, goal)
    _replay(*args, compile_rule([fresh]), new_records(1, n), True)  # compile
    best_with, best_without = np.inf, np.inf
    checks = 0
    for _ in range(repeats_inner):
        rule = compile_rule([fresh])  # a fresh state (the leader rule's rows advance theirs)
        t0 = time.process_time_ns()
        checks = _replay(*args, rule, new_records(1, n), True)
        best_with = min(best_with, time.process_time_ns() - t0)
        rule = compile_rule([fresh])
        t0 = time.process_time_ns()
        _replay(*args, rule, new_records(1, n), False)
        best_without = min(best_without, time.process_time_ns() - t0)
    return max(best_with - best_without, 0.0) / max(checks, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="trajectories per cell (seeds 1..runs)")
    ap.add_argument("--repeats", type=int, default=5, help="repetitions of every measurement")
    ap.add_argument("--instances", nargs="+", default=list(INSTANCES), choices=list(INSTANCES))
    ap.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    ap.add_argument("--thresholds", nargs="+", default=["delta-correct", "heuristic"],
                    help="threshold kinds timed side by side (default: delta-correct and heuristic)")
    args = ap.parse_args(argv)
    doc = {"machine": bc.machine(), "args": vars(args), "load_start": bc.load(), "rows": []}
    for instance in args.instances:
        for strategy in args.strategies:
            for threshold in args.thresholds:
                ask_us, comp_us, loads, checks = [], [], [], 0
                _, arms, rewards = trajectory(instance, strategy, threshold, 0)  # loads numba's cached kernels
                ask_tell(instance, strategy, threshold, arms[:200], rewards[:200], 1)
                for _ in range(args.repeats):
                    per_ask, per_comp, n_checks = [], [], 0
                    for seed in range(1, args.runs + 1):
                        s, arms, rewards = trajectory(instance, strategy, threshold, seed)
                        n = arms.size - len(s._plan) + 1
                        per_ask.append((ask_tell(instance, strategy, threshold, arms, rewards), n))
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
