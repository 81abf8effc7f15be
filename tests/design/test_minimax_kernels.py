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
