"""BayesGap and UGapEb rules against hand-computed values (Hoffman et al. 2014, section 5)."""

import numpy as np
import pytest

from pybai.fixed_budget import (
    GapChoice,
    adaptive_gaps,
    adaptive_hardness,
    arm_gaps,
    bayes_gap_beta,
    bayes_gap_step,
    gap_choice,
    gap_indices,
    hardness,
    hardness_terms,
    max_other,
    ugap_bounds,
    ugap_exploration,
    update_recommendation,
)
from pybai.exceptions import InvalidParameterError
from pybai.models.posterior import GaussianPosterior


def test_max_other_with_ties():
    np.testing.assert_array_equal(max_other([1.0, 3.0, 2.0]), [3.0, 2.0, 3.0])
    np.testing.assert_array_equal(max_other([3.0, 3.0, 1.0]), [3.0, 3.0, 3.0])


def test_gaps_and_hardness_hand_values():
    # means (0, 1, 3): Delta = (3, 2, 2)
    np.testing.assert_array_equal(arm_gaps([0.0, 1.0, 3.0]), [3.0, 2.0, 2.0])
    # eps = 0: H_k = Delta_k / 2 = (1.5, 1, 1);  H = 1/2.25 + 1 + 1
    np.testing.assert_allclose(hardness_terms([3.0, 2.0, 2.0], 0.0), [1.5, 1.0, 1.0])
    assert hardness([3.0, 2.0, 2.0], 0.0) == pytest.approx(1 / 2.25 + 2.0)
    # eps = 1: H_k = max((Delta_k + 1) / 2, 1) = (2, 1.5, 1.5)
    assert hardness([3.0, 2.0, 2.0], 1.0) == pytest.approx(1 / 4 + 2 / 2.25)
    # eps dominates a tiny gap: max((0.1 + 1) / 2, 1) = 1
    np.testing.assert_allclose(hardness_terms([0.1], 1.0), [1.0])
    assert hardness([0.0, 1.0], 0.0) == np.inf


def test_beta_of_equation_9_hand_value():
    # T = 13, K = 3, sigma = 2, eta = 1, G diagonal (1, 2, 4): kappa = 1 + 1/2 + 1/4 = 1.75
    post = GaussianPosterior(np.diag([1.0, 2.0, 4.0]), sigma=2.0, eta=1.0)
    assert post.kappa() == pytest.approx(1.75)
    H = 1 / 2.25 + 2.0  # means (0, 1, 3), eps = 0
    # beta^2 = ((13 - 3) / 4 + 1.75 / 1) / (4 H) = 4.25 / 9.7777...
    assert bayes_gap_beta(13, 3, 2.0, 1.0, 1.75, H) == pytest.approx(np.sqrt(4.25 / (4 * H)))
    assert bayes_gap_beta(13, 3, 2.0, 1.0, 1.75, H) == pytest.approx(0.659287, abs=1e-6)
    # more arms than budget: T - K is taken as 0
    assert bayes_gap_beta(2, 3, 2.0, 1.0, 1.75, H) == pytest.approx(np.sqrt(1.75 / (4 * H)))
    assert bayes_gap_beta(13, 3, 2.0, 1.0, 1.75, np.inf) == 0.0
    with pytest.raises(InvalidParameterError, match="'hardness_eps'"):
        bayes_gap_beta(13, 3, 2.0, 1.0, 1.75, 0.0)


def test_adaptive_gap_bounds_hand_values():
    # mu = (0, 1, 3), sigma_hat = (1, 0.5, 0.1): U3 = (3, 2.5, 3.3), L3 = (-3, -0.5, 2.7)
    mu, sd = [0.0, 1.0, 3.0], [1.0, 0.5, 0.1]
    # arm 0: max(3.3 + 3, 3 - 2.7) = 6.3; arm 1: max(3.3 + 0.5, 2.5 - 2.7) = 3.8;
    # arm 2 (best): the paper's expression gives 3 - 2.7 = 0.3, the lead bound 3.3 + 0.5 = 3.8
    np.testing.assert_allclose(adaptive_gaps(mu, sd), [6.3, 3.8, 3.8])
    assert adaptive_hardness(mu, sd, 0.0) == pytest.approx(1 / 3.15**2 + 2 / 1.9**2)


