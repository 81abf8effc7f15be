"""RAGE (Fiez, Jain, Jamieson & Ratliff 2019, Algorithm 1): round lengths, elimination, correctness."""

import json
import math

import numpy as np
import pytest
from scipy.stats import binom

from pybai import FixedConfidence, InvalidParameterError, make_strategy
from pybai.design.rounding import efficient_rounding
from pybai.design.transductive import pair_directions, xy_design
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.problems.linear import LinearBestArmProblem
from pybai.simulate.runner import run_replication
from pybai.strategies.rage import interleaved_requests, rage_eliminated, rage_round_size, rounded_value
from pybai.strategies.state import restore_strategy

# e_1, e_2 and (1, 1): the XY design of the three differences e1 - e2, -e2, -e1.  With weights
# (a, a, 1 - 2a), ||e1 - e2||^2 = 2/a dominates for a <= 0.6, so the optimum is a = 1/2, no
# weight on (1, 1), rho = 4 (by hand).
TINY = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def linear(features, theta, sigma=1.0, delta=0.1, max_samples=1_000_000):
    env = LinearGaussianEnvironment(features, theta, sigma)
    return env, LinearBestArmProblem(**env.structure(), regime=FixedConfidence(delta, max_samples=max_samples))


def soare(d, w):
    x = np.vstack([np.eye(d), np.r_[np.cos(w), np.sin(w), np.zeros(d - 2)]])
    theta = np.zeros(d)
    theta[0] = 2.0
    return x, theta


def test_design_value_of_the_tiny_instance_by_hand():
    res = xy_design(TINY, pair_directions(TINY))
    assert res.value == pytest.approx(4.0, rel=1e-5)
    np.testing.assert_allclose(res.weights, [0.5, 0.5, 0.0], atol=1e-5)


def test_round_length_is_algorithm_1_step_3_by_hand():
    # N_1 = ceil(2 (2^2)^2 sigma^2 rho (1 + eps) log(|Z|^2 / delta)) with |Z| = 3, delta_1 = delta
    sigma, delta, eps = 0.5, 0.1, 0.1
    first = 2 * 16 * sigma**2 * 4.0 * (1 + eps) * math.log(9 / delta)  # 158.39
    counts = rage_round_size(TINY, pair_directions(TINY), np.array([0.5, 0.5, 0.0]), 4.0, round_index=1, n_targets=3,
                             delta_k=delta, sigma=sigma, epsilon=eps, cap=10**6)
    assert counts.sum() == math.ceil(first) == 159
    assert counts.tolist() == [80, 79, 0]  # efficient rounding: ceil(158 / 2) each, the extra unit to arm 0
    assert 159 * rounded_value(TINY, pair_directions(TINY), counts) <= (1 + eps) * 4.0  # the rounding guarantee
    # round 2 with 2 targets left, delta_2 = delta / 4: 2 (2^3)^2 ...
    c2 = rage_round_size(TINY, pair_directions(TINY), np.array([0.5, 0.5, 0.0]), 4.0, round_index=2, n_targets=2,
                         delta_k=delta / 4, sigma=sigma, epsilon=eps, cap=10**6)
    assert c2.sum() == math.ceil(2 * 64 * sigma**2 * 4.0 * (1 + eps) * math.log(4 / (delta / 4)))


