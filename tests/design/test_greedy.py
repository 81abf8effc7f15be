"""The greedy rule of Eq. (22): brute force, rank-one updates, convergence to the optimal design."""

import numpy as np
import pytest

from pybai.design import GreedyDesign, g_optimal_design, greedy_arm, pair_directions, sherman_morrison


def brute_force(x, a, y):
    vals = [max(np.einsum("ij,jk,ik->i", y, np.linalg.inv(a + np.outer(v, v)), y)) for v in x]
    return int(np.argmin(vals)), min(vals)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(8, 3))
    a = np.eye(3) + x[:4].T @ x[:4]
    for y in (x, pair_directions(x)):
        arm, val = greedy_arm(x, np.linalg.inv(a), y if y is not x else None)
        ref_arm, ref_val = brute_force(x, a, y)
        assert arm == ref_arm and val == pytest.approx(ref_val, rel=1e-10)


def test_rank_one_updates_and_g_convergence():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(10, 3))
    g = GreedyDesign(x, np.eye(3) * 1e-3)
    for _ in range(600):
        g.step()
    a = np.eye(3) * 1e-3 + x.T @ (g.counts[:, None] * x)
    np.testing.assert_allclose(g.inverse, np.linalg.inv(a), rtol=1e-8, atol=1e-12)
    # n * max_x ||x||^2_{A^-1} is at least the optimal G-value d = 3 (Kiefer-Wolfowitz); the greedy
    # rule has no optimality guarantee (the paper warns of a larger efficiency loss) but stays close
    assert 3.0 <= 600 * g.value() <= 3.0 * 1.5
    assert g_optimal_design(x).value == pytest.approx(3.0, rel=1e-6)


def test_sherman_morrison():
    rng = np.random.default_rng(0)
    b = rng.normal(size=(4, 4))
    a = b @ b.T + np.eye(4)
    x = rng.normal(size=4)
    np.testing.assert_allclose(sherman_morrison(np.linalg.inv(a), x, 2.5), np.linalg.inv(a + 2.5 * np.outer(x, x)))
