"""Tests of the settled-leader rule of pybai.stopping.leader (kind "leader-settled": the scale-pair prior, and a
hypothesis' leader process starts only once its leader beats the runner-up of the other arms)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit
from scipy.stats import binomtest

from pybai import BestArmProblem, FixedConfidence
from pybai.exceptions import InvalidParameterError
from pybai.models import Bernoulli, Gaussian
from pybai.models._kl import BERNOULLI, GAUSSIAN, pair_cost
from pybai.problems.top_k import TopKProblem
from pybai.stopping._leader_kernels import STICKY, _gauss_eval, _tilt_eval, leader_advance, leader_min_margin, state_size
from pybai.stopping.leader import (SCALE_PAIR_WEIGHT, BernoulliLeaderSettledThreshold, GaussianLeaderScalesThreshold,
                                   GaussianLeaderSettledThreshold)
from pybai.stopping.thresholds import make_threshold

# tests/stopping is on sys.path (pytest prepends a test file's folder)
from test_leader import _log_e_true, fresh
from test_leader_scales import CONSTS, EMAX, SCALES, log_e

P = SCALE_PAIR_WEIGHT


def settled_path(means, horizon, seed, gaussian, start=STICKY):
    """Half uniform, half the empirical best; the settled leader state advanced after each sample from the K-th on."""
    rng = np.random.default_rng(seed)
    k = len(means)
    counts, sums, state = np.zeros(k), np.zeros(k), fresh(k)
    var = np.ones(k) if gaussian else np.zeros(k)
    for t in range(horizon):
        est = np.divide(sums, counts, out=np.zeros(k), where=counts > 0)
        a = t if t < k else (int(rng.integers(k)) if rng.random() < 0.5 else int(np.argmax(est)))
        counts[a] += 1
        sums[a] += (means[a] + rng.standard_normal()) if gaussian else float(rng.random() < means[a])
        if t + 1 >= k:
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN if gaussian else BERNOULLI, var, STICKY, start)
    return counts, sums, sums / counts, state


def test_first_leader_waits_until_it_beats_the_runner_up():
    var = np.ones(3)
    state = fresh(3)
    counts = np.array([10.0, 10.0, 10.0])
    means = np.array([1.0, 0.9, 0.0])  # arm 0 over arm 1: pair GLR 0.025, not settled
    sums = means * counts
    leader_advance(state, counts, sums, means, GAUSSIAN, var, STICKY, STICKY)
    # H_0: candidate arm 1 against the runner-up arm 2 (pair GLR 2.025 > 2), starts; H_1: arm 0 against arm 2 (2.5),
    # starts; H_2: arm 0 against arm 1 (0.025), waits (its leader process is cash)
    assert pair_cost(GAUSSIAN, 10.0, 0.9, 1.0, 10.0, 0.0, 1.0) == pytest.approx(2.025)
    assert pair_cost(GAUSSIAN, 10.0, 1.0, 1.0, 10.0, 0.9, 1.0) == pytest.approx(0.025)
    assert state[0] == 1.0 and state[3 + 0] == 10.0 and state[6 + 0] == 9.0
    assert state[1] == 0.0 and state[3 + 1] == 10.0 and state[6 + 1] == 10.0
    assert state[2] == -1.0
    counts2 = np.array([40.0, 40.0, 10.0])
    means2 = np.array([1.0, 0.5, 0.0])  # arm 0 over arm 1: pair GLR 2.5 > 2
    sums2 = means2 * counts2
    leader_advance(state, counts2, sums2, means2, GAUSSIAN, var, STICKY, STICKY)
    assert state[2] == 0.0 and state[3 + 2] == 40.0 and state[6 + 2] == 40.0  # its segment starts now
    assert state[0] == 1.0 and state[3 + 0] == 10.0 and state[1] == 0.0 and state[3 + 1] == 10.0  # unchanged
    assert not state[9: 12].any()  # a first leader closes no segment
    two = fresh(2)  # two arms: no runner-up, the leader starts at once
    leader_advance(two, np.array([3.0, 3.0]), np.array([1.0, 0.9]), np.array([1 / 3, 0.3]), GAUSSIAN, np.ones(2),
                   STICKY, STICKY)
    assert two[0] == 1.0 and two[1] == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_start_zero_is_the_scale_pair_rule(seed):
    means = [1.0, 0.95, 0.9, 0.3, 0.2]
    a = settled_path(means, 400, seed, True, start=0.0)
    b = settled_path(means, 400, seed, True, start=STICKY)
    rng = np.random.default_rng(seed)
    k = len(means)
    counts, sums, state = np.zeros(k), np.zeros(k), fresh(k)
    for t in range(400):  # the same path with the kernel's default (no start argument)
        est = np.divide(sums, counts, out=np.zeros(k), where=counts > 0)
        arm = t if t < k else (int(rng.integers(k)) if rng.random() < 0.5 else int(np.argmax(est)))
        counts[arm] += 1
        sums[arm] += means[arm] + rng.standard_normal()
        if t + 1 >= k:
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN, np.ones(k), STICKY)
    assert np.array_equal(a[3], state)
    assert (b[3][:k] < 0).sum() >= (a[3][:k] < 0).sum()  # a positive start never gives a leader earlier


@pytest.mark.parametrize("gaussian", [True, False])
@pytest.mark.parametrize("seed", [2, 3, 5])
def test_kernel_value_is_the_definition_with_and_without_a_settled_leader(gaussian, seed):
    # near-tied top arms: some hypotheses still hold their leader process as cash (no leader) at the end
    means = [1.0, 1.0, 0.3, 0.2] if gaussian else [0.5, 0.5, 0.3, 0.2]
    counts, sums, est, state = settled_path(means, 300, seed, gaussian)
    k = len(means)
    best = int(np.argmax(est))
    buf = tuple(np.empty(3 * SCALES.size + 2) for _ in range(3))
    seen_cash = False
    for j in range(k):
        if j == best:
            continue
        seen_cash |= state[j] < 0
        for x in np.linspace(min(est) - 0.05 if gaussian else 0.05, max(est) + 0.05 if gaussian else 0.95, 7):
            want = log_e(x, j, counts, sums, state, gaussian)
            if gaussian:
                got = _gauss_eval(x, state, j, best, counts, sums, np.ones(k), SCALES, *buf, P)[0]
            else:
                got = _tilt_eval(x, state, j, best, counts, sums, SCALES, EMAX, CONSTS, P)
            assert got == pytest.approx(want, abs=1e-9, rel=1e-9)
    if seed == 2:
        assert seen_cash  # the case the rule adds is exercised (hypotheses 2 and 3 without a leader yet)


@njit(cache=True)
def _null_e_values(k, horizon, runs, seed, level, scales, start):
    """Equal means 0, adaptive sampling (uniform, H_0's leader or, while it has none, the best of the other arms, the
    empirical best): per run, whether E_0 at the true means (the full average) ever reached e^level, and E_0 at the
    horizon."""
    np.random.seed(seed)
    var = np.ones(k)
    hits = 0
    final = np.zeros(runs)
    for r in range(runs):
        counts = np.zeros(k)
        sums = np.zeros(k)
        state = np.zeros(state_size(k))
        state[:k] = -1.0
        crossed = False
        for t in range(horizon):
            if t < k:
                a = t
            else:
                means = sums / counts
                u = np.random.random()
                if u < 0.4:
                    a = np.random.randint(k)
                elif u < 0.7:
                    a = int(state[0])
                    if a < 0:
                        a = 1 + np.argmax(means[1:])
                else:
                    a = np.argmax(means)
            counts[a] += 1.0
            sums[a] += np.random.standard_normal()
            if t + 1 < k:
                continue
            leader_advance(state, counts, sums, sums / counts, GAUSSIAN, var, 0.5, start)
            if not crossed and _log_e_true(state, 0, counts, sums, var, 0.0, scales, False) >= level:
                crossed = True
        hits += crossed
        final[r] = math.exp(_log_e_true(state, 0, counts, sums, var, 0.0, scales, False))
    return hits, final


def test_the_settled_e_process_at_the_truth_has_mean_at_most_one_and_crosses_at_most_delta():
    # the key step: with leaders started at a data-dependent time (cash before), E_0(mu) is still a nonnegative
    # supermartingale of initial value 1 (E[E_0(mu)] <= 1 at the horizon; Ville: crossing 1/delta with probability
    # <= delta); the start margin 0.5 makes the first leader start while the arms still swap the lead
    delta, runs = 0.3, 800
    hits, final = _null_e_values(4, 1200, runs, 5, math.log(1 / delta), SCALES, 0.5)
    assert binomtest(hits, runs, delta, alternative="greater").pvalue > 0.01
    assert 0.2 * delta * runs < hits < delta * runs  # crosses sometimes (not vacuous), less often than delta
    assert final.mean() <= 1.0 + 3.0 * final.std() / math.sqrt(runs)
    assert final.mean() > 0.2  # not vacuous either: the process keeps some wealth on average


@njit(cache=True)
def _tie_errors(mu, gaussian, horizon, runs, seed, level):
    """Near-tie runs of the settled rule (first two arms tied best): runs stopped with an arm other than 0."""
    np.random.seed(seed)
    k = mu.shape[0]
    var = np.ones(k) if gaussian else np.zeros(k)
    code = GAUSSIAN if gaussian else BERNOULLI
    emax = EMAX
    consts = CONSTS
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
                elif u < 0.7:
                    a = 1 + np.argmax(means[1:])
                else:
                    a = np.argmax(means)
            counts[a] += 1.0
            sums[a] += (mu[a] + np.random.standard_normal()) if gaussian else (1.0 if np.random.random() < mu[a] else 0.0)
            if t + 1 < k:
                continue
            means = sums / counts
            leader_advance(state, counts, sums, means, code, var, STICKY, STICKY)
            if leader_min_margin(state, code, counts, sums, means, var, SCALES, emax, consts, level, True, P) > 0.0:
                errors += np.argmax(means) != 0
                break
    return errors


@pytest.mark.parametrize("gaussian,mu,horizon", [(True, (0.0, 0.0, -1.0, -1.0), 2000),
                                                 (False, (0.5, 0.5, 0.3, 0.3), 3000)])
def test_error_rate_near_ties_is_below_delta_for_adaptive_sampling(gaussian, mu, horizon):
    runs, delta = 200, 0.3  # the power of the margin check: see test_leader's near-tie test (6 and 4 errors here)
    errors = _tie_errors(np.array(mu), gaussian, horizon, runs, 23, math.log(1 / delta))
    assert binomtest(errors, runs, delta, alternative="greater").pvalue > 0.01
    assert errors < 0.5 * delta * runs


def test_make_threshold_problems_and_refusals():
    th = make_threshold("leader-settled", 0.1, n_alternatives=4, family="gaussian")
    assert th == GaussianLeaderSettledThreshold(0.1, 5) and th.proven and th.stateful
    assert th.product_weight == P and th.leader_start == STICKY
    assert GaussianLeaderScalesThreshold(0.1, 5).leader_start == 0.0
    assert make_threshold("leader-settled", 0.1, n_alternatives=2, family="bernoulli") == \
        BernoulliLeaderSettledThreshold(0.1, 3)
    assert th.compiled_pieces().start == STICKY
    fc = FixedConfidence(0.1)
    assert type(BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("leader-settled", 0.1)) is \
        GaussianLeaderSettledThreshold
    # the "delta-correct" default of plain best arm (Gaussian with known variances, Bernoulli)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc).threshold("delta-correct", 0.1) == \
        GaussianLeaderSettledThreshold(0.1, 4)
    assert BestArmProblem(4, Bernoulli(n_sources=4), fc).threshold("delta-correct", 0.1) == \
        BernoulliLeaderSettledThreshold(0.1, 4)
    with pytest.raises(InvalidParameterError, match="threshold"):
        TopKProblem(4, 2, Gaussian(1.0, n_sources=4), fc).threshold("leader-settled", 0.1)
    # epsilon-best-arm identification: the same kind on the problem's shift (test_leader_epsilon.py)
    assert BestArmProblem(4, Gaussian(1.0, n_sources=4), fc, epsilon=0.1).threshold("leader-settled", 0.1) == \
        GaussianLeaderSettledThreshold(0.1, 4, shift=(1.0, 0.1))
    with pytest.raises(InvalidParameterError, match="family"):
        make_threshold("leader-settled", 0.1, n_alternatives=4, family="exponential_family")
