"""LeastSquares: incremental updates against numpy lstsq, singular phase, rebuild from statistics."""

import numpy as np
import pytest

from pybai.exceptions import InvalidParameterError
from pybai.models.linear import LeastSquares


def lstsq_reference(x, sources, rewards):
    theta = np.linalg.lstsq(x[sources], rewards, rcond=None)[0]
    return theta


def test_many_updates_match_lstsq():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 3))
    model = LeastSquares(x, refresh_every=50)
    all_s, all_r = [], []
    for step in range(700):
        if step % 10 == 0:
            s = rng.integers(0, 7, size=rng.integers(2, 6))   # batches with repeats
        else:
            s = rng.integers(0, 7, size=1)
        r = x[s] @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=s.size)
        model.update(s, r)
        all_s.append(s)
        all_r.append(r)
    s, r = np.concatenate(all_s), np.concatenate(all_r)
    theta = lstsq_reference(x, s, r)
    np.testing.assert_allclose(model.theta, theta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.estimate, x @ theta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.counts, np.bincount(s, minlength=7))
    np.testing.assert_allclose(model.design_matrix, x[s].T @ x[s], rtol=1e-12)
    np.testing.assert_allclose(model.inverse_design, np.linalg.inv(x[s].T @ x[s]), rtol=1e-8, atol=1e-14)


def test_rank_one_inverse_without_refresh_stays_accurate():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4))
    model = LeastSquares(x, refresh_every=10**9)
    for s in rng.integers(0, 5, size=5000):
        model.update(np.array([s]), np.array([rng.normal()]))
    np.testing.assert_allclose(model.inverse_design @ model.design_matrix, np.eye(4), atol=1e-8)


def test_singular_phase_minimum_norm_and_nan():
    x = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    model = LeastSquares(x)
    model.update(np.array([0, 1]), np.array([1.0, 1.6]))
    theta = lstsq_reference(x, np.array([0, 1]), np.array([1.0, 1.6]))  # numpy: minimum norm
    np.testing.assert_allclose(model.theta, theta)
    assert model.inverse_design is None
    assert np.isfinite(model.estimate[:2]).all() and np.isnan(model.estimate[2:]).all()
    model.update(np.array([2]), np.array([0.3]))
    assert np.isnan(model.estimate[3]) and np.isfinite(model.estimate[2])
    model.update(np.array([3]), np.array([2.0]))
    assert model.inverse_design is not None and np.isfinite(model.estimate).all()


def test_from_statistics_equals_incremental():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 2))
    inc = LeastSquares(x)
    s = rng.integers(0, 6, size=40)
    r = rng.normal(size=40)
    for a, b in zip(s, r):
        inc.update(np.array([a]), np.array([b]))
    rebuilt = LeastSquares.from_statistics(x, inc.counts, inc.sums)
    np.testing.assert_allclose(rebuilt.theta, inc.theta, rtol=1e-10)
    np.testing.assert_allclose(rebuilt.estimate, inc.estimate, rtol=1e-10)


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="'features'"):
        LeastSquares([1.0, 2.0])
    model = LeastSquares(np.eye(2))
    with pytest.raises(InvalidParameterError, match="'rewards'"):
        model.update(np.array([0, 1]), np.array([1.0]))
    with pytest.raises(InvalidParameterError, match="'counts'"):
        LeastSquares.from_statistics(np.eye(2), [1.0], [1.0, 2.0])


def test_long_chunk_update_equals_sample_by_sample_and_state_lists_incremental_arrays():
    from pybai.models.linear import LeastSquares

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    src = rng.integers(0, 4, size=200)
    rew = rng.normal(size=200)
    bulk = LeastSquares(x)
    bulk.update(src, rew)  # > 4 K samples: the bincount path
    one = LeastSquares(x)
    for s, r in zip(src, rew):
        one.update(np.array([s]), np.array([r]))
    np.testing.assert_allclose(bulk.theta, one.theta, rtol=1e-9)
    np.testing.assert_allclose(bulk.counts, one.counts)
    assert {"design_matrix", "_inverse", "_b", "_since_refresh"} <= set(LeastSquares.state_attrs)
