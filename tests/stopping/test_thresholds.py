"""Tests of pybai.stopping.thresholds (make_threshold, the kinds by name) and of what every t-only threshold shares."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pybai.exceptions import InvalidParameterError
from pybai.stopping.base import Threshold
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.kk21 import ExponentialFamilyThreshold, GaussianThreshold
from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold, GaussianPairMixtureThreshold
from pybai.stopping.thresholds import make_threshold

ALL_KINDS = [
    lambda d, m=4, n=2: HeuristicThreshold(d),
    lambda d, m=4, n=2: ExponentialFamilyThreshold(d, m, n),
    lambda d, m=4, n=2: GaussianThreshold(d, m, n),
]
IDS = ["heuristic", "expfam", "gaussian"]


# ---------------------------------------------------------------------------
# Structural properties
# ---------------------------------------------------------------------------

T_GRID = np.unique(np.concatenate([np.arange(1, 200), np.round(np.logspace(0, 12, 500))]))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
@pytest.mark.parametrize("delta", [0.5, 0.1, 1e-4])
def test_monotone_in_t(make, delta):
    v = make(delta).values(T_GRID)
    assert np.all(np.diff(v) >= 0)
    assert v[-1] > v[0]


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_decreasing_in_delta(make):
    deltas = [0.9, 0.5, 0.2, 0.1, 0.05, 1e-2, 1e-3, 1e-6, 1e-12]  # decreasing delta
    for t in [1, 10, 1000, 10**7]:
        vals = [make(d)(t) for d in deltas]
        assert all(b > a for a, b in zip(vals, vals[1:]))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_values_matches_call(make):
    th = make(0.05)
    ts = [1, 2, 5, 17, 1000, 12345.5, 10**8]
    np.testing.assert_allclose(th.values(ts), [th(t) for t in ts], rtol=1e-14)
    assert th.values(np.array([[1, 10], [100, 1000]])).shape == (2, 2)
    assert isinstance(th(np.int64(100)), float)
    assert th(100) == th(100.0) == th(np.int64(100))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_at_is_the_value_at_t_whatever_the_model_and_the_share(make):
    th = make(0.05)
    for t in (1, 2, 17, 1000, 12345.5):
        assert th.at(t) == th.at(t, object()) == th.at(t, None, delta_share=1 / 6) == th(t)
    for bad in (0.0, -1.0, 1.5, float("nan"), "half", None, True):
        with pytest.raises(InvalidParameterError, match="delta_share"):
            th.at(10, None, delta_share=bad)
    with pytest.raises(InvalidParameterError, match="'t'"):
        th.at(0, None)


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_picklable(make):
    th = make(0.01)
    back = pickle.loads(pickle.dumps(th))
    assert type(back) is type(th)
    assert back == th
    assert back(1234) == th(1234)
    assert back.delta == 0.01
    assert isinstance(back, Threshold)
    assert isinstance(th.name, str) and th.name
    assert repr(th).startswith(type(th).__name__)
    assert len(pickle.dumps(th)) < 1000


# ---------------------------------------------------------------------------
# Factory and bad input
# ---------------------------------------------------------------------------


def test_make_threshold_dispatch():
    assert isinstance(make_threshold("heuristic", 0.1, n_alternatives=4), HeuristicThreshold)
    g = make_threshold("delta-correct", 0.1, n_alternatives=4)
    assert isinstance(g, GaussianThreshold) and g == GaussianThreshold(0.1, 4, 2)
    b = make_threshold("delta-correct", 0.1, n_alternatives=4, family="bernoulli")
    assert isinstance(b, BernoulliKTThreshold) and b == BernoulliKTThreshold(0.1, 4, 2)
    assert make_threshold("kk21", 0.1, n_alternatives=4, family="bernoulli") == ExponentialFamilyThreshold(0.1, 4, 2)
    assert make_threshold("kk21", 0.1, n_alternatives=4) == GaussianThreshold(0.1, 4, 2)
    assert make_threshold("kt-mixture", 0.1, n_alternatives=4, family="bernoulli") == b
    assert make_threshold("pair-mixture", 0.1, n_alternatives=4) == GaussianPairMixtureThreshold(0.1, 4)
    assert make_threshold("pair-mixture", 0.1, n_alternatives=4, family="bernoulli") == BernoulliPairMixtureThreshold(
        0.1, 4)
    with pytest.raises(ValueError, match="family"):
        make_threshold("kt-mixture", 0.1, n_alternatives=4, family="gaussian")
    e = make_threshold("delta-correct", 0.1, n_alternatives=9, n_terms=3, family="exponential_family")
    assert e == ExponentialFamilyThreshold(0.1, 9, 3)


def test_make_threshold_accepts_family_objects():
    from pybai.models import Bernoulli

    th = make_threshold("delta-correct", 0.1, n_alternatives=4, family=Bernoulli())
    assert isinstance(th, BernoulliKTThreshold)


@pytest.mark.parametrize("delta", [0, 0.0, 1, 1.0, -0.1, 1.5, float("nan"), float("inf"), "0.1", None, True])
def test_bad_delta_raises(delta):
    with pytest.raises(ValueError, match="delta"):
        make_threshold("heuristic", delta, n_alternatives=4)
    with pytest.raises(ValueError, match="delta"):
        make_threshold("delta-correct", delta, n_alternatives=4)
    for cls in (HeuristicThreshold,):
        with pytest.raises(ValueError, match="delta"):
            cls(delta)
    with pytest.raises(ValueError, match="delta"):
        GaussianThreshold(delta, 4)
    with pytest.raises(ValueError, match="delta"):
        ExponentialFamilyThreshold(delta, 4, 2)


@pytest.mark.parametrize("kind", ["", "proven", "Heuristics", None, 3])
def test_bad_kind_raises(kind):
    with pytest.raises(ValueError, match="kind"):
        make_threshold(kind, 0.1, n_alternatives=4)


@pytest.mark.parametrize("family", ["student", "", None, 1])
def test_bad_family_raises(family):
    with pytest.raises(ValueError, match="family"):
        make_threshold("delta-correct", 0.1, n_alternatives=4, family=family)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "4", None, True])
def test_bad_counts_raise(bad):
    with pytest.raises(ValueError, match="n_alternatives"):
        make_threshold("delta-correct", 0.1, n_alternatives=bad)
    with pytest.raises(ValueError, match="n_terms"):
        make_threshold("delta-correct", 0.1, n_alternatives=4, n_terms=bad)
    with pytest.raises(ValueError, match="n_alternatives"):
        GaussianThreshold(0.1, bad)
    with pytest.raises(ValueError, match="n_terms"):
        ExponentialFamilyThreshold(0.1, 4, bad)


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
@pytest.mark.parametrize("t", [0, 0.5, -3, float("nan")])
def test_bad_t_raises(make, t):
    th = make(0.1)
    with pytest.raises(ValueError, match="'t'"):
        th(t)
    with pytest.raises(ValueError, match="'t'"):
        th.values([1, 2, t])


