"""Track-and-Stop's guardrail oracle solved lazily (oracle_growth = 0.25) against at every step, on two guardrail
instances other than guardrails-latency: K = 3 with the best revenue infeasible (latency correlated -0.5 with
revenue), and K = 4 with a refund non-inferiority margin against the control (two hubs), both T* about 47;
100 seeded replications per row, delta = 0.05, the heuristic and the proven threshold (docs/guardrails.md).

    .venv/bin/python benchmarks/guardrails_oracle_schedule.py
"""

import dataclasses
import math
import numpy as np
from pybai.config.experiment import parse_sweep
from pybai.simulate.montecarlo import run_outcomes
from pybai.strategies import make_strategy


def doc(name, metrics, env_metrics, corr):
    return {"name": name, "replications": 100, "seed": 7,
            "problem": {"goal": "best-arm", "delta": 0.05, "max_samples": 100000, "metric": metrics},
            "environment": {"kind": "multi-metric", "labels": ["a", "b", "c", "d"][:len(env_metrics[0]["means"])],
                            "correlation": corr, "metric": env_metrics},
            "strategy": [{"name": "uniform"}]}
I1 = doc("infeasible-best", [{"name": "revenue"}, {"name": "latency", "sigma": 0.8, "at_most": 0.0}],
         [{"name": "revenue", "kind": "gaussian", "means": [0.0, 0.6, 1.0], "sigma": 1.0},
          {"name": "latency", "kind": "gaussian", "means": [-0.3, -0.2, 0.4], "sigma": 0.8}], [[1, -0.5], [-0.5, 1]])
I2 = doc("relative", [{"name": "revenue"}, {"name": "latency", "sigma": 0.8, "at_most": 1.0},
                      {"name": "refunds", "sigma": 0.5, "at_most_vs_control": 0.1}],
         [{"name": "revenue", "kind": "gaussian", "means": [0.0, 0.7, 1.0, 0.4], "sigma": 1.0},
          {"name": "latency", "kind": "gaussian", "means": [0.0, 0.2, 0.3, 1.3], "sigma": 0.8},
          {"name": "refunds", "kind": "gaussian", "means": [0.3, 0.1, 0.7, 0.3], "sigma": 0.5}],
         [[1, 0.3, 0.2], [0.3, 1, 0.0], [0.2, 0.0, 1]])


def main():
    for d in (I1, I2):
        exp = parse_sweep(d, default_name=d["name"])[0]
        strats = [(f"{thr} og={og}", make_strategy("tas", threshold=thr, oracle_growth=og))
                  for thr in ("heuristic", "delta-correct") for og in (0.25, 0.0)]
        exp = dataclasses.replace(exp, strategies=strats)
        p, mu = exp.problem, np.asarray(exp.environment.source_means, float)
        t_star = p.oracle(mu)[0]; beta = p.threshold("heuristic", p.delta)
        print(d["name"], "T* =", round(t_star, 2), flush=True)
        for (lab, _), outs in zip(strats, run_outcomes(exp)):
            tau = np.array([o.samples for o in outs], float)
            r = tau / np.array([t_star * beta(int(n)) for n in tau])
            print(f"  {lab:22s} tau {tau.mean():7.1f} +- {tau.std(ddof=1)/math.sqrt(tau.size):5.1f}  ratio {r.mean():.3f} +- {r.std(ddof=1)/math.sqrt(r.size):.3f}"
                  f"  err {sum(not o.correct for o in outs)} cens {sum(o.status != 'stopped' for o in outs)}", flush=True)


if __name__ == "__main__":
    main()
