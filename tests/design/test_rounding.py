"""Efficient rounding: sums to n, keeps the support, monotone in n, close to n * w."""

import numpy as np
import pytest

from pybai.design import efficient_rounding, next_rounded_arm
from pybai.exceptions import InvalidParameterError


@pytest.mark.parametrize("seed", range(5))
def test_sum_support_and_monotone(seed):
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(7))
    w[rng.integers(7)] = 0.0
    p = int((w > 0).sum())
    prev = efficient_rounding(w, p)
    assert prev.sum() == p and np.all(prev[w > 0] == 1)
    for n in range(p + 1, p + 400):
        cur = efficient_rounding(w, n)
        assert cur.sum() == n
        assert np.all(cur[w == 0] == 0)
        diff = cur - prev
        assert diff.min() == 0 and diff.sum() == 1     # exactly one count grows by one
        assert next_rounded_arm(w, n - 1) == int(np.argmax(diff))
        assert np.all(np.abs(cur - n * w / w.sum()) <= p)  # efficiency: within p of n w
        prev = cur


def test_uniform_ties_lowest_index_and_exact_designs():
    assert efficient_rounding([1, 1, 1, 1], 5).tolist() == [2, 1, 1, 1]
    assert efficient_rounding([0.5, 0.25, 0.25], 8).tolist() == [4, 2, 2]
    assert efficient_rounding([0.2, 0.8], 0).tolist() == [0, 0]


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="'weights'"):
        efficient_rounding([-0.1, 1.1], 3)
    with pytest.raises(InvalidParameterError, match="'weights'"):
        efficient_rounding([0.0, 0.0], 3)
    with pytest.raises(InvalidParameterError, match="'n'"):
        efficient_rounding([0.5, 0.5], -1)
