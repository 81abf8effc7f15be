"""The practitioners' baselines: fixed-horizon, mixture-sprt and thompson-pbest (their formulas, their
compiled runs against ask/tell, and that their stops are never certified)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.simulate.runner import run_replication
from pybai.strategies.certificate import is_proven, stopped_message, threshold_kind
from pybai.strategies.fixed_horizon import power_horizon
from pybai.strategies.mixture_sprt import log_mixture_ratio
from pybai.strategies.thompson_pbest import _NODES, _WEIGHTS, _prob_best

BASELINES = [("fixed-horizon", {"mde": 0.1}), ("fixed-horizon", {"mde": 0.2, "variance": 0.3, "power": 0.8}),
             ("mixture-sprt", {"tau": 0.1}), ("mixture-sprt", {"tau": 0.05, "burn_in": 5}),
             ("thompson-pbest", {}), ("thompson-pbest", {"confidence": 0.99})]


def _instance(kind, max_samples):
    if kind == "gaussian":
        sigma = [0.5, 0.6, 0.5, 0.4, 0.5]
        env = GaussianEnvironment([1.0, 0.8, 0.5, 0.3, 0.0], sigma)
        return env, BestArmProblem(5, Gaussian(sigma, n_sources=5), FixedConfidence(0.05, max_samples=max_samples))
    env = BernoulliEnvironment([0.6, 0.45, 0.43, 0.4, 0.3])
    return env, BestArmProblem(5, Bernoulli(n_sources=5), FixedConfidence(0.05, max_samples=max_samples))


def _ask_tell(strategy, env, noise):
    while not strategy.stopped:
        strategy.tell(*env.respond(strategy.ask(), noise))


@pytest.mark.parametrize("name,params", BASELINES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BASELINES)])
@pytest.mark.parametrize("kind", ["gaussian", "bernoulli"])
def test_compiled_run_is_the_ask_tell_run(name, params, kind):
    """Same samples, counts, sums, rule state, statistic, status, recommendation and generator states."""
    for seed, cap in ((0, 30_000), (1, 30_000), (3, 40), (4, 700)):
        env, problem = _instance(kind, cap)
        fast = make_strategy(name, params).start(problem, rng=seed)
        slow = make_strategy(name, params).start(problem, rng=seed)
        noise_fast, noise_slow = np.random.default_rng(100 + seed), np.random.default_rng(100 + seed)
        assert fast.simulate_run(env.means, noise_fast, sigma=getattr(env, "sigma", None))
        _ask_tell(slow, env, noise_slow)
        assert fast.get_state() == slow.get_state()
        assert fast.result().recommendation == slow.result().recommendation
        assert fast.result().statistic == slow.result().statistic
        assert noise_fast.bit_generator.state == noise_slow.bit_generator.state
        assert fast.simulate_run(env.means, noise_fast) is False  # only from the start


def test_not_offered_with_epsilon():
    """A problem with an epsilon: no compiled run of fixed-horizon (mixture-sprt's and thompson-pbest's loops never
    read the problem's pieces: they run, test_own_loops_with_the_problems_epsilon)."""
    env, _ = _instance("gaussian", 1000)
    problem = BestArmProblem(5, Gaussian(1.0, n_sources=5), FixedConfidence(0.05), epsilon=0.1)
    for name, params in BASELINES:
        if name != "fixed-horizon":
            continue
        s = make_strategy(name, params).start(problem, rng=0)
        noise = np.random.default_rng(0)
        before = noise.bit_generator.state
        assert s.simulate_run(env.means, noise, sigma=env.sigma) is False
        assert s.t_ == 0 and noise.bit_generator.state == before


@pytest.mark.parametrize("name,params", BASELINES[::2], ids=[n for n, _ in BASELINES[::2]])
def test_never_certified_whatever_the_threshold(name, params):
    env, problem = _instance("gaussian", 30_000)
    strategy = make_strategy(name, dict(params, threshold="delta-correct")).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(0))
    assert strategy.status_ == "stopped"
    assert threshold_kind(strategy) == strategy.stopping_rule != ""
    assert not is_proven(strategy)
    assert "certified" not in stopped_message(strategy) and strategy.stopping_rule in stopped_message(strategy)


