"""A fourth candidate for a cheaper proven unknown-variance rule: self-normalised factors of a symmetric null.

Per arm and tested mean lambda, with the scale s0^2 = (x_1 - x_2)^2 / 2 of the arm's first two samples (fixed at
its second sample, a stopping time) and, over the later samples, S = sum (x_i - lambda), V = sum (x_i - lambda)^2:

    E+-(lambda) = w + (1 - w) (1/J) sum_j 2 sqrt(c_j' / (V + c_j')) exp(S^2 / (2 (V + c_j'))) Phi(+-S / sqrt(V + c_j')),

c_j' = c_j s0^2 (c_j the invariant rule's precisions), w = 0.05: the half-normal mixture over eta of
exp(eta S - eta^2 V / 2), which is a supermartingale in the run's own filtration under every law symmetric
about lambda (de la Pena 1999: E exp(eta Y - eta^2 Y^2 / 2) = E cosh(eta Y) e^(-eta^2 Y^2 / 2) <= 1), N(lambda,
sigma^2) for every sigma included.  Two arms' factors multiply along any sampling rule, so the pair rule needs
ln((K - 1)/delta) (union over the pairs, no product of suprema); the floor w carries the case of a truth
outside [xbar_b, xbar_a] (docs/thresholds.md).

Sections:

``arm``   ln E+ against the invariant one-sided factor at n samples, D = (xbar - lambda)^2 / s^2 (s0 = sigma);
``pair``  the smallest t at which the pair rule with these factors stops on the idealised path of
          ``unknown_variance_price.py`` (41 points on each pair's diagonal: an approximation, not a certified
          bound), s0 = r sigma for r = 1, 0.3, 3, beside ``"leader-scales"`` and the shipped rule; and the same
          factors at ln(1/delta) (what a leader construction could reach at best; not a rule);
``step-sup`` for the invariant (two-sided) factor instead: the supremum over the past data (q = S^2 / (n V) and
          r = V / (n sigma^2), a grid) of the one-step conditional mean E[B_(n+1) / B_n | x_1..x_n] under
          N(0, sigma^2) (quadrature over the next sample).  If it were 1 + eps_n with eps_n summable,
          B_n / prod (1 + eps_i) would be a supermartingale in the run's filtration.

Usage::

    .venv/bin/python benchmarks/thresholds/unknown_variance_symmetric.py arm
    .venv/bin/python benchmarks/thresholds/unknown_variance_symmetric.py pair [deltas] [instances]
    .venv/bin/python benchmarks/thresholds/unknown_variance_symmetric.py step-sup
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np
from scipy.special import log_ndtr, logsumexp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import unknown_variance_price as price  # noqa: E402

from pybai import BestArmProblem, FixedConfidence, GaussianEnvironment, GaussianUnknownVariance  # noqa: E402
from pybai.models._invariant import PRECISIONS, log_bayes_factor  # noqa: E402
from pybai.stopping.unknown_variance import _upper  # noqa: E402

PREC = np.array(PRECISIONS)
HEAD = 2  # samples whose spread fixes the prior's scale
FLOOR = 0.05  # w: the factor's point mass at eta = 0


def log_symmetric(n, xbar, sq_devs, lam, s0sq, sign):
    """ln E+- at lambda for an arm whose samples after the first HEAD have count n - HEAD, mean xbar and sum of
    squared deviations sq_devs."""
    m = n - HEAD
    if m <= 0:
        return 0.0
    d = xbar - lam
    s, v = m * d, sq_devs + m * d * d
    c = PREC * s0sq
    terms = 0.5 * np.log(c / (v + c)) + s * s / (2 * (v + c)) + math.log(2.0) + log_ndtr(sign * s / np.sqrt(v + c))
    mix = logsumexp(terms) - math.log(len(PREC))
    return float(np.logaddexp(math.log(FLOOR), math.log1p(-FLOOR) + mix))


def arm() -> None:
    print("| n | D | known-variance GLR n D / 2 | invariant (ln) | symmetric (ln) | symmetric's price |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, d2 in ((22, 0.05), (22, 0.3), (22, 1.0), (100, 0.05), (100, 0.2), (1000, 0.01), (3000, 0.003)):
        d = math.sqrt(d2)
        inv = _upper(float(n), d, float(n), 0.0, PREC)
        sym = log_symmetric(float(n), d, float(n - HEAD), 0.0, 1.0, 1.0)
        print(f"| {n} | {d2:g} | {n * d2 / 2:.2f} | {inv:.2f} | {sym:.2f} | {inv - sym:.2f} |")


def pair_margin(means, sigma, delta, r, level):
    k = means.size
    w = np.asarray(BestArmProblem(k, GaussianUnknownVariance(k), FixedConfidence(delta))
                   .truth_view(GaussianEnvironment(means, sigma)).oracle(means)[1], dtype=float)
    best = int(np.argmax(means))

    def margin(t):
        counts = w * t
        worst = math.inf
        for b in (j for j in range(k) if j != best):
            na, nb, xa, xb = counts[best], counts[b], means[best], means[b]

            def fa(u):
                return log_symmetric(na, xa, (na - HEAD) * sigma[best] ** 2, u, (r * sigma[best]) ** 2, 1.0)

            def fb(u):
                return log_symmetric(nb, xb, (nb - HEAD) * sigma[b] ** 2, u, (r * sigma[b]) ** 2, -1.0)

            g = min(fa(u) + fb(u) for u in np.linspace(xb, xa, 41))
            g = min(g, math.log(FLOOR) + fb(xa), math.log(FLOOR) + fa(xb))
            worst = min(worst, g - level)
        return worst

    return margin


def pair(deltas, names) -> None:
    print("| instance | delta | leader-scales (known) | current rule | symmetric pair rule, r = 1 | r = 0.3 | r = 3 "
          "| its factors at ln(1/delta) (not a rule) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for delta in deltas:
        for inst in names:
            means, sigma = (np.array(v, dtype=float) for v in price.INSTANCES[inst])
            rules = price.margins(means, sigma, delta)
            base, cur = price.stopping_time(rules["leader-scales"]), price.stopping_time(rules["uv"])
            pair_level = math.log((means.size - 1) / delta)
            cells = [price.stopping_time(pair_margin(means, sigma, delta, r, level))
                     for r, level in ((1.0, pair_level), (0.3, pair_level), (3.0, pair_level),
                                      (1.0, math.log(1 / delta)))]
            print(f"| {inst} | {delta} | {base:,.0f} | {cur:,.0f} ({cur / base:.2f}) | "
                  + " | ".join(f"{c:,.0f} ({c / base:.2f})" for c in cells) + " |", flush=True)


def step_sup() -> None:
    xs = np.linspace(-12.0, 12.0, 24001)
    weights = np.exp(-xs * xs / 2.0)
    weights /= weights.sum()

    def log_b(n, s, v):
        xbar = s / n
        return log_bayes_factor(float(n), xbar, v - n * xbar * xbar, 0.0, PREC)

    print("| n | sup of E[B_(n+1) / B_n] over the grid | at (q, r) |")
    print("| ---: | ---: | --- |")
    for n in (3, 5, 10, 20, 50, 100, 300):
        best, where = 0.0, None
        for q in (0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.95, 0.999):
            for r in (1e-4, 1e-2, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1e4):
                v = n * r
                s = math.sqrt(q * n * v)
                b0 = log_b(n, s, v)
                mean = float(sum(wt * math.exp(log_b(n + 1, s + x, v + x * x) - b0) for x, wt in zip(xs, weights)))
                if mean > best:
                    best, where = mean, (q, r)
        print(f"| {n} | {best:.4f} | {where} |", flush=True)


if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "arm"
    if part == "step-sup":
        step_sup()
    elif part == "pair":
        pair([float(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0.1, 0.01],
             sys.argv[3].split(",") if len(sys.argv) > 3 else list(price.INSTANCES))
    else:
        arm()