def test_round_length_r_epsilon_side():
    # tiny noise: the first term is below 1; r(eps) is the smallest N whose rounding meets
    # N max_y ||y||^2 <= (1 + eps) rho: N = 2 gives counts (1, 1), 2 * 2 = 4 <= 4.4
    counts = rage_round_size(TINY, pair_directions(TINY), np.array([0.5, 0.5, 0.0]), 4.0, round_index=1, n_targets=3,
                             delta_k=0.1, sigma=0.01, epsilon=0.1, cap=10**6)
    assert counts.tolist() == [1, 1, 0]
    # an unbalanced design whose small support point needs N >= p (1 + eps) / eps-like sizes
    w = np.array([0.9, 0.1, 0.0])
    y = np.array([[1.0, 0.0], [0.0, 1.0]])
    rho = max(1 / 0.9, 1 / 0.1)  # the design's value on y (not optimal for y: used as given)
    counts = rage_round_size(TINY, y, w, rho, round_index=1, n_targets=2, delta_k=0.1, sigma=0.01, epsilon=0.1,
                             cap=10**6)
    n = int(counts.sum())
    assert n * rounded_value(TINY, y, counts) <= 1.1 * rho
    smaller = efficient_rounding(w, n - 1)
    assert (n - 1) * rounded_value(TINY, y, smaller) > 1.1 * rho  # the smallest such N


def test_the_first_round_of_a_run_has_the_hand_computed_length():
    env, problem = linear(TINY, [1.0, 0.3], sigma=0.5, delta=0.1)
    s = make_strategy("rage").start(problem, rng=0)
    noise = np.random.default_rng(0)
    while s.round_ == 1 and not s.stopped:
        s.tell(*env.respond(s.ask(), noise))
    assert s.round_sizes_[0] == 159
    assert s.t_ == 2 + 159  # the initial phase (e_1, e_2) plus round 1


def test_elimination_rule_on_constructed_estimates():
    means = np.array([1.0, 0.76, 0.5, 0.75])
    assert rage_eliminated(means, 1).tolist() == [False, False, True, True]  # level 1/4: gap 0.25 drops (>=)
    assert rage_eliminated(means, 2).tolist() == [False, True, True, True]  # level 1/8
    assert not rage_eliminated(means, 30)[0]  # the empirical best never drops


def test_noise_free_round_eliminates_exactly_by_the_rule():
    """Rewards equal to the means: theta_hat = theta, so the survivors are the rule applied to the truth."""
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.5], [0.9, 0.2], [-0.5, 0.5]])
    theta = np.array([1.0, 0.3])
    env, problem = linear(x, theta, sigma=1.0, delta=0.1)
    s = make_strategy("rage").start(problem, rng=0)
    true_means = x @ theta
    while s.round_ == 1:
        req = s.ask()
        s.tell(req, true_means[req])
    np.testing.assert_array_equal(s.active_, ~rage_eliminated(true_means, 1))
    # repeated rewards contradict the Gaussian model (pybai.problems.linear.fit): the last elimination waits for
    # rewards that vary, here by 1e-9 (theta_hat is theta to that precision)
    jitter = np.random.default_rng(0)
    while not s.stopped:
        req = s.ask()
        s.tell(req, true_means[req] + 1e-9 * jitter.standard_normal(np.size(req)))
    assert s.recommendation() == 0 and s.result().status == "stopped" and s.result().statistic >= 1.0


def _random_instance(rng):
    d = int(rng.integers(2, 4))
    k = d + int(rng.integers(1, 4))
    x = rng.standard_normal((k, d))
    x[:d] = np.eye(d)
    theta = rng.standard_normal(d)
    means = np.sort(x @ theta)[::-1]
    theta *= rng.uniform(0.2, 0.5) / max(means[0] - means[1], 1e-3)  # gap of the two best: 0.2-0.5
    return x, theta


def test_delta_correct_on_random_instances():
    """Binomial test: with an error rate of delta, more than ``limit`` errors has probability < 1%."""
    delta, instances, runs = 0.2, 8, 12
    rng = np.random.default_rng(2019)
    errors = total = 0
    for i in range(instances):
        x, theta = _random_instance(rng)
        env, problem = linear(x, theta, sigma=1.0, delta=delta)
        for r in range(runs):
            out = run_replication(make_strategy("rage"), env, problem, np.random.SeedSequence([7, i, r]))
            assert out.status == "stopped"
            errors += not out.correct
            total += 1
    limit = int(binom.ppf(0.99, total, delta))
    assert errors <= limit, f"{errors} errors in {total} runs (limit {limit})"