# ------------------------------------------------------------------ fixed-horizon
def test_power_horizon_is_the_z_test_sample_size():
    # two arms, alpha = 0.05 two-sided, power 0.8, sigma = 1, difference 0.5: n = 2 (1.95996 + 0.84162)^2 / 0.25
    n = math.ceil(2.0 * (norm.isf(0.025) + norm.ppf(0.8)) ** 2 / 0.25)
    assert n == 63 and power_horizon(2, 0.5, 1.0, 0.05, 0.8) == 2 * n
    # five arms: Bonferroni over the 4 comparisons with the best, power 0.95
    z = norm.isf(0.01 / 8.0) + norm.ppf(0.95)
    assert power_horizon(5, 0.02, 0.05, 0.01) == 5 * math.ceil(z * z * 2.0 * 0.05 / 0.02 ** 2)
    # a smaller effect costs (gap / mde)^2 more: half the effect, four times the samples (up to rounding)
    assert abs(power_horizon(3, 0.01, 0.1, 0.05) / power_horizon(3, 0.02, 0.1, 0.05) - 4.0) < 1e-3


def test_fixed_horizon_samples_exactly_its_horizon_in_a_round_robin():
    env, problem = _instance("bernoulli", 10**6)
    strategy = make_strategy("fixed-horizon", {"mde": 0.15}).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(0))
    assert strategy.t_ == strategy.horizon_ == power_horizon(5, 0.15, 0.25, 0.05)  # 1/4: the Bernoulli worst case
    assert strategy.counts_.max() - strategy.counts_.min() == 0  # the horizon is a multiple of K


def test_fixed_horizon_errs_about_as_its_power_analysis_says():
    """At mde = the gap, P(error) <= P(mean_2 > mean_1) = Phi(-(z_{1 - a / 2m} + z_power)) for two arms: about 1e-4 at
    delta = 0.1, power 0.95; at mde = 4 x the gap the test is underpowered and errs often."""
    env = GaussianEnvironment([0.2, 0.0], [1.0, 1.0])
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.1, max_samples=10**6))
    errors = {}
    for mde in (0.2, 0.8):
        strategy = make_strategy("fixed-horizon", {"mde": mde})
        runs = [run_replication(strategy, env, problem, np.random.SeedSequence(5, spawn_key=(r,))) for r in range(400)]
        errors[mde] = sum(not o.correct for o in runs) / len(runs)
    assert errors[0.2] <= 0.01
    # n = 2 x 10.82 / 0.64 = 34 per arm: P(error) = Phi(-0.2 / sqrt(2 / 34)) = 0.20
    assert 0.13 <= errors[0.8] <= 0.28


def test_fixed_horizon_refuses_unknown_variances_and_bad_parameters():
    from pybai import GaussianUnknownVariance, InvalidParameterError

    problem = BestArmProblem(3, GaussianUnknownVariance(3), FixedConfidence(0.05))
    with pytest.raises(InvalidParameterError, match="noise scale"):
        make_strategy("fixed-horizon").start(problem)
    for params, name in (({"mde": 0.0}, "mde"), ({"variance": -1.0}, "variance"), ({"power": 1.0}, "power")):
        with pytest.raises(InvalidParameterError, match=name):
            make_strategy("fixed-horizon", params).validate()


# ------------------------------------------------------------------ mixture-sprt
def test_log_mixture_ratio_is_the_two_stream_formula():
    """With n samples per arm and V_n = p1 (1 - p1) + p2 (1 - p2) (Johari et al., conversions):
    Lambda = sqrt(V_n / (V_n + n tau^2)) exp(n^2 tau^2 d^2 / (2 V_n (V_n + n tau^2)))."""
    n, p1, p2, tau = 400.0, 0.12, 0.1, 0.03
    v_n = p1 * (1 - p1) + p2 * (1 - p2)
    d = p1 - p2
    expected = 0.5 * math.log(v_n / (v_n + n * tau ** 2)) + n * n * tau ** 2 * d * d / (2 * v_n * (v_n + n * tau ** 2))
    assert log_mixture_ratio(d, v_n / n, tau ** 2) == pytest.approx(expected, rel=1e-12)


def test_mixture_sprt_under_the_null_rejects_rarely():
    """Three identical arms, delta = 0.1: the pairwise tests at level delta / 3 each rarely eliminate anyone
    (the plug-in variance makes the level approximate: a loose bound, measured ~0.01)."""
    env = GaussianEnvironment([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1, max_samples=20_000))
    strategy = make_strategy("mixture-sprt", {"tau": 0.2})
    runs = [run_replication(strategy, env, problem, np.random.SeedSequence(11, spawn_key=(r,))) for r in range(300)]
    assert sum(o.samples < 20_000 for o in runs) / len(runs) <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / 300)


