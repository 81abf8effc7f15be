import numpy as np
import pytest

from pybai.strategies.tracking import c_tracking_step, d_tracking_step, project_capped_simplex


@pytest.mark.parametrize("seed", range(10))
def test_projection_is_on_the_capped_simplex(seed):
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.full(6, 0.3))
    eps = 0.05
    v = project_capped_simplex(w, eps)
    assert v.sum() == pytest.approx(1.0)
    assert v.min() >= eps - 1e-12
    assert np.max(np.abs(v - w)) <= 5 * eps + 1e-12
    # already feasible points are fixed
    u = np.full(6, 1 / 6)
    np.testing.assert_allclose(project_capped_simplex(u, eps), u)


def test_c_tracking_follows_weights():
    w = np.array([0.5, 0.3, 0.2])
    counts = np.zeros(3)
    cumulative = np.zeros(3)
    for t in range(3000):
        a = c_tracking_step(cumulative, counts, w, float(t))
        counts[a] += 1
    np.testing.assert_allclose(counts / counts.sum(), w, atol=0.01)


def test_d_tracking_forces_exploration():
    counts = np.array([100.0, 100.0, 0.0])
    w = np.array([0.5, 0.5, 0.0])
    assert d_tracking_step(counts, w, 200.0) == 2
