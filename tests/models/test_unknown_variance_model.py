import json

import numpy as np
import pytest

from pybai import EmpiricalMeans, InvalidParameterError
from pybai.models.unknown_variance import MeansAndVariances as GaussianUnknownVariance
from pybai._serialize import decode, encode


def two_pass(rewards_by_source, k):
    means = np.full(k, np.nan)
    variances = np.full(k, np.nan)
    for s in range(k):
        x = np.asarray(rewards_by_source[s], dtype=float)
        if x.size:
            means[s] = x.mean()
        if x.size >= 2:
            variances[s] = np.mean((x - x.mean()) ** 2)   # MLE: divide by N
    return means, variances


def feed(model, sources, rewards, chunks):
    """Feed the stream one reward at a time (chunks=None) or in batches of random sizes."""
    if chunks is None:
        for s, x in zip(sources, rewards):
            model.update(np.array([s]), np.array([x]))
        return
    cuts = np.sort(chunks.choice(np.arange(1, sources.size), size=20, replace=False))
    for part_s, part_x in zip(np.split(sources, cuts), np.split(rewards, cuts)):
        model.update(part_s, part_x)


@pytest.mark.parametrize("offset, rtol", [(0.0, 1e-12), (1e8, 2e-8)])
@pytest.mark.parametrize("batched", [False, True])
def test_welford_matches_two_pass(offset, rtol, batched):
    rng = np.random.default_rng(1)
    k, n = 5, 3000
    sources = rng.integers(0, k, size=n)
    sigma = np.array([0.1, 1.0, 3.0, 0.5, 2.0])
    rewards = offset + rng.normal(np.arange(k)[sources] * 0.1, sigma[sources])
    m = GaussianUnknownVariance(k)
    feed(m, sources, rewards, np.random.default_rng(2) if batched else None)
    # reference: two passes on rewards - offset (an exact subtraction here), i.e. on the stored doubles
    means, variances = two_pass([rewards[sources == s] - offset for s in range(k)], k)
    # near 1e8 a reward holds its deviation to ulp(1e8) / sigma = 1.5e-7; the running centre rounds
    # at that scale, and the merged error stays two orders below it
    np.testing.assert_allclose(m.variances, variances, rtol=rtol)
    # estimate = sums / counts as in EmpiricalMeans: a sum of 600 rewards near 1e8 rounds at ulp(6e10);
    # the running centre does not accumulate a sum and stays within a few ulp(1e8)
    np.testing.assert_allclose(m.estimate - offset, means, atol=1e-12 + 1e-14 * offset)
    np.testing.assert_allclose(m.centres - offset, means, atol=1e-12 + 1e-15 * offset)
    assert m.counts.tolist() == np.bincount(sources, minlength=k).tolist()
    if offset:   # the test has teeth: the textbook sum of squares loses the variance on top of 1e8
        x = rewards[sources == 0]
        naive = np.mean(x * x) - np.mean(x) ** 2
        assert abs(naive - variances[0]) > 1e-3 * variances[0]


def test_estimate_is_bitwise_that_of_empirical_means():
    rng = np.random.default_rng(3)
    sources = rng.integers(0, 4, size=200)
    rewards = rng.normal(size=200)
    a, b = GaussianUnknownVariance(4), EmpiricalMeans(4)
    for i in range(0, 200, 7):
        part = slice(i, i + (1 if i % 2 else 7))
        a.update(sources[part], rewards[part])
        b.update(sources[part], rewards[part])
    assert a.estimate.tobytes() == b.estimate.tobytes()
    assert a.sums.tobytes() == b.sums.tobytes()


def test_nan_rules():
    m = GaussianUnknownVariance(3)
    assert np.isnan(m.estimate).all() and np.isnan(m.variances).all()
    m.update(np.array([0]), np.array([2.0]))
    m.update(np.array([1, 1]), np.array([1.0, 5.0]))
    assert m.estimate.tolist()[:2] == [2.0, 3.0] and np.isnan(m.estimate[2])
    assert np.isnan(m.variances[0]) and m.variances[1] == 4.0 and np.isnan(m.variances[2])
    assert m.sq_devs[0] == 0.0
    m.update(np.array([0]), np.array([4.0]))
    assert m.variances[0] == 1.0
    # a constant source has variance exactly 0, even far from 0
    c = GaussianUnknownVariance(1)
    for _ in range(5):
        c.update(np.array([0]), np.array([1e8 + 0.5]))
    assert c.variances[0] == 0.0
    c.update(np.array([0, 0]), np.array([1e8 + 0.5, 1e8 + 0.5]))
    assert c.variances[0] == 0.0


def test_state_round_trip_continues_bit_identically():
    rng = np.random.default_rng(4)
    m = GaussianUnknownVariance(3)
    m.update(rng.integers(0, 3, size=50), 1e6 + rng.normal(size=50))
    for s in rng.integers(0, 3, size=20):
        m.update(np.array([s]), np.array([1e6 + rng.normal()]))
    saved = json.loads(json.dumps({name: encode(getattr(m, name)) for name in m.state_attrs}))
    r = GaussianUnknownVariance(3)
    for name in r.state_attrs:
        getattr(r, name)[:] = decode(saved[name])
    assert r.check_state() is None
    more_s, more_x = rng.integers(0, 3, size=30), rng.normal(size=30)
    for model in (m, r):
        model.update(more_s[:10], more_x[:10])
        for s, x in zip(more_s[10:], more_x[10:]):
            model.update(np.array([s]), np.array([x]))
    for name in m.state_attrs:
        assert getattr(m, name).tobytes() == getattr(r, name).tobytes(), name
    assert m.variances.tobytes() == r.variances.tobytes()


def test_set_statistics_rebuilds_and_refuses_missing_deviations():
    m = GaussianUnknownVariance(3)
    m.update(np.array([0, 0, 1, 1, 1]), np.array([1.0, 3.0, 0.0, 1.0, 2.0]))
    r = GaussianUnknownVariance.from_statistics(m.counts, m.sums, m.sq_devs)
    np.testing.assert_array_equal(r.estimate, m.estimate)
    np.testing.assert_array_equal(r.variances, m.variances)
    with pytest.raises(InvalidParameterError, match="sq_devs"):
        GaussianUnknownVariance(3).set_statistics(m.counts, m.sums)


@pytest.mark.parametrize("attr, index, value, message", [
    ("sq_devs", 0, -1.0, "sq_devs"),
    ("sq_devs", 2, 0.5, "fewer than two"),
    ("sq_devs", 1, np.nan, "finite"),
    ("centres", 1, np.inf, "finite"),
    ("counts", 1, 1.5, "whole"),
])
def test_check_state_names_the_inconsistency(attr, index, value, message):
    m = GaussianUnknownVariance(3)
    m.update(np.array([0, 0, 1, 1, 2]), np.array([1.0, 3.0, 0.0, 1.0, 2.0]))
    assert m.check_state() is None
    getattr(m, attr)[index] = value
    assert message in m.check_state()


def test_the_store_of_distinct_values_is_checked_in_a_restored_state():
    m = GaussianUnknownVariance(2)
    m.update(np.array([0, 0, 1, 1]), np.array([1.0, 1.0, 2.0, 3.0]))
    assert m.check_state() is None
    m.value_counts[0, 0] = 5.0  # counts no longer add up to the source's samples
    assert m.check_state().startswith("values:")
