"""Three candidates for a cheaper proven unknown-variance stopping rule, checked without building them.

Sections (docs/thresholds.md, "Cheaper proven rules for unknown variances: three candidates"):

``filtration``  Is the invariant factor a martingale in the run's filtration?  The one-step conditional mean
                E[B_(n+1) / B_n | x_1..x_n] under N(0, 1) (Gauss-Hermite over the next sample) for data sets of 5
                samples, and a Monte Carlo of sup_t B_a B_b for two null arms under a sampling rule that reads
                the scale (samples the arm whose factor has the larger one-step conditional mean) and under
                alternation.  Two-sided factors (:func:`pybai.models._invariant.log_bayes_factor`, exact).
``combine``     A different combining region for the two suprema: stop when on the whole diagonal
                ln B+_a >= alpha, or ln B-_b >= beta, or ln B+_a + ln B-_b >= L (per-arm confidence bounds
                joined to the pair test), alpha and beta each with a quarter of delta, L from the exact mass
                under the worst-case (Pareto) suprema; the smallest t at which it stops on the idealised path
                of ``unknown_variance_price.py`` (grid of 400 points on the diagonal), beside the current rule.
``window-pair`` The pair rule with those window factors at ln((K - 1)/delta) (proven: a product of two
                data-filtration e-processes, union over the K - 1 pairs; for two arms the whole rule), smallest t
                on the idealised path (17 points on each pair's diagonal), beside the current rule.
``window``      Per-arm e-processes in the run's own filtration: inf over sigma of Q^sigma / P_(lambda, sigma),
                Q^sigma the half-normal effect mixture at scales sigma e^eps, eps from an equal mixture of
                normal windows of widths e^-1..e^-8; ln of it against ln of the invariant one-sided factor
                (exact t probability) and the price of universal inference (Wang and Ramdas 2023), per arm.

Usage::

    .venv/bin/python benchmarks/thresholds/unknown_variance_candidates.py [filtration|combine|window|window-pair] [runs] [instances]
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np
from numba import njit
from scipy.optimize import brentq
from scipy.special import gammaln, log_ndtr, logsumexp, stdtr

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import unknown_variance_price as price  # noqa: E402

from pybai import BestArmProblem, FixedConfidence, GaussianEnvironment, GaussianUnknownVariance  # noqa: E402
from pybai.models._invariant import PRECISIONS, log_bayes_factor  # noqa: E402
from pybai.stopping.unknown_variance import _lower, _upper  # noqa: E402

PREC = np.array(PRECISIONS)


# --- filtration -------------------------------------------------------------------------------------------
@njit(cache=True)
def _cond_mean(n, s, ss, gx, gw, prec):
    xbar = s / n
    b0 = log_bayes_factor(n, xbar, ss - n * xbar * xbar, 0.0, prec)
    acc = 0.0
    for i in range(gx.shape[0]):
        n1 = n + 1.0
        s1 = s + gx[i]
        xb1 = s1 / n1
        acc += gw[i] * math.exp(log_bayes_factor(n1, xb1, ss + gx[i] * gx[i] - n1 * xb1 * xb1, 0.0, prec) - b0)
    return acc


@njit(cache=True)
def _run(seed, steps, greedy, gx, gw, prec):
    np.random.seed(seed)
    n = np.array([2.0, 2.0])
    s = np.zeros(2)
    ss = np.zeros(2)
    for a in range(2):
        for _ in range(2):
            x = np.random.randn()
            s[a] += x
            ss[a] += x * x
    best = -1e300
    for t in range(steps):
        if greedy:
            a = 0 if _cond_mean(n[0], s[0], ss[0], gx, gw, prec) >= _cond_mean(n[1], s[1], ss[1], gx, gw, prec) else 1
        else:
            a = t % 2
        x = np.random.randn()
        n[a] += 1.0
        s[a] += x
        ss[a] += x * x
        tot = 0.0
        for b in range(2):
            xb = s[b] / n[b]
            tot += log_bayes_factor(n[b], xb, ss[b] - n[b] * xb * xb, 0.0, prec)
        best = max(best, tot)
    return best


def filtration(runs: int) -> None:
    gx, gw = np.polynomial.hermite_e.hermegauss(40)
    gw = gw / gw.sum()
    rng = np.random.default_rng(1)
    hs = np.array([_cond_mean(5.0, x.sum(), (x * x).sum(), gx, gw, PREC) for x in rng.standard_normal((4000, 5))])
    print(f"E[B_6 / B_5 | x_1..x_5] over 4,000 data sets: min {hs.min():.3f}, max {hs.max():.3f}, "
          f"mean {hs.mean():.4f}, share above 1: {np.mean(hs > 1):.3f}")
    for delta in (0.1, 0.05):
        for greedy in (False, True):
            hits = sum(_run(1000 + r, 60, greedy, gx, gw, PREC) >= math.log(1 / delta) for r in range(runs))
            p = hits / runs
            print(f"delta {delta}, {'reads the scale' if greedy else 'alternating'}: P(sup_t B_a B_b >= 1/delta) = "
                  f"{p:.4f} +- {math.sqrt(p * (1 - p) / runs):.4f} ({runs} runs, 60 samples)", flush=True)


# --- combine ----------------------------------------------------------------------------------------------
def region_mass(alpha, beta, level, ma, mb):
    """Worst-case P((A, B) in {a >= alpha} u {b >= beta} u {a + b >= level}), A = ln ma + Exp(1), B = ln mb + Exp(1)."""
    a, b, lv = alpha - math.log(ma), beta - math.log(mb), level - math.log(ma) - math.log(mb)
    if min(a, b, lv) <= 0.0:
        return 1.0
    y1 = min(b, max(0.0, lv - a))
    inside = (1.0 - math.exp(-y1)) * (1.0 - math.exp(-a))
    y2 = min(b, lv)
    if y2 > y1:
        inside += math.exp(-y1) - math.exp(-y2) - math.exp(-lv) * (y2 - y1)
    return 1.0 - inside


def combine() -> None:
    print("| instance | delta | leader-scales (known) | current rule | per-arm bounds or pair (alpha, beta, L) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for delta in (0.1, 0.01):
        for inst, (means, sigma) in price.INSTANCES.items():
            means, sigma = np.array(means, float), np.array(sigma, float)
            k = means.size
            best = int(np.argmax(means))
            others = [j for j in range(k) if j != best]
            alpha, beta = math.log(4 * (k - 1) / delta), math.log(4 / delta)
            level = brentq(lambda x: region_mass(alpha, beta, x, k - 1, 1) - delta, 0.01, 200.0)
            w = np.asarray(BestArmProblem(k, GaussianUnknownVariance(k), FixedConfidence(delta))
                           .truth_view(GaussianEnvironment(means, sigma)).oracle(means)[1], float)

            def margin(t):
                counts = w * t
                worst = math.inf
                for j in others:
                    for u in np.linspace(means[j], means[best], 400):
                        a = _upper(counts[best], means[best], counts[best] * sigma[best] ** 2, u, PREC)
                        b = _lower(counts[j], means[j], counts[j] * sigma[j] ** 2, u, PREC)
                        worst = min(worst, max(a - alpha, b - beta, a + b - level))
                        if worst <= 0.0:
                            return worst
                return worst

            rules = price.margins(means, sigma, delta)
            base, cur = price.stopping_time(rules["leader-scales"]), price.stopping_time(rules["uv"])
            hyb = price.stopping_time(margin)
            print(f"| {inst} | {delta} | {base:,.0f} | {cur:,.0f} ({cur / base:.2f}) | {hyb:,.0f} ({hyb / base:.2f}; "
                  f"{alpha:.2f}, {beta:.2f}, {level:.2f}) |", flush=True)


# --- window -----------------------------------------------------------------------------------------------
_T = np.linspace(math.log(1e-7), math.log(4.0), 400)
_EPS = np.concatenate((-np.exp(_T[::-1]), [0.0], np.exp(_T)))
_WIDTHS = np.exp(-np.arange(1.0, 9.0))
_W = (np.exp(-_EPS[:, None] ** 2 / (2 * _WIDTHS ** 2)) / (_WIDTHS * math.sqrt(2 * math.pi))).mean(axis=1)
_LW = np.log(_W * np.gradient(_EPS))[None, None, :]
_E = _EPS[None, None, :]
_C = PREC[:, None, None]


def log_window(n, d2):
    """ln inf over sigma of the sigma-window one-sided mixture against N(lambda, sigma^2), data with D = d2 >= 0."""
    sy = math.sqrt(n * d2 / (1.0 + d2))  # S_lambda / sqrt(V_lambda), effect on the tested side

    def val(lr):
        rho = np.exp(lr)[None, :, None]
        z = np.sqrt(rho) * np.exp(-_E) * sy / np.sqrt(n + _C)
        ex = (_LW - n * _E + 0.5 * rho * (1 - np.exp(-2 * _E)) + 0.5 * z * z + math.log(2) + log_ndtr(z)
              + 0.5 * np.log(_C / (n + _C)))
        return logsumexp(logsumexp(ex, axis=2), axis=0) - math.log(_C.shape[0])

    lr = np.linspace(math.log(n) - 10, math.log(n) + 10, 201)
    v = val(lr)
    i = int(np.argmin(v))
    fine = val(np.linspace(lr[max(i - 1, 0)], lr[min(i + 1, 200)], 101))
    return float(min(v.min(), fine.min()))


def log_invariant(n, d2):
    """ln of the invariant one-sided factor (mixture over PRECISIONS), exact Student t probability."""
    q = d2 / (1.0 + d2)
    sy = math.sqrt(n * q)
    terms = [0.5 * math.log(c / (n + c)) - 0.5 * n * math.log1p(-(n / (n + c)) * q) + math.log(2)
             + math.log(stdtr(n, sy * math.sqrt(n / (n + c - sy * sy)))) for c in PRECISIONS]
    return float(logsumexp(terms) - math.log(len(PRECISIONS)))


def ui_price(n):
    """ln sup_sigma P(x_2..n) - ln Q_0(x_2..n | x_1) with the first sample at its mean log-size (universal inference)."""
    return (-((n - 1) / 2) * math.log(2 * math.pi * math.e / n) + 0.5 * math.log(n) + 0.635
            + (n / 2) * math.log(math.pi) - gammaln(n / 2))


def window() -> None:
    print("| n | D = (xbar - lambda)^2 / s^2 | invariant (ln) | window (ln) | window price | universal-inference price |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in (22, 100, 1000, 3000):
        for d2 in (0.0, 8.0 / n, 16.0 / n, 1.0):
            inv, win = log_invariant(n, d2), log_window(n, d2)
            print(f"| {n} | {d2:.4g} | {inv:.2f} | {win:.2f} | {inv - win:.2f} | {ui_price(n):.2f} |", flush=True)


def window_pair(names) -> None:
    print("| instance | delta | leader-scales (known) | current rule | window pair rule at ln((K - 1)/delta) |")
    print("| --- | --- | ---: | ---: | ---: |")
    for delta in (0.1, 0.01):
        for inst in names:
            means, sigma = (np.array(v, float) for v in price.INSTANCES[inst])
            k = means.size
            best = int(np.argmax(means))
            w = np.asarray(BestArmProblem(k, GaussianUnknownVariance(k), FixedConfidence(delta))
                           .truth_view(GaussianEnvironment(means, sigma)).oracle(means)[1], float)
            level = math.log((k - 1) / delta)

            def margin(t):
                counts = w * t
                worst = math.inf
                for j in (j for j in range(k) if j != best):
                    for u in np.linspace(means[j], means[best], 17):
                        g = (log_window(counts[best], (means[best] - u) ** 2 / sigma[best] ** 2)
                             + log_window(counts[j], (u - means[j]) ** 2 / sigma[j] ** 2))
                        worst = min(worst, g - level)
                        if worst <= 0.0:
                            return worst
                return worst

            rules = price.margins(means, sigma, delta)
            base, cur = price.stopping_time(rules["leader-scales"]), price.stopping_time(rules["uv"])
            lo, hi = 0.5 * cur, 3.0 * cur
            for _ in range(16):
                mid = math.sqrt(lo * hi)
                lo, hi = (lo, mid) if margin(mid) > 0.0 else (mid, hi)
            print(f"| {inst} | {delta} | {base:,.0f} | {cur:,.0f} ({cur / base:.2f}) | {hi:,.0f} ({hi / base:.2f}) |",
                  flush=True)


if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "window"
    if part == "filtration":
        filtration(int(sys.argv[2]) if len(sys.argv) > 2 else 3000)
    elif part == "combine":
        combine()
    elif part == "window-pair":
        window_pair(sys.argv[2:] or list(price.INSTANCES))
    else:
        window()
