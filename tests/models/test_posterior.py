"""GaussianPosterior and prior kernels: rank-one updates against the batch closed form, inputs."""

import numpy as np
import pytest

from pybai.exceptions import InvalidParameterError
from pybai.models.kernels import check_covariance, feature_matrix, kernel_covariance, rbf_covariance
from pybai.models.posterior import GaussianPosterior


def gp_closed_form(G, sigma, eta, m0, counts, sums):
    """Posterior of the means in mean space (GP regression on per-arm averages): an independent path."""
    C = eta**2 * G
    seen = counts > 0
    ybar = sums[seen] / counts[seen]
    M = C[np.ix_(seen, seen)] + np.diag(sigma**2 / counts[seen])
    Kx = C[:, seen]
    mean = m0 + Kx @ np.linalg.solve(M, ybar - m0[seen])
    cov = C - Kx @ np.linalg.solve(M, Kx.T)
    return mean, cov


def random_covariance(rng, K, rank=None):
    A = rng.standard_normal((K, rank or K))
    return A @ A.T / (rank or K) + (0.0 if rank else 0.1 * np.eye(K))


def rel_err(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("refresh_every", [10**9, None])
def test_thousands_of_rank_one_updates_match_batch_closed_form(refresh_every):
    rng = np.random.default_rng(0)
    K = 40
    G = random_covariance(rng, K)
    m0 = rng.standard_normal(K)
    post = GaussianPosterior(G, sigma=0.5, eta=2.0, prior_mean=m0, refresh_every=refresh_every)
    # skewed pulls: a few arms sampled thousands of times, others a few times or never
    arms = np.concatenate([rng.integers(0, 5, 3000), rng.integers(0, 30, 300)])
    rng.shuffle(arms)
    rewards = rng.standard_normal(arms.size) * 3.0 + 1.0
    for a, y in zip(arms, rewards):
        post.update(np.array([a]), np.array([y]))
    mean, cov = gp_closed_form(G, 0.5, 2.0, m0, post.counts, post.sums)
    assert rel_err(post.estimate, mean) < 1e-8
    assert rel_err(post.covariance, cov) < 1e-8
    np.testing.assert_allclose(post.std**2, np.diag(cov), rtol=1e-8)
    np.testing.assert_array_equal(post.counts, np.bincount(arms, minlength=K))


def test_batches_with_repeats_and_from_statistics_agree():
    rng = np.random.default_rng(1)
    K = 12
    G = rbf_covariance(np.linspace(0, 3, K), 0.7)
    a = GaussianPosterior(G, 0.3, 1.5)
    b = GaussianPosterior(G, 0.3, 1.5)
    arms = rng.integers(0, K, 60)
    rewards = rng.standard_normal(60)
    for chunk in np.array_split(np.arange(60), 7):  # batches with repeated arms
        a.update(arms[chunk], rewards[chunk])
    for i in range(60):
        b.update(arms[i:i + 1], rewards[i:i + 1])
    c = GaussianPosterior.from_statistics(G, 0.3, a.counts, a.sums, eta=1.5)
    for other in (b, c):
        np.testing.assert_allclose(other.estimate, a.estimate, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(other.covariance, a.covariance, rtol=1e-9, atol=1e-12)


def test_prior_and_single_observation_hand_values():
    # independent arms, prior N(0, eta^2 = 4), noise 1: after y = 5 on arm 0,
    # mean = 4 / (4 + 1) * 5 = 4, variance = 4 * 1 / (4 + 1) = 0.8
    post = GaussianPosterior(np.eye(3), sigma=1.0, eta=2.0)
    np.testing.assert_array_equal(post.estimate, 0.0)
    np.testing.assert_allclose(post.std, 2.0)
    post.update(np.array([0]), np.array([5.0]))
    np.testing.assert_allclose(post.estimate, [4.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(post.std**2, [0.8, 4.0, 4.0], atol=1e-12)
    assert post.kappa() == pytest.approx(3.0)


def test_correlation_propagates_and_rank_deficient_prior():
    # G = ones: every arm has the same mean; one sample informs all arms equally (rank-1 prior)
    post = GaussianPosterior(np.ones((4, 4)), sigma=1.0, eta=1.0)
    assert post.features.shape == (4, 1)
    post.update(np.array([2]), np.array([2.0]))
    np.testing.assert_allclose(post.estimate, 1.0)
    np.testing.assert_allclose(post.covariance, 0.5)


def test_sample_uses_generator_and_has_posterior_moments():
    rng = np.random.default_rng(3)
    G = rbf_covariance([0.0, 0.5, 2.0], 1.0)
    post = GaussianPosterior(G, 0.5, 1.0, prior_mean=[1.0, 0.0, -1.0])
    post.update(np.array([0, 2]), np.array([0.3, -0.2]))
    draws = post.sample(rng, size=40000)
    np.testing.assert_allclose(draws.mean(axis=0), post.estimate, atol=0.02)
    np.testing.assert_allclose(np.cov(draws, rowvar=False), post.covariance, atol=0.02)
    np.testing.assert_array_equal(post.sample(np.random.default_rng(5)), post.sample(np.random.default_rng(5)))


def test_bad_inputs_name_the_parameter():
    with pytest.raises(InvalidParameterError, match="'covariance'.*positive semi-definite"):
        GaussianPosterior([[1.0, 2.0], [2.0, 1.0]], sigma=1.0)
    with pytest.raises(InvalidParameterError, match="'covariance'.*square"):
        GaussianPosterior(np.ones((2, 3)), sigma=1.0)
    with pytest.raises(InvalidParameterError, match="'covariance'.*symmetric"):
        GaussianPosterior([[1.0, 0.5], [0.0, 1.0]], sigma=1.0)
    with pytest.raises(InvalidParameterError, match="'sigma'"):
        GaussianPosterior(np.eye(2), sigma=0.0)
    with pytest.raises(InvalidParameterError, match="'prior_mean'"):
        GaussianPosterior(np.eye(2), sigma=1.0, prior_mean=[1.0, 2.0, 3.0])
    post = GaussianPosterior(np.eye(2), sigma=1.0)
    with pytest.raises(InvalidParameterError, match="'sources'"):
        post.update(np.array([2]), np.array([1.0]))
    with pytest.raises(InvalidParameterError, match="'rewards'"):
        post.update(np.array([0]), np.array([np.nan]))
    with pytest.raises(InvalidParameterError, match="'counts'"):
        post.set_statistics([1.0, -1.0], [0.0, 0.0])


def test_kernel_matrix_convention_and_psd_tolerance():
    G = rbf_covariance([[0.0, 0.0], [1.0, 1.0], [0.0, 2.0]], lengthscale=2.0)
    # scikit-learn's convention exp(-d^2 / (2 l^2)): 2 l^2 = 8
    assert G[0, 1] == pytest.approx(np.exp(-2.0 / 8.0)) and G[0, 2] == pytest.approx(np.exp(-4.0 / 8.0))
    # a fine grid is PSD only up to rounding: accepted, and X X^T reproduces it
    fine = rbf_covariance(np.linspace(0, 1, 60), 1.0)
    X = feature_matrix(fine)
    assert np.max(np.abs(X @ X.T - fine)) < 1e-10
    # an eigenvalue clearly below -1e-8 x the largest is refused
    bad = np.eye(3)
    bad[0, 1] = bad[1, 0] = 1.0 + 1e-6
    with pytest.raises(InvalidParameterError, match="smallest eigenvalue"):
        check_covariance(bad)


def test_kernel_spec_errors_name_the_key():
    with pytest.raises(InvalidParameterError, match=r"'kernel\.points'.*3 points"):
        kernel_covariance({"name": "rbf", "points": [0, 1]}, n_arms=3)
    with pytest.raises(InvalidParameterError, match=r"'kernel\.name'"):
        kernel_covariance({"name": "matern", "points": [0, 1]})
    with pytest.raises(InvalidParameterError, match=r"'kernel\.lengthscale'"):
        kernel_covariance({"points": [0, 1], "lengthscale": -1.0})
    with pytest.raises(InvalidParameterError, match=r"'kernel\.points'"):
        kernel_covariance({"name": "rbf"})
    with pytest.raises(InvalidParameterError, match=r"'kernel\.scale'"):
        kernel_covariance({"points": [0, 1], "scale": 2.0})


def test_prior_copy_is_a_fresh_independent_posterior():
    G = rbf_covariance(np.linspace(0, 2, 5), 1.0)
    post = GaussianPosterior(G, 0.5, 2.0, prior_mean=1.0)
    post.update(np.array([1, 1, 3]), np.array([0.0, 0.5, 2.0]))
    fresh = post.prior_copy()
    np.testing.assert_array_equal(fresh.counts, 0.0)
    np.testing.assert_array_equal(fresh.estimate, 1.0)
    np.testing.assert_allclose(fresh.covariance, 4.0 * G, atol=1e-12)
    fresh.update(np.array([0]), np.array([3.0]))
    np.testing.assert_array_equal(post.counts, [0, 2, 0, 1, 0])  # the original is untouched
    ref = GaussianPosterior.from_statistics(G, 0.5, [1, 0, 0, 0, 0], [3.0, 0, 0, 0, 0], eta=2.0, prior_mean=1.0)
    np.testing.assert_allclose(fresh.estimate, ref.estimate, atol=1e-12)
