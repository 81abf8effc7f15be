"""The compiled loose solve (design/_loose_solve) equals solve_minimax's numpy outer loop to rounding."""

import numpy as np
import pytest

import pybai.design.minimax as minimax
from pybai.design._loose_solve import gap_compiled
from pybai.design.minimax import DesignState, ExplicitDirections, cold_start, duality_gap, solve_minimax


def _instance(seed):
    rng = np.random.default_rng(seed)
    k, d = int(rng.integers(200, 401)), int(rng.integers(4, 9))
    z = rng.normal(size=(k, d))
    theta = rng.normal(size=d)
    return rng, z, theta


def _directions(z, mu):
    best = int(np.argmax(mu))
    others = np.delete(np.arange(z.shape[0]), best)
    return ExplicitDirections((z[best] - z[others]) / (mu[best] - mu[others])[:, None])


def _loose(z, dirs, state, start, numpy_loop, monkeypatch):
    with monkeypatch.context() as mp:
        if numpy_loop:  # the reference: solve_minimax's own loop (the kernel declines)
            mp.setattr(minimax, "loose_solve", lambda *args: None)
        return solve_minimax(z, dirs, rtol=0.05, state=state, compiled=True, start=start, linear_program=False, keep=1e-2)


def _copy(state):
    out = DesignState()
    out.weights, out.arms, out.directions = (None if a is None else np.array(a) for a in (state.weights, state.arms, state.directions))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_compiled_loose_solve_equals_the_numpy_loop(seed, monkeypatch):
    rng, z, theta = _instance(seed)
    start = cold_start(z)
    states = [DesignState(), DesignState()]
    for step in range(3):  # a cold solve, then warm starts on drifting estimates
        mu = z @ (theta + 0.05 * rng.normal(size=theta.size))
        dirs = _directions(z, mu)
        ref = _loose(z, dirs, states[0], start, True, monkeypatch)
        new = _loose(z, dirs, states[1], start, False, monkeypatch)
        assert np.max(np.abs(new.weights - ref.weights)) <= 1e-8 * ref.weights.max()
        assert new.value == pytest.approx(ref.value, rel=1e-9)
        assert new.lower_bound == pytest.approx(ref.lower_bound, rel=1e-8)
        assert new.iterations == ref.iterations
        for name in ("arms", "directions", "dual_directions"):  # the same working sets and certificate support
            np.testing.assert_array_equal(getattr(states[1], name), getattr(states[0], name))
        np.testing.assert_allclose(states[1].dual, states[0].dual, rtol=1e-7, atol=1e-12)
        # certified: the stored certificate shows the gap, and its bound lies below the optimum
        value, lower = duality_gap(z, dirs, new.weights, states[1].dual_directions, states[1].dual)
        assert value == pytest.approx(new.value, rel=1e-9) and value - lower <= 0.05 * value * (1 + 1e-9)
        exact = solve_minimax(z, dirs, rtol=1e-9, compiled=True)
        assert lower <= exact.value * (1 + 1e-12) and exact.lower_bound * (1 - 1e-9) <= value
        states[0] = _copy(states[1])  # both continue from the same state


def test_cold_and_singular_warm_starts(monkeypatch):
    """Without ``start`` the kernel asks for cold_start; a singular stored design is replaced by the start."""
    _, z, theta = _instance(7)
    dirs = _directions(z, z @ theta)
    for weights in (None, np.eye(z.shape[0])[0]):  # no design; a design on one arm (singular)
        results = []
        for numpy_loop in (True, False):
            state = DesignState()
            state.weights = weights
            results.append(_loose(z, dirs, state, None, numpy_loop, monkeypatch))
        np.testing.assert_allclose(results[1].weights, results[0].weights, rtol=0, atol=1e-8 * results[0].weights.max())
        assert results[1].value == pytest.approx(results[0].value, rel=1e-9)


def test_gap_compiled_equals_duality_gap():
    rng, z, theta = _instance(11)
    dirs = _directions(z, z @ theta)
    w = rng.dirichlet(np.ones(z.shape[0])) * (rng.random(z.shape[0]) < 0.2)
    idx = np.sort(rng.choice(dirs.size, 15, replace=False))
    v = rng.dirichlet(np.ones(15))
    ref = duality_gap(z, dirs, w, idx, v)
    got = gap_compiled(z, dirs.y, w, idx, v)
    assert got == pytest.approx(ref, rel=1e-10) and duality_gap(z, dirs, w, idx, v, compiled=True) == got
    assert ref[1] < ref[0]
    assert gap_compiled(z, dirs.y, np.eye(z.shape[0])[3], idx, v) == (np.inf, -np.inf)  # singular design


def test_the_kernel_uses_the_constants_of_solve_minimax():
    from pybai.design import _loose_solve as kernel

    assert (kernel._MAX_OUTER, kernel._SMALL, kernel._CAP, kernel._GAP_STOP, kernel._START_MIX) == (
        minimax._MAX_OUTER, minimax.SMALL, minimax._LOOSE_CAP, minimax._GAP_STOP, minimax._START_MIX)


def test_violator_selection_is_the_argsort_selection():
    from pybai.design._loose_solve import _largest

    rng = np.random.default_rng(2)
    for trial in range(200):
        values = rng.normal(size=60) if trial % 2 else rng.integers(0, 5, size=60).astype(float)  # with ties
        candidates = np.sort(rng.choice(60, int(rng.integers(0, 40)), replace=False))
        cap = int(rng.integers(1, 10))
        expected = candidates[np.argsort(-values[candidates], kind="stable")[:cap]]
        np.testing.assert_array_equal(_largest(values, candidates, cap), expected)


def test_warm_start_with_fewer_arms_than_dimensions_falls_back_to_the_design():
    """A recorded wine oracle call (600 runs of linear-wine.toml's settings, seed 2599): the warm start's
    ``keep`` working set had 11 arms in R^12, which the pivot test of ``inverse_design`` let through
    (eigenvalue ratio 3e-17), and the numpy loop then failed on a singular design.  Both loops must
    now start from every arm of the stored design and certify."""
    from pathlib import Path

    from pybai.environments.linear_instances import wine_environment

    rec = np.load(Path(__file__).parent / "data" / "singular_warm_start.npz")
    x = np.asarray(wine_environment().features, dtype=float)
    z = x[np.sort(np.unique(x, axis=0, return_index=True)[1])]  # the distinct arms, as the linear problem keeps them
    best = int(rec["best"])
    others = np.delete(np.arange(z.shape[0]), best)
    dirs = ExplicitDirections((z[best] - z[others]) / rec["gaps"][:, None])
    rtol = float(rec["rtol"])
    start = cold_start(z)
    for numpy_loop in (True, False):
        state = DesignState()
        state.weights = np.zeros(z.shape[0])
        state.weights[rec["weight_idx"]] = rec["weight_val"]
        state.arms, state.directions = np.array(rec["arms"]), np.array(rec["directions"])
        assert state.arms.size < z.shape[1]
        with pytest.MonkeyPatch.context() as mp:
            if numpy_loop:
                mp.setattr(minimax, "loose_solve", lambda *args: None)
            res = solve_minimax(z, dirs, rtol=rtol, state=state, compiled=True, start=start, linear_program=False,
                                keep=1e-2)
        assert np.isfinite(res.value) and res.value - res.lower_bound <= rtol * res.value
