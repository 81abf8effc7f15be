"""CPU time of one stopping check of the top-k set rule (kind "topk-leader", docs/thresholds.md).

Top-3 of ten Gaussian arms [1.0, 0.8, ..., -0.8], sigma = 1: five paths of 3,000 samples (half uniform, half one of
arms 1 to 4), the run's own step (`topk_step`: track, advance the leaders, decide) after each sample from the 10th,
timed with `time.process_time` over each path (CPU time, robust to the machine's load).

    python benchmarks/thresholds/topk_leader_speed.py
"""

from __future__ import annotations

import math
import time

import numpy as np

from pybai.models._kl import GAUSSIAN
from pybai.stopping._topk_leader_kernels import topk_state_size, topk_step
from pybai.stopping.pair_mixture import DEFAULT_SCALES
from pybai.stopping.topk_leader import default_cap

K, k = 10, 3
MEANS = np.linspace(1.0, -0.8, K)


def paths(n, horizon, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        counts, sums, steps = np.zeros(K), np.zeros(K), []
        for t in range(horizon):
            a = t if t < K else (int(rng.integers(K)) if rng.random() < 0.5 else int(rng.choice([1, 2, 3, 4])))
            counts[a] += 1
            sums[a] += MEANS[a] + rng.standard_normal()
            if t + 1 >= K:
                steps.append((counts.copy(), sums.copy(), sums / counts))
        out.append(steps)
    return out


def main() -> None:
    scales, cap, var, seen = np.array(DEFAULT_SCALES), default_cap(K, k), np.ones(K), np.zeros(K)
    level, limit = math.log(10.0), 4 * k * (K - k)
    runs = paths(5, 3000, 0)
    warm = np.zeros(topk_state_size(K, k, cap))
    topk_step(warm, K, k, cap, GAUSSIAN, *runs[0][5], var, 2.0, 2.0, scales, level, limit, seen)  # compile
    for steps in runs:
        state = np.zeros(topk_state_size(K, k, cap))
        t0 = time.process_time()
        for counts, sums, means in steps:
            topk_step(state, K, k, cap, GAUSSIAN, counts, sums, means, var, 2.0, 2.0, scales, level, limit, seen)
        cpu = time.process_time() - t0
        print(f"{cpu / len(steps) * 1e6:.1f} us per check (CPU), {int(state[0])} sets tracked")


if __name__ == "__main__":
    main()
