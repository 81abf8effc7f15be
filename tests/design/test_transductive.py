"""XY designs against closed forms and an independent scipy solve."""

import numpy as np
import pytest
from scipy.optimize import minimize

from pybai.design import DesignState, active_directions, design_value, pair_directions, xy_design
from pybai.exceptions import InvalidParameterError


def scipy_minimax(x, y):
    """Independent solve: SLSQP on the epigraph min t s.t. t >= ||y||^2_{A(w)^-1}, w in the simplex."""
    k = x.shape[0]

    def vals(w):
        return np.einsum("ij,jk,ik->i", y, np.linalg.inv(x.T @ (w[:, None] * x)), y)

    best = np.inf
    for start in (np.full(k, 1.0 / k), np.random.default_rng(0).dirichlet(np.ones(k))):
        z0 = np.r_[start, vals(start).max()]
        cons = [{"type": "eq", "fun": lambda z: z[:k].sum() - 1.0},
                {"type": "ineq", "fun": lambda z: z[k] - vals(np.maximum(z[:k], 1e-12))}]
        res = minimize(lambda z: z[k], z0, method="SLSQP", bounds=[(1e-9, 1)] * k + [(0, None)],
                       constraints=cons, options={"ftol": 1e-12, "maxiter": 1000})
        w = np.maximum(res.x[:k], 1e-12)
        best = min(best, vals(w / w.sum()).max())
    return best


def test_canonical_basis_all_pairs():
    res = xy_design(np.eye(4))
    np.testing.assert_allclose(res.weights, 0.25, atol=1e-6)
    assert res.value == pytest.approx(8.0, rel=1e-6)
    assert res.lower_bound <= 8.0 <= res.value


def test_appendix_a_example():
    eps = 0.3  # x = (1, +-eps/2): optimal design 1/2 each; G-value 2, XY value 4 (appendix A)
    x = np.array([[1.0, eps / 2], [1.0, -eps / 2]])
    res = xy_design(x)
    np.testing.assert_allclose(res.weights, 0.5, atol=1e-6)
    assert res.value == pytest.approx(4.0, rel=1e-6)
    assert design_value(x, res.weights) == pytest.approx(2.0, rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_all_pairs_against_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(5, 2 + seed % 2))
    res = xy_design(x, rtol=1e-8)
    y = pair_directions(x)
    assert design_value(x, res.weights, y) == pytest.approx(res.value, rel=1e-9)
    ref = scipy_minimax(x, y)
    assert res.lower_bound <= ref * (1 + 1e-7)          # the certificate is a true lower bound
    assert res.value <= ref * (1 + 1e-6)                # and we are at least as good as SLSQP
    assert res.relative_gap <= 1e-8


def test_given_directions_against_scipy():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(6, 3))
    y = active_directions(x, [0, 2, 5])
    assert y.shape == (3, 3)
    res = xy_design(x, y, rtol=1e-8)
    ref = scipy_minimax(x, y)
    assert res.lower_bound <= ref * (1 + 1e-7) and res.value <= ref * (1 + 1e-6)


def test_warm_state_and_larger_instance():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 4))  # beyond the all-arms working set: active-set path
    state = DesignState()
    res = xy_design(x, rtol=1e-6, state=state)
    assert res.relative_gap <= 1e-6
    assert design_value(x, res.weights, pair_directions(x)) == pytest.approx(res.value, rel=1e-9)
    again = xy_design(x, rtol=1e-6, state=state)
    assert again.value == pytest.approx(res.value, rel=2e-6)


def test_bad_directions():
    x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(InvalidParameterError, match="'directions'"):
        xy_design(x, [[0.0, 0.0, 1.0]])
    with pytest.raises(InvalidParameterError, match="'directions'"):
        xy_design(x, [[1.0, 0.0]])
    with pytest.raises(InvalidParameterError, match="'features'"):
        xy_design([[1.0, 0.0]])
