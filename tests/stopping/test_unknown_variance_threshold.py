"""The proven stopping rule of Gaussian arms with unknown variances (pybai.stopping.unknown_variance)."""

import math

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, GaussianUnknownVariance
from pybai.models.unknown_variance import MeansAndVariances
from pybai.stopping.base import PairPieces
from pybai.stopping.thresholds import make_threshold
from pybai.stopping.unknown_variance import (
    PRECISIONS, UnknownVarianceThreshold, _lower, invariant_pair_margin, _upper, bipartite_level, log_bayes_factor,
    product_level)

C = np.array(PRECISIONS)


def direct_log_bf(x, lam):
    """The mixture of the t-test Bayes factors from the raw sums S and V (module docstring)."""
    n = x.size
    s, v = np.sum(x - lam), np.sum((x - lam) ** 2)
    terms = [0.5 * np.log(c / (n + c)) - 0.5 * n * np.log(1 - s * s / ((n + c) * v)) for c in PRECISIONS]
    return np.log(np.mean(np.exp(terms)))


@pytest.mark.parametrize("share", [0.3, 0.01, 1e-3 / 7, 1e-9])
def test_product_level_solves_its_equation(share):
    y = product_level(share)
    assert (1.0 + y) * math.exp(-y) == pytest.approx(share, rel=1e-12)
    assert y > -math.log(share)  # the price of the product of two suprema


@pytest.mark.parametrize("delta, m", [(0.01, 1), (0.01, 4), (0.05, 6), (1e-6, 99)])
def test_bipartite_level_solves_its_equation(delta, m):
    y = bipartite_level(delta, m)
    x_over_m = math.exp(y) / m
    assert (1.0 + math.log(x_over_m)) / x_over_m == pytest.approx(delta, rel=1e-12)


def test_bipartite_bound_holds_for_pareto_suprema():
    """Monte Carlo of step (iii): k and K - k independent U with P(U >= u) = 1/u exactly (the extreme case)."""
    rng = np.random.default_rng(9)
    for k, rest, delta in [(1, 4, 0.05), (2, 3, 0.05), (1, 9, 0.1)]:
        m = k * rest
        level = bipartite_level(delta, m)
        log_u = rng.exponential(size=(400_000, k + rest))  # ln U ~ Exp(1): P(U >= u) = 1/u
        top, bottom = log_u[:, :k].max(axis=1), log_u[:, k:].max(axis=1)
        rate = np.mean(top + bottom >= level)
        assert rate <= delta * 1.05
        assert rate >= 0.5 * delta  # the bound is nearly tight for Pareto suprema, not vacuous


def test_bayes_factor_matches_its_definition_and_is_scale_free():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 60))
        x = rng.normal(rng.normal(), rng.uniform(0.1, 5), n)
        lam = float(rng.normal())
        sq = float(np.sum((x - x.mean()) ** 2))
        got = log_bayes_factor(float(n), float(x.mean()), sq, lam, C)
        assert got == pytest.approx(direct_log_bf(x, lam), rel=1e-9, abs=1e-9)
        a, b = rng.uniform(0.01, 100), rng.normal(0, 100)
        y = a * x + b
        moved = log_bayes_factor(float(n), float(y.mean()), float(np.sum((y - y.mean()) ** 2)), a * lam + b, C)
        assert moved == pytest.approx(got, rel=1e-7, abs=1e-7)


def test_bayes_factor_has_mean_one_under_the_null():
    rng = np.random.default_rng(5)
    x = rng.normal(0.7, 3.0, size=(200_000, 4))
    n = 4.0
    sq = np.sum((x - x.mean(axis=1, keepdims=True)) ** 2, axis=1)
    values = np.exp([log_bayes_factor(n, m, s, 0.7, C) for m, s in zip(x.mean(axis=1), sq)])
    assert values.mean() == pytest.approx(1.0, abs=0.03)


