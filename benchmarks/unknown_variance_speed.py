"""CPU time per sample of Track-and-Stop, told the variances or estimating them (5 arms, delta = 0.01).

    .venv/bin/python benchmarks/unknown_variance_speed.py

Same instance and seeds for both; the first 200 samples (numba compilation) are not timed.
"""

from __future__ import annotations

import time

import numpy as np

from _bench_common import machine, machine_line
from pybai import BestArmProblem, FixedConfidence, Gaussian, GaussianEnvironment, GaussianUnknownVariance
from pybai import make_strategy


def main():
    print(machine_line(machine()))
    means, sd = -np.linspace(0.0, 1.0, 5), np.array([1.0, 0.5, 2.0, 1.5, 0.75])
    env = GaussianEnvironment(means, sd)
    print("| learner | threshold | samples | CPU us / sample |\n| --- | --- | ---: | ---: |")
    for family in (Gaussian(sd, n_sources=5), GaussianUnknownVariance(5)):
        for threshold in ("heuristic", "delta-correct"):
            s = make_strategy("tas", {"threshold": threshold}).start(
                BestArmProblem(5, family, FixedConfidence(0.01, max_samples=20_000)), rng=0)
            rng = np.random.default_rng(1)
            for _ in range(200):
                a = s.ask()
                s.tell(a, env.sample(a, rng))
            start, t0 = time.process_time(), s.t_
            while not s.stopped:
                a = s.ask()
                s.tell(a, env.sample(a, rng))
            cost = (time.process_time() - start) / max(s.t_ - t0, 1) * 1e6
            print(f"| {family.name} | {threshold} | {s.t_} | {cost:.1f} |")


if __name__ == "__main__":
    main()
