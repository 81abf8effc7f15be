"""Timing of the linear best-arm math: GLR, statistic from a model, oracle (cold and warm), G/XY designs.

Instances: the red-wine data (K = 1,599 wines, d = 12; path as first argument, default
/work/shared/data/winequality-red.csv) and the section-6 instance of Soare et al. (d = 5,
omega = 0.01).  Warm oracle calls follow a drifting estimate (theta + small noise that shrinks
like 1/sqrt(t)), the pattern Track-and-Stop produces.  Prints a markdown table and writes
benchmarks/results/bench_linear_oracle.json.

    PYTHONPATH=src python benchmarks/bench_linear_oracle.py [WINE_CSV]
"""

from __future__ import annotations

import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import load, machine, machine_line, table, write_json  # noqa: E402

from pybai.design import g_optimal_design, xy_design  # noqa: E402
from pybai.environments.linear_instances import soare_environment, wine_environment  # noqa: E402
from pybai.problems import FixedConfidence  # noqa: E402
from pybai.problems.linear import LinearBestArmProblem  # noqa: E402


def timed(fn, repeat):
    out = None
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    return (time.perf_counter() - start) / repeat, out


def bench(name, env, rng, warm_calls=30):
    p = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05))
    x, theta, means = env.features, env.theta, env.source_means
    rows, doc = [], {}
    counts = rng.integers(1, 50, size=x.shape[0]).astype(float)
    sec, _ = timed(lambda: p.glr(counts, means), 200)
    rows.append([name, "glr(counts, means)", f"{sec * 1e6:.0f} us", ""])
    doc["glr_us"] = sec * 1e6
    model = p.new_model()
    model.update(np.repeat(np.arange(x.shape[0]), 2), env.sample(np.repeat(np.arange(x.shape[0]), 2), rng))
    sec, _ = timed(lambda: p.statistic(model), 200)
    rows.append([name, "statistic(model)", f"{sec * 1e6:.0f} us", ""])
    doc["statistic_us"] = sec * 1e6
    sec, _ = timed(lambda: model.update(np.array([3]), np.array([0.1])), 500)
    rows.append([name, "model.update (1 sample)", f"{sec * 1e6:.0f} us", ""])
    doc["update_us"] = sec * 1e6
    sec, res = timed(lambda: p.oracle_result(means), 3)
    rows.append([name, "oracle cold", f"{sec * 1e3:.1f} ms", f"T* = {res.value:.6g}, gap {res.relative_gap:.1e}"])
    doc.update(oracle_cold_ms=sec * 1e3, t_star=res.value, gap=res.relative_gap)
    hint = p.oracle_hint()
    p.oracle_result(means, hint)
    times, gaps = [], []
    for t in range(1, warm_calls + 1):
        noisy = x @ (theta + rng.normal(size=theta.size) * 0.02 / np.sqrt(t))
        start = time.perf_counter()
        r = p.oracle_result(noisy, hint)
        times.append(time.perf_counter() - start)
        gaps.append(r.relative_gap)
    rows.append([name, f"oracle warm ({warm_calls} drifting calls)", f"{np.mean(times) * 1e3:.1f} ms",
                 f"max {np.max(times) * 1e3:.1f} ms, worst gap {max(gaps):.1e}"])
    doc.update(oracle_warm_ms=float(np.mean(times) * 1e3), oracle_warm_max_ms=float(np.max(times) * 1e3))
    sec, g = timed(lambda: g_optimal_design(x), 1)
    rows.append([name, "G-optimal design (rtol 1e-6)", f"{sec * 1e3:.1f} ms", f"{g.iterations} FW steps"])
    doc["g_design_ms"] = sec * 1e3
    sec, xy = timed(lambda: xy_design(x, rtol=1e-4), 1)
    rows.append([name, "XY design, all pairs (rtol 1e-4)", f"{sec * 1e3:.1f} ms", f"value {xy.value:.4g}"])
    doc["xy_design_ms"] = sec * 1e3
    return rows, doc


def main():
    wine = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/winequality-red.csv")
    rng = np.random.default_rng(2024)
    info = machine()
    rows, docs = [], {"machine": info, "load_before": load()}
    r, docs["soare_d5"] = bench("section 6, d=5", soare_environment(5), rng)
    rows += r
    r, docs["wine"] = bench("wine K=1599 d=12", wine_environment(wine), rng)
    rows += r
    docs["load_after"] = load()
    print(machine_line(info))
    print(table(["instance", "operation", "time", "note"], rows))
    write_json("bench_linear_oracle.json", docs)


if __name__ == "__main__":
    main()
