"""Mean stopping time of the lazy tas and game on random linear instances, in units of T*(theta) beta.

For each instance: K arms ~ N(0, I_d), theta ~ N(0, I_d) rescaled so the gap of the two best
arms is ``gap``; sigma = 1.  A strategy stopping exactly when t / T* reaches the heuristic
threshold beta(t) = ln((1 + ln t)/delta) would score 1.0.  Writes
benchmarks/results/linear/random_instances.json.

    PYTHONPATH=src python benchmarks/linear_random_instances.py
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from pybai import make_strategy
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem

DELTA, K, D, GAP, INSTANCES, RUNS = 0.05, 10, 4, 0.3, 10, 30
#: label -> (strategy, parameters); tas and game force the exploration of the design by default on
#: linear problems, the "-arms" rows force every arm (C-tracking's projection) as before 2026-11-23
STRATEGIES = {"tas": ("tas", {"check_growth": 0.002, "oracle_growth": 1.0}),
              "game": ("game", {"check_growth": 0.02}),
              "tas-arms": ("tas", {"check_growth": 0.002, "oracle_growth": 1.0, "exploration": "arms"}),
              "game-arms": ("game", {"check_growth": 0.02, "exploration": "arms"})}


def beta_solution(t_star: float) -> float:
    """The t with t = T* ln((1 + ln t)/delta)."""
    t = 10 * t_star
    for _ in range(200):
        t = t_star * math.log((1 + math.log(t)) / DELTA)
    return t


def main():
    rng = np.random.default_rng(7)
    rows = []
    for i in range(INSTANCES):
        x = rng.normal(size=(K, D))
        theta = rng.normal(size=D)
        m = np.sort(x @ theta)
        theta *= GAP / (m[-1] - m[-2])
        env = LinearGaussianEnvironment(x, theta, 1.0)
        p = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(DELTA, max_samples=10_000_000))
        t_star = p.oracle(env.source_means)[0]
        target = beta_solution(t_star)
        for label, (name, params) in STRATEGIES.items():
            samples, errors, cpu = [], 0, time.process_time()
            for r in range(RUNS):
                s = make_strategy(name, **params).start(p, rng=1000 * i + r)
                noise = np.random.default_rng(1000 * i + r)
                while not s.stopped:
                    s.tell(*env.respond(s.ask(), noise))
                samples.append(s.t_)
                errors += s.recommendation() != p.answer(env.source_means)
            rows.append({"instance": i, "strategy": label, "t_star": t_star, "t_star_beta": target,
                         "mean_samples": float(np.mean(samples)), "ratio": float(np.mean(samples) / target),
                         "errors": int(errors), "cpu_seconds_per_run": (time.process_time() - cpu) / RUNS})
            print(rows[-1], flush=True)
    summary = {name: {"mean_ratio": float(np.mean([r["ratio"] for r in rows if r["strategy"] == name])),
                      "max_ratio": float(np.max([r["ratio"] for r in rows if r["strategy"] == name])),
                      "ci95_mean_ratio": float(1.96 * np.std([r["ratio"] for r in rows if r["strategy"] == name], ddof=1)
                                               / math.sqrt(INSTANCES)),
                      "errors": int(sum(r["errors"] for r in rows if r["strategy"] == name))} for name in STRATEGIES}
    out = Path(__file__).parent / "results" / "linear" / "random_instances.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"settings": {"delta": DELTA, "K": K, "d": D, "gap": GAP, "instances": INSTANCES,
                                            "runs": RUNS}, "summary": summary, "rows": rows}, indent=1))
    print(summary)


if __name__ == "__main__":
    main()
