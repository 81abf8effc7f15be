"""Tests of pybai.stopping.pair_mixture: count-dependent per-pair stopping rules."""

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
from pybai.stopping._pair_mixture_kernels import beta_regret, half_normal_pair_min, kt_regret, pair_margin
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.kk21 import GaussianThreshold
from pybai.stopping.pair_mixture import (DEFAULT_SCALES, BernoulliPairKTThreshold, BernoulliPairMixtureThreshold,
                                         GaussianPairMixtureThreshold)
from pybai.stopping.thresholds import make_threshold
from pybai.stopping.tilt import BernoulliTiltThreshold

SCALES = np.array(DEFAULT_SCALES)
NONE = np.empty(0)


def kt_margin(na, xa, nb, xb, level, prior=0.5):
    """Margin of the Beta(prior, prior) pair rule alone."""
    return pair_margin(1, na, xa, 0.25, nb, xb, 0.25, level, prior, 1.0, NONE, 0.25, False, 1.0, 0.0)


def gauss_margin(na, xa, va, nb, xb, vb, level, scales=SCALES, one_sided=True):
    """Margin of the Gaussian scale-mixture pair rule."""
    return pair_margin(0, na, xa, va, nb, xb, vb, level, 0.5, 0.0, scales, 0.25, one_sided, 1.0, 0.0)


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
    got = kt_margin(na, sa / na, nb, sb / nb, math.log(30.0))
    assert got == pytest.approx(want, rel=1e-12)
    th = BernoulliPairKTThreshold(0.1, 3)
    counts, means = np.array([na, nb]), np.array([sa / na, sb / nb])
    assert th.min_margin(counts, means, np.full(2, 0.25), [0], [1]) == pytest.approx(want, rel=1e-12)


def test_gaussian_two_sided_margin_hand_value():
    # two-sided normal mixtures: GLR with effective counts N^2/(N + c) minus the regrets, and the
    # equal-weight mixture over the scales: ln((1/J) sum_c e^(value_c))
    na, xa, va, nb, xb, vb = 30.0, 1.0, 1.0, 50.0, 0.2, 4.0
    level = math.log(4 / 0.05)
    vals = []
    for c in DEFAULT_SCALES:
        z = (xa - xb) ** 2 / (2 * (va * (na + c) / na**2 + vb * (nb + c) / nb**2))
        vals.append(z - 0.5 * math.log1p(na / c) - 0.5 * math.log1p(nb / c))
    want = float(np.logaddexp.reduce(vals)) - math.log(8) - level
    got = gauss_margin(na, xa, va, nb, xb, vb, level, one_sided=False)
    assert got == pytest.approx(want, rel=1e-12)
    # the mixture over scales beats its best term minus ln J, and never exceeds the best term
    assert max(vals) - math.log(8) - level < got <= max(vals) - level
    # one-sided priors gain at most 2 ln 2 and never lose against the same scales
    one = gauss_margin(na, xa, va, nb, xb, vb, level)
    assert got < one <= got + 2 * math.log(2) + 1e-12


def test_no_pass_without_samples_or_with_wrong_order():
    for one_sided in (True, False):
        assert gauss_margin(0.0, 1.0, 1.0, 5.0, 0.0, 1.0, 1.0, one_sided=one_sided) == -math.inf
        assert gauss_margin(9.0, 0.0, 1.0, 5.0, 0.0, 1.0, 1.0, one_sided=one_sided) == -math.inf
    assert kt_margin(9.0, 0.2, 5.0, 0.4, 1.0) == -math.inf
    assert pair_margin(1, 9.0, 0.2, 0.25, 5.0, 0.4, 0.25, 1.0, 0.5, 0.5, SCALES, 0.25, True, 1.0, 0.0) == -math.inf


# ---------------------------------------------------------------------------
# The pair rule is never later than the t-only thresholds it replaces
# ---------------------------------------------------------------------------


