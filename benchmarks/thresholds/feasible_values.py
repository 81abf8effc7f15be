"""Best-feasible-arm family: the GLR each rule needs at the optimal allocation w*(mu) of an instance.

Usage: python benchmarks/thresholds/feasible_values.py

For t samples spread as t w*(mu), the GLR is t / T*(mu); the new delta-correct rule stops at the t where
its smallest piece margin reaches 0 (found by brentq).  Printed: that t, the GLR there, and at the same
t the heuristic ln((1 + ln t)/delta) and the t-only KK21 threshold it replaces.
"""
import sys
from pathlib import Path

from scipy.optimize import brentq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
from pybai.config import load_experiment  # noqa: E402
from pybai.stopping.heuristic import HeuristicThreshold  # noqa: E402

HERE = Path(__file__).resolve().parent
for name in ("baics1", "baics2", "star"):
    exp = load_experiment(HERE / f"cost-{name}.toml")
    p = exp.problem
    mu = exp.environment.means if hasattr(exp.environment, "means") else None
    mu = p._matrix(mu)
    w = p.oracle(mu)[1].reshape(p.source_shape)
    for delta in (0.1, 0.05, 0.01):
        th = p.threshold("delta-correct", delta)
        t = brentq(lambda t: th.min_margin(w * t, mu, p.weights, p.floor, p.cmask, p.variances), 1.0, 1e9)
        print(f"{name:7s} delta {delta:5.2f}  t {t:8.0f}  GLR needed {p.glr(w * t, mu):6.2f}  "
              f"heuristic {HeuristicThreshold(delta)(t):5.2f}  KK21 t-only {th(t):6.2f}")
