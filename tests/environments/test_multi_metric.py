"""The multi-metric environment: marginals kept, the copula's correlation, refusals."""

import numpy as np
import pytest

from pybai import BernoulliEnvironment, BetaEnvironment, BinomialEnvironment, GaussianEnvironment
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import InvalidParameterError


def _env(correlation):
    return MultiMetricEnvironment({"revenue": GaussianEnvironment([1.0, 2.0], [1.0, 2.0]),
                                   "latency": GaussianEnvironment([5.0, -1.0], 0.5),
                                   "converted": BernoulliEnvironment([0.3, 0.7]),
                                   "share": BetaEnvironment([0.4, 0.6], 0.1),
                                   "hours": BinomialEnvironment([0.2, 0.5], trials=24)}, correlation)


def test_marginals_and_correlation():
    R = np.eye(5)
    R[0, 1] = R[1, 0] = -0.8
    R[0, 2] = R[2, 0] = 0.5
    env = _env(R)
    rng = np.random.default_rng(3)
    sources, rewards = env.respond(np.full(40_000, 1), rng)
    assert sources[:5].tolist() == [5, 6, 7, 8, 9]
    obs = rewards.reshape(-1, 5)
    np.testing.assert_allclose(obs.mean(axis=0), env.source_means[5:], atol=0.03)
    assert obs[:, 0].std() == pytest.approx(2.0, rel=0.02) and obs[:, 1].std() == pytest.approx(0.5, rel=0.02)
    assert np.corrcoef(obs[:, 0], obs[:, 1])[0, 1] == pytest.approx(-0.8, abs=0.01)  # Gaussian metrics: exactly R
    assert np.corrcoef(obs[:, 0], obs[:, 2])[0, 1] > 0.3  # Gaussian vs Bernoulli: same sign, smaller
    assert set(np.unique(obs[:, 2])) <= {0.0, 1.0} and np.all((obs[:, 3] > 0) & (obs[:, 3] < 1))
    assert np.allclose(obs[:, 4] * 24, np.round(obs[:, 4] * 24))


def test_same_seed_same_observations():
    a = _env(None).respond(np.array([0, 1, 1]), np.random.default_rng(9))
    b = _env(None).respond(np.array([0, 1, 1]), np.random.default_rng(9))
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("bad, message", [
    ([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]], "positive semi-definite"),
    ([[1.0, 0.2], [0.3, 1.0]], "symmetric"),
    ([[2.0, 0.0], [0.0, 1.0]], "<= 1"),
])
def test_refuses_a_bad_correlation(bad, message):
    metrics = {f"m{i}": GaussianEnvironment([0.0, 1.0]) for i in range(len(bad))}
    with pytest.raises(InvalidParameterError, match=f"'correlation'.*{message}"):
        MultiMetricEnvironment(metrics, bad)


def test_one_observation_is_the_array_form_bit_for_bit():
    """One observation (the ask/tell path) is computed on Python floats: the rewards are exactly those of the
    array form for every kind of metric, so a run gives the same outcomes whichever path draws it."""
    env = MultiMetricEnvironment({"g": GaussianEnvironment([0.3, -1.2, 4.0], sigma=[1.0, 0.5, 2.0]),
                                  "b": BernoulliEnvironment([0.1, 0.5, 0.93]),
                                  "n": BinomialEnvironment([0.2, 0.4, 0.6], trials=7),
                                  "t": BetaEnvironment([0.3, 0.5, 0.8], sd=0.1)},
                                 correlation=[[1.0, 0.4, -0.3, 0.2], [0.4, 1.0, 0.1, 0.0],
                                              [-0.3, 0.1, 1.0, 0.5], [0.2, 0.0, 0.5, 1.0]])
    rng = np.random.default_rng(3)
    for _ in range(300):
        k = int(rng.integers(3))
        z = rng.standard_normal((1, 4)) @ env._root.T
        one, rows = env._observe_one(k, z), env._observe_rows(np.array([k]), z)
        assert one.shape == rows.shape == (1, 4) and np.array_equal(one, rows)
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    for k in (0, 2, 1, 1):
        sources, rewards = env.respond(np.array([k]), a)
        assert sources.tolist() == list(range(4 * k, 4 * k + 4))
        z = b.standard_normal((1, 4)) @ env._root.T
        assert np.array_equal(rewards, env._observe_rows(np.array([k]), z).ravel())