def _random_bernoulli_pairs(seed, n):
    """Random (counts, means) of two Bernoulli arms, arm a ahead, with the pair's GLR."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        na, nb = rng.integers(1, 3000, 2).astype(float)
        xa, xb = rng.integers(0, na + 1) / na, rng.integers(0, nb + 1) / nb
        if xa <= xb:
            continue
        m = (na * xa + nb * xb) / (na + nb)
        yield na, xa, nb, xb, na * kl_bernoulli(xa, m) + nb * kl_bernoulli(xb, m)


def test_bernoulli_pair_rule_dominates_gk16_threshold():
    kt_t = BernoulliKTThreshold(0.1, 4, 2)
    for na, xa, nb, xb, glr in _random_bernoulli_pairs(3, 3000):
        margin = kt_margin(na, xa, nb, xb, math.log(40.0))
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
def _crossing_rate(code, mu_a, mu_b, sd_a, sd_b, p_a, level, alpha, w_beta, scales, one_sided, horizon, runs, seed,
                   plain):
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
            if pair_margin(code, na, sa / na, sd_a**2, nb, sb / nb, sd_b**2, level, alpha, w_beta, scales, 0.25,
                           one_sided, 1.0, 0.0) > 0.0:
                hits += 1
                break
    return hits


@pytest.mark.parametrize("one_sided", [True, False])
def test_gaussian_pair_rule_monte_carlo(one_sided):
    delta, runs = 0.3, 1500
    hits = _crossing_rate(0, 0.0, 0.0, 1.0, 2.0, 0.3, math.log(1 / delta), 0.5, 0.0, SCALES[:3], one_sided,
                          400, runs, 11, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    # power: the GLR against ln(1/delta) without the mixture's price is crossed far more often
    plain = _crossing_rate(0, 0.0, 0.0, 1.0, 2.0, 0.3, math.log(1 / delta), 0.5, 0.0, SCALES, False, 400, runs, 11,
                           True)
    assert binomtest(plain, runs, delta, alternative="greater").pvalue < 0.01


@pytest.mark.parametrize("prior", [0.5, 1.0])
def test_bernoulli_pair_rule_monte_carlo(prior):
    delta, runs = 0.4, 1500
    hits = _crossing_rate(1, 0.3, 0.3, 0.0, 0.0, 0.5, math.log(1 / delta), prior, 1.0, NONE, False, 400, runs, 5,
                          False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01


@pytest.mark.parametrize("mu", [0.5, 0.15])
def test_bernoulli_kt_and_sub_gaussian_mixture_monte_carlo(mu):
    # the default Bernoulli rule (KT + sub-Gaussian normal mixtures, weight 1/2 each) on the boundary
    # of a piece: equal means, a pair "passes" when arm a ranks above b with a positive margin
    delta, runs = 0.4, 1500
    hits = _crossing_rate(1, mu, mu, 0.0, 0.0, 0.5, math.log(1 / delta), 0.5, 0.5, SCALES[:3], True, 400, runs, 5,
                          False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01


def test_bernoulli_mixture_margin_hand_value():
    # ln(w e^U + (1 - w)/J sum_j e^V_j) - level with U the KT term and V_j the variance-1/4 terms
    na, sa, nb, sb = 400.0, 220.0, 300.0, 120.0
    xa, xb, level = sa / na, sb / nb, math.log(3 / 0.1)
    u = kt_margin(na, xa, nb, xb, 0.0)
    v = [gauss_margin(na, xa, 0.25, nb, xb, 0.25, 0.0, scales=np.array([c])) for c in DEFAULT_SCALES]
    want = float(np.logaddexp.reduce([math.log(0.5) + u] + [math.log(0.5 / 8) + x for x in v])) - level
    th = BernoulliPairMixtureThreshold(0.1, 3)
    got = th.min_margin(np.array([na, nb]), np.array([xa, xb]), np.full(2, 0.25), [0], [1])
    assert got == pytest.approx(want, rel=1e-10)
    # a mixture never loses more than ln 2 against either of its halves, and beats both near 1/2
    assert got >= max(u, float(np.logaddexp.reduce(v)) - math.log(8)) - math.log(2) - level - 1e-12
    assert got > kt_margin(na, xa, nb, xb, level)


def test_bernoulli_mixture_rule_dominates_gk16_threshold_up_to_ln2():
    # the KT half alone passes when GLR > ln(2 t m / delta) at delta/2, i.e. ln(4 t m / delta)
    th = BernoulliPairMixtureThreshold(0.1, 4)
    kt_half = BernoulliKTThreshold(0.05, 4, 2)
    for na, xa, nb, xb, glr in _random_bernoulli_pairs(8, 1500):
        if glr > kt_half(na + nb):
            assert th.min_margin(np.array([na, nb]), np.array([xa, xb]), np.full(2, 0.25), [0], [1]) > 0.0


# ---------------------------------------------------------------------------
# Objects, factory, problems
# ---------------------------------------------------------------------------


def test_objects_fallback_and_pickle():
    g = GaussianPairMixtureThreshold(0.1, 4)
    assert g(1000) == GaussianThreshold(0.1, 4, 2)(1000)
    assert g.level == pytest.approx(math.log(40))
    assert g.min_statistic == pytest.approx(math.log(40) - 2 * math.log(2))
    b = BernoulliPairKTThreshold(0.1, 3)
    assert b(100) == BernoulliKTThreshold(0.1, 3, 2)(100)
    assert np.allclose(b.values([10, 100]), BernoulliKTThreshold(0.1, 3, 2).values([10, 100]))
    assert b.min_statistic == pytest.approx(math.log(30))
    mix = BernoulliPairMixtureThreshold(0.1, 3)
    assert mix(100) == b(100) and mix.min_statistic == pytest.approx(math.log(30) - 2 * math.log(2))
    assert mix != b and mix != BernoulliPairMixtureThreshold(0.1, 3, beta_weight=0.25)
    for th in (g, b, mix, GaussianPairMixtureThreshold(0.1, 4, one_sided=False, scales=[1, 10])):
        assert pickle.loads(pickle.dumps(th)) == th
    assert g != GaussianPairMixtureThreshold(0.1, 4, one_sided=False)


def test_make_threshold_pair_mixture_and_bad_input():
    assert isinstance(make_threshold("pair-mixture", 0.1, n_alternatives=3, family="bernoulli"),
                      BernoulliPairMixtureThreshold)
    assert isinstance(make_threshold("pair-mixture", 0.1, n_alternatives=3), GaussianPairMixtureThreshold)
    with pytest.raises(InvalidParameterError, match="n_terms"):
        make_threshold("pair-mixture", 0.1, n_alternatives=3, n_terms=3)
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("pair-mixture", 0.1, n_alternatives=3, family="exponential_family")
    with pytest.raises(InvalidParameterError, match="scales"):
        GaussianPairMixtureThreshold(0.1, 3, scales=[0.0])
    with pytest.raises(InvalidParameterError, match="prior"):
        BernoulliPairKTThreshold(0.1, 3, prior=-1.0)
    with pytest.raises(InvalidParameterError, match="beta_weight"):
        BernoulliPairMixtureThreshold(0.1, 3, beta_weight=1.5)


def _model(counts, means):
    model = EmpiricalMeans(len(counts))
    model.counts[:] = counts
    model.sums[:] = np.asarray(counts) * np.asarray(means)
    model.estimate[:] = means
    return model


def test_best_arm_problem_decides_pair_by_pair():
    p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    th = p.threshold("pair-mixture", 0.1)  # delta-correct is the leader rule here (tests/stopping/test_leader.py)
    assert isinstance(th, GaussianPairMixtureThreshold) and th.n_alternatives == 2
    counts, means = np.array([400.0, 400.0, 50.0]), np.array([0.6, 0.0, -2.0])
    z, stop = th.decide(p, _model(counts, means), 850)
    assert z == pytest.approx(p.glr(counts, means))
    want = min(th.min_margin(counts, means, np.ones(3), [0], [1]), th.min_margin(counts, means, np.ones(3), [0], [2]))
    assert stop == (want > 0.0)
    # a far-away third arm does not matter; a close second arm blocks the stop
    _, stop_close = th.decide(p, _model(counts, np.array([0.6, 0.55, -2.0])), 850)
    assert stop and not stop_close
    # the heuristic threshold still compares the GLR with beta(t)
    h = p.threshold("heuristic", 0.1)
    assert h.decide(p, _model(counts, means), 850) == (z, z > h(850))
    bern = BestArmProblem(4, Bernoulli(n_sources=4), FixedConfidence(0.1)).threshold("pair-tilt", 0.1)
    # the variance-adaptive tilted rule and pair-mixture stay reachable by name
    assert isinstance(bern, BernoulliTiltThreshold) and bern.n_alternatives == 3
    named = BestArmProblem(4, Bernoulli(n_sources=4), FixedConfidence(0.1)).threshold("pair-mixture", 0.1)
    assert isinstance(named, BernoulliPairMixtureThreshold) and named.n_alternatives == 3


def test_top_k_problem_uses_k_times_n_minus_k_pairs():
    p = TopKProblem(5, 2, Gaussian(1.0, n_sources=5), FixedConfidence(0.1))
    th = p.threshold("delta-correct", 0.1)
    assert isinstance(th, GaussianPairMixtureThreshold) and th.n_alternatives == 6
    counts = np.full(5, 300.0)
    means = np.array([1.0, 0.9, -0.5, -0.6, -0.7])
    _, stop = th.decide(p, _model(counts, means), 1500)
    assert stop
    means[2] = 0.85  # the third arm now sits next to the top two: not certified
    _, stop = th.decide(p, _model(counts, means), 1500)
    assert not stop