def test_mixture_sprt_eliminates_down_to_the_best():
    env, problem = _instance("gaussian", 10**6)
    strategy = make_strategy("mixture-sprt", {"tau": 0.2}).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(3))
    assert strategy.active_.tolist() == [True, False, False, False, False]
    assert strategy.recommendation() == 0
    assert strategy.statistic_ >= math.log(10 / 0.05)  # the last elimination crossed ln(m / delta), m = 10 pairs
    counts = strategy.counts_
    # eliminated arms stop being sampled, the worst first (the worst two at the burn-in itself)
    assert counts[4] <= counts[3] <= counts[2] <= counts[1] <= counts[0] and counts[2] < counts[1]
    assert counts[4] == 100


def test_mixture_sprt_waits_for_the_burn_in():
    env, problem = _instance("bernoulli", 10**6)
    strategy = make_strategy("mixture-sprt", {"tau": 0.3, "burn_in": 300}).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(0))
    assert strategy.counts_.min() >= 300


def _tie(epsilon, max_samples=200_000):
    """Bernoulli arms [0.3, 0.3, 0.2] with the problem's (additive) epsilon."""
    env = BernoulliEnvironment([0.3, 0.3, 0.2])
    return env, BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.05, max_samples=max_samples),
                               epsilon=epsilon)


@pytest.mark.parametrize("problem_epsilon", [None, 0.05])
def test_mixture_sprt_with_epsilon_compiled_run_is_the_ask_tell_run(problem_epsilon):
    """The margin's run, compiled and ask/tell, on problems with and without the problem's epsilon."""
    for seed, cap in ((0, 200_000), (1, 200_000), (2, 350)):
        env, problem = _tie(problem_epsilon, cap)
        params = {"tau": 0.05, "epsilon": 0.05}
        fast = make_strategy("mixture-sprt", params).start(problem, rng=seed)
        slow = make_strategy("mixture-sprt", params).start(problem, rng=seed)
        noise_fast, noise_slow = np.random.default_rng(100 + seed), np.random.default_rng(100 + seed)
        assert fast.simulate_run(env.means, noise_fast)
        _ask_tell(slow, env, noise_slow)
        assert fast.get_state() == slow.get_state()
        assert fast.result().recommendation == slow.result().recommendation
        assert fast.result().statistic == slow.result().statistic
        assert noise_fast.bit_generator.state == noise_slow.bit_generator.state
        assert fast.status_ == ("censored" if cap == 350 else "stopped")


@pytest.mark.parametrize("name,params", [("thompson-pbest", {}), ("mixture-sprt", {"tau": 0.1})])
def test_own_loops_with_the_problems_epsilon(name, params):
    """On a problem with an epsilon the compiled run is the ask/tell run (the epsilon only judges the answer)."""
    for seed, cap in ((0, 30_000), (4, 700)):
        env, problem = _instance("bernoulli", cap)
        problem = problem.with_epsilon(0.05)
        fast = make_strategy(name, params).start(problem, rng=seed)
        slow = make_strategy(name, params).start(problem, rng=seed)
        noise_fast, noise_slow = np.random.default_rng(100 + seed), np.random.default_rng(100 + seed)
        assert fast.simulate_run(env.means, noise_fast)
        _ask_tell(slow, env, noise_slow)
        assert fast.get_state() == slow.get_state() and fast.result().statistic == slow.result().statistic
        assert fast.result().recommendation == slow.result().recommendation
        assert noise_fast.bit_generator.state == noise_slow.bit_generator.state


def test_mixture_sprt_certifies_a_tie_within_epsilon():
    """A tie never stops without a margin; with epsilon = 0.05 the run stops once the leader's always-valid
    interval of mean_l - mean_j lies above -epsilon for every other active arm, and answers an epsilon-good arm."""
    env, problem = _tie(0.05, 50_000)
    plain = make_strategy("mixture-sprt", {"tau": 0.05}).start(problem, rng=0)
    assert plain.simulate_run(env.means, np.random.default_rng(7))
    assert plain.status_ == "censored"  # epsilon = 0: the two tied arms are never separated
    strategy = make_strategy("mixture-sprt", {"tau": 0.05, "epsilon": 0.05}).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(7))
    assert strategy.status_ == "stopped" and strategy.t_ < plain.t_
    means, counts, active = strategy.means_, strategy.counts_, strategy.active_
    assert active[0] and active[1]  # the tied arms both survive: the stop is the certification
    leader = strategy.recommendation()
    assert leader in (0, 1) and problem.is_correct(leader, env.means)
    level = math.log(3 / 0.05)
    p = means
    for j in np.flatnonzero(active):
        if j != leader:
            var = p[leader] * (1 - p[leader]) / counts[leader] + p[j] * (1 - p[j]) / counts[j]
            assert log_mixture_ratio(p[leader] - p[j] + 0.05, var, 0.05 ** 2) >= level
    assert strategy.statistic_ >= level


