"""Tests of pybai.stopping.tilt: the variance-adaptive per-pair rule (tilted half-normal mixtures)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from numba import njit
from scipy import integrate
from scipy.stats import binomtest

from pybai import BestArmProblem, FixedConfidence, make_strategy
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli
from pybai.problems.top_k import TopKProblem
from pybai.stopping._tilt_kernels import (scale_constants, tilt_caps, tilt_pair_margin, tilt_term, tilted_mean,
                                          var_down, var_up)
from pybai.stopping.pair_mixture import DEFAULT_SCALES, BernoulliPairMixtureThreshold
from pybai.stopping.thresholds import make_threshold
from pybai.stopping.tilt import BernoulliTiltThreshold

SCALES = np.array(DEFAULT_SCALES)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)


def psi(x, eta):
    return math.log(1.0 - x + x * math.exp(eta)) - eta * x


@njit(cache=True)
def mixture_values(na, sa, nb, sb, ya, yb, scales, caps):
    """ln (1/J) sum_j e^(A_j(ya[i]) + B_j(yb[i])) from the reference closed form, for each level pair i."""
    out = np.empty(ya.shape[0])
    for i in range(ya.shape[0]):
        acc = -math.inf
        for j in range(scales.shape[0]):
            v = tilt_term(na, sa, ya[i], scales[j], caps[j], True) + tilt_term(nb, sb, yb[i], scales[j], caps[j], False)
            acc = v if acc == -math.inf else max(acc, v) + math.log1p(math.exp(-abs(acc - v)))
        out[i] = acc - math.log(scales.shape[0])
    return out


@pytest.mark.parametrize("n,s,x,c,emax,up", [
    (1000, 60, 0.05, 100.0, 0.2, True), (1000, 40, 0.05, 100.0, 0.2, False), (50, 30, 0.45, 3.0, 1.15, True),
    (50, 20, 0.5, 3.0, 1.15, False), (20, 19, 0.7, 1.0, 2.0, False), (200, 190, 0.8, 7.4, 0.7, True),
    (5000, 5, 0.003, 403.0, 0.1, True), (30, 0, 0.2, 1.0, 2.0, False)])
def test_closed_form_is_the_mixture_it_defines(n, s, x, c, emax, up):
    # the truncated half-normal mixture of exp(eta U - V eta^2 / 2), integrated numerically
    u = (s - n * x) if up else (n * x - s)
    v = n * (var_up(x, emax) if up else var_down(x, emax))
    num = integrate.quad(lambda e: math.exp(e * u - (v + c) * e * e / 2), 0, emax, epsabs=0, epsrel=1e-12,
                         limit=200)[0]
    den = integrate.quad(lambda e: math.exp(-c * e * e / 2), 0, emax, epsabs=0, epsrel=1e-12)[0]
    assert tilt_term(n, s, x, c, emax, up) == pytest.approx(math.log(num / den), abs=1e-9)


def test_variance_bounds_cover_the_tilted_cumulant():
    rng = np.random.default_rng(0)
    for _ in range(20000):
        x, emax = rng.random(), 2.0 * rng.random()
        eta = emax * rng.random()
        assert psi(x, eta) <= var_up(x, emax) * eta * eta / 2 + 1e-15
        assert psi(x, -eta) <= var_down(x, emax) * eta * eta / 2 + 1e-15
    # and they are the largest tilted variance over the interval (not looser)
    for x in (0.01, 0.05, 0.3, 0.5, 0.7, 0.95):
        for emax in (0.05, 0.5, 2.0):
            grid = np.linspace(0, emax, 2001)
            p_up = np.array([tilted_mean(x, e) for e in grid])
            p_dn = np.array([tilted_mean(x, -e) for e in grid])
            assert var_up(x, emax) == pytest.approx(float(np.max(p_up * (1 - p_up))), rel=1e-5)
            assert var_down(x, emax) == pytest.approx(float(np.max(p_dn * (1 - p_dn))), rel=1e-5)


def test_variance_bound_is_about_the_bernoulli_variance_for_small_tilts():
    # at 5% the proxy of Hoeffding's lemma (1/4) is 5.3 times x (1 - x); the tilted bound is within 8%
    x = 0.05
    assert var_down(x, 0.05) == pytest.approx(x * (1 - x))
    assert x * (1 - x) < var_up(x, 0.05) < 1.08 * x * (1 - x)


def test_terms_are_monotone_and_convex_in_the_level():
    rng = np.random.default_rng(1)
    xs = np.linspace(0.0, 1.0, 801)
    for _ in range(60):
        n = float(rng.integers(1, 5000))
        s = float(rng.binomial(int(n), rng.random()))
        c = float(SCALES[rng.integers(0, 8)])
        emax = min(2.0, 2.0 / math.sqrt(c))
        up = np.array([tilt_term(n, s, x, c, emax, True) for x in xs])
        down = np.array([tilt_term(n, s, x, c, emax, False) for x in xs])
        tol = 1e-9 * (1 + np.abs(up).max())
        assert np.all(np.diff(up) <= tol)
        assert np.all(np.diff(down) >= -1e-9 * (1 + np.abs(down).max()))
        assert np.all(np.diff(up, 2) >= -tol)
        assert np.all(np.diff(down, 2) >= -1e-9 * (1 + np.abs(down).max()))


@pytest.mark.parametrize("c,e", [(1.0, 0.0), (1.0, 0.02), (0.9, 0.0)])
def test_margin_is_a_certified_lower_bound_of_the_infimum(c, e):
    rng = np.random.default_rng(2)
    ys = np.linspace(0.0, 1.0, 20001)
    checked = 0
    for _ in range(40):
        na, nb = float(rng.integers(5, 3000)), float(rng.integers(5, 3000))
        pa = rng.uniform(0.02, 0.9)
        pb = pa * rng.uniform(0.6, 1.0)
        sa, sb = float(rng.binomial(int(na), pa)), float(rng.binomial(int(nb), pb))
        xa, xb = sa / na, sb / nb
        if not xa + e > c * xb:
            assert tilt_pair_margin(na, xa, nb, xb, 0.0, 0.0, 0.5, SCALES, EMAX, CONSTS, c, e) == -math.inf
            continue
        y = ys[(c * ys - e >= 0) & (c * ys - e <= 1)]
        vals = mixture_values(na, sa, nb, sb, c * y - e, y, SCALES, EMAX)
        low = float(vals.min())
        for level in (low - 0.3, low - 0.01, low + 0.01):
            m = tilt_pair_margin(na, xa, nb, xb, level, 0.0, 0.5, SCALES, EMAX, CONSTS, c, e)
            if m > 0.0:  # a pass certifies a bound that is never above the infimum (the grid minimum)
                assert m <= low - level + 1e-7
            if level < low - 0.05:
                assert m > 0.0  # and it certifies when the infimum is clearly above the level
            if level > low:
                assert m <= 0.0
        checked += 1
    assert checked >= 20


@njit(cache=True)
def _boundary_crossings(mu, p_a, horizon, runs, seed, level, scales, emax, consts, plain):
    """Runs (random sampling, equal means: the boundary of the piece) in which the pair passes."""
    np.random.seed(seed)
    hits = 0
    for _ in range(runs):
        na = nb = sa = sb = 0.0
        for _t in range(horizon):
            if np.random.random() < p_a:
                na += 1.0
                sa += 1.0 if np.random.random() < mu else 0.0
            else:
                nb += 1.0
                sb += 1.0 if np.random.random() < mu else 0.0
            if na == 0.0 or nb == 0.0:
                continue
            xa, xb = sa / na, sb / nb
            if plain:
                if xa > xb:
                    m = (sa + sb) / (na + nb)
                    z = 0.0
                    for n, x in ((na, xa), (nb, xb)):
                        if x > 0.0:
                            z += n * x * math.log(x / m)
                        if x < 1.0:
                            z += n * (1 - x) * math.log((1 - x) / (1 - m))
                    if z > level:
                        hits += 1
                        break
                continue
            if tilt_pair_margin(na, xa, nb, xb, level, 0.0, 0.5, scales, emax, consts, 1.0, 0.0) > 0.0:
                hits += 1
                break
    return hits


@pytest.mark.parametrize("mu,horizon", [(0.5, 400), (0.05, 2000)])
def test_error_rate_on_the_boundary_of_a_piece_is_below_delta(mu, horizon):
    # a pair "passes" when arm a ranks above b with a positive margin: every pass is an error here
    delta, runs = 0.3, 1500
    hits = _boundary_crossings(mu, 0.4, horizon, runs, 5, math.log(1 / delta), SCALES, EMAX, CONSTS, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    # the check can fail: the GLR against ln(1/delta) alone (not time-uniform) crosses far more often
    plain = _boundary_crossings(mu, 0.4, horizon, runs, 5, math.log(1 / delta), SCALES, EMAX, CONSTS, True)
    assert binomtest(plain, runs, delta, alternative="greater").pvalue < 0.01


def test_needs_less_than_the_shipped_bernoulli_rule_at_low_rates():
    # the GLR a pair needs, same counts: at 5% the tilted rule passes where the Beta + 1/4 rule does not
    tilt, mix = BernoulliTiltThreshold(0.05, 1), BernoulliPairMixtureThreshold(0.05, 1)
    counts, means = np.array([80000.0, 80000.0]), np.array([0.0550, 0.0500])
    assert tilt.min_margin(counts, means, np.zeros(2), [0], [1]) > 0.0
    assert mix.min_margin(counts, means, np.zeros(2), [0], [1]) < 0.0


def test_make_threshold_and_parameters():
    th = make_threshold("pair-tilt", 0.1, n_alternatives=4, family="bernoulli")
    assert th == BernoulliTiltThreshold(0.1, 4) and th.proven and th.count_dependent
    assert th.level == pytest.approx(math.log(40.0)) and th.min_statistic == th.level
    assert th(1000) == make_threshold("kt-mixture", 0.1, n_alternatives=4, family="bernoulli")(1000)
    assert pickle.loads(pickle.dumps(th)) == th
    assert make_threshold("pair-tilt", 0.1, n_alternatives=2, family="bounded-sub-bernoulli") == BernoulliTiltThreshold(
        0.1, 2)
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("pair-tilt", 0.1, n_alternatives=4, family="gaussian")
    with pytest.raises(InvalidParameterError, match="n_terms"):
        make_threshold("pair-tilt", 0.1, n_alternatives=4, n_terms=3, family="bernoulli")
    for bad in (-0.1, 1.0, True, "x"):
        with pytest.raises(InvalidParameterError, match="beta_weight"):
            BernoulliTiltThreshold(0.1, 4, beta_weight=bad)


def test_beta_weight_mixes_in_the_beta_mixtures():
    counts, means = np.array([300.0, 300.0]), np.array([0.02, 0.0])
    alone = BernoulliTiltThreshold(0.1, 1).min_margin(counts, means, np.zeros(2), [0], [1])
    mixed = BernoulliTiltThreshold(0.1, 1, beta_weight=0.5).min_margin(counts, means, np.zeros(2), [0], [1])
    assert mixed != alone and mixed >= alone - math.log(2) - 1e-9


@pytest.mark.parametrize("top_k", [False, True])
def test_problems_stop_right_with_it_and_compiled_runs_match(top_k):
    means = np.array([0.12, 0.05, 0.04, 0.03])
    env = BernoulliEnvironment(means)
    fc = FixedConfidence(0.05, max_samples=200_000)
    problem = TopKProblem(4, 2, Bernoulli(n_sources=4), fc) if top_k else BestArmProblem(4, Bernoulli(n_sources=4), fc)
    name = "uniform" if top_k else "tas"
    fast = make_strategy(name, {"threshold": "pair-tilt"}).start(problem, rng=3)
    slow = make_strategy(name, {"threshold": "pair-tilt"}).start(problem, rng=3)
    noise_fast, noise_slow = np.random.default_rng(30), np.random.default_rng(30)
    assert fast.simulate_run(env.means, noise_fast)
    while not slow.stopped:
        slow.tell(*env.respond(slow.ask(), noise_slow))
    assert fast.t_ == slow.t_ and np.array_equal(fast.counts_, slow.counts_)
    assert problem.is_correct(slow.result().recommendation, means)
