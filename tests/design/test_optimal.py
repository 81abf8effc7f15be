"""G-optimal designs: closed forms, the Kiefer-Wolfowitz equivalence, non-spanning arms."""

import numpy as np
import pytest

from pybai.design import design_value, g_optimal_design
from pybai.exceptions import InvalidParameterError


def d_optimal_multiplicative(x, iters=20000):
    """Independent D-optimal solve: w_a <- w_a ||x_a||^2_{A^-1} / d (Silvey-Titterington-Torsney)."""
    k, d = x.shape
    w = np.full(k, 1.0 / k)
    for _ in range(iters):
        g = np.einsum("ij,jk,ik->i", x, np.linalg.inv(x.T @ (w[:, None] * x)), x)
        w = w * g / d
    return w


@pytest.mark.parametrize("d", [1, 2, 5])
def test_canonical_basis_is_uniform_with_value_d(d):
    res = g_optimal_design(np.eye(d))
    np.testing.assert_allclose(res.weights, 1.0 / d, atol=1e-9)
    assert res.value == pytest.approx(d, rel=1e-9)
    assert res.lower_bound == d


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kiefer_wolfowitz_g_and_d_optimal_coincide(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(9, 3))
    res = g_optimal_design(x, rtol=1e-9)
    assert res.value <= 3 * (1 + 1e-9)                     # G-value reaches d: optimal
    assert design_value(x, res.weights) == pytest.approx(res.value, rel=1e-9)
    w_d = d_optimal_multiplicative(x)
    a_g = x.T @ (res.weights[:, None] * x)
    a_d = x.T @ (w_d[:, None] * x)
    # the D-optimal information matrix is unique: both solvers must land on it
    np.testing.assert_allclose(a_g, a_d, rtol=1e-4, atol=1e-6)
    assert np.linalg.slogdet(a_g)[1] >= np.linalg.slogdet(a_d)[1] - 1e-8


def test_certificate_bounds_any_design():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(20, 4))
    res = g_optimal_design(x, rtol=1e-3)
    assert res.value <= 4 * (1 + 1e-3)
    for _ in range(20):  # no design beats the Kiefer-Wolfowitz bound d
        w = rng.dirichlet(np.ones(20))
        assert design_value(x, w) >= 4 - 1e-9


def test_non_spanning_arms_use_their_span():
    x = np.array([[1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [2.0, 0.0, 0.0]])  # rank 2 in R^3
    res = g_optimal_design(x)
    assert res.lower_bound == 2
    assert res.value == pytest.approx(2.0, rel=1e-6)
    assert design_value(x, res.weights) == pytest.approx(res.value, rel=1e-6)
    assert design_value(x, res.weights, np.array([[0.0, 0.0, 1.0]])) == np.inf


def test_warm_start_and_bad_input():
    x = np.random.default_rng(1).normal(size=(12, 3))
    first = g_optimal_design(x, rtol=1e-4)
    again = g_optimal_design(x, rtol=1e-8, weights0=first.weights)
    assert again.value <= 3 * (1 + 1e-8)
    with pytest.raises(InvalidParameterError, match="'features'"):
        g_optimal_design([1.0, 2.0])
    with pytest.raises(InvalidParameterError, match="'features'"):
        g_optimal_design(np.zeros((3, 2)))
    with pytest.raises(InvalidParameterError, match="'rtol'"):
        g_optimal_design(x, rtol=0.0)
