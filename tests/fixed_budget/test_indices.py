"""Index and acquisition functions against hand values and independent computations."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from pybai.fixed_budget import (
    UCBE_C,
    bayes_ucb_index,
    bayes_ucb_level,
    expected_improvement,
    gp_ucb_beta,
    gp_ucb_index,
    independent_hardness,
    probability_of_improvement,
    thompson_draw,
    ucbe_exploration,
    ucbe_index,
)
from pybai.exceptions import InvalidParameterError


def test_ucbe():
    assert independent_hardness([1.0, 2.0, 0.5]) == pytest.approx(1 + 0.25 + 4)
    assert independent_hardness([1.0, 0.0]) == np.inf
    assert ucbe_exploration(100, 4, 10.0) == pytest.approx(25 / 36 * 96 / 10)
    assert UCBE_C == pytest.approx(25 / 36)
    np.testing.assert_allclose(ucbe_index([1.0, 2.0, np.nan], [4, 9, 0], a=4.0, scale=0.5),
                               [1.0 + 0.5 * 1.0, 2.0 + 0.5 * 2 / 3, np.inf])


def test_bayes_ucb_quantile():
    # t = 10, T = 100, c = 1: level 1 - 1 / (10 ln 100)
    level = bayes_ucb_level(10, 100, 1.0)
    assert level == pytest.approx(1 - 1 / (10 * math.log(100)))
    idx = bayes_ucb_index([0.0, 1.0], [2.0, 0.5], 10, 100, 1.0)
    np.testing.assert_allclose(idx, stats.norm.ppf(level, loc=[0.0, 1.0], scale=[2.0, 0.5]))
    # c = 0: level 1 - 1/t; round 1 is treated as round 2 (level 1/2: the posterior means)
    np.testing.assert_allclose(bayes_ucb_index([0.3, 1.0], [2.0, 0.5], 1, 100), [0.3, 1.0])
    assert bayes_ucb_level(4, 100) == pytest.approx(0.75)


def test_gp_ucb_beta_hand_value():
    # K = 10, t = 3, delta = 0.1: 2 ln(10 * 9 * pi^2 / 0.6) = 2 ln(1480.44...) = 14.6002...
    assert gp_ucb_beta(3, 10, 0.1) == pytest.approx(14.60018, abs=1e-4)
    assert gp_ucb_beta(3, 10, 0.1, beta_scale=0.2) == pytest.approx(0.2 * 14.60018, abs=1e-4)
    np.testing.assert_allclose(gp_ucb_index([0.0, 1.0], [1.0, 0.5], 4.0), [2.0, 2.0])
    with pytest.raises(InvalidParameterError, match="'delta'"):
        gp_ucb_beta(3, 10, 1.5)


def test_pi_and_ei_against_integrals():
    mu = np.array([0.0, 0.8, 1.0, 0.5])
    sd = np.array([1.0, 0.3, 0.2, 0.0])
    best = 1.0  # the best posterior mean is the default incumbent
    pi = probability_of_improvement(mu, sd)
    ei = expected_improvement(mu, sd)
    for k in range(3):
        assert pi[k] == pytest.approx(stats.norm.sf(best, mu[k], sd[k]))
        value, _ = integrate.quad(lambda x: (x - best) * stats.norm.pdf(x, mu[k], sd[k]), best, np.inf)
        assert ei[k] == pytest.approx(value, rel=1e-7)
    assert pi[2] == pytest.approx(0.5) and ei[2] == pytest.approx(0.2 / math.sqrt(2 * math.pi))
    assert pi[3] == 0.0 and ei[3] == 0.0  # zero std, no improvement
    # a margin xi and an explicit incumbent; zero std with a strict improvement
    assert expected_improvement([2.0], [0.0], incumbent=1.0, xi=0.5)[0] == pytest.approx(0.5)
    assert probability_of_improvement([2.0], [0.0], incumbent=1.0)[0] == 1.0
    assert probability_of_improvement([0.0], [1.0], incumbent=0.0, xi=1.0)[0] == pytest.approx(stats.norm.sf(1.0))


def test_thompson_draw_is_a_posterior_draw_from_the_generator():
    mean = np.array([1.0, -1.0, 0.0])
    root = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 2.0]])
    a = thompson_draw(mean, root, np.random.default_rng(3))
    b = thompson_draw(mean, root, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(4)
    draws = np.array([thompson_draw(mean, root, rng) for _ in range(20000)])
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=0.04)
    np.testing.assert_allclose(np.cov(draws, rowvar=False), root @ root.T, atol=0.06)
    ind = np.array([thompson_draw(mean, np.array([0.1, 0.2, 0.3]), rng) for _ in range(20000)])
    np.testing.assert_allclose(ind.std(axis=0), [0.1, 0.2, 0.3], rtol=0.03)
