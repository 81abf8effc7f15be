"""The best-arm oracle (T*(mu), w*(mu)) against a generic scipy solve of the same problem, same process.

pybai's ``BestArmProblem.oracle`` solves Garivier & Kaufmann (2016), Theorem 5, with nested
Newton iterations in numba.  The reference is the textbook formulation solved by a generic
solver:

    1 / T*(mu) = max over w in the simplex of  min over a != best of  g_a(w),
    g_a(w) = inf over x of  w_best d(mu_best, x) + w_a d(mu_a, x),

with ``scipy.optimize.minimize(method="SLSQP")`` on (w, s): maximise s subject to s <= g_a(w)
and sum w = 1, where g_a is the closed form Delta^2 / (2 (sigma_best^2 / w_best + sigma_a^2 / w_a))
for Gaussian arms and a bounded ``minimize_scalar`` over x in [mu_a, mu_best] for Bernoulli arms.

Reported per instance: CPU seconds per call of each (``time.process_time``, the machine is
shared), their ratio, and the relative difference of T* (the reference is an approximate solve:
pybai's value must be at most the reference's, up to the solver's tolerance).

    PYTHONPATH=src python benchmarks/bench_oracles.py [--quick]

Writes benchmarks/results/bench_oracles.json (``..._quick.json`` with --quick).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np
from scipy.optimize import minimize, minimize_scalar

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _bench_common import load, machine, write_json  # noqa: E402

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian  # noqa: E402

INSTANCES = {
    "gaussian-5": ("gaussian", np.array([1.0, 0.8, 0.6, 0.4, 0.2])),
    "gaussian-10": ("gaussian", np.linspace(1.0, 0.0, 10)),
    "gk16-mu1": ("bernoulli", np.array([0.5, 0.45, 0.43, 0.4])),
    "gk16-mu2": ("bernoulli", np.array([0.3, 0.21, 0.2, 0.19, 0.18])),
}


def _kl_bernoulli(p, q):
    q = min(max(q, 1e-12), 1 - 1e-12)
    out = 0.0
    if p > 0:
        out += p * np.log(p / q)
    if p < 1:
        out += (1 - p) * np.log((1 - p) / (1 - q))
    return out


def reference_oracle(family: str, mu: np.ndarray, sigma2: float = 1.0) -> tuple[float, np.ndarray]:
    """T*(mu) and w*(mu) by SLSQP on the max-min formulation (see the module docstring)."""
    best = int(np.argmax(mu))
    others = [a for a in range(mu.size) if a != best]

    def g(w, a):
        wb, wa = max(w[best], 1e-12), max(w[a], 1e-12)
        if family == "gaussian":
            return (mu[best] - mu[a]) ** 2 / (2.0 * (sigma2 / wb + sigma2 / wa))
        res = minimize_scalar(lambda x: wb * _kl_bernoulli(mu[best], x) + wa * _kl_bernoulli(mu[a], x),
                              bounds=(mu[a], mu[best]), method="bounded", options={"xatol": 1e-12})
        return res.fun

    k = mu.size
    x0 = np.r_[np.full(k, 1.0 / k), 0.0]
    cons = [{"type": "eq", "fun": lambda z: z[:k].sum() - 1.0}]
    cons += [{"type": "ineq", "fun": (lambda z, a=a: g(z[:k], a) - z[k])} for a in others]
    res = minimize(lambda z: -z[k], x0, method="SLSQP", bounds=[(0.0, 1.0)] * k + [(0.0, None)],
                   constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
    return 1.0 / res.x[k], res.x[:k]


def cpu_per_call(fn, min_seconds: float) -> float:
    fn()  # warm-up (numba cache load)
    n, used = 0, 0.0
    while used < min_seconds:
        start = time.process_time()
        fn()
        used += time.process_time() - start
        n += 1
    return used / n


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing windows")
    args = parser.parse_args(argv)
    window = 0.2 if args.quick else 1.0
    rows = []
    load_before = load()
    for name, (family, mu) in INSTANCES.items():
        fam = Gaussian(1.0, n_sources=mu.size) if family == "gaussian" else Bernoulli(n_sources=mu.size)
        problem = BestArmProblem(mu.size, fam, FixedConfidence(0.1))
        t_pybai, w_pybai = problem.oracle(mu)
        t_ref, w_ref = reference_oracle(family, mu)
        ours = cpu_per_call(lambda: problem.oracle(mu), window)
        ref = cpu_per_call(lambda: reference_oracle(family, mu), window)
        rows.append({
            "instance": name, "family": family, "K": int(mu.size),
            "t_star_pybai": float(t_pybai), "t_star_reference": float(t_ref),
            "relative_difference": float((t_ref - t_pybai) / t_pybai),
            "max_weight_difference": float(np.max(np.abs(w_pybai - w_ref))),
            "cpu_seconds_per_call_pybai": ours, "cpu_seconds_per_call_reference": ref,
            "speedup": ref / ours,
        })
    result = {"benchmark": "bench_oracles", "machine": machine(), "load": [load_before, load()], "rows": rows}
    write_json("bench_oracles_quick.json" if args.quick else "bench_oracles.json", result)
    for r in rows:
        print(f"{r['instance']:12} T* pybai {r['t_star_pybai']:10.3f} scipy {r['t_star_reference']:10.3f} "
              f"({r['relative_difference']:+.1e})  CPU/call pybai {r['cpu_seconds_per_call_pybai'] * 1e6:8.1f} us  "
              f"scipy {r['cpu_seconds_per_call_reference'] * 1e6:9.1f} us  x{r['speedup']:.0f}")
    return result


if __name__ == "__main__":
    main()
