"""Tests of the scale-pair prior of pybai.stopping.leader (kind "leader-scales", the delta-correct best-arm rule)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import binomtest, norm

from pybai import BestArmProblem, FixedConfidence
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.problems.top_k import TopKProblem
from pybai.stopping._leader_kernels import (_gauss_eval, _seg, _tilt_eval, gaussian_hypothesis_margin, leader_advance,
                                            leader_min_margin, state_size, tilt_hypothesis_margin)
from pybai.stopping._tilt_kernels import scale_constants, term_at_level, tilt_caps
from pybai.stopping.leader import (SCALE_PAIR_WEIGHT, BernoulliLeaderScalesThreshold, GaussianLeaderScalesThreshold,
                                   GaussianLeaderThreshold)
from pybai.stopping.pair_mixture import DEFAULT_SCALES
from pybai.stopping.thresholds import make_threshold

from test_leader import check_certified  # tests/stopping is on sys.path (pytest prepends a test file's folder)

SCALES = np.array(DEFAULT_SCALES)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)
P = SCALE_PAIR_WEIGHT


def path(means, horizon, seed, gaussian, sticky=2.0):
    """Half uniform, half the empirical best; the leader state advanced after each sample from the K-th on."""
    rng = np.random.default_rng(seed)
    k = len(means)
    counts, sums = np.zeros(k), np.zeros(k)
    state = np.zeros(state_size(k))
    state[:k] = -1.0
    var = np.ones(k) if gaussian else np.zeros(k)
    for t in range(horizon):
        est = np.divide(sums, counts, out=np.zeros(k), where=counts > 0)
        a = t if t < k else (int(rng.integers(k)) if rng.random() < 0.5 else int(np.argmax(est)))
        counts[a] += 1
        sums[a] += (means[a] + rng.standard_normal()) if gaussian else float(rng.random() < means[a])
        if t + 1 >= k:
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN if gaussian else BERNOULLI, var, sticky)
    return counts, sums, sums / counts, state


def log_e(x, j, counts, sums, state, gaussian):
    """ln E_j at the diagonal level x from the definition: (1 - p) (1/J) sum_c D_c G_c + p D-bar G-bar with
    G_c = (1/2) L_c + (1/2) (1/(K - 1)) U_best,c (the best-only average the kernels use)."""
    k = len(counts)
    means = sums / counts
    best = int(np.argmax(means))

    def half(n, s, c, up, q):
        if gaussian:  # one-sided half-normal mixture, variance 1, from scipy's normal log-cdf
            y = (s / n - x) if up else (x - s / n)
            a = n * n / (2 * (n + c))
            return a * y * y + norm.logcdf(math.sqrt(2 * a) * y) + math.log(2) - 0.5 * math.log1p(n / c)
        m = EMAX[q]
        ln = math.log(0.5 * math.erfc(-m * math.sqrt(c) / math.sqrt(2)) - 0.5)
        return term_at_level(n, s, x, c, m, math.exp(m) if up else math.exp(-m), ln, up)

    d, g = [], []
    for q, c in enumerate(SCALES):
        d.append(half(counts[j], sums[j], c, False, q))
        lead = 0.0
        for r in range(int(state[3 * k + j])):
            base = _seg(k, j, r)
            lead += half(state[base + 1], state[base + 2], c, True, q)
        cur = int(state[j])
        if cur >= 0 and counts[cur] > state[k + j]:
            lead += half(counts[cur] - state[k + j], sums[cur] - state[2 * k + j], c, True, q)
        g.append(np.logaddexp(math.log(0.5) + lead, math.log(0.5 / (k - 1)) + half(counts[best], sums[best], c, True, q)))
    d, g = np.array(d), np.array(g)
    J = len(SCALES)
    common = float(np.logaddexp.reduce(d + g)) - math.log(J) + math.log(1 - P)
    free = float(np.logaddexp.reduce(d)) + float(np.logaddexp.reduce(g)) - 2 * math.log(J) + math.log(P)
    return float(np.logaddexp(common, free))


@pytest.mark.parametrize("seed", range(3))
def test_gaussian_kernel_is_the_definition_convex_and_certified(seed):
    counts, sums, means, state = path(np.array([0.5, 0.3, 0.25, 0.0, -0.2]), 600, seed, True, sticky=0.5)
    var = np.ones(5)
    best = int(np.argmax(means))
    n = 3 * len(SCALES) + 2
    vals, ds, hs = np.empty(n), np.empty(n), np.empty(n)
    xs = np.linspace(means.min() - 1.0, means.max() + 1.0, 20001)
    for j in range(5):
        if j == best:
            continue
        kernel = np.array([_gauss_eval(x, state, j, best, counts, sums, var, SCALES, vals, ds, hs, P)[0] for x in xs])
        for i in range(0, 20001, 1000):
            assert kernel[i] == pytest.approx(log_e(xs[i], j, counts, sums, state, True), abs=1e-9)
        assert np.all(np.diff(kernel, 2) >= -1e-9)  # convex along the diagonal
        # first and second derivatives against finite differences
        i = int(np.argmin(kernel))
        f, g, h = _gauss_eval(xs[i], state, j, best, counts, sums, var, SCALES, vals, ds, hs, P)
        eps = 1e-5
        fp = _gauss_eval(xs[i] + eps, state, j, best, counts, sums, var, SCALES, vals, ds, hs, P)[0]
        fm = _gauss_eval(xs[i] - eps, state, j, best, counts, sums, var, SCALES, vals, ds, hs, P)[0]
        assert g == pytest.approx((fp - fm) / (2 * eps), abs=1e-5)
        assert h == pytest.approx((fp - 2 * f + fm) / eps ** 2, rel=1e-3, abs=1e-3)
        # the scale-pair prior is at least (1 - p) times the common-scale rule's E_j
        old = np.array([_gauss_eval(x, state, j, best, counts, sums, var, SCALES, vals, ds, hs)[0] for x in xs[::50]])
        assert np.all(kernel[::50] >= old + math.log(1 - P) - 1e-12)
        check_certified(float(kernel.min()),
                        lambda level: gaussian_hypothesis_margin(state, j, best, counts, sums, means, var, SCALES, level, P))


@pytest.mark.parametrize("seed", range(3))
def test_bernoulli_kernel_is_the_definition_convex_and_certified(seed):
    counts, sums, means, state = path(np.array([0.3, 0.22, 0.2, 0.1]), 3000, seed, False)
    best = int(np.argmax(means))
    ys = np.linspace(0.0, 1.0, 20001)
    for j in range(4):
        if j == best:
            continue
        vals = np.array([_tilt_eval(y, state, j, best, counts, sums, SCALES, EMAX, CONSTS, P) for y in ys])
        for i in range(0, 20001, 1000):
            assert vals[i] == pytest.approx(log_e(ys[i], j, counts, sums, state, False), abs=1e-9)
        assert np.all(np.diff(vals, 2) >= -1e-7)  # convex in the level
        check_certified(float(vals.min()),
                        lambda level: tilt_hypothesis_margin(state, j, best, counts, sums, means, SCALES, EMAX, CONSTS, level,
                                                             P))


def test_passes_whenever_the_common_scale_rule_passes_at_half_delta():
    # E_j >= (1 - p) E_j(common scales): the "leader" rule at delta (1 - p) implies a pass
    rng = np.random.default_rng(4)
    k, delta = 5, 0.1
    new = GaussianLeaderScalesThreshold(delta, k)
    old = GaussianLeaderThreshold(delta * (1 - P), k)
    passes = 0
    for seed in range(30):
        counts, sums, means, state = path(np.array([0.6, 0.3, 0.25, 0.0, -0.2]), int(rng.integers(1000, 4000)), seed,
                                          True)
        new.state_[:] = state
        old.state_[:] = state
        if old.margin(counts, sums, means, np.ones(k)) > 1e-6:
            passes += 1
            assert new.margin(counts, sums, means, np.ones(k)) > 0.0
    assert passes >= 5


def _tie_errors(mu, gaussian, horizon, runs, seed, level):
    """Runs (sampling: 40 % uniform, 30 % H_0's leader, 30 % the empirical best) in which the rule stops with an
    arm other than 0, a best arm of ``mu`` tied with others (an error).  The draws of a run come from ``seed``'s
    generator here, the run itself is compiled (:func:`_tie_run`)."""
    k = mu.shape[0]
    rng = np.random.default_rng(seed)
    var = np.ones(k) if gaussian else np.zeros(k)
    code = GAUSSIAN if gaussian else BERNOULLI
    errors = 0
    for _ in range(runs):
        noise = rng.standard_normal(horizon) if gaussian else rng.random(horizon)
        choice = rng.random(horizon)
        picks = rng.integers(k, size=horizon)
        errors += _tie_run(mu, gaussian, noise, choice, picks, code, var, level, SCALES, EMAX, CONSTS, P)
    return errors


@njit(cache=True)
def _tie_run(mu, gaussian, noise, choice, picks, code, var, level, scales, emax, consts, product):
    """1 when the run of these draws stops with an arm other than 0, else 0 (a stop on arm 0 or no stop)."""
    k = mu.shape[0]
    counts, sums = np.zeros(k), np.zeros(k)
    state = np.zeros(state_size(k))
    state[:k] = -1.0
    for t in range(noise.shape[0]):
        if t < k:
            a = t
        else:
            means = sums / counts
            if choice[t] < 0.4:
                a = picks[t]
            elif choice[t] < 0.7:
                a = 1 + np.argmax(means[1:])
            else:
                a = np.argmax(means)
        counts[a] += 1.0
        if gaussian:
            sums[a] += mu[a] + noise[t]
        else:
            sums[a] += 1.0 if noise[t] < mu[a] else 0.0
        if t + 1 < k:
            continue
        means = sums / counts
        leader_advance(state, counts, sums, means, code, var, 2.0)
        if leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, True, product) > 0.0:
            return 1 if np.argmax(means) != 0 else 0
    return 0


@pytest.mark.parametrize("gaussian,mu,horizon", [(True, (0.0, 0.0, -1.0, -1.0), 2000),
                                                 (False, (0.5, 0.5, 0.3, 0.3), 3000)])
def test_error_rate_near_ties_is_below_delta_for_adaptive_sampling(gaussian, mu, horizon):
    runs, delta = 200, 0.3  # the power of the margin check: see test_leader's near-tie test (1 and 2 errors here)
    errors = _tie_errors(np.array(mu), gaussian, horizon, runs, 17, math.log(1 / delta))
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01
    assert errors < 0.5 * delta * runs


def test_make_threshold_problems_and_defaults():
    th = make_threshold("leader-scales", 0.1, n_alternatives=4, family="gaussian")
    assert th == GaussianLeaderScalesThreshold(0.1, 5) and th.proven and th.stateful and th.product_weight == P
    assert make_threshold("leader-scales", 0.1, n_alternatives=2, family="bernoulli") == BernoulliLeaderScalesThreshold(
        0.1, 3)
    assert make_threshold("leader", 0.1, n_alternatives=4, family="gaussian").product_weight == 0.0
    fc = FixedConfidence(0.1)
    # reachable by name (the "delta-correct" default is "leader-settled": test_leader_settled.py)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("leader-scales", 0.1) == \
        GaussianLeaderScalesThreshold(0.1, 4)
    assert BestArmProblem(4, Bernoulli(n_sources=4), fc).threshold("Leader-Scales", 0.1) == \
        BernoulliLeaderScalesThreshold(0.1, 4)
    assert type(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("leader", 0.1)) is GaussianLeaderThreshold
    with pytest.raises(InvalidParameterError, match="threshold"):
        TopKProblem(4, 2, Gaussian(1.0, n_sources=4), fc).threshold("leader-scales", 0.1)
    # epsilon-best-arm identification: the same kind on the problem's shift (test_leader_epsilon.py)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("leader-scales", 0.1) == \
        GaussianLeaderScalesThreshold(0.1, 4, shift=(1.0, 0.1))
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("leader-scales", 0.1, n_alternatives=4, family="exponential_family")
