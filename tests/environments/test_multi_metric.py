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
