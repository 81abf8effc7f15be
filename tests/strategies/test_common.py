"""Checks every registered strategy must pass (found through the registry)."""

import numpy as np
import pytest

from pybai import (
    BernoulliEnvironment,
    BestArmProblem,
    FixedConfidence,
    GaussianEnvironment,
    InvalidParameterError,
    SessionStateError,
    get_strategy_class,
    registered_names,
)

BEST_ARM = [n for n in registered_names() if "best-arm" in get_strategy_class(n).goals]


def gaussian_setup(delta=0.1, max_samples=100_000):
    env = GaussianEnvironment([1.0, 0.6, 0.3, 0.0])
    return env, BestArmProblem(4, env.family(), FixedConfidence(delta, max_samples))


def play(strategy, env, problem, seed):
    strategy.start(problem, rng=seed)
    rng = np.random.default_rng(seed + 1000)
    steps = 0
    while not strategy.stopped:
        src = strategy.ask()
        strategy.tell(src, env.sample(src, rng))
        steps += 1
        assert steps <= problem.regime.max_samples
    return strategy.result()


def test_standard_strategies_are_registered():
    assert {"uniform", "tas", "lucb", "top-two"} <= set(registered_names())


@pytest.mark.parametrize("name", BEST_ARM)
def test_runs_stops_and_recommends(name):
    env, problem = gaussian_setup()
    res = play(get_strategy_class(name)(), env, problem, seed=0)
    assert res.stopped and res.status == "stopped"
    assert res.recommendation == 0
    assert res.samples == res.counts.sum()
    assert res.statistic > 0


@pytest.mark.parametrize("name", BEST_ARM)
def test_same_seed_same_run(name):
    env, problem = gaussian_setup()
    a = play(get_strategy_class(name)(), env, problem, seed=7)
    b = play(get_strategy_class(name)(), env, problem, seed=7)
    assert a.samples == b.samples
    np.testing.assert_array_equal(a.counts, b.counts)


@pytest.mark.parametrize("name", BEST_ARM)
def test_restart_resets_state(name):
    env, problem = gaussian_setup()
    s = get_strategy_class(name)()
    first = play(s, env, problem, seed=3)
    second = play(s, env, problem, seed=3)
    assert first.samples == second.samples


@pytest.mark.parametrize("name", BEST_ARM)
def test_state_machine(name):
    env, problem = gaussian_setup()
    s = get_strategy_class(name)()
    with pytest.raises(SessionStateError):
        s.ask()
    s.start(problem, rng=0)
    first = s.ask()
    np.testing.assert_array_equal(s.ask(), first)  # ask is idempotent until tell
    with pytest.raises(InvalidParameterError, match="rewards"):
        s.tell(first, [np.nan] * len(first))
    with pytest.raises(InvalidParameterError, match="sources"):
        s.tell([99], [0.0])
    with pytest.raises(InvalidParameterError, match="rewards"):
        s.tell([0, 1], [0.0])
    play(s, env, problem, seed=0)
    with pytest.raises(SessionStateError):
        s.ask()
    with pytest.raises(SessionStateError):
        s.tell([0], [1.0])


@pytest.mark.parametrize("name", BEST_ARM)
def test_censoring_is_a_status(name):
    env = GaussianEnvironment([0.0, 0.0001])
    problem = BestArmProblem(2, env.family(), FixedConfidence(0.01, max_samples=200))
    res = play(get_strategy_class(name)(), env, problem, seed=0)
    assert res.status == "censored"
    assert not res.success
    assert res.samples <= 201


@pytest.mark.parametrize("name", BEST_ARM)
def test_bad_parameters_name_the_parameter(name):
    _, problem = gaussian_setup()
    with pytest.raises(InvalidParameterError, match="'threshold'"):
        get_strategy_class(name)(threshold="fast").start(problem)
    with pytest.raises(InvalidParameterError, match="'n_init'"):
        get_strategy_class(name)(n_init=0).start(problem)


@pytest.mark.parametrize("name", BEST_ARM)
def test_bernoulli(name):
    env = BernoulliEnvironment([0.8, 0.4, 0.3])
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.1))
    res = play(get_strategy_class(name)(threshold="delta-correct"), env, problem, seed=1)
    assert res.recommendation == 0


@pytest.mark.parametrize("name", BEST_ARM)
def test_get_params_round_trip(name):
    cls = get_strategy_class(name)
    s = cls()
    assert cls(**s.get_params()).get_params() == s.get_params()
    assert name == cls.name and cls.__name__ in repr(s)