def test_adaptive_gaps_bound_the_true_gaps_when_the_truth_is_inside():
    rng = np.random.default_rng(0)
    for _ in range(200):
        mu = rng.standard_normal(6)
        sd = rng.uniform(0.01, 1.0, 6)
        truth = mu + sd * rng.uniform(-3, 3, 6)
        assert np.all(adaptive_gaps(mu, sd) >= arm_gaps(truth) - 1e-12)


def test_gap_choice_hand_values():
    # U = (1, 2, 3), L = (0, 1, 2.5): B = (3 - 0, 3 - 1, 2 - 2.5) = (3, 2, -0.5)
    np.testing.assert_allclose(gap_indices([1.0, 2.0, 3.0], [0.0, 1.0, 2.5]), [3.0, 2.0, -0.5])
    # J = 2, j = 1, s = (1, 1, 0.5): pull j
    assert gap_choice([1.0, 2.0, 3.0], [0.0, 1.0, 2.5]) == GapChoice(2, 1, 1, -0.5)


def test_runner_up_is_argmax_of_upper_bounds_not_argmin():
    # U = (5, 1, 3), L = (4.5, 0, 2): B = (3 - 4.5, 5 - 0, 5 - 2) -> J = 0;
    # j = argmax_{k != 0} U_k = 2 (Algorithm 1's printed argmin would give 1); s = (0.5, 1, 1)
    c = gap_choice([5.0, 1.0, 3.0], [4.5, 0.0, 2.0])
    assert (c.J, c.j, c.arm, c.bound) == (0, 2, 2, -1.5)
    # tie in s between J and j pulls J
    assert gap_choice([2.0, 1.5], [1.0, 0.5]).arm == 0


def test_bayes_gap_step_uses_posterior_bounds_and_pulls_the_larger_std():
    mu, sd = np.array([0.0, 1.0, 3.0]), np.array([1.0, 0.5, 0.1])
    choice, beta = bayes_gap_step(mu, sd, budget=13, sigma=2.0, eta=1.0, kappa=1.75)
    H = 1 / 3.15**2 + 2 / 1.9**2
    assert beta == pytest.approx(np.sqrt((10 / 4 + 1.75) / (4 * H)))
    # U/L = mu +- beta sd: J = 2 (largest mean, tiny sd); j = argmax U over arms 0, 1
    U = mu + beta * sd
    assert choice.J == 2 and choice.j == int(np.argmax(U[:2]))
    assert choice.arm == choice.j  # sd_j > sd_J = 0.1
    assert choice.bound == pytest.approx(U[:2].max() - (3.0 - beta * 0.1))
    fixed, beta_fixed = bayes_gap_step(mu, sd, budget=13, sigma=2.0, eta=1.0, kappa=1.75, hardness_eps=2.0)
    assert beta_fixed == pytest.approx(np.sqrt(4.25 / 8.0))


def test_recommendation_keeps_the_running_minimum():
    best = (np.inf, -1)
    for J, bound in [(0, 3.0), (1, 1.0), (2, 2.0), (3, 1.0)]:
        best = update_recommendation(*best, GapChoice(J, 0, J, bound))
    assert best == (1.0, 1)  # the earliest time attaining the minimum


def test_ugap_bounds_and_exploration():
    U, L = ugap_bounds([0.5, 0.2, np.nan], [4, 1, 0], a=2.0, scale=1.0)
    np.testing.assert_allclose(U, [0.5 + np.sqrt(0.5), 0.2 + np.sqrt(2.0), np.inf])
    np.testing.assert_allclose(L, [0.5 - np.sqrt(0.5), 0.2 - np.sqrt(2.0), -np.inf])
    assert ugap_exploration(100, 5, 2.5) == pytest.approx(95 / 10)
    assert ugap_exploration(3, 5, 2.5) == 0.0
    # an unpulled arm has infinite diameter and is chosen
    c = gap_choice(U, L)
    assert c.arm == 2
