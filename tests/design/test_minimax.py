"""Helpers of :mod:`pybai.design.minimax` that the solver's speed relies on give the plain results."""

import numpy as np

from pybai.design._linalg import inverse_design
from pybai.design.minimax import _inverse_support, _outside


def test_inverse_from_the_support_equals_the_inverse_over_all_rows():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 6))
    w = np.zeros(300)
    on = rng.choice(300, 15, replace=False)
    w[on] = rng.random(15)
    w /= w.sum()
    np.testing.assert_allclose(_inverse_support(z, w), inverse_design(z, w), rtol=1e-12, atol=0)
    w_few = np.zeros(300)
    w_few[on[:3]] = 1.0 / 3.0  # three rows cannot span R^6
    assert _inverse_support(z, w_few) is None and inverse_design(z, w_few) is None


def test_outside_is_the_set_difference_of_the_flagged_indices():
    rng = np.random.default_rng(1)
    for _ in range(20):
        mask = rng.random(50) < 0.4
        members = np.sort(rng.choice(50, 10, replace=False))
        expected = np.setdiff1d(np.flatnonzero(mask), members)
        np.testing.assert_array_equal(_outside(mask.copy(), members), expected)
