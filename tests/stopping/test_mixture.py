"""Tests of pybai.stopping.mixture: count-dependent per-pair stopping rules."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from numba import njit
from scipy.special import betaln, log_ndtr, xlogy
from scipy.stats import binomtest

from pybai import BestArmProblem, FixedConfidence
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.models.base import EmpiricalMeans
from pybai.problems.top_k import TopKProblem
from pybai.stopping._mixture_kernels import beta_regret, half_normal_pair_min, kt_regret, pair_margin
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.mixture import DEFAULT_SCALES, BernoulliPairKTThreshold, GaussianPairMixtureThreshold
from pybai.stopping.thresholds import GaussianThreshold, make_threshold

SCALES = np.array(DEFAULT_SCALES)


def kl_bernoulli(p, q):
    return xlogy(p, p / q) + xlogy(1.0 - p, (1.0 - p) / (1.0 - q))


# ---------------------------------------------------------------------------
# Kernels against closed forms and brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_beta_regret_matches_betaln(alpha):
    for n in (1, 2, 7, 50, 333):
        for s in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ml = xlogy(s, s / n) + xlogy(n - s, (n - s) / n)
            want = ml - (betaln(s + alpha, n - s + alpha) - betaln(alpha, alpha))
            assert beta_regret(float(s), float(n), alpha) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_kt_regret_between_zero_and_the_kt_bound():
    # 0 <= r(s, N) <= ln 2 + (1/2) ln N for every s, N <= 400 (the bound behind ln(2t(K-1)/delta))
    for n in range(1, 401):
        r = np.array([kt_regret(float(s), float(n)) for s in range(n + 1)])
        assert r.min() >= 0.0
        assert r.max() <= math.log(2.0) + 0.5 * math.log(n) + 1e-12
    # in the middle it is close to (1/2) ln(pi N / 2) (Laplace approximation)
    assert kt_regret(500.0, 1000.0) == pytest.approx(0.5 * math.log(math.pi * 1000 / 2), abs=1e-3)


@pytest.mark.parametrize("case", [(50, 0.3, 1.0, 80, 0.1, 2.0, 7.0), (5, 1.0, 0.5, 200, -0.2, 1.0, 1.0),
                                  (1000, 0.05, 1.0, 30, 0.0, 3.0, 403.0), (3, -1.0, 1.0, 4, 2.0, 1.0, 1.0)])
def test_half_normal_pair_min_is_the_minimum(case):
    na, xa, va, nb, xb, vb, c = case
    A_a, A_b = na * na / (2 * va * (na + c)), nb * nb / (2 * vb * (nb + c))
    k_a, k_b = math.sqrt(2 * A_a), math.sqrt(2 * A_b)
    x = np.linspace(min(xa, xb) - 3, max(xa, xb) + 3, 400_001)
    f = A_a * (xa - x) ** 2 + log_ndtr(k_a * (xa - x)) + A_b * (x - xb) ** 2 + log_ndtr(k_b * (x - xb))
    got = half_normal_pair_min(na, xa, va, nb, xb, vb, c)
    assert got <= f.min() + 1e-12  # a lower bound of the minimum ...
    assert got == pytest.approx(f.min(), abs=1e-8)  # ... and a tight one


def test_bernoulli_margin_hand_value():
    # N_a = 40 with 30 ones, N_b = 60 with 24 ones; m = 3, delta = 0.1, KT prior
    na, sa, nb, sb = 40.0, 30.0, 60.0, 24.0
    m_pool = (sa + sb) / (na + nb)
    glr = na * kl_bernoulli(sa / na, m_pool) + nb * kl_bernoulli(sb / nb, m_pool)
    reg = lambda s, n: xlogy(s, s / n) + xlogy(n - s, (n - s) / n) - (betaln(s + .5, n - s + .5) - betaln(.5, .5))
    want = glr - reg(sa, na) - reg(sb, nb) - math.log(3 / 0.1)
    got = pair_margin(1, na, sa / na, 0.25, nb, sb / nb, 0.25, math.log(30.0), np.array([0.5]), 0.0, False)
    assert got == pytest.approx(want, rel=1e-12)
    th = BernoulliPairKTThreshold(0.1, 3)
    counts, means = np.array([na, nb]), np.array([sa / na, sb / nb])
    assert th.min_margin(counts, means, np.full(2, 0.25), [0], [1]) == pytest.approx(want, rel=1e-12)


def test_gaussian_two_sided_margin_hand_value():
    # two-sided normal mixtures: GLR with effective counts N^2/(N + c) minus the regrets, max over c
    na, xa, va, nb, xb, vb = 30.0, 1.0, 1.0, 50.0, 0.2, 4.0
    level = math.log(4 / 0.05)
    best = -math.inf
    for c in DEFAULT_SCALES:
        z = (xa - xb) ** 2 / (2 * (va * (na + c) / na**2 + vb * (nb + c) / nb**2))
        best = max(best, z - 0.5 * math.log1p(na / c) - 0.5 * math.log1p(nb / c) - level - math.log(8))
    got = pair_margin(0, na, xa, va, nb, xb, vb, level, SCALES, math.log(8), False)
    assert got == pytest.approx(best, rel=1e-12)
    # one-sided priors gain at most 2 ln 2 and never lose against the same scales
    one = pair_margin(0, na, xa, va, nb, xb, vb, level, SCALES, math.log(8), True)
    assert best < one <= best + 2 * math.log(2) + 1e-12


def test_no_pass_without_samples_or_with_wrong_order():
    for one_sided in (True, False):
        assert pair_margin(0, 0.0, 1.0, 1.0, 5.0, 0.0, 1.0, 1.0, SCALES, 0.0, one_sided) == -math.inf
        assert pair_margin(0, 9.0, 0.0, 1.0, 5.0, 0.0, 1.0, 1.0, SCALES, 0.0, one_sided) == -math.inf
    assert pair_margin(1, 9.0, 0.2, 0.25, 5.0, 0.4, 0.25, 1.0, np.array([0.5]), 0.0, False) == -math.inf


# ---------------------------------------------------------------------------
# The pair rule is never later than the t-only thresholds it replaces
# ---------------------------------------------------------------------------


def test_bernoulli_pair_rule_dominates_gk16_threshold():
    rng = np.random.default_rng(3)
    kt_t = BernoulliKTThreshold(0.1, 4, 2)
    for _ in range(3000):
        na, nb = rng.integers(1, 3000, 2).astype(float)
        xa, xb = rng.integers(0, na + 1) / na, rng.integers(0, nb + 1) / nb
        if xa <= xb:
            continue
        m = 0.5 * (na * xa + nb * xb) / (0.5 * (na + nb))
        glr = na * kl_bernoulli(xa, m) + nb * kl_bernoulli(xb, m)
        margin = pair_margin(1, na, xa, 0.25, nb, xb, 0.25, math.log(40.0), np.array([0.5]), 0.0, False)
        if glr > kt_t(na + nb):
            assert margin > 0.0


def test_gaussian_rule_beats_kk21_at_typical_counts():
    # at equal counts N = 100..1e5, the GLR the pair rule needs is below KK21's threshold
    th = GaussianPairMixtureThreshold(0.05, 4)
    kk = GaussianThreshold(0.05, 4, 2)
    for n in (100, 1000, 10_000, 100_000):
        z_kk = kk(2 * n)
        d = math.sqrt(z_kk * 2 * (2.0 / n))  # gap whose GLR equals KK21's threshold
        assert th.min_margin([n, n], [d, 0.0], [1.0, 1.0], [0], [1]) > 0.0


# ---------------------------------------------------------------------------
# Monte Carlo: on the boundary of the piece (equal means), a pair passes with frequency <= delta
# ---------------------------------------------------------------------------


@njit(cache=True)
def _crossing_rate(code, mu_a, mu_b, sd_a, sd_b, p_a, level, scales, log_j, one_sided, horizon, runs, seed, plain):
    np.random.seed(seed)
    hits = 0
    for _ in range(runs):
        na = nb = 0.0
        sa = sb = 0.0
        for _t in range(horizon):
            if np.random.random() < p_a or na == 0.0:
                na += 1.0
                sa += (1.0 if np.random.random() < mu_a else 0.0) if code == 1 else mu_a + sd_a * np.random.randn()
            else:
                nb += 1.0
                sb += (1.0 if np.random.random() < mu_b else 0.0) if code == 1 else mu_b + sd_b * np.random.randn()
            if nb == 0.0:
                continue
            if plain:  # the GLR against ln(1/delta) alone: not time-uniform
                xa, xb = sa / na, sb / nb
                if xa > xb:
                    z = (xa - xb) ** 2 / (2 * (sd_a**2 / na + sd_b**2 / nb))
                    if z > level:
                        hits += 1
                        break
                continue
            m = pair_margin(code, na, sa / na, sd_a**2, nb, sb / nb, sd_b**2, level, scales, log_j, one_sided)
            if m > 0.0:
                hits += 1
                break
    return hits


@pytest.mark.parametrize("one_sided", [True, False])
def test_gaussian_pair_rule_monte_carlo(one_sided):
    delta, runs = 0.3, 1500
    hits = _crossing_rate(0, 0.0, 0.0, 1.0, 2.0, 0.3, math.log(1 / delta), SCALES[:3], math.log(3), one_sided,
                          400, runs, 11, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    # power: the GLR against ln(1/delta) without the mixture's price is crossed far more often
    plain = _crossing_rate(0, 0.0, 0.0, 1.0, 2.0, 0.3, math.log(1 / delta), SCALES, 0.0, False, 400, runs, 11, True)
    assert binomtest(plain, runs, delta, alternative="greater").pvalue < 0.01


@pytest.mark.parametrize("prior", [0.5, 1.0])
def test_bernoulli_pair_rule_monte_carlo(prior):
    delta, runs = 0.4, 1500
    hits = _crossing_rate(1, 0.3, 0.3, 0.0, 0.0, 0.5, math.log(1 / delta), np.array([prior]), 0.0, False,
                          400, runs, 5, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01


# ---------------------------------------------------------------------------
# Objects, factory, problems
# ---------------------------------------------------------------------------


def test_objects_fallback_and_pickle():
    g = GaussianPairMixtureThreshold(0.1, 4)
    assert g(1000) == GaussianThreshold(0.1, 4, 2)(1000)
    assert g.level == pytest.approx(math.log(40))
    assert g.min_statistic == pytest.approx(math.log(40) + math.log(8) - 2 * math.log(2))
    b = BernoulliPairKTThreshold(0.1, 3)
    assert b(100) == BernoulliKTThreshold(0.1, 3, 2)(100)
    assert np.allclose(b.values([10, 100]), BernoulliKTThreshold(0.1, 3, 2).values([10, 100]))
    for th in (g, b, GaussianPairMixtureThreshold(0.1, 4, one_sided=False, scales=[1, 10])):
        assert pickle.loads(pickle.dumps(th)) == th
    assert g != GaussianPairMixtureThreshold(0.1, 4, one_sided=False)


def test_make_threshold_pair_mixture_and_bad_input():
    assert isinstance(make_threshold("pair-mixture", 0.1, n_alternatives=3, family="bernoulli"),
                      BernoulliPairKTThreshold)
    assert isinstance(make_threshold("pair-mixture", 0.1, n_alternatives=3), GaussianPairMixtureThreshold)
    with pytest.raises(InvalidParameterError, match="n_terms"):
        make_threshold("pair-mixture", 0.1, n_alternatives=3, n_terms=3)
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("pair-mixture", 0.1, n_alternatives=3, family="exponential_family")
    with pytest.raises(InvalidParameterError, match="scales"):
        GaussianPairMixtureThreshold(0.1, 3, scales=[0.0])
    with pytest.raises(InvalidParameterError, match="prior"):
        BernoulliPairKTThreshold(0.1, 3, prior=-1.0)


def _model(counts, means):
    model = EmpiricalMeans(len(counts))
    model.counts[:] = counts
    model.sums[:] = np.asarray(counts) * np.asarray(means)
    model.estimate[:] = means
    return model


def test_best_arm_problem_decides_pair_by_pair():
    p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    th = p.threshold("delta-correct", 0.1)
    assert isinstance(th, GaussianPairMixtureThreshold) and th.n_alternatives == 2
    counts, means = np.array([400.0, 400.0, 50.0]), np.array([0.6, 0.0, -2.0])
    z, stop = p.stopping_decision(_model(counts, means), th, 850)
    assert z == pytest.approx(p.glr(counts, means))
    want = min(th.min_margin(counts, means, np.ones(3), [0], [1]), th.min_margin(counts, means, np.ones(3), [0], [2]))
    assert stop == (want > 0.0)
    # a far-away third arm does not matter; a close second arm blocks the stop
    _, stop_close = p.stopping_decision(_model(counts, np.array([0.6, 0.55, -2.0])), th, 850)
    assert stop and not stop_close
    # the heuristic threshold still compares the GLR with beta(t)
    h = p.threshold("heuristic", 0.1)
    assert p.stopping_decision(_model(counts, means), h, 850) == (z, z > h(850))
    bern = BestArmProblem(4, Bernoulli(n_sources=4), FixedConfidence(0.1)).threshold("delta-correct", 0.1)
    assert isinstance(bern, BernoulliPairKTThreshold) and bern.n_alternatives == 3


def test_top_k_problem_uses_k_times_n_minus_k_pairs():
    p = TopKProblem(5, 2, Gaussian(1.0, n_sources=5), FixedConfidence(0.1))
    th = p.threshold("delta-correct", 0.1)
    assert isinstance(th, GaussianPairMixtureThreshold) and th.n_alternatives == 6
    counts = np.full(5, 300.0)
    means = np.array([1.0, 0.9, -0.5, -0.6, -0.7])
    _, stop = p.stopping_decision(_model(counts, means), th, 1500)
    assert stop
    means[2] = 0.85  # the third arm now sits next to the top two: not certified
    _, stop = p.stopping_decision(_model(counts, means), th, 1500)
    assert not stop
