"""Confidence intervals of the status and the report, against closed forms."""

import numpy as np
import pytest

from pybai import BestArmProblem, Bernoulli, FixedConfidence, Gaussian
from pybai.models.linear import LeastSquares
from pybai.session.intervals import confidence_intervals, z_value


def test_z_value():
    assert z_value(0.95) == pytest.approx(1.959963984540054, rel=1e-12)


def test_bernoulli_wilson_closed_forms():
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.1))
    model = problem.new_model()
    model.update(np.zeros(10, dtype=np.intp), np.zeros(10))  # 0 successes out of 10
    model.update(np.ones(4, dtype=np.intp), np.array([1.0, 0.0, 1.0, 0.0]))  # 2 out of 4
    low, high = confidence_intervals(problem, model)
    z2 = z_value(0.95) ** 2
    assert low[0] == pytest.approx(0.0, abs=1e-15) and high[0] == pytest.approx(z2 / (10 + z2), rel=1e-12)
    half = np.sqrt(z2) * np.sqrt(0.25 / 4 + z2 / 64) / (1 + z2 / 4)
    assert (low[1], high[1]) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert (low[2], high[2]) == (0.0, 1.0)  # no sample: the whole support


def test_least_squares_on_the_canonical_basis_is_the_gaussian_interval():
    sigma = 2.0
    problem = BestArmProblem(2, Gaussian(sigma, n_sources=2), FixedConfidence(0.1))
    means = problem.new_model()
    ls = LeastSquares(np.eye(2))
    src, rew = np.array([0, 0, 0, 1]), np.array([1.0, 2.0, 3.0, -1.0])
    means.update(src, rew)
    ls.update(src, rew)

    class Linear:  # the two attributes the interval reads from a linear problem
        family = problem.family

    Linear.sigma = sigma
    lo_g, hi_g = confidence_intervals(problem, means)
    lo_l, hi_l = confidence_intervals(Linear, ls)
    assert np.allclose(lo_g, lo_l) and np.allclose(hi_g, hi_l)
    assert hi_g[1] - lo_g[1] == pytest.approx(2 * z_value(0.95) * sigma)
