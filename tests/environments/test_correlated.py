"""CorrelatedGaussianEnvironment and CallableEnvironment: truths, structure, errors."""

import pickle

import numpy as np
import pytest

from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.from_callable import CallableEnvironment, RewardFunctionError, resolve_callable
from pybai.exceptions import InvalidParameterError, PybaiError

G3 = [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]


def test_fixed_means_sample_and_structure_hides_the_truth():
    env = CorrelatedGaussianEnvironment([0.0, 1.0, 2.0], covariance=G3, sigma=0.5, eta=3.0)
    assert env.kind == "correlated-gaussian" and env.n_sources == 3
    assert env.realize(np.random.default_rng(0)) is env
    x = env.sample(np.full(20000, 2), np.random.default_rng(1))
    assert x.mean() == pytest.approx(2.0, abs=0.02) and x.std() == pytest.approx(0.5, rel=0.03)
    s = env.structure()
    assert set(s) == {"n_arms", "family", "covariance", "sigma", "eta", "prior_mean"}
    np.testing.assert_array_equal(s["covariance"], G3)
    assert s["sigma"] == 0.5 and s["eta"] == 3.0 and s["n_arms"] == 3
    np.testing.assert_array_equal(s["family"].sigma, [0.5] * 3)
    assert not any(v is env.means for v in s.values())


def test_prior_draws_have_the_prior_moments_and_depend_on_the_generator():
    env = CorrelatedGaussianEnvironment(covariance=G3, eta=2.0, prior_mean=[1.0, 0.0, -1.0], draw="prior")
    with pytest.raises(InvalidParameterError, match="'means'.*realize"):
        env.source_means
    rng = np.random.default_rng(2)
    draws = np.array([env.realize(rng).source_means for _ in range(20000)])
    np.testing.assert_allclose(draws.mean(axis=0), [1.0, 0.0, -1.0], atol=0.05)
    np.testing.assert_allclose(np.cov(draws, rowvar=False), 4.0 * np.array(G3), atol=0.12)
    a = env.realize(np.random.default_rng(7)).source_means
    b = env.realize(np.random.default_rng(7)).source_means
    np.testing.assert_array_equal(a, b)
    assert env.means is None  # realize returns a copy; the prior environment is unchanged


def test_truths_table_by_replication_or_at_random():
    truths = np.arange(12.0).reshape(4, 3)
    env = CorrelatedGaussianEnvironment(covariance=G3, truths=truths)
    np.testing.assert_array_equal(env.realize(np.random.default_rng(0), replication=5).source_means, truths[1])
    rows = {tuple(env.realize(np.random.default_rng(s)).source_means) for s in range(40)}
    assert rows == {tuple(r) for r in truths}


def test_kernel_specification():
    env = CorrelatedGaussianEnvironment([0.0, 1.0], kernel={"name": "rbf", "lengthscale": 2.0, "points": [0.0, 1.0]})
    assert env.covariance[0, 1] == pytest.approx(np.exp(-1.0 / 8.0))   # exp(-d^2 / (2 l^2))


@pytest.mark.parametrize(
    "kwargs, key",
    [
        (dict(means=[0, 1, 2], covariance=[[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]]), "covariance"),
        (dict(means=[0, 1], covariance=G3), "means"),
        (dict(means=[0, 1, 2], kernel={"points": [0, 1]}), r"kernel\.points"),
        (dict(means=[0, 1, 2], covariance=G3, kernel={"points": [0, 1, 2]}), "covariance"),
        (dict(means=[0, 1, 2]), "covariance"),
        (dict(covariance=G3), "means"),
        (dict(means=[0, 1, 2], covariance=G3, draw="prior"), "means"),
        (dict(covariance=G3, draw="posterior"), "draw"),
        (dict(means=[0, 1, 2], covariance=G3, sigma=-1.0), "sigma"),
        (dict(means=[0, 1, 2], covariance=G3, eta=0.0), "eta"),
        (dict(covariance=G3, truths=np.zeros((2, 4))), "truths"),
        (dict(means=[0, 1, 2], covariance=np.ones((3, 2))), "covariance"),
    ],
)
def test_bad_inputs_name_the_key(kwargs, key):
    with pytest.raises(InvalidParameterError, match=f"'{key}'"):
        CorrelatedGaussianEnvironment(**kwargs)


