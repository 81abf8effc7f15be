"""Tests of pybai.stopping.leader: best-arm identification with one e-process per hypothesis "arm j is the best"."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from numba import njit
from scipy import integrate
from scipy.stats import binomtest, norm

from pybai import BestArmProblem, FixedConfidence, make_strategy
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.models._kl import BERNOULLI, GAUSSIAN
from pybai.problems.top_k import TopKProblem
from pybai.stopping._leader_kernels import (MAX_SEGMENTS, _gauss_eval, gauss_factor, _seg, _tilt_eval,
                                            gaussian_hypothesis_margin, leader_advance, leader_min_margin, state_size,
                                            tilt_hypothesis_margin)
from pybai.stopping._tilt_kernels import term_at_level, scale_constants, tilt_caps
from pybai.stopping.base import Threshold
from pybai.stopping.leader import BernoulliLeaderThreshold, GaussianLeaderThreshold
from pybai.stopping.pair_mixture import DEFAULT_SCALES, GaussianPairMixtureThreshold
from pybai.stopping.thresholds import make_threshold
from pybai.strategies.state import restore_strategy

SCALES = np.array(DEFAULT_SCALES)
EMAX = tilt_caps(SCALES)
CONSTS = scale_constants(SCALES, EMAX)


def check_certified(low, margin):
    """The margin at levels around the grid minimum ``low``: never above the minimum, positive well below it."""
    for level in (low - 0.5, low - 0.01, low + 0.01):
        m = margin(level)
        if m > 0.0:
            assert m <= low - level + 1e-7
        if level < low - 0.05:
            assert m > 0.0
        if level > low:
            assert m <= 0.0


def fresh(k):
    state = np.zeros(state_size(k))
    state[:k] = -1.0
    return state


def gaussian_path(means, horizon, seed, sticky=2.0):
    """A run of Track-and-Stop-like greedy-uniform sampling (half uniform, half the empirical best) with the
    leader state advanced after each sample from the K-th on; returns counts, sums, means, state."""
    rng = np.random.default_rng(seed)
    k = len(means)
    counts, sums, state = np.zeros(k), np.zeros(k), fresh(k)
    var = np.ones(k)
    for t in range(horizon):
        est = np.divide(sums, counts, out=np.zeros(k), where=counts > 0)
        a = t if t < k else (int(rng.integers(k)) if rng.random() < 0.5 else int(np.argmax(est)))
        counts[a] += 1
        sums[a] += means[a] + rng.standard_normal()
        if t + 1 >= k:
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN, var, sticky)
    return counts, sums, sums / counts, state


def log_e_gauss(lam, j, best_only, counts, sums, var, state, scales=SCALES):
    """ln E_j at any levels ``lam`` from the definition (scipy's normal log-cdf; the full or best-only average)."""
    k = len(counts)

    def half(n, s, v, c, y):  # one-sided half-normal mixture, y = deviation on the prior's side
        a = n * n / (2 * v * (n + c))
        return a * y * y + norm.logcdf(math.sqrt(2 * a) * y) + math.log(2) - 0.5 * math.log1p(n / c)

    means = sums / counts
    best = int(np.argmax(means))
    terms = []
    for c in scales:
        down = half(counts[j], sums[j], var[j], c, lam[j] - means[j])
        lead = 0.0
        for q in range(int(state[3 * k + j])):
            base = _seg(k, j, q)
            arm, n, s = int(state[base]), state[base + 1], state[base + 2]
            lead += half(n, s, var[arm], c, s / n - lam[arm])
        cur = int(state[j])
        if cur >= 0 and counts[cur] > state[k + j]:
            n, s = counts[cur] - state[k + j], sums[cur] - state[2 * k + j]
            lead += half(n, s, var[cur], c, s / n - lam[cur])
        others = [best] if best_only else [i for i in range(k) if i != j]
        hold = [half(counts[i], sums[i], var[i], c, means[i] - lam[i]) for i in others]
        terms.append(down + np.logaddexp(math.log(0.5) + lead,
                                         math.log(0.5 / (k - 1)) + float(np.logaddexp.reduce(hold))))
    return float(np.logaddexp.reduce(terms)) - math.log(len(scales))


@pytest.mark.parametrize("n,s,v,c,x,up", [(50, 30.0, 1.0, 3.0, 0.4, True), (50, 10.0, 4.0, 3.0, 0.4, False),
                                          (400, 100.0, 1.0, 55.0, 0.3, True), (7, -2.0, 0.25, 1.0, 0.1, False)])
def test_gaussian_factor_is_the_half_normal_mixture_it_defines(n, s, v, c, x, up):
    # prior 2 N(0, v / c) on the tilt's side, likelihood ratio of n samples of variance v summing to s
    sign = 1.0 if up else -1.0

    def integrand(d):
        return math.exp(sign * d * (s - n * x) / v - n * d * d / (2 * v)) * 2 * math.sqrt(c / (2 * math.pi * v)) * math.exp(
            -c * d * d / (2 * v))

    value = integrate.quad(integrand, 0, np.inf, epsabs=0, epsrel=1e-11, limit=200)[0]
    assert gauss_factor(x, up, n, s, v, c)[0] == pytest.approx(math.log(value), abs=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_kernel_value_is_the_definition_and_the_infimum_is_on_a_convex_diagonal(seed):
    counts, sums, means, state = gaussian_path(np.array([0.3, 0.2, 0.2, 0.0]), 400, seed, sticky=0.5)
    var = np.ones(4)
    best = int(np.argmax(means))
    vals, ds, hs = np.empty(16), np.empty(16), np.empty(16)
    rng = np.random.default_rng(seed)
    for j in range(4):
        if j == best:
            continue
        xs = np.linspace(means.min() - 0.5, means.max() + 0.5, 401)
        kernel = np.array([_gauss_eval(x, state, j, best, counts, sums, var, SCALES, vals, ds, hs)[0] for x in xs])
        reference = np.array([log_e_gauss(np.full(4, x), j, True, counts, sums, var, state) for x in xs])
        assert np.allclose(kernel, reference, atol=1e-9)
        assert np.all(np.diff(kernel, 2) >= -1e-9)  # convex along the diagonal
        # monotone: any point of H_j is at least the diagonal point at lambda_j (full average)
        for _ in range(50):
            lam = rng.normal(means.mean(), 0.4, 4)
            lam[j] = lam.max() + abs(rng.normal(0, 0.1))
            assert log_e_gauss(lam, j, False, counts, sums, var, state) >= log_e_gauss(
                np.full(4, lam[j]), j, False, counts, sums, var, state) - 1e-9
        # the full average is at least the best-only lower bound the kernel uses
        assert log_e_gauss(np.full(4, xs[200]), j, False, counts, sums, var, state) >= reference[200] - 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_gaussian_margin_is_a_certified_lower_bound_of_the_infimum(seed):
    counts, sums, means, state = gaussian_path(np.array([0.5, 0.3, 0.25, 0.0, -0.2]), 600, seed)
    var = np.ones(5)
    best = int(np.argmax(means))
    vals, ds, hs = np.empty(16), np.empty(16), np.empty(16)
    xs = np.linspace(means.min() - 1.0, means.max() + 1.0, 20001)
    for j in range(5):
        if j == best:
            continue
        low = min(_gauss_eval(x, state, j, best, counts, sums, var, SCALES, vals, ds, hs)[0] for x in xs)
        check_certified(low, lambda level: gaussian_hypothesis_margin(state, j, best, counts, sums, means, var,
                                                                      SCALES, level))


def bernoulli_path(means, horizon, seed):
    rng = np.random.default_rng(seed)
    k = len(means)
    counts, sums, state = np.zeros(k), np.zeros(k), fresh(k)
    for t in range(horizon):
        est = np.divide(sums, counts, out=np.zeros(k), where=counts > 0)
        a = t if t < k else (int(rng.integers(k)) if rng.random() < 0.5 else int(np.argmax(est)))
        counts[a] += 1
        sums[a] += float(rng.random() < means[a])
        if t + 1 >= k:
            leader_advance(state, counts, sums, sums / counts, BERNOULLI, np.zeros(k), 2.0)
    return counts, sums, sums / counts, state


@pytest.mark.parametrize("seed", range(4))
def test_bernoulli_margin_is_a_certified_lower_bound_and_terms_are_the_tilted_mixtures(seed):
    counts, sums, means, state = bernoulli_path(np.array([0.3, 0.22, 0.2, 0.1]), 3000, seed)
    best = int(np.argmax(means))
    ys = np.linspace(0.0, 1.0, 20001)
    for j in range(4):
        if j == best:
            continue
        # the value at one level from the tilted terms of pybai.stopping._tilt_kernels
        y = 0.5 * (means[best] + means[j])
        terms = []
        for c, m in zip(SCALES, EMAX):
            ea, ed, ln = math.exp(m), math.exp(-m), math.log(0.5 * math.erfc(-m * math.sqrt(c) / math.sqrt(2)) - 0.5)
            down = term_at_level(counts[j], sums[j], y, c, m, ed, ln, False)
            lead = sum(term_at_level(state[_seg(4, j, q) + 1], state[_seg(4, j, q) + 2], y, c, m, ea, ln, True)
                       for q in range(int(state[12 + j])))
            cur = int(state[j])
            if counts[cur] > state[4 + j]:
                lead += term_at_level(counts[cur] - state[4 + j], sums[cur] - state[8 + j], y, c, m, ea, ln, True)
            hold = term_at_level(counts[best], sums[best], y, c, m, ea, ln, True)
            terms.append(down + np.logaddexp(math.log(0.5) + lead, math.log(0.5 / 3) + hold))
        ref = float(np.logaddexp.reduce(terms)) - math.log(len(SCALES))
        assert _tilt_eval(y, state, j, best, counts, sums, SCALES, EMAX, CONSTS) == pytest.approx(ref, abs=1e-9)
        vals = np.array([_tilt_eval(v, state, j, best, counts, sums, SCALES, EMAX, CONSTS) for v in ys])
        assert np.all(np.diff(vals, 2) >= -1e-7)  # convex in the level
        low = float(vals.min())
        check_certified(low, lambda level: tilt_hypothesis_margin(state, j, best, counts, sums, means, SCALES, EMAX,
                                                                  CONSTS, level))


def test_leaders_are_sticky_and_segments_are_stored():
    k = 3
    state = fresh(k)
    var = np.ones(k)

    def advance(counts, sums):
        leader_advance(state, np.array(counts, float), np.array(sums, float), np.array(sums, float) / np.array(
            counts, float), GAUSSIAN, var, 2.0)

    advance([10, 10, 10], [5, 4, 0])
    assert list(state[:k]) == [1.0, 0.0, 0.0]  # the best of the other arms; starts at their counts and sums
    assert list(state[k:3 * k]) == [10.0, 10.0, 10.0, 4.0, 5.0, 5.0]
    advance([10, 30, 10], [5, 16, 0])  # arm 1 (0.533) overtakes arm 0 (0.5): pair GLR 0.004 <= 2, leaders kept
    assert list(state[:k]) == [1.0, 0.0, 0.0] and state[3 * k + 2] == 0.0
    advance([100, 230, 10], [5, 216, 0])  # arm 0 falls to 0.05: H_2 moves to arm 1 (pair GLR 27.5)
    assert list(state[:k]) == [1.0, 0.0, 1.0] and list(state[3 * k: 4 * k]) == [0.0, 0.0, 1.0]
    base = _seg(k, 2, 0)
    assert list(state[base: base + 3]) == [0.0, 90.0, 0.0]  # arm 0's 90 samples since it led H_2, summing to 0
    assert state[k + 2] == 230.0 and state[2 * k + 2] == 216.0  # the new segment starts empty


@njit(cache=True)
def _null_runs(mu, gaussian, horizon, runs, seed, level, scales, emax, consts, plain):
    """Runs in which the rule stops with an arm other than 0, the first best arm of ``mu`` (an error)."""
    k = mu.shape[0]
    np.random.seed(seed)
    var = np.ones(k) if gaussian else np.zeros(k)
    code = GAUSSIAN if gaussian else BERNOULLI
    errors = 0
    for _ in range(runs):
        counts = np.zeros(k)
        sums = np.zeros(k)
        state = np.zeros(state_size(k))
        state[:k] = -1.0
        for t in range(horizon):
            if t < k:
                a = t
            else:
                means = sums / counts
                u = np.random.random()
                if u < 0.4:
                    a = np.random.randint(k)
                elif u < 0.7:  # H_0's leader: the empirical best of the other arms
                    a = 1
                    for i in range(2, k):
                        if means[i] > means[a]:
                            a = i
                else:
                    a = np.argmax(means)
            counts[a] += 1.0
            sums[a] += (mu[a] + np.random.standard_normal()) if gaussian else (1.0 if np.random.random() < mu[a] else 0.0)
            if t + 1 < k:
                continue
            means = sums / counts
            best = np.argmax(means)
            if plain:  # the heuristic: the smallest pair GLR against ln(1/delta), no time uniformity
                z = math.inf
                for b in range(k):
                    if b != best:
                        d = means[best] - means[b]
                        z = min(z, d * d / (2.0 * (1.0 / counts[best] + 1.0 / counts[b])))
                if z > level:
                    if best != 0:
                        errors += 1
                    break
                continue
            leader_advance(state, counts, sums, means, code, var, 2.0)
            if leader_min_margin(state, code, counts, sums, means, var, scales, emax, consts, level, True) > 0.0:
                if best != 0:
                    errors += 1
                break
    return errors


@pytest.mark.parametrize("gaussian,mu,horizon,control,runs", [
    (True, (0.0, 0.0, -1.0, -1.0), 2000, True, 200), (True, (0.0, 0.0, 0.0, -1.0), 2000, False, 200),
    (False, (0.5, 0.5, 0.3, 0.3), 3000, False, 200),
    pytest.param(False, (0.05, 0.05, 0.02, 0.02), 20000, False, 100, marks=pytest.mark.slow)])
def test_error_rate_near_ties_is_below_delta_for_adaptive_sampling(gaussian, mu, horizon, control, runs):
    # two or three arms tie for the best: a stop with an arm other than 0 is an error; the sampling favours
    # H_0's leader and the empirical best
    # 200 runs: a rule that errs at rate delta (mean 60 errors, sd 6.5) fails the margin check below (30) with
    # certainty (z = -4.6), one that errs at 2/3 delta (mean 40, sd 5.7) with probability about 0.97 (0.99 with
    # the 400 runs this test used before; the rule errs in 4, 1 and 0 of these 200, 6, 1 and 1 of 400).  The
    # control runs 400 (its GLR alone is cheap): at 200 its excess over delta is not significant.  The low-rate
    # Bernoulli case runs 100: there even the GLR against ln(1/delta) alone, or the rule at a quarter of its level, errs in
    # 0 and 2 of 100 runs (measured), so more runs add no power against a wrong level; a rule erring at rate delta
    # (mean 30, sd 4.6) still fails the margin check (15) with probability above 0.999
    delta = 0.3
    errors = _null_runs(np.array(mu), gaussian, horizon, runs, 7, math.log(1 / delta), SCALES, EMAX, CONSTS, False)
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01
    assert errors < 0.5 * delta * runs  # below delta with a margin (a proven rule is conservative near ties)
    if control:  # the check can fail: the GLR against ln(1/delta) alone errs in about 45 % of the runs here
        plain = _null_runs(np.array(mu), gaussian, horizon, 400, 7, math.log(1 / delta), SCALES, EMAX, CONSTS, True)
        assert binomtest(plain, 400, delta, alternative="greater").pvalue < 0.01


@njit(cache=True)
def _log_e_true(state, j, counts, sums, var, x, scales, broken):
    """ln E_j at the levels (x, ..., x) with the full average (``broken``: the leader process replaced by the
    whole-history mixture of the current leader, without the 1/2: not a supermartingale)."""
    k = counts.shape[0]
    acc = -math.inf
    for q in range(scales.shape[0]):
        c = scales[q]
        down = gauss_factor(x, False, counts[j], sums[j], var[j], c)[0]
        lead = 0.0
        cur = int(state[j])
        if broken:
            if cur >= 0:
                lead = gauss_factor(x, True, counts[cur], sums[cur], var[cur], c)[0] + math.log(2.0)
        else:
            for p in range(int(state[3 * k + j])):
                base = _seg(k, j, p)
                lead += gauss_factor(x, True, state[base + 1], state[base + 2], var[int(state[base])], c)[0]
            if cur >= 0 and counts[cur] > state[k + j]:
                lead += gauss_factor(x, True, counts[cur] - state[k + j], sums[cur] - state[2 * k + j], var[cur], c)[0]
        hold = -math.inf
        for i in range(k):
            if i != j:
                v = gauss_factor(x, True, counts[i], sums[i], var[i], c)[0]
                hold = v if hold == -math.inf else max(hold, v) + math.log1p(math.exp(-abs(hold - v)))
        t1 = math.log(0.5) + lead
        t2 = math.log(0.5 / (k - 1.0)) + hold
        both = max(t1, t2) + math.log1p(math.exp(-abs(t1 - t2)))
        v = down + both - math.log(scales.shape[0])
        acc = v if acc == -math.inf else max(acc, v) + math.log1p(math.exp(-abs(acc - v)))
    return acc


@njit(cache=True)
def _ville_crossings(k, horizon, runs, seed, level, scales, broken):
    """Runs (equal means 0, adaptive sampling) in which E_0 at the true means ever reaches e^level."""
    np.random.seed(seed)
    var = np.ones(k)
    hits = 0
    for _ in range(runs):
        counts = np.zeros(k)
        sums = np.zeros(k)
        state = np.zeros(state_size(k))
        state[:k] = -1.0
        for t in range(horizon):
            if t < k:
                a = t
            else:
                means = sums / counts
                u = np.random.random()
                if u < 0.4:
                    a = np.random.randint(k)
                elif u < 0.7:
                    a = int(state[0])  # H_0's leader
                else:
                    a = np.argmax(means)
            counts[a] += 1.0
            sums[a] += np.random.standard_normal()
            if t + 1 < k:
                continue
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN, var, 0.5)
            if _log_e_true(state, 0, counts, sums, var, 0.0, scales, broken) >= level:
                hits += 1
                break
    return hits


def test_the_e_process_at_the_truth_crosses_its_level_with_probability_at_most_delta():
    # Ville's inequality for E_0 itself (no infimum): much closer to delta than the rule's error rate
    delta, runs = 0.3, 1000
    hits = _ville_crossings(4, 1500, runs, 3, math.log(1 / delta), SCALES, False)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    assert 0.2 * delta * runs < hits < delta * runs  # crosses sometimes (not vacuous), less often than delta
    broken = _ville_crossings(4, 1500, runs, 3, math.log(1 / delta), SCALES, True)
    assert binomtest(broken, runs, delta, alternative="greater").pvalue < 0.01


def test_passes_whenever_the_pair_rule_passes_at_twice_the_union():
    # E_j >= (1/2)(1/(K-1)) x the pair mixture of (best, j): the pair rule at level ln(2 (K-1)/delta) implies a pass
    rng = np.random.default_rng(11)
    k, delta = 5, 0.1
    leader = GaussianLeaderThreshold(delta, k)
    pair = GaussianPairMixtureThreshold(delta / 2.0, k - 1)
    passes = 0
    for seed in range(30):
        counts, sums, means, state = gaussian_path(np.array([0.6, 0.3, 0.25, 0.0, -0.2]), int(rng.integers(1500, 5000)),
                                                   seed)
        leader.state_[:] = state
        best = int(np.argmax(means))
        others = [i for i in range(k) if i != best]
        if pair.min_margin(counts, means, np.ones(k), [best], others) > 1e-6:
            passes += 1
            assert leader.margin(counts, sums, means, np.ones(k)) > 0.0
    assert passes >= 5


def test_make_threshold_problems_and_parameters():
    th = make_threshold("leader", 0.1, n_alternatives=4, family="gaussian")
    assert th == GaussianLeaderThreshold(0.1, 5) and th.proven and th.count_dependent and th.stateful
    assert th.level == pytest.approx(math.log(10.0)) and th(1000) == make_threshold("kk21", 0.1, n_alternatives=4)(1000)
    assert make_threshold("leader", 0.1, n_alternatives=2, family="bernoulli") == BernoulliLeaderThreshold(0.1, 3)
    copy = pickle.loads(pickle.dumps(th))
    assert copy == th and np.array_equal(copy.state_, th.state_)
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("leader", 0.1, n_alternatives=4, family="exponential_family")
    with pytest.raises(InvalidParameterError, match="n_arms"):
        GaussianLeaderThreshold(0.1, 1)
    fc = FixedConfidence(0.1)
    with pytest.raises(InvalidParameterError, match="threshold"):
        TopKProblem(4, 2, Gaussian(1.0, n_sources=4), fc).threshold("leader", 0.1)
    # epsilon-best-arm identification: the same kind on the problem's shift (test_leader_epsilon.py)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("leader", 0.1) == \
        GaussianLeaderThreshold(0.1, 4, shift=(1.0, 0.1))
    assert isinstance(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("leader", 0.1),
                      GaussianLeaderThreshold)
    # the delta-correct rule of best-arm identification on Gaussian and Bernoulli arms (with epsilon too); for
    # top-k the per-pair rules
    assert isinstance(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("delta-correct", 0.1),
                      GaussianLeaderThreshold)
    assert isinstance(BestArmProblem(4, Bernoulli(n_sources=4), fc).threshold("delta-correct", 0.1),
                      BernoulliLeaderThreshold)
    assert isinstance(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("delta-correct", 0.1),
                      GaussianLeaderThreshold)
    assert isinstance(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("pair-mixture", 0.1),
                      GaussianPairMixtureThreshold)
    assert isinstance(TopKProblem(4, 2, Gaussian(1.0, n_sources=4), fc).threshold("delta-correct", 0.1),
                      GaussianPairMixtureThreshold)
    assert state_size(3) == 3 * (5 + 3 * MAX_SEGMENTS)


def test_state_is_saved_and_restored_with_the_strategy():
    problem = BestArmProblem(4, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    env = GaussianEnvironment(np.array([1.0, 0.7, 0.6, 0.2]), 1.0)
    s = make_strategy("tas", {"threshold": "leader"}).start(problem, rng=0)
    noise = np.random.default_rng(1)
    for _ in range(300):
        s.tell(*env.respond(s.ask(), noise))
    saved = json.loads(json.dumps(s.get_state()))
    r = restore_strategy(saved, problem)
    assert np.array_equal(r.threshold_.state_, s.threshold_.state_) and r.threshold_.state_[0] >= 0
    n1, n2 = np.random.default_rng(5), np.random.default_rng(5)
    while not s.stopped:
        s.tell(*env.respond(s.ask(), n1))
    while not r.stopped:
        r.tell(*env.respond(r.ask(), n2))
    assert s.t_ == r.t_ and s.recommendation() == r.recommendation()
    del saved["stopping"]
    with pytest.raises(InvalidParameterError, match="stopping"):
        restore_strategy(saved, problem)


@pytest.mark.parametrize("kind", ["leader", "leader-scales", "leader-settled", "leader-favoured"])
@pytest.mark.parametrize("bernoulli", [False, True])
@pytest.mark.parametrize("name", ["tas", "top-two", "uniform", "lucb", "game"])
def test_compiled_runs_equal_ask_tell_runs_state_included(name, bernoulli, kind):
    means = np.array([0.5, 0.45, 0.43, 0.4]) if bernoulli else np.array([1.0, 0.8, 0.6, 0.4])
    env = BernoulliEnvironment(means) if bernoulli else GaussianEnvironment(means, 1.0)
    family = Bernoulli(n_sources=4) if bernoulli else Gaussian(1.0, n_sources=4)
    problem = BestArmProblem(4, family, FixedConfidence(0.1, max_samples=100_000))
    fast = make_strategy(name, {"threshold": kind}).start(problem, rng=3)
    slow = make_strategy(name, {"threshold": kind}).start(problem, rng=3)
    assert fast.simulate_run(env.means, np.random.default_rng(30), None if bernoulli else np.ones(4))
    noise = np.random.default_rng(30)
    while not slow.stopped:
        slow.tell(*env.respond(slow.ask(), noise))
    assert fast.t_ == slow.t_ and np.array_equal(fast.counts_, slow.counts_)
    assert np.array_equal(fast.threshold_.state_, slow.threshold_.state_)
    assert fast.recommendation() == slow.recommendation() == 0


def test_one_trajectory_for_several_deltas_equals_each_run():
    env = GaussianEnvironment(np.array([1.0, 0.8, 0.6, 0.4, 0.2]), 1.0)
    deltas = [0.2, 0.1, 0.01]
    copies = [make_strategy("tas", {"threshold": "leader"}).start(
        BestArmProblem(5, Gaussian(1.0, n_sources=5), FixedConfidence(d)), rng=1) for d in deltas]
    assert copies[0].simulate_deltas(env.means, np.random.default_rng(9), np.ones(5), copies)
    for copy, d in zip(copies, deltas):
        s = make_strategy("tas", {"threshold": "leader"}).start(
            BestArmProblem(5, Gaussian(1.0, n_sources=5), FixedConfidence(d)), rng=1)
        noise = np.random.default_rng(9)
        while not s.stopped:
            s.tell(*env.respond(s.ask(), noise))
        assert copy.t_ == s.t_ and np.array_equal(copy.threshold_.state_, s.threshold_.state_)


@pytest.mark.parametrize("kind", ["leader", "leader-scales", "leader-settled", "leader-favoured"])
@pytest.mark.parametrize("bernoulli", [False, True])
def test_run_check_is_advance_then_decide_in_one_step(bernoulli, kind):
    """The one-call check of a run (leader_step) decides, records and reports as advance then decide (the base
    Threshold.run_check), at every sample of a run; the evidence reads the step's margin until the model moves."""
    means = np.array([0.6, 0.4, 0.35, 0.2]) if bernoulli else np.array([1.0, 0.7, 0.6, 0.3])
    env = BernoulliEnvironment(means) if bernoulli else GaussianEnvironment(means, 1.0)
    family = Bernoulli(n_sources=4) if bernoulli else Gaussian(1.0, n_sources=4)
    problem = BestArmProblem(4, family, FixedConfidence(0.05))
    one, two = problem.threshold(kind, 0.05), problem.threshold(kind, 0.05)
    model_one, model_two = problem.new_model(), problem.new_model()
    rng, noise = np.random.default_rng(4), np.random.default_rng(5)
    stops = 0
    for t in range(1, 3000):
        arm = np.array([t - 1 if t <= 4 else int(rng.integers(4))])
        reward = env.respond(arm, noise)[1]
        model_one.update(arm, reward)
        model_two.update(arm, reward)
        if t < 4:
            continue
        d_one = one.run_check(problem, model_one, t)
        d_two = Threshold.run_check(two, problem, model_two, t)
        assert d_one == d_two and np.array_equal(one.state_, two.state_)
        assert one.evidence(problem, model_one, t) == two.evidence(problem, model_two, t)
        stops += bool(d_one.stop)
    assert stops > 0  # the runs reach the stop: the comparison covers a rejected hypothesis and the stop
    model_one.update(np.array([0]), env.respond(np.array([0]), noise)[1])  # moved: a what-if, not the step's margin
    assert one.model_margin(model_one, family.variances, [0], [1, 2, 3]) == one.margin(
        model_one.counts, model_one.sums, model_one.estimate, family.variances)
    with pytest.raises(InvalidParameterError, match="threshold"):
        one.run_check(TopKProblem(4, 2, family, FixedConfidence(0.05)), model_one, 3000)
