"""The leader rules at Track-and-Stop's optimal allocation, without noise: where the prior's scales cost.

For each instance: the counts are t w*(mu) (the oracle weights), the empirical means are the true means, and every
hypothesis' leader has followed the best arm from the start (one segment).  Printed:

* for 5 Gaussian arms at a pair GLR of 8.3 (t = 1853), ln E_j at its infimum over H_j for each j, with the common
  scale (``"leader"``), independent scales (1/J^2 on every pair of scales) and half and half (``"leader-scales"``);
* per instance and delta, the smallest t at which the rule stops, for the weight p of the independent-scales part
  p = 0 (``"leader"``), 1/4, 1/2 (``"leader-scales"``), 3/4.

Usage::

    python benchmarks/thresholds/ideal_allocation.py
"""

from __future__ import annotations

import math

import numpy as np

from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.problems.best_arm._kernels import oracle_best_arm_warm
from pybai.stopping._leader_kernels import _gauss_eval, leader_min_margin, state_size
from pybai.stopping._tilt_kernels import scale_constants, tilt_caps
from pybai.stopping.pair_mixture import DEFAULT_SCALES

SCALES = np.array(DEFAULT_SCALES, dtype=float)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)
INSTANCES = (("g5", [1.0, 0.8, 0.6, 0.4, 0.2], GAUSSIAN),
             ("g10", [1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -0.2, -0.4, -0.6, -0.8], GAUSSIAN),
             ("mu1", [0.5, 0.45, 0.43, 0.4], BERNOULLI), ("mu2", [0.3, 0.21, 0.2, 0.19, 0.18], BERNOULLI))


def ideal_state(k, best):
    state = np.zeros(state_size(k))
    state[:k] = best
    state[best] = 1 if best == 0 else 0
    return state


def stopping_time(means, code, delta, product):
    k = means.size
    var = np.ones(k) if code == GAUSSIAN else np.zeros(k)
    w = oracle_best_arm_warm(code, means, var, np.zeros(k + 1))[1]
    best = int(np.argmax(means))

    def margin(t):
        counts = w * t
        return leader_min_margin(ideal_state(k, best), code, counts, means * counts, means.copy(), var, SCALES, EMAX,
                                 CONSTS, math.log(1.0 / delta), False, product)

    lo, hi = 1.0, 1e7
    for _ in range(50):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if margin(mid) > 0.0 else (mid, hi)
    return hi


def per_hypothesis(t=1853.0):
    means = np.array(INSTANCES[0][1])
    k = means.size
    var = np.ones(k)
    w = oracle_best_arm_warm(GAUSSIAN, means, var, np.zeros(k + 1))[1]
    counts = w * t
    sums = means * counts
    state = ideal_state(k, 0)
    n = 3 * SCALES.size + 2
    buf = (np.empty(n), np.empty(n), np.empty(n))
    print(f"5 Gaussian arms, counts {np.round(counts).astype(int).tolist()}: inf over H_j of ln E_j")
    for j in range(1, k):
        xs = np.linspace(means[j], means[0], 4001)
        row = []
        for product in (0.0, 1.0 - 1e-12, 0.5):
            row.append(min(_gauss_eval(x, state, j, 0, counts, sums, var, SCALES, *buf, product)[0] for x in xs))
        glr = counts[0] * counts[j] / (counts[0] + counts[j]) * (means[0] - means[j]) ** 2 / 2
        print(f"  j = {j}  pair GLR {glr:.2f}  common {row[0]:.2f}  independent {row[1]:.2f}  half and half {row[2]:.2f}")


def main():
    per_hypothesis()
    print("smallest t at which the rule stops, p = 0 / 0.25 / 0.5 / 0.75")
    for name, means, code in INSTANCES:
        for delta in (0.1, 0.01):
            ts = [stopping_time(np.array(means), code, delta, p) for p in (0.0, 0.25, 0.5, 0.75)]
            print(f"  {name:4s} delta {delta:<5} " + " / ".join(f"{t:.0f}" for t in ts))


if __name__ == "__main__":
    main()
