"""The proven KL_inf stopping rule of bounded rewards (betting mixtures): error rate and its pieces."""

import math

import numpy as np
import pytest

from pybai import BestArmProblem, Bounded, FixedConfidence
from pybai.models.betting import BettingModel
from pybai.stopping.base import PairPieces
from pybai.stopping.betting import BettingThreshold, HeuristicBettingThreshold, pair_log_wealth


def _wrong_stops(level, runs=100, steps=300, seed=0, max_values=64):
    """Runs in which arm 0 (mean 0.5) is ever certified above arm 1 (mean 0.52), two-point rewards.

    Two-point rewards repeat: the rule refines the level grid's cells from the exact stores
    (``max_values=0``: the grid alone).
    """
    rng = np.random.default_rng(seed)
    th = BettingThreshold(0.5, 1)
    th.level = level
    wrong = 0
    for _ in range(runs):
        model = BettingModel(2, 0.0, 1.0, levels=41, max_values=max_values)
        a = np.where(rng.random(steps) < (0.5 - 0.1) / 0.8, 0.9, 0.1)  # {0.1, 0.9}, mean 0.5
        b = np.where(rng.random(steps) < (0.52 - 0.2) / 0.6, 0.8, 0.2)  # {0.2, 0.8}, mean 0.52
        for t in range(steps):
            model.update(np.array([0, 1]), np.array([a[t], b[t]]))
            if th.margin(PairPieces([0], [1], (1.0, 0.0), None), model) > 0.0:
                wrong += 1
                break
    return wrong / runs


@pytest.mark.parametrize("max_values", [64, 0])
def test_error_rate_on_two_point_arms_is_at_most_delta(max_values):
    delta = 0.2
    level = BettingThreshold(delta, 1).level
    assert level == pytest.approx(math.log(1 / delta))
    assert _wrong_stops(level, max_values=max_values) <= delta
    assert _wrong_stops(0.0, max_values=max_values) > 2 * delta  # an unproven level errs: the check can fail


def test_margin_reads_the_betting_tables_and_stops_on_clear_gaps():
    p = BestArmProblem(2, Bounded(2, 0.0, 1.0, "kl-inf", levels=21), FixedConfidence(0.05))
    th = p.threshold("delta-correct", 0.05)
    assert isinstance(th, BettingThreshold) and th.proven
    model = p.new_model()
    model.update(np.array([0, 1] * 50), np.array([0.9, 0.1] * 50))
    assert th.decide(p.learner_view(model), model, 100).stop
    flat = p.new_model()
    flat.update(np.array([0, 1] * 3), np.array([0.6, 0.4] * 3))
    assert not th.decide(p.learner_view(flat), flat, 6).stop
    assert not HeuristicBettingThreshold(0.05, 1).proven


def test_sub_bernoulli_uses_the_rules_of_rewards_in_0_1():
    from pybai.stopping.leader import BernoulliLeaderSettledThreshold
    from pybai.stopping.pair_mixture import BernoulliPairMixtureThreshold
    from pybai.stopping.tilt import BernoulliTiltThreshold

    p = BestArmProblem(3, Bounded(3, 2.0, 5.0, "sub-bernoulli"), FixedConfidence(0.05))
    assert isinstance(p.threshold("pair-mixture", 0.05), BernoulliPairMixtureThreshold)
    assert isinstance(p.threshold("pair-tilt", 0.05), BernoulliTiltThreshold)
    # plain best arm: the leader rule of rewards in [0, 1] (tests/stopping/test_bounded_leader.py); with epsilon the
    # tilted pair rule
    assert p.threshold("delta-correct", 0.05) == BernoulliLeaderSettledThreshold(0.05, 3)
    eps = BestArmProblem(3, Bounded(3, 2.0, 5.0, "sub-bernoulli"), FixedConfidence(0.05), epsilon=0.1)
    assert isinstance(eps.threshold("delta-correct", 0.05), BernoulliTiltThreshold)


def _wrong_epsilon_stops(th, offset, runs=100, steps=300, seed=1):
    """Runs in which arm 0 (mean 0.5) is ever certified epsilon-good against arm 1 (mean 0.58), e = 0.05."""
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(runs):
        model = BettingModel(2, 0.0, 1.0, levels=41)
        a = np.where(rng.random(steps) < (0.5 - 0.1) / 0.8, 0.9, 0.1)  # mean 0.5
        b = np.where(rng.random(steps) < (0.58 - 0.2) / 0.6, 0.8, 0.2)  # mean 0.58 > 0.5 + 0.05
        for t in range(steps):
            model.update(np.array([0, 1]), np.array([a[t], b[t]]))
            if th.margin(PairPieces([0], [1], (1.0, offset), None), model) > 0.0:
                wrong += 1
                break
    return wrong / runs


def test_additive_epsilon_pieces_keep_the_error_rate():
    delta = 0.2
    th = BettingThreshold(delta, 1)
    assert _wrong_epsilon_stops(th, 0.05) <= delta
    assert _wrong_epsilon_stops(th, 0.2) > 2 * delta  # too wide a tolerance makes arm 0 "good": the check can fail


def test_epsilon_margin_is_monotone_and_reduces_to_the_plain_rule():
    rng = np.random.default_rng(0)
    model = BettingModel(2, 0.0, 1.0, levels=41)
    model.update(np.repeat([0, 1], 150), np.concatenate([rng.beta(5, 5, 150), rng.beta(5, 5, 150)]))
    th = BettingThreshold(0.1, 1)
    plain = th.margin(PairPieces([0], [1], (1.0, 0.0), None), model) if model.estimate[0] > model.estimate[1] else -math.inf
    margins = [th.margin(PairPieces([0], [1], (1.0, e), None), model) for e in (0.0, 0.05, 0.1, 0.2)]
    assert margins[0] == plain
    assert margins == sorted(margins) and margins[-1] > 0.0  # equal laws: a tolerance of 0.2 is certified
    with pytest.raises(Exception, match="epsilon_mode"):
        th.margin(PairPieces([0], [1], (0.9, 0.0), None), model)


@pytest.mark.parametrize("statistic", ["kl-inf", "sub-bernoulli"])
def test_bounded_epsilon_is_in_the_users_units(statistic):
    p = BestArmProblem(3, Bounded(3, 0.0, 10.0, statistic), FixedConfidence(0.05), epsilon=0.5)
    assert p.shift == (1.0, pytest.approx(0.05))
    assert p.is_correct(1, [5.0, 4.6, 3.0]) and not p.is_correct(2, [5.0, 4.6, 3.0])
    assert p.epsilon_good([0.5, 0.46, 0.3]).tolist() == [True, True, False]  # learner units
    with pytest.raises(Exception, match="epsilon_mode"):
        BestArmProblem(3, Bounded(3, 0.0, 10.0, statistic), FixedConfidence(0.05), epsilon=0.1,
                       epsilon_mode="relative")
