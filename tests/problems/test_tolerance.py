"""Epsilon correctness is decided with one stated tolerance; a relative epsilon needs a nonnegative reference."""

import numpy as np
import pytest

from pybai import BestArmProblem, Bernoulli, FixedBudget, FixedConfidence, Gaussian, TopKProblem
from pybai.config.experiment import parse_experiment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems.tolerance import EPSILON_RTOL, epsilon_good_mask, regret_exceeds


def _best(eps=0.1, mode="additive", regime=None):
    return BestArmProblem(2, Gaussian(1.0, n_sources=2), regime or FixedConfidence(0.1), epsilon=eps,
                          epsilon_mode=mode)


def test_the_boundary_counts_as_epsilon_good_in_every_decision():
    means = [0.8, 0.7]  # 0.8 - 0.1 = 0.7000000000000001 in floating point
    assert 0.8 - 0.1 > 0.7
    problem = _best()
    assert problem.epsilon_good(means).tolist() == [True, True] and problem.is_correct(1, means)
    assert problem.complexity(means)["epsilon_good_arms"] == [0, 1]
    top = TopKProblem(3, 1, Gaussian(1.0, n_sources=3), FixedConfidence(0.1), epsilon=0.1)
    assert top.is_correct([1], [0.8, 0.7, 0.1])
    relative = _best(0.125, "relative")  # (1 - 0.125) * 0.8 = 0.7000000000000001 as well
    assert relative.is_correct(1, means)
    budget = _best(regime=FixedBudget(50))
    assert budget.error_probability_epsilon([budget.simple_regret(1, means)]) == 0.0


def test_a_value_beyond_the_tolerance_is_not_epsilon_good():
    problem = _best()
    for below in (1e-7, 1e-8 * 5):
        assert not problem.is_correct(1, [0.8, 0.7 - below])
    assert not epsilon_good_mask(np.array([1.0 - 1e-6]), 1.0, 1.0, 0.0)[0]
    assert regret_exceeds(np.array([0.1 + 1e-8]), 0.1)[0] and not regret_exceeds(np.array([np.nan]), 0.1)[0]
    assert EPSILON_RTOL == 1e-9


def test_a_relative_epsilon_on_a_negative_best_mean_is_refused():
    doc = {"name": "neg", "replications": 2, "problem": {"goal": "best-arm", "delta": 0.05, "epsilon": 0.2,
                                                           "epsilon_mode": "relative"},
           "environment": {"kind": "gaussian", "means": [-1.0, -1.5, -3.0]}, "strategy": [{"name": "tas"}]}
    with pytest.raises(ConfigError, match=r"^problem\.epsilon: .*additive") as caught:
        parse_experiment(doc)
    assert "\n" not in str(caught.value)
    doc["environment"]["means"] = [0.0, -1.5, -3.0]  # a best mean of 0 is fine
    parse_experiment(doc)
    topk = dict(doc, problem={**doc["problem"], "goal": "top-k", "k": 2})
    topk["environment"] = {"kind": "gaussian", "means": [1.0, -0.5, -3.0]}  # mu_(2) < 0
    with pytest.raises(ConfigError, match=r"^problem\.epsilon: .*k-th largest"):
        parse_experiment(topk)
    with pytest.raises(InvalidParameterError, match="epsilon"):  # and wherever a run is scored
        _best(0.2, "relative").is_correct(0, [-1.0, -2.0])


def test_an_additive_epsilon_as_wide_as_the_range_is_refused():
    doc = {"name": "wide", "replications": 2, "problem": {"goal": "best-arm", "delta": 0.05, "epsilon": 1.5,
                                                            "reward_model": "bounded"},
           "environment": {"kind": "bernoulli", "means": [0.6, 0.5]}, "strategy": [{"name": "tas"}]}
    with pytest.raises(ConfigError, match=r"^problem\.epsilon: expected a float in \(0, 1\)"):
        parse_experiment(doc)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.1), epsilon=1.0)