# ---------------------------------------------------------------- callable environment
def noisy_arm(arm, rng):
    return float(arm) + 0.1 * rng.standard_normal()


def failing(arm, rng):
    if arm == 2:
        raise ZeroDivisionError("boom")
    return 0.0


def returns_nan(arm, rng):
    return float("nan") if arm == 1 else 1.0


def test_callable_rewards_use_the_generator():
    env = CallableEnvironment(noisy_arm, n_arms=3)
    a = env.sample(np.array([0, 2, 2]), np.random.default_rng(4))
    b = env.sample(np.array([0, 2, 2]), np.random.default_rng(4))
    np.testing.assert_array_equal(a, b)
    assert abs(a[1] - 2.0) < 1.0
    assert np.all(np.isnan(env.source_means))
    assert set(env.structure()) == {"n_arms", "family"}


def test_callable_errors_name_the_arm_and_the_cause():
    env = CallableEnvironment(failing, n_arms=3)
    with pytest.raises(RewardFunctionError, match="arm 2.*ZeroDivisionError: boom") as info:
        env.sample(np.array([0, 2]), np.random.default_rng(0))
    assert isinstance(info.value, PybaiError) and isinstance(info.value, RuntimeError)
    with pytest.raises(RewardFunctionError, match="non-finite.*arm 1"):
        CallableEnvironment(returns_nan, n_arms=2).sample(np.array([1]), np.random.default_rng(0))
    with pytest.raises(RewardFunctionError, match="non-number.*arm 0"):
        CallableEnvironment(lambda a, r: "x", n_arms=2).sample(np.array([0]), np.random.default_rng(0))


REWARD_MODULE = """
def noisy(arm, rng):
    return float(arm) + 0.1 * rng.standard_normal()


def make_shifted(shift):
    return lambda arm, rng: arm + shift  # a closure: not picklable by itself
"""


@pytest.fixture
def reward_module(tmp_path, monkeypatch):
    (tmp_path / "pybai_test_rewards.py").write_text(REWARD_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "pybai_test_rewards"


def test_module_function_strings_factories_and_pickling(reward_module):
    import importlib

    assert resolve_callable(f"{reward_module}:noisy") is importlib.import_module(reward_module).noisy
    env = CallableEnvironment(f"{reward_module}:make_shifted", n_arms=2, params={"shift": 10.0})
    np.testing.assert_array_equal(env.sample(np.array([1, 0]), np.random.default_rng(0)), [11.0, 10.0])
    clone = pickle.loads(pickle.dumps(env))  # the closure is rebuilt from the string
    np.testing.assert_array_equal(clone.sample(np.array([1]), np.random.default_rng(0)), [11.0])
    with pytest.raises(InvalidParameterError, match="'params'"):
        CallableEnvironment(f"{reward_module}:make_shifted", n_arms=2, params={"bad": 1})


@pytest.mark.parametrize(
    "spec, match",
    [
        ("no_colon", "'module:function'"),
        ("pybai_no_such_module:f", "importable module"),
        ("pybai.exceptions:nothing_here", "no attribute 'nothing_here'"),
        ("pybai.exceptions:__all__", "callable"),
        (42, "'module:function'"),
    ],
)
def test_bad_function_specs(spec, match):
    with pytest.raises(InvalidParameterError, match=f"'function'.*{match}"):
        CallableEnvironment(spec, n_arms=2)


def test_callable_with_prior_structure():
    env = CallableEnvironment(noisy_arm, n_arms=3, covariance=G3, sigma=0.2, eta=2.0, means=[0.0, 1.0, 2.0])
    s = env.structure()
    assert s["sigma"] == 0.2 and s["eta"] == 2.0 and s["covariance"].shape == (3, 3)
    with pytest.raises(InvalidParameterError, match="'covariance'"):
        CallableEnvironment(noisy_arm, n_arms=2, covariance=G3)