def _random_pair(rng, max_count: int, max_level: float) -> tuple:
    """A random pair (n_a, mean_a, sum of squares_a, n_b, mean_b, sum of squares_b) with mean_a >= mean_b, and a
    level: counts in [3, max_count), variances 0.05-4, level in [2, max_level)."""
    na, nb = rng.integers(3, max_count, size=2).astype(float)
    xa, xb = sorted(rng.normal(0, 1, 2))[::-1]
    sa, sb = na * rng.uniform(0.05, 4), nb * rng.uniform(0.05, 4)
    return na, xa, sa, nb, xb, sb, rng.uniform(2, max_level)


def test_certified_pair_decision_agrees_with_a_dense_grid():
    rng = np.random.default_rng(11)
    decided = 0
    for _ in range(300):
        na, xa, sa, nb, xb, sb, level = _random_pair(rng, 400, 12)
        grid = np.linspace(xb, xa, 4001)
        g = np.array([_upper(na, xa, sa, u, C) + _lower(nb, xb, sb, u, C) for u in grid])
        margin = invariant_pair_margin(na, xa, sa, nb, xb, sb, level, C, 0.5 * (xa + xb))
        if margin > 0:
            decided += 1
            assert g.min() > level - 1e-9
        elif g.min() > level + 1e-3:
            pytest.fail(f"not certified although the grid minimum {g.min()} clears {level}")
    assert 20 < decided < 280


def test_no_stop_when_the_first_arm_does_not_look_better():
    assert invariant_pair_margin(50.0, 0.0, 10.0, 50.0, 1.0, 10.0, 1.0, C, 0.5) == -math.inf


def test_make_threshold_builds_the_rule_for_the_family():
    rule = make_threshold("delta-correct", 0.01, n_alternatives=3, family="gaussian-unknown-variance")
    assert isinstance(rule, UnknownVarianceThreshold) and rule.proven and rule.count_dependent
    assert rule.level == pytest.approx(bipartite_level(0.01, 3))
    assert rule.level < product_level(0.01 / 3)  # below the union bound over the pairs
    assert rule.min_statistic == pytest.approx(rule.level - 2 * math.log(2))
    assert not make_threshold("heuristic", 0.01, n_alternatives=3, family="gaussian-unknown-variance").proven
    with pytest.raises(ValueError, match="kind"):
        make_threshold("kk21", 0.01, n_alternatives=3, family="gaussian-unknown-variance")


def test_false_stops_on_a_tie_stay_below_delta():
    """Two arms with equal means and very different variances: every stop is a wrong answer.

    150 runs (the rule stops in 2 of them, 4 of 300): one stopping falsely at 1.5 delta (mean 45, sd 5.6)
    fails the check with probability 0.996, at 2 delta with certainty."""
    delta = 0.2
    problem = BestArmProblem(2, GaussianUnknownVariance(2), FixedConfidence(delta))
    rule = problem.threshold("delta-correct", delta)
    rng = np.random.default_rng(2026)
    stops = 0
    runs = 150
    for _ in range(runs):
        model = MeansAndVariances(2)
        x = np.column_stack([rng.normal(5.0, 0.2, 600), rng.normal(5.0, 3.0, 600)])
        for t in range(600):
            model.update(np.array([0, 1]), x[t])
            if t >= 1:
                best = int(np.argmax(model.estimate))
                if rule.margin(PairPieces([best], [1 - best], (1.0, 0.0), None), model) > 0:
                    stops += 1
                    break
    assert stops / runs <= delta


def _fed(rewards_by_arm):
    model = MeansAndVariances(len(rewards_by_arm))
    for t in range(max(len(r) for r in rewards_by_arm)):
        for a, rewards in enumerate(rewards_by_arm):
            if t < len(rewards):
                model.update(np.array([a]), np.array([rewards[t]]))
    return model


