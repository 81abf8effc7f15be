"""An additive tolerance on the objective of a guardrail problem: the objective tests of the alternative
move by epsilon, the guardrails stay; what is correct, what is refused, and the rule's errors at most delta
on a tie of two feasible arms (correlated metrics)."""

import math

import numpy as np
import pytest

from pybai import FixedBudget, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.problems.guardrails import GuardrailProblem, Metric

DELTA = 0.1
METRICS = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0)]
#: arms 1 and 2 tie on revenue and keep the latency bound; arm 3 earns most and breaks it; arm 0 trails
REVENUE, LATENCY = [0.0, 0.5, 0.5, 1.0], [-0.5, -0.5, -0.5, 0.5]


def _problem(epsilon=None, regime=None):
    return GuardrailProblem(4, METRICS, regime or FixedConfidence(DELTA, max_samples=50_000), epsilon=epsilon)


def _truth():
    return np.column_stack([REVENUE, LATENCY])


def test_epsilon_moves_the_objective_tests_only():
    plain, tolerant = _problem().tests(1), _problem(0.2).tests(1)
    objective = np.array([k == "objective" for k in plain.kinds])
    assert objective.sum() == 3 and tolerant.kinds == plain.kinds
    np.testing.assert_array_equal(tolerant.e[objective], 0.2)
    np.testing.assert_array_equal(tolerant.e[~objective], plain.e[~objective])
    for name in ("s1", "a1", "s2", "a2", "starts"):
        np.testing.assert_array_equal(getattr(tolerant, name), getattr(plain, name))
    assert _problem(0.2).tests(-1).e.tolist() == _problem().tests(-1).e.tolist()  # "no feasible arm": unchanged


def test_what_is_correct_with_a_tolerance():
    mu = _truth()
    exact, tolerant = _problem(), _problem(0.6)
    assert [exact.is_correct(a, mu) for a in range(4)] == [False, True, True, False]
    assert [tolerant.is_correct(a, mu) for a in range(4)] == [True, True, True, False]  # arm 3 breaks latency
    assert not tolerant.is_correct(-1, mu)
    none = mu.copy()
    none[:, 1] = 1.0
    assert tolerant.is_correct(-1, none) and not tolerant.is_correct(1, none)  # guardrails are not relaxed
    assert not _problem(0.5 - 1e-6).is_correct(0, mu) and _problem(0.5).is_correct(0, mu)  # the bound is kept
    assert [tolerant.answer_metrics(a, mu)["exact_correct"] for a in range(4)] == [False, True, True, False]
    assert exact.answer_metrics(1, mu) == {}


def test_a_tie_has_a_finite_characteristic_time_with_a_tolerance():
    assert math.isinf(_problem().oracle(_truth())[0])
    t_star, w = _problem(0.2).oracle(_truth())
    assert math.isfinite(t_star) and np.isclose(w.sum(), 1.0)


def test_with_epsilon_and_the_refusals():
    problem = _problem()
    tolerant = problem.with_epsilon(0.25)
    assert (tolerant.epsilon, tolerant.epsilon_mode, problem.epsilon) == (0.25, "additive", None)
    assert tolerant.tests(1).e.max() == 0.25 and problem.tests(1).e.max() == 0.0  # caches not shared
    assert tolerant.to_dict()["epsilon"] == 0.25 and "epsilon" not in problem.to_dict()
    with pytest.raises(InvalidParameterError, match=r"'epsilon_mode' parameter of GuardrailProblem must be "
                                                    r'"additive" with guardrail metrics'):
        problem.with_epsilon(0.1, "relative")
    for bad in (0.0, -0.1, float("nan"), "0.1"):
        with pytest.raises(InvalidParameterError, match="'epsilon' parameter of GuardrailProblem"):
            problem.with_epsilon(bad)
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter of GuardrailProblem must be None with a "
                                                    "fixed budget"):
        _problem(0.1, FixedBudget(100))


def _run(problem, env, seed):
    strategy = make_strategy("tas", threshold="delta-correct").start(problem, rng=seed)
    noise = np.random.default_rng(20_000 + seed)
    while not strategy.stopped:
        strategy.tell(*env.respond(strategy.ask(), noise))
    return strategy


def _world(rho):
    return MultiMetricEnvironment({"revenue": GaussianEnvironment(REVENUE), "latency": GaussianEnvironment(LATENCY)},
                                  [[1.0, rho], [rho, 1.0]])


def test_a_tie_stops_on_an_epsilon_good_arm():
    problem, env = _problem(0.3), _world(0.8)
    s = _run(problem, env, 0)
    assert s.status_ == "stopped" and s.recommendation() in (1, 2)


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.8, -0.8])
def test_errors_at_most_delta_with_a_tolerance(rho):
    """Wrong (not epsilon-good, or breaking the guardrail) at most delta of the time, up to 3 binomial sd."""
    problem, env, runs = _problem(0.3), _world(rho), 60
    mu = env.source_means
    errors = 0
    for seed in range(runs):
        s = _run(problem, env, seed)
        assert s.status_ == "stopped"
        errors += not problem.is_correct(s.recommendation(), mu)
    assert errors <= DELTA * runs + 3 * math.sqrt(runs * DELTA * (1 - DELTA)), errors


def test_a_rule_of_pairs_of_arms_is_refused():
    """Per-piece rules of pairs of arms do not test guardrails: refused when the strategy meets the problem."""
    with pytest.raises(InvalidParameterError, match=r"'threshold' parameter of GuardrailProblem must be "
                                                    r'"delta-correct" \(the guardrail rule\)'):
        _problem().threshold("pair-mixture", DELTA)
    with pytest.raises(InvalidParameterError, match="threshold"):
        make_strategy("tas", threshold="pair-mixture").start(_problem(), rng=0)
    assert _problem().threshold("heuristic", DELTA)(10) > 0
