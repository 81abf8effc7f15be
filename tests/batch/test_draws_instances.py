import numpy as np
import pytest

from pybai.batch.draws import draw_batch_sums
from pybai.batch.instances import VIRUS_SIGMA2, twitter_instance, virus_instance
from pybai.exceptions import InvalidParameterError


def test_bernoulli_sums_are_binomial():
    rng = np.random.default_rng(0)
    pulls = np.array([0, 1, 5, 12, 12])
    means = np.array([0.5, 1.0, 0.0, 0.25, 0.75])
    draws = np.array([draw_batch_sums(rng, pulls, means) for _ in range(4000)])
    assert np.all(draws[:, 0] == 0) and np.all(draws[:, 1] == 1) and np.all(draws[:, 2] == 0)
    assert np.all(draws == np.round(draws)) and np.all(draws <= pulls)
    np.testing.assert_allclose(draws[:, 3:].mean(0), [3.0, 9.0], atol=0.1)
    np.testing.assert_allclose(draws[:, 3:].var(0), [2.25, 2.25], rtol=0.1)


def test_binomial_rewards_average_trials():
    rng = np.random.default_rng(2)
    pulls = np.array([0, 3])
    draws = np.array([draw_batch_sums(rng, pulls, np.array([0.5, 0.2]), "binomial", trials=24) for _ in range(4000)])
    assert np.all(draws[:, 0] == 0) and np.all(draws[:, 1] * 24 == np.round(draws[:, 1] * 24))
    assert draws[:, 1].mean() == pytest.approx(0.6, abs=0.01)
    assert draws[:, 1].var() == pytest.approx(3 * 0.2 * 0.8 / 24, rel=0.08)
    with pytest.raises(InvalidParameterError, match="'trials'"):
        draw_batch_sums(rng, pulls, np.array([0.5, 0.2]), "binomial", trials=0)


def test_gaussian_sums_moments():
    rng = np.random.default_rng(1)
    pulls = np.array([0, 4, 9])
    means = np.array([5.0, 1.0, -2.0])
    draws = np.array([draw_batch_sums(rng, pulls, means, "gaussian", np.sqrt(VIRUS_SIGMA2)) for _ in range(6000)])
    assert np.all(draws[:, 0] == 0)
    np.testing.assert_allclose(draws[:, 1:].mean(0), [4.0, -18.0], atol=0.05)
    np.testing.assert_allclose(draws[:, 1:].var(0), [0.4, 0.9], rtol=0.06)


def test_draw_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError, match="'pulls'"):
        draw_batch_sums(rng, [1, -1], [0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="'family'"):
        draw_batch_sums(rng, [1, 1], [0.5, 0.5], "poisson")
    with pytest.raises(InvalidParameterError, match="'rng'"):
        draw_batch_sums(3, [1, 1], [0.5, 0.5])


def test_twitter_instance_shape():
    mu = twitter_instance()
    assert mu.size == 522_062 and np.all(np.diff(mu) <= 0)
    assert mu.min() == pytest.approx(1 / 8928) and mu.max() == 0.05
    assert mu[99] > mu[100]  # unique top-100
    head = np.arange(1, 1001)
    slope = np.polyfit(np.log10(head), np.log10(mu[:1000]), 1)[0]
    assert slope == pytest.approx(-0.5)  # a power law on the log-log rank plot
    assert 8928 * mu.sum() == pytest.approx(707_776, rel=0.05)  # the data set's tweet count
    shuffled = twitter_instance(shuffle=np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(shuffled)[::-1], mu)


def test_virus_instance_heavy_right_tail():
    mu = virus_instance(np.random.default_rng(2))
    assert mu.size == 12_979
    q = np.quantile(mu, [0.001, 0.5, 0.999])
    assert q[2] - q[1] > 2 * (q[1] - q[0])  # right tail much longer than the left one
    z = (mu - mu.mean()) / mu.std()
    assert (z**3).mean() > 2  # strongly right-skewed: few large rewards
    assert np.sort(mu)[-800] > np.sort(mu)[-801]