def test_mixture_sprt_epsilon_zero_is_the_plain_rule():
    env, problem = _instance("bernoulli", 30_000)
    runs = [make_strategy("mixture-sprt", dict({"tau": 0.1}, **extra)).start(problem, rng=0) for extra in ({}, {"epsilon": 0.0})]
    for strategy in runs:
        assert strategy.simulate_run(env.means, np.random.default_rng(5))
    assert runs[0].get_state() == runs[1].get_state() and runs[0].statistic_ == runs[1].statistic_


def test_mixture_sprt_refuses_a_bad_epsilon():
    from pybai import InvalidParameterError

    for bad in (-0.01, float("nan"), float("inf"), 1e300, "0.1"):
        with pytest.raises(InvalidParameterError, match="epsilon"):
            make_strategy("mixture-sprt", {"epsilon": bad}).validate()


# ------------------------------------------------------------------ thompson-pbest
def test_prob_best_quadrature():
    # two normal posteriors: P(mu_1 > mu_2) = Phi((m1 - m2) / sqrt(v1 + v2))
    mean, var = np.array([0.3, 0.1]), np.array([0.01, 0.02])
    assert _prob_best(mean, var, _NODES, _WEIGHTS) == pytest.approx(norm.cdf(0.2 / math.sqrt(0.03)), abs=1e-10)
    # four arms against Monte Carlo
    mean, var = np.array([0.5, 0.45, 0.3, 0.48]), np.array([0.001, 0.002, 0.004, 0.0005])
    draws = np.random.default_rng(0).normal(mean, np.sqrt(var), size=(400_000, 4))
    mc = float((draws.argmax(axis=1) == 0).mean())
    assert _prob_best(mean, var, _NODES, _WEIGHTS) == pytest.approx(mc, abs=0.003)


def test_thompson_stops_above_its_level_on_the_beta_posteriors():
    env, problem = _instance("bernoulli", 10**6)
    strategy = make_strategy("thompson-pbest", {"confidence": 0.9}).start(problem, rng=0)
    _ask_tell(strategy, env, np.random.default_rng(0))
    assert strategy.status_ == "stopped" and 0.9 < strategy.statistic_ <= 1.0
    counts, sums = strategy.counts_, strategy.sums_
    a, b = 1.0 + sums, 1.0 + counts - sums  # Beta posteriors under a uniform prior
    draws = np.random.default_rng(1).beta(a, b, size=(400_000, 5))
    leader = int(np.argmax(a / (a + b)))
    assert strategy.recommendation() == leader
    assert float((draws.argmax(axis=1) == leader).mean()) == pytest.approx(strategy.statistic_, abs=0.01)


def test_thompson_with_estimated_variances_uses_student_posteriors():
    """Unknown variances: t_{N-1} posteriors, no stop before every arm has 4 samples (a finite posterior variance)."""
    from pybai import GaussianUnknownVariance

    env = GaussianEnvironment([1.0, 0.6, 0.2], [1.0, 2.0, 0.5])
    problem = BestArmProblem(3, GaussianUnknownVariance(3), FixedConfidence(0.05, max_samples=10**5))
    strategy = make_strategy("thompson-pbest").start(problem, rng=2)
    _ask_tell(strategy, env, np.random.default_rng(2))
    assert strategy.status_ == "stopped" and strategy.counts_.min() >= 4
    n, mean = strategy.counts_, strategy.means_
    s = strategy.problem_.family.sample_sd(strategy.model_)
    draws = mean + s / np.sqrt(n) * np.random.default_rng(0).standard_t(n - 1.0, size=(400_000, 3))
    leader = int(np.argmax(mean))
    # the rule's probability replaces each t by the normal law of its variance: close, not equal
    assert float((draws.argmax(axis=1) == leader).mean()) == pytest.approx(strategy.statistic_, abs=0.03)
