"""The rbf kernel follows scikit-learn's convention: exp(-||x - x'||^2 / (2 l^2))."""

import math

import numpy as np
import pytest

from pybai.models.kernels import kernel_covariance, rbf_covariance

@pytest.mark.parametrize("lengthscale", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("points", [[0.0, 0.4, 1.5, 3.0], [[0.0, 1.0], [1.0, -0.5], [2.0, 2.0]]])
def test_rbf_matches_scikit_learn(points, lengthscale):
    sklearn_kernels = pytest.importorskip("sklearn.gaussian_process.kernels")  # here: not at collection (~1 s)
    X = np.asarray(points, dtype=float).reshape(len(points), -1)
    expected = sklearn_kernels.RBF(length_scale=lengthscale)(X)
    np.testing.assert_allclose(rbf_covariance(points, lengthscale), expected, rtol=1e-12, atol=1e-15)
    spec = {"name": "rbf", "lengthscale": lengthscale, "points": points}
    np.testing.assert_allclose(kernel_covariance(spec), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("paper", [0.5, 1.0, 1.28, 1.5, 2.0, 3.0])
def test_paper_lengthscale_converts_bit_for_bit(paper):
    """exp(-d^2 / l^2) of Hoffman et al. (2014) is lengthscale = l / sqrt(2), exactly for shipped values."""
    points = np.arange(0.0, 7.5, 0.5)   # squared distances exact in binary, whatever the formula
    d2 = (points[:, None] - points[None, :]) ** 2
    old = np.exp(-d2 / paper**2)
    np.fill_diagonal(old, 1.0)
    assert np.array_equal(rbf_covariance(points, paper / math.sqrt(2.0)), old)
