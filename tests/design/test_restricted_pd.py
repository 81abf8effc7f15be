"""The predictor-corrector restricted solve certifies its gap, in fewer steps than the barrier kernel."""

import numpy as np
import pytest

from pybai.design._minimax_kernels import restricted_compiled
from pybai.design._restricted_pd import MAX_STEPS, restricted_pd


def _certificate(z, y, w, v):
    """(max_j f_j(w), restricted duality bound with dual weights v), recomputed with numpy."""
    minv = np.linalg.inv(z.T @ (w[:, None] * z))
    f = np.einsum("ij,jk,ik->i", y, minv, y)
    p2 = (z @ minv @ y.T) ** 2
    return f.max(), 2.0 * v @ f - (p2 @ v).max()


def _instance(seed):
    rng = np.random.default_rng(seed)
    n, m, r = int(rng.integers(10, 41)), int(rng.integers(5, 31)), int(rng.integers(3, 13))
    n = max(n, r + 2)
    z = rng.normal(size=(n, r))
    y = rng.normal(size=(m, r)) * rng.uniform(0.2, 2.0, size=(m, 1))
    w0 = 0.8 * rng.dirichlet(np.ones(n)) + 0.2 / n
    return z, y, w0


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("gap_stop", [0.0, 0.01, 0.04])
def test_certifies_the_restricted_gap(seed, gap_stop):
    z, y, w0 = _instance(seed)
    rtol = 2.0 * gap_stop if gap_stop > 0 else 1e-9
    w_ex, v_ex, _, _, ok_ex = restricted_compiled(z, y, w0.copy(), 1e-9, 0.1, 0.0)
    optimum = _certificate(z, y, w_ex, v_ex)[0]  # the restricted optimum to 1e-9
    w, v, t, steps, ok = restricted_pd(z, y, w0.copy(), rtol, 0.1, gap_stop)
    assert ok and ok_ex and 0 < steps <= MAX_STEPS  # bounded, and certified by itself (no barrier fallback)
    assert w.min() > 0.0 and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert v.min() >= 0.0 and v.sum() == pytest.approx(1.0, abs=1e-12)
    value, bound = _certificate(z, y, w, v)
    tol = gap_stop if gap_stop > 0 else 0.5 * rtol
    assert bound <= optimum * (1.0 + 1e-9)  # a valid lower bound on the restricted optimum
    assert value - bound <= tol * value * (1.0 + 1e-6)
    assert t >= value * (1.0 - 1e-12)  # the returned value bounds the working directions


@pytest.mark.parametrize("seed", range(4))
def test_fewer_steps_than_the_barrier(seed):
    z, y, w0 = _instance(100 + seed)
    steps_pd = restricted_pd(z, y, w0.copy(), 0.05, 0.1, 0.025)[3]
    steps_barrier = restricted_compiled(z, y, w0.copy(), 0.05, 0.1, 0.025)[3]
    assert 2 * steps_pd <= steps_barrier


def test_singular_start_is_refused():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(12, 4))
    y = rng.normal(size=(6, 4))
    w0 = np.zeros(12)
    w0[:3] = 1.0 / 3.0  # three arms cannot span R^4
    w, v, t, steps, ok = restricted_pd(z, y, w0, 0.05, 0.1, 0.025)
    assert not ok and steps == 0
    assert v == pytest.approx(np.full(6, 1.0 / 6.0))
