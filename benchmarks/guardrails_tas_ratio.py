"""Why Track-and-Stop stops at tau / (T* beta(tau)) > 1 on guardrails-latency: a decomposition by variants.

On the shipped experiment ``guardrails-latency`` (the seeds of the file, the heuristic threshold
beta(t) = ln((1 + ln t)/delta)), Track-and-Stop and variants that remove one cause at a time:

* ``tas``: C-tracking, the oracle solved at every step (``oracle_growth = 0``);
* ``tas lazy``: as shipped, the oracle solved again only once t has grown by 25% (``oracle_growth = 0.25``);
* ``tas D`` / ``tas D lazy``: D-tracking (direct tracking, forced exploration of arms under sqrt(t) - K/2);
* ``plug-in no forcing``: w*(mu_hat) tracked directly (argmax t w_a - N_a) with no forced exploration;
* ``true w*``: C-tracking of the *true* w*(mu) (a reference told the truth): the allocation is optimal, what
  remains is the noise of the empirical GLR at this threshold; ``true w* no forcing``: the same, direct tracking.

Per run, with N(tau) the counts at the stop and v(w) = min over items of max over tests of the statistic per
sample at the true means (T* = 1 / max_w v(w)), the ratio splits exactly as

    tau / (T* beta(tau)) = A x R,   A = 1 / (T* v(N(tau)/tau))   (the allocation at the stop, >= 1),
                                    R = tau v(N(tau)/tau) / beta(tau)   (the true GLR at the stop over the threshold);

R < 1 means the empirical GLR crossed the threshold above the true one (the run stopped on favourable noise).

With ``--best-arm``, the same comparison on an unconstrained best-arm instance of the same T* (four Gaussian arms,
sigma 1, the gaps of [1, 0.85, 0.8, 0.7] scaled to T* = T* of guardrails-latency).

    .venv/bin/python benchmarks/guardrails_tas_ratio.py --runs 200 [--delta 1e-3] [--only tas "true w*"] [--best-arm]

Writes ``benchmarks/results/guardrails_tas_ratio[_delta...][_best_arm].json``.
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
from pybai.problems.guardrails.oracle import rule_value  # noqa: E402
from pybai.simulate.montecarlo import run_outcomes  # noqa: E402
from pybai.strategies import make_strategy  # noqa: E402
from pybai.strategies.track_and_stop import TrackAndStop  # noqa: E402


class TrueWeights(TrackAndStop):
    """A reference, not a strategy: Track-and-Stop of the true w*(mu) (told the truth by the simulation)."""

    name = "tas-true-weights"
    reference = True

    def __init__(self, *, forcing: bool = True, **kwargs):
        super().__init__(**kwargs)
        self.forcing = forcing

    def reveal_truth(self, means) -> None:
        self._true_w = self.requests_.weights(np.asarray(self.problem_.oracle(np.asarray(means, dtype=float))[1]))

    def _target_weights(self):
        return self._true_w

    def _select(self):
        if self.forcing:
            return self.tracker_.select(self._target_weights, self.counts_, self.t_, self.model_, self.rng_)
        return int(np.argmax((self.t_ + 1) * self._true_w - self.requests_.counts(self.counts_)))


class PlugInNoForcing(TrackAndStop):
    """Track-and-Stop of w*(mu_hat) tracked directly (argmax t w_a - N_a), without forced exploration."""

    name = "tas-no-forcing"

    def _select(self):
        w = self._target_weights()
        return int(np.argmax((self.t_ + 1) * w - self.requests_.counts(self.counts_)))


def variants() -> dict:
    h = {"threshold": "heuristic"}
    return {"tas": make_strategy("tas", oracle_growth=0.0, **h),
            "tas lazy": make_strategy("tas", oracle_growth=0.25, **h),
            "tas D": make_strategy("tas", tracking="D", oracle_growth=0.0, **h),
            "tas D lazy": make_strategy("tas", tracking="D", oracle_growth=0.25, **h),
            "plug-in no forcing": PlugInNoForcing(**h),
            "true w*": TrueWeights(**h),
            "true w* no forcing": TrueWeights(forcing=False, **h)}


def best_arm_document(runs: int, delta: float, t_target: float) -> dict:
    """Four Gaussian arms, sigma 1, the gaps of [1, 0.85, 0.8, 0.7] scaled so that T* = ``t_target``."""
    base = np.array([1.0, 0.85, 0.8, 0.7])

    def doc(means):
        return {"name": "best-arm-same-t-star", "replications": runs, "seed": 38,
                "problem": {"goal": "best-arm", "delta": delta},
                "environment": {"kind": "gaussian", "means": [float(m) for m in means], "sigma": 1.0},
                "strategy": [{"name": "uniform"}]}

    exp = parse_sweep(doc(base), default_name="best-arm")[0]
    t0 = exp.problem.oracle(np.asarray(exp.environment.source_means, dtype=float))[0]
    return doc(base[0] + (base - base[0]) * math.sqrt(t0 / t_target))  # T* scales as 1 / gap^2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--delta", type=float, default=None, help="another delta than the file's 0.05")
    ap.add_argument("--only", nargs="*", default=None, help="only these variants")
    ap.add_argument("--best-arm", action="store_true", help="the unconstrained best-arm instance of the same T*")
    args = ap.parse_args(argv)
    document = read_document(experiment_path("guardrails-latency"))
    if args.delta is not None:
        document["problem"]["delta"] = args.delta
    exp = parse_sweep(document, default_name="guardrails-latency")[0]
    if args.best_arm:
        t_guard = exp.problem.oracle(np.asarray(exp.environment.source_means, dtype=float))[0]
        exp = parse_sweep(best_arm_document(args.runs, exp.problem.delta, t_guard), default_name="best-arm")[0]
    chosen = [(label, st) for label, st in variants().items()
              if (args.only is None or label in args.only) and not (args.best_arm and label == "plug-in no forcing")]
    exp = dataclasses.replace(exp, replications=args.runs, strategies=chosen)
    problem, mu = exp.problem, np.asarray(exp.environment.source_means, dtype=float)
    t_star, w_star = problem.oracle(mu)
    w_arm = problem.request_space().weights(np.asarray(w_star))
    beta = problem.threshold("heuristic", problem.delta)
    info = machine()
    print(machine_line(info))
    print(f"{'best-arm, means ' + str(np.round(mu, 4).tolist()) if args.best_arm else 'guardrails-latency'}, "
          f"delta = {problem.delta}, {args.runs} runs; T*(mu) = {t_star:.3f}, w* = {np.round(w_arm, 4).tolist()}")
    results, rows = {}, []
    for (label, _), runs in zip(exp.strategies, run_outcomes(exp)):
        tau = np.array([o.samples for o in runs], dtype=float)
        ratio = tau / np.array([t_star * beta(int(n)) for n in tau])
        r = {"tau": float(tau.mean()), "ratio_mean": float(ratio.mean()),
             "ratio_se": float(ratio.std(ddof=1) / math.sqrt(ratio.size)), "ratio_median": float(np.median(ratio)),
             "errors": int(sum(not o.correct for o in runs if o.status == "stopped")),
             "censored": int(sum(o.status != "stopped" for o in runs))}
        if not args.best_arm:  # the split A x R at the stop
            tests = problem.tests(problem.answer(mu))
            props = np.array([np.asarray(o.counts, dtype=float).reshape(problem.source_shape)[:, 0] / o.samples
                              for o in runs])
            v = np.array([rule_value(tests, p, mu.ravel(), problem.variances, problem.n_metrics) for p in props])
            A, R = 1.0 / (t_star * v), tau * v / np.array([beta(int(n)) for n in tau])
            r.update(A_median=float(np.median(A)), R_median=float(np.median(R)),
                     proportions=np.round(props.mean(axis=0), 3).tolist())
        results[label] = r
        rows.append([label, f"{r['tau']:.1f}", f"{r['ratio_mean']:.3f} +- {r['ratio_se']:.3f}", f"{r['ratio_median']:.3f}",
                     f"{r['A_median']:.2f}" if "A_median" in r else "", f"{r['R_median']:.2f}" if "R_median" in r else "",
                     r.get("proportions", ""), r["errors"], r["censored"]])
        print(f"  {label}: done", flush=True)
    print(table(["variant", "mean tau", "tau / (T* beta(tau))", "median", "A (median)", "R (median)",
                 "N(tau) / tau (mean)", "errors", "censored"], rows))
    suffix = ("" if args.delta is None else f"_delta{args.delta:g}") + ("_best_arm" if args.best_arm else "")
    write_json(f"guardrails_tas_ratio{suffix}.json", {"machine": info, "runs": args.runs, "t_star": t_star,
                                                      "w_star": w_arm.tolist(), "results": results})


if __name__ == "__main__":
    main()