def test_a_variance_that_rests_on_ties_certifies_nothing():
    """A run of zeros (sample variance 0) against a Gaussian arm: certified before, never now; the same counts
    with distinct values still certify (the check can fail)."""
    import warnings

    from pybai.exceptions import RewardModelWarning

    rule = UnknownVarianceThreshold(0.2, 1)
    pair = PairPieces(np.array([1]), np.array([0]), (1.0, 0.0), None)  # arm 1 above arm 0
    rng = np.random.default_rng(5)
    gaussian = rng.normal(0.3, 0.1, 12)
    with pytest.warns(RewardModelWarning, match="bounded") as caught:
        tied = _fed([np.zeros(12), gaussian])
        tied.update(np.array([0, 0]), np.zeros(2))  # the batch path records ties too
    assert len(caught) == 1  # once per model
    assert tied.tied.tolist() == [True, False]
    assert rule.margin(pair, tied) == -math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # distinct values: no warning
        spread = _fed([rng.normal(0.0, 1e-6, 12), gaussian])
    assert not spread.tied.any()
    assert rule.margin(pair, spread) > 0  # the same means, near-0 variance, distinct values


def test_ties_count_only_while_most_rewards_repeat_and_few_values_were_seen():
    rounded = _fed([np.round(np.random.default_rng(1).normal(0.0, 1.0, 60), 2)])
    assert rounded.n_values[0] > 0 and rounded.value_counts[0].sum() > rounded.n_values[0]  # it repeated ...
    assert not rounded.tied[0]  # ... but a resolution of 1/100 of the spread keeps most values distinct
    likert = _fed([np.random.default_rng(2).integers(1, 6, 30).astype(float)])
    assert likert.tied[0]
    many = _fed([np.concatenate([np.zeros(100), np.arange(1.0, 66.0)])])  # a run of zeros, then 65 new values
    assert many.n_values[0] == -1 and not many.tied[0]  # more than 64 distinct values: it counts again
    scaled = likert.scaled_into(MeansAndVariances(1), 3.0)  # the near-tie estimate keeps the ties
    assert scaled.tied[0]


def test_the_spike_arm_is_no_longer_certified_against():
    """The instance of the report (best arm 0 w.p. 0.95 or 10, mean 0.5, against N(0.3, 0.1^2), delta = 0.2):
    before, about 3 runs in 4 certified the Gaussian arm; now no run stops with a wrong answer."""
    import warnings

    from pybai import make_strategy

    problem = BestArmProblem(2, GaussianUnknownVariance(2), FixedConfidence(0.2, max_samples=300))
    wrong = 0
    for run in range(40):
        rng = np.random.default_rng([36, run])
        strategy = make_strategy("tas", threshold="delta-correct").start(problem, rng=run)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while not strategy.stopped:
                req = strategy.ask()
                strategy.tell(req, np.array([(10.0 if rng.random() < 0.05 else 0.0) if a == 0 else rng.normal(0.3, 0.1)
                                             for a in req]))
        wrong += strategy.status_ == "stopped" and strategy.recommendation() != 0
    assert wrong == 0


def test_a_certified_pair_covers_the_whole_diagonal_through_the_suprema():
    """Step (iii) checks only [xbar_b, xbar_a]: valid because each one-sided factor is below 1 at its own mean.

    Outside the interval the pair sum can dip below its minimum inside (a heavily sampled arm just above its mean),
    so what the proof uses is checked here: ln B+-(xbar) <= 0, and for a certified pair the clipped sum
    max(0, ln B+_a(u)) + max(0, ln B-_b(u)) (the suprema are at least 1) clears the level on the whole line.
    """
    rng = np.random.default_rng(12)
    for _ in range(300):
        n = float(rng.integers(2, 5000))
        xbar, sq = rng.normal(0, 3), n * rng.uniform(1e-3, 10)
        assert _upper(n, xbar, sq, xbar, C) <= 0.0 and _lower(n, xbar, sq, xbar, C) <= 0.0
    checked = 0
    for _ in range(200):
        na, xa, sa, nb, xb, sb, level = _random_pair(rng, 3000, 10)
        if invariant_pair_margin(na, xa, sa, nb, xb, sb, level, C, 0.5 * (xa + xb)) <= 0:
            continue
        checked += 1
        width = xa - xb
        for u in np.linspace(xb - 3 * width, xa + 3 * width, 601):
            assert max(0.0, _upper(na, xa, sa, u, C)) + max(0.0, _lower(nb, xb, sb, u, C)) >= level - 1e-9
    assert checked > 10
