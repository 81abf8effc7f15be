"""linear-gaussian environment: means, sampling, structure, errors, ties; the reproduction instances."""

import pathlib

import numpy as np
import pytest

from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.linear_instances import load_wine, soare_environment, soare_features, wine_environment
from pybai.exceptions import DegenerateInstanceError, InvalidParameterError
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem

WINE = pathlib.Path("/work/shared/data/winequality-red.csv")


def test_means_sampling_and_structure():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.6]])
    env = LinearGaussianEnvironment(x, [1.0, 0.2], sigma=0.5)
    np.testing.assert_allclose(env.source_means, [1.0, 0.2, 0.72])
    assert env.kind == "linear-gaussian"
    rewards = env.sample(np.zeros(20000, dtype=int), np.random.default_rng(0))
    assert abs(rewards.mean() - 1.0) < 0.02 and abs(rewards.std() - 0.5) < 0.02
    problem = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.1))
    assert problem.answer(env.source_means) == 0
    np.testing.assert_allclose(env.family().variances, 0.25)


def test_errors_name_the_parameter():
    with pytest.raises(InvalidParameterError, match="'features'"):
        LinearGaussianEnvironment([1.0, 2.0], [1.0])
    with pytest.raises(InvalidParameterError, match="'features'"):
        LinearGaussianEnvironment([[1.0, 2.0]], [1.0, 0.0])
    with pytest.raises(InvalidParameterError, match="'theta'.*length 2"):
        LinearGaussianEnvironment(np.eye(2), [1.0, 0.0, 0.0])
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        LinearGaussianEnvironment(np.eye(2), [1.0, 0.0], sigma=0.0)
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        LinearGaussianEnvironment(np.eye(2), [1.0, 0.0], sigma=[1.0, 2.0])


def test_ties_refused_but_duplicates_of_the_best_accepted():
    with pytest.raises(DegenerateInstanceError, match="'theta'"):
        LinearGaussianEnvironment(np.array([[1.0, 0.0], [0.0, 1.0]]), [1.0, 1.0])
    env = LinearGaussianEnvironment(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), [1.0, 0.5])
    assert env.source_means[0] == env.source_means[2]


def test_soare_instance():
    x = soare_features(5, 0.01)
    assert x.shape == (6, 5)
    np.testing.assert_allclose(x[5], [np.cos(0.01), np.sin(0.01), 0, 0, 0])
    env = soare_environment(5)
    assert int(np.argmax(env.source_means)) == 0
    assert env.source_means[0] - env.source_means[5] == pytest.approx(2 * (1 - np.cos(0.01)))


@pytest.mark.skipif(not WINE.exists(), reason="red-wine data not available")
def test_wine_instance():
    x, quality, names = load_wine(WINE)
    assert x.shape == (1599, 12) and names[-1] == "intercept"
    np.testing.assert_allclose(x[:, :11].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(x[:, :11].std(axis=0, ddof=1), 1.0)
    env = wine_environment(WINE)
    assert 0.6 < env.sigma < 0.7
    np.testing.assert_allclose(x.T @ (quality - x @ env.theta), 0.0, atol=1e-8)  # normal equations
    with pytest.raises(InvalidParameterError, match="'path'"):
        load_wine(WINE.parent / "missing.csv")
