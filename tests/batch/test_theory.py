import math

import numpy as np
import pytest

from pybai.batch.bounds import lil_bounds, lil_deviation, lil_omega
from pybai.batch.instances import linear_instance, sparse_instance
from pybai.batch.theory import batch_complexity_bound, samples_to_classify, theory_speedup, top_k_gaps
from pybai.exceptions import InvalidParameterError

# Table 1 of Jun, Jamieson, Nowak & Zhu (2016): (b, r, Linear theory, Sparse theory)
TABLE_1 = [
    (4, 1, 2.71, 4.00), (4, 2, 4.00, 4.00), (16, 1, 3.14, 16.00), (16, 2, 6.08, 16.00),
    (16, 4, 10.84, 16.00), (16, 8, 16.00, 16.00), (64, 1, 3.16, 63.97), (64, 2, 6.32, 63.97),
    (64, 4, 12.55, 63.97), (64, 8, 24.31, 63.97), (64, 16, 43.37, 63.97), (64, 32, 64.00, 63.97),
]


@pytest.mark.parametrize("b,r,linear,sparse", TABLE_1)
def test_table_1_theory_column(b, r, linear, sparse):
    assert round(theory_speedup(linear_instance(), 10, 0.1, b, r), 2) == linear
    assert round(theory_speedup(sparse_instance(), 10, 0.1, b, r), 2) == sparse


def test_instances_of_section_5_1():
    mu = linear_instance()
    assert mu[0] == 1.0 and mu[-1] == 0.0 and mu[9] == pytest.approx(90 / 99)
    sp = sparse_instance()
    assert (sp == 0.5).sum() == 10 and (sp == 0.3).sum() == 90


def test_t_bar_by_hand_and_bound_pieces():
    # Sparse: every gap is 0.2; omega = sqrt(0.1 / 600)
    omega = math.sqrt(0.1 / 600)
    c = 64 / 0.2**2
    t_bar = 1 + math.floor(c * math.log((2 / omega) * math.log2(3 * c / omega)))
    np.testing.assert_array_equal(samples_to_classify([0.2, 0.2], 0.1, 100), [t_bar, t_bar])
    gaps = top_k_gaps(sparse_instance(), 10)
    assert np.allclose(gaps, 0.2)
    assert batch_complexity_bound(sparse_instance(), 10, 0.1, 1, 1) == 100 * t_bar
    # b = 16, r = 4: r' = 4, sum from floor(16/4) + 1 = 5 to 100
    want = t_bar / 4 + 96 * t_bar / 16 + math.log(100) + 100 / 16 + 1 / 4 + 2
    assert batch_complexity_bound(sparse_instance(), 10, 0.1, 16, 4) == pytest.approx(want, rel=1e-14)
    # sigma scales the constant 64 = 256 sigma^2
    assert samples_to_classify([0.4], 0.1, 100, sigma=1.0)[0] == samples_to_classify([0.2], 0.1, 100)[0]


def test_gaps_of_eq_3():
    np.testing.assert_allclose(top_k_gaps([0.9, 0.1, 0.7, 0.4], 2), [0.5, 0.6, 0.3, 0.3])


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="'max_repeats'"):
        theory_speedup(linear_instance(), 10, 0.1, 4, 8)
    with pytest.raises(InvalidParameterError, match="'k'"):
        theory_speedup(linear_instance(), 100, 0.1, 4, 2)
    with pytest.raises(InvalidParameterError, match="'k'"):
        theory_speedup(linear_instance(), 0, 0.1, 4, 2)
    with pytest.raises(InvalidParameterError, match="'means'"):
        top_k_gaps([0.5, 0.5, 0.1], 1)


def test_lil_bounds_eq_2():
    omega = lil_omega(0.1, 100)
    assert omega == pytest.approx(math.sqrt(0.1 / 600))
    d = lil_deviation([0, 1, 10], omega)
    assert d[0] == math.inf
    assert d[1] == pytest.approx(math.sqrt(4 * math.log(1 / omega)))  # log2(2) = 1
    assert d[2] == pytest.approx(math.sqrt(4 * math.log(math.log2(20) / omega) / 10))
    assert lil_deviation([10], omega, sigma=1.0)[0] == pytest.approx(2 * d[2])
    low, up = lil_bounds([0, 10], [0.0, 6.0], 0.1, n_arms=100)
    assert low[0] == -math.inf and up[0] == math.inf
    assert low[1] == pytest.approx(0.6 - d[2]) and up[1] == pytest.approx(0.6 + d[2])
    with pytest.raises(InvalidParameterError, match="'delta'"):
        lil_omega(1.5, 10)


def test_lil_bounds_cover_the_mean():
    # Lemma 1: all n arms' anytime bounds hold together w.p. >= 1 - delta; empirical check
    rng = np.random.default_rng(0)
    n, horizon, fails = 20, 200, 0
    for _ in range(100):
        x = rng.random((n, horizon)) < 0.5
        counts = np.arange(1, horizon + 1)
        sums = np.cumsum(x, axis=1)
        low, up = lil_bounds(np.broadcast_to(counts, (n, horizon)), sums, 0.5, n_arms=n)
        fails += bool(np.any((low > 0.5) | (up < 0.5)))
    assert fails <= 50  # the bound is conservative: this essentially never fails