def test_beats_xy_static_where_elimination_helps():
    """Section-6 instance, d = 6, w = 0.1, delta = 0.01: both with a proven rule (xy-static: the
    delta-correct threshold); RAGE drops e_3..e_6 early and spends its last rounds on e_2."""
    x, theta = soare(6, 0.1)
    env, problem = linear(x, theta, sigma=1.0, delta=0.01)
    rage, static = [], []
    for r in range(5):
        seed = np.random.SeedSequence([11, r])
        a = run_replication(make_strategy("rage"), env, problem, seed)
        b = run_replication(make_strategy("xy-static", threshold="delta-correct"), env, problem, seed)
        assert a.correct and b.correct
        rage.append(a.samples)
        static.append(b.samples)
    assert np.mean(rage) < 0.6 * np.mean(static)


def test_state_round_trip_mid_round():
    env, problem = linear(TINY, [1.0, 0.3], sigma=0.5, delta=0.1)
    s = make_strategy("rage", request_size=40).start(problem, rng=3)
    noise = np.random.default_rng(4)
    for _ in range(4):  # initial phase (2 asks), then two requests of round 1
        s.tell(*env.respond(s.ask(), noise))
    req = s.ask()
    src, rew = env.respond(req, noise)
    s.tell(src[:7], rew[:7])  # part of a request: the rest stays pending
    assert s.round_open_ and s.asked_ < s.round_sizes_[0]
    copy = restore_strategy(json.loads(json.dumps(s.get_state())), problem)
    noise_copy = np.random.default_rng(9)
    noise_orig = np.random.default_rng(9)

    def finish(strategy, rng):
        strategy.tell(src[7:], rew[7:])
        while not strategy.stopped:
            strategy.tell(*env.respond(strategy.ask(), rng))
        res = strategy.result()
        return res.samples, res.counts.tolist(), res.recommendation, strategy.round_sizes_

    assert finish(copy, noise_copy) == finish(s, noise_orig)


def test_requests_are_interleaved_and_bounded():
    seq = interleaved_requests(np.array([6, 3, 0, 1]))
    assert np.bincount(seq, minlength=4).tolist() == [6, 3, 0, 1]
    counts = np.array([6, 3, 0, 1])
    for m in range(1, seq.size + 1):  # every prefix is within 1.5 samples of the design's share
        assert np.abs(np.bincount(seq[:m], minlength=4) - m * counts / counts.sum()).max() <= 1.5
    blocked = np.repeat(np.arange(4), counts)  # the non-interleaved order fails that (prefix of 6: 6 vs 3.6)
    assert np.abs(np.bincount(blocked[:6], minlength=4) - 6 * counts / counts.sum()).max() > 1.5
    env, problem = linear(TINY, [1.0, 0.3], sigma=0.5, delta=0.1)
    s = make_strategy("rage", request_size=25).start(problem, rng=0)
    noise = np.random.default_rng(0)
    while not s.stopped:
        req = s.ask()
        assert req.size <= 25
        s.tell(*env.respond(req, noise))


def test_max_samples_censors_mid_round():
    x, theta = soare(3, 0.1)
    env, problem = linear(x, theta, delta=0.05, max_samples=500)
    out = run_replication(make_strategy("rage"), env, problem, np.random.SeedSequence(1))
    assert out.status == "censored" and out.samples == 500


@pytest.mark.parametrize("params, name", [({"epsilon": 0.0}, "epsilon"), ({"epsilon": 1.5}, "epsilon"),
                                          ({"epsilon": "a"}, "epsilon"), ({"request_size": -1}, "request_size"),
                                          ({"request_size": 2.5}, "request_size"), ({"threshold": "fast"}, "threshold")])
def test_bad_input_names_the_parameter(params, name):
    _, problem = linear(TINY, [1.0, 0.3])
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        make_strategy("rage", **params).start(problem)


def test_refuses_a_problem_without_features():
    from pybai import BestArmProblem, Gaussian

    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="linear"):
        make_strategy("rage").start(problem)
