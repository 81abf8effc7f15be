"""Timing of the BAICS oracle and GLR (K=4 arms, L=3 subpopulations; paper's example 2).

Run: .venv/bin/python benchmarks/bench_feasible_oracle.py
Prints the mean wall time per call after numba warm-up.
"""

from __future__ import annotations

import time

import numpy as np

from pybai.problems.feasible.oracle import feasible_glr, feasible_oracle

MU = np.array([[-0.2, 0.4, 1.2], [0.2, 0.6, 0.6], [0.3, 0.3, 0.6], [-0.6, 0.8, 0.4]])
Q = np.full(3, 1.0 / 3.0)
CONSTRAINED = np.array([True, True, True])
FLOORS = np.zeros(3)
SIGMA2 = np.ones((4, 3))


def per_call(fn, n):
    fn()  # warm-up (numba compilation / cache load)
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def main():
    rng = np.random.default_rng(0)
    counts = rng.integers(5, 200, size=(4, 3)).astype(float)
    means = MU + rng.normal(0, 0.05, size=MU.shape)
    near = MU + rng.normal(0, 0.002, size=MU.shape)  # next step of a sampling loop

    T, w = feasible_oracle(MU, Q, CONSTRAINED, FLOORS, SIGMA2)
    Ta, wa = feasible_oracle(MU, Q, CONSTRAINED, FLOORS, SIGMA2, sampling="arm")
    print(f"example 2: T* pair = {T:.6f}, T* arm = {Ta:.6f}")

    rows = [
        ("oracle pair (cold start)", lambda: feasible_oracle(MU, Q, CONSTRAINED, FLOORS, SIGMA2), 300),
        ("oracle pair (warm start)",
         lambda: feasible_oracle(near, Q, CONSTRAINED, FLOORS, SIGMA2, warm_start=w), 300),
        ("oracle arm  (cold start)",
         lambda: feasible_oracle(MU, Q, CONSTRAINED, FLOORS, SIGMA2, sampling="arm"), 300),
        ("oracle pair tol=1e-6", lambda: feasible_oracle(MU, Q, CONSTRAINED, FLOORS, SIGMA2, tol=1e-6), 300),
        ("glr", lambda: feasible_glr(counts, means, Q, CONSTRAINED, FLOORS, SIGMA2), 20000),
    ]
    for name, fn, n in rows:
        print(f"{name:28s} {per_call(fn, n) * 1e6:9.2f} us/call")


if __name__ == "__main__":
    main()
