"""[problem] epsilon: the fixed-budget probability of error Pr(R > epsilon) in the result document."""

import numpy as np
import pytest

import pybai
from pybai import BestArmProblem, FixedBudget, FixedConfidence, Gaussian, make_strategy
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.simulate.montecarlo import run_outcomes


def _doc(**problem):
    return {
        "name": "eps", "replications": 30, "seed": 3,
        "problem": {"goal": "best-arm", "budget": 24, **problem},
        "environment": {"kind": "gaussian", "means": [1.0, 0.95, 0.5, 0.0], "sigma": 1.0},
        "strategy": [{"name": "uniform"}, {"name": "ugap"}],
    }


def test_problem_method_counts_regrets_above_epsilon():
    p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10), epsilon=0.1)
    assert p.error_probability_epsilon([0.0, 0.05, 0.1, 0.3, np.nan]) == pytest.approx(1 / 4)  # 0.1 is not > 0.1
    assert BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10)).error_probability_epsilon([1.0]) is None
    assert p.to_dict()["epsilon"] == 0.1


def test_simple_regret_and_error_probability_over_runs():
    """Per run ``max(mu) - mu[recommendation]`` (Eq. 1 of Hoffman et al. 2014), then ``mean(R > epsilon)``."""
    p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10))
    assert p.simple_regret(0, [1.0, 2.0, 3.0]) == 2.0
    assert [p.simple_regret(a, [1.0, 2.0, 3.0]) for a in (0, 2)] == [2.0, 0.0]
    truths = np.array([[1.0, 2.0, 3.0], [3.0, 2.9, 1.0], [0.0, 0.0, -1.0]])
    recs = [2, 1, 1]
    regrets = [p.simple_regret(a, mu) for a, mu in zip(recs, truths)]
    np.testing.assert_allclose(regrets, [0.0, 0.1, 0.0])
    strict = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10), epsilon=0.0)
    assert strict.error_probability_epsilon(regrets) == pytest.approx(1 / 3)  # a tie with the best is correct
    loose = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10), epsilon=0.2)
    assert loose.error_probability_epsilon(regrets) == 0.0
    for bad in (3, -1, np.array([0, 1]), 1.0, True):
        with pytest.raises(InvalidParameterError, match="'answer'"):
            p.simple_regret(bad, truths[0])
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(10), epsilon=-0.1)


def test_result_document_reports_it_only_when_epsilon_is_given():
    experiment = pybai.parse_experiment(_doc(epsilon=0.1))
    out = pybai.run_experiment(experiment)
    outcomes = run_outcomes(experiment)
    for result, outs in zip(out["results"], outcomes):
        regrets = np.array([o.simple_regret for o in outs])
        assert result["error_probability_epsilon"] == pytest.approx(np.mean(regrets > 0.1), abs=1e-6)
        # the near-optimal arm 1 (gap 0.05) counts as an error for correct_rate, not for epsilon = 0.1
        assert result["error_probability_epsilon"] <= 1.0 - result["correct_rate"]
    assert "error_probability_epsilon" not in pybai.run_experiment(pybai.parse_experiment(_doc()))["results"][0]


def test_bad_epsilon_names_the_key():
    with pytest.raises(ConfigError, match="problem.epsilon"):
        pybai.parse_experiment(_doc(epsilon=-0.1))
    doc = _doc(epsilon=0.1)
    doc["problem"] = {"goal": "best-arm", "delta": 0.1, "epsilon": 0.1}
    doc["strategy"] = [{"name": "uniform"}]
    # with delta, epsilon is epsilon-best-arm identification (docs/epsilon.md), not the fixed-budget metric
    assert pybai.parse_experiment(doc).problem.epsilon_mode == "additive"
    assert BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1), epsilon=0.1).shift == (1.0, 0.1)
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1), epsilon=-0.1)


@pytest.mark.parametrize("name", ["bayes-gap", "ugap"])
def test_gap_rules_take_the_problems_epsilon_unless_given(name):
    doc = {
        "problem": {"goal": "best-arm", "budget": 30, "epsilon": 0.2},
        "environment": {"kind": "correlated-gaussian", "means": [0.0, 0.5, 1.0], "covariance": np.eye(3).tolist()},
        "strategy": [{"name": name}],
    }
    problem = pybai.parse_experiment(doc).problem
    assert make_strategy(name).start(problem)._epsilon() == 0.2
    assert make_strategy(name, epsilon=0.05).start(problem)._epsilon() == 0.05
    plain = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedBudget(30))
    if name == "ugap":
        assert make_strategy(name).start(plain)._epsilon() == 0.0
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        make_strategy(name, epsilon=-1.0).start(problem)
