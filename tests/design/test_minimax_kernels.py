"""The compiled restricted barrier solve agrees with the numpy one (solve_minimax compiled=True)."""

import numpy as np
import pytest

from pybai.design.minimax import DesignState, ExplicitDirections, PairDirections, solve_minimax


@pytest.mark.parametrize("seed", range(4))
def test_compiled_solve_matches_reference(seed):
    rng = np.random.default_rng(seed)
    k, d = rng.integers(4, 12), rng.integers(2, 5)
    z = rng.normal(size=(k, d))
    y = z[0] - z[1:]
    y /= rng.uniform(0.2, 1.0, size=(k - 1, 1))
    for dirs in (ExplicitDirections(y), PairDirections(z)):
        ref = solve_minimax(z, dirs, rtol=1e-6)
        fast = solve_minimax(z, dirs, rtol=1e-6, compiled=True)
        # both certified to 1e-6: values within the gap, the same optimum
        assert fast.lower_bound <= fast.value and (fast.value - fast.lower_bound) <= 1e-6 * fast.value * (1 + 1e-9)
        assert fast.value == pytest.approx(ref.value, rel=2e-6)
        assert fast.weights.sum() == pytest.approx(1.0) and fast.weights.min() >= 0.0
        # the value of the compiled design, recomputed independently, is its reported value
        a = z.T @ (fast.weights[:, None] * z)
        vecs = dirs.vectors(np.arange(dirs.size))
        assert np.max(np.einsum("ij,jk,ik->i", vecs, np.linalg.inv(a), vecs)) == pytest.approx(fast.value, rel=1e-9)


def test_compiled_warm_start_follows_a_drifting_target():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(8, 3))
    theta = rng.normal(size=3)
    state, ref_state = DesignState(), DesignState()
    for t in range(1, 6):
        mu = z @ (theta + rng.normal(size=3) * 0.05 / t)
        best = int(np.argmax(mu))
        others = np.delete(np.arange(8), best)
        y = (z[best] - z[others]) / (mu[best] - mu[others])[:, None]
        fast = solve_minimax(z, ExplicitDirections(y), state=state, compiled=True)
        ref = solve_minimax(z, ExplicitDirections(y), state=ref_state)
        assert fast.value == pytest.approx(ref.value, rel=2e-6)


@pytest.mark.parametrize("seed", range(3))
def test_gap_stop_ends_the_path_early_with_its_certificate(seed):
    """``gap_stop`` > 0: fewer Newton steps, and the returned point's own certificate shows the gap."""
    from pybai.design._minimax_kernels import restricted_compiled

    rng = np.random.default_rng(10 + seed)
    z = rng.normal(size=(30, 5))
    y = z[0] - z[1:12]
    w0 = np.full(30, 1.0 / 30)
    w_full, _, _, steps_full, ok_full = restricted_compiled(z, y, w0.copy(), 1e-6, 0.1, 0.0)
    w_stop, v, t, steps_stop, ok_stop = restricted_compiled(z, y, w0.copy(), 1e-6, 0.1, 0.02)
    assert ok_full and ok_stop and steps_stop < steps_full
    minv = np.linalg.inv(z.T @ (w_stop[:, None] * z))
    f = np.einsum("ij,jk,ik->i", y, minv, y)
    p2 = (z @ minv @ y.T) ** 2
    lower = 2.0 * v @ f - (p2 @ v).max()  # the restricted duality bound with the returned dual weights
    assert lower <= f.max() and f.max() - lower <= 0.02 * f.max() * (1 + 1e-6)
    # the full path's optimum is within the certified gap of the early stop
    minv_full = np.linalg.inv(z.T @ (w_full[:, None] * z))
    opt = np.einsum("ij,jk,ik->i", y, minv_full, y).max()
    assert opt <= f.max() * (1 + 1e-9) and opt >= lower * (1 - 1e-9)


def test_loose_compiled_solve_is_certified_to_its_tolerance():
    """The loose form (gap stop, mixed start) still returns a design certified by duality_gap to rtol."""
    from pybai.design.minimax import duality_gap

    rng = np.random.default_rng(7)
    z = rng.normal(size=(400, 6))
    theta = rng.normal(size=6)
    mu = z @ theta
    best = int(np.argmax(mu))
    others = np.delete(np.arange(400), best)
    y = (z[best] - z[others]) / (mu[best] - mu[others])[:, None]
    dirs = ExplicitDirections(y)
    exact = solve_minimax(z, dirs, rtol=1e-6)
    for rtol in (0.1, 0.03):
        state = DesignState()
        res = solve_minimax(z, dirs, rtol=rtol, state=state, compiled=True, linear_program=False, keep=1e-2)
        value, lower = duality_gap(z, dirs, res.weights, state.dual_directions, state.dual)
        assert value == pytest.approx(res.value, rel=1e-9)
        assert value - lower <= rtol * value * (1 + 1e-9)
        assert exact.lower_bound * (1 - 1e-9) <= value <= exact.value * (1 + rtol)


def test_kkt_cholesky_solves_the_scaled_newton_system():
    """The Cholesky + Schur complement solve of the loose kernel equals the LU solve of the full system."""
    from pybai.design._minimax_kernels import _kkt_cholesky

    rng = np.random.default_rng(3)
    for n in (3, 10, 25):
        a = rng.normal(size=(n + 1, n + 4))
        h = np.zeros((n + 2, n + 2))
        h[: n + 1, : n + 1] = a @ a.T + 0.1 * np.eye(n + 1)
        h[:n, n + 1] = h[n + 1, :n] = 1.0
        scale = np.ones(n + 2)
        scale[: n + 1] = 1.0 / np.sqrt(np.diag(h)[: n + 1])
        hs = h * scale[:, None] * scale[None, :]
        rhs = np.r_[rng.normal(size=n + 1), 0.0]
        sol = np.empty(n + 2)
        assert _kkt_cholesky(hs, rhs, scale, n, sol, np.empty(n + 1), np.empty(n + 1))
        np.testing.assert_allclose(sol[: n + 1], (np.linalg.solve(hs, rhs * scale) * scale)[: n + 1], rtol=1e-9, atol=1e-12)
        assert abs(sol[:n].sum()) < 1e-10  # the direction stays on the simplex
    bad = -np.eye(5)  # not positive definite: False, the caller falls back to the LU solve
    assert not _kkt_cholesky(bad, np.zeros(5), np.ones(5), 3, np.empty(5), np.empty(4), np.empty(4))
