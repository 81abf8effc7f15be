"""GLR a pair must reach to pass the count-dependent rules, against t-only thresholds (docs/thresholds.md)."""
import math, sys, numpy as np
sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[2] / 'src'))
from scipy.optimize import brentq
from pybai.stopping.pair_mixture import GaussianPairMixtureThreshold, BernoulliPairKTThreshold, BernoulliPairMixtureThreshold
from pybai.stopping.thresholds import make_threshold
from pybai.models._kl import pair_cost
def need_g(th, n):  # GLR of a pair with equal counts n at which the pair rule starts to pass
    f = lambda d: th.min_margin([n, n], [d, 0.0], [1.0, 1.0], [0], [1])
    d = brentq(f, 1e-6, 50.0, xtol=1e-13)
    return d * d / (2 * 2.0 / n)
def need_b(th, n, p=0.45):  # Bernoulli pair GLR at means p +- d
    f = lambda d: th.min_margin([n, n], [p + d, p - d], [0.25, 0.25], [0], [1])
    d = brentq(f, 1e-9, 0.4, xtol=1e-13)
    return pair_cost(1, n, p + d, 0.25, n, p - d, 0.25)
for delta in (0.1, 0.05):
    m = 4
    print(f"K=5 delta={delta}")
    h = make_threshold("heuristic", delta, n_alternatives=m)
    kk = make_threshold("kk21", delta, n_alternatives=m)
    kt = make_threshold("kt-mixture", delta, n_alternatives=m, family="bernoulli")
    g1 = GaussianPairMixtureThreshold(delta, m); g2 = GaussianPairMixtureThreshold(delta, m, one_sided=False)
    b1 = BernoulliPairKTThreshold(delta, m); b2 = BernoulliPairKTThreshold(delta, m, prior=1.0)
    b3 = BernoulliPairMixtureThreshold(delta, m)
    for n in (50, 500, 5000):
        t = 2 * n
        print(f"| N_a = N_b = {n} (t = {t}) | {h(t):.2f} | {kk(t):.2f} | {need_g(g2, n):.2f} | {need_g(g1, n):.2f} | {kt(t):.2f} | {need_b(b1, n):.2f} | {need_b(b2, n):.2f} | {need_b(b3, n):.2f} | {need_b(b3, n, 0.2):.2f} | {need_b(b1, n, 0.2):.2f} |")
