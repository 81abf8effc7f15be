"""Top-two sampling on guardrail metrics: its candidates come from the tests of the guardrail rule, it reaches the
right answer and stops on small instances (each case of the alternative), and it is refused elsewhere."""

import math

import numpy as np
import pytest

from pybai import FixedConfidence, GaussianEnvironment, make_strategy
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.challenger import signed_values, top_two_candidates


def _instance(revenue, latency, relative=False, correlation=0.5):
    env = MultiMetricEnvironment({"revenue": GaussianEnvironment(revenue), "latency": GaussianEnvironment(latency)},
                                 [[1.0, correlation], [correlation, 1.0]])
    guard = {"at_most_vs_control": 0.2} if relative else {"at_most": 0.0}
    metrics = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, **guard)]
    return env, GuardrailProblem(len(revenue), metrics, FixedConfidence(0.05, max_samples=20000))


CASES = {  # the best revenue breaks the bound; no arm keeps it; a relative margin against the control
    "infeasible-best": ([0.0, 0.5, 1.2], [-0.5, -0.6, 0.6], False, 1),
    "none-feasible": ([0.0, 0.5, 1.2], [0.5, 0.6, 0.7], False, -1),
    "relative": ([0.0, 0.8, 1.2], [0.0, -0.2, 0.9], True, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("beta", [0.5, "ids"])
def test_reaches_the_answer_and_stops(case, beta):
    revenue, latency, relative, answer = CASES[case]
    env, problem = _instance(revenue, latency, relative)
    assert problem.answer(env.source_means) == answer
    scale = problem.oracle(env.source_means)[0] * math.log(problem.n_alternatives / problem.delta)
    for seed in range(3):
        s = make_strategy("top-two-guardrails", beta=beta, threshold="delta-correct").start(problem, rng=seed)
        noise = np.random.default_rng(100 + seed)
        while not s.stopped:
            s.tell(*env.respond(s.ask(), noise))
        assert s.status_ == "stopped", (case, seed)
        assert s.recommendation() == answer, (case, seed)
        assert s.t_ < 5.0 * scale  # Track-and-Stop takes 1.3 to 2.7 x T* ln(m/delta) on such instances


def test_challenger_is_the_least_refuted_item():
    _, problem = _instance([0.0, 0.5, 1.2], [-0.5, -0.6, 0.6])
    mu = np.array([[0.0, -0.5], [0.5, -0.6], [1.2, 0.6]]).ravel()
    h = problem.answer(mu)
    tests = problem.tests(h)
    rng = np.random.default_rng(0)
    for _ in range(50):
        counts = np.repeat(rng.integers(1, 60, size=3).astype(float), 2)
        leader, challenger, share = problem.top_two(counts, mu, tci=False)
        values = signed_values(tests, counts, mu, problem.variances)
        bounds = list(tests.starts) + [len(values)]
        costs = [values[a:b].max() for a, b in zip(bounds, bounds[1:])]
        item = int(np.argmin(costs))
        j = bounds[item] + int(np.argmax(values[bounds[item]:bounds[item + 1]]))
        arms = {int(tests.s1[j]) // 2} | ({int(tests.s2[j]) // 2} if tests.s2[j] >= 0 else set())
        assert {leader, challenger} == arms
        if tests.s2[j] >= 0:  # the hub (the answer) leads; IDS: its share sigma^2/N over the sum
            assert leader == h
            n_h, n_c = counts[2 * leader], counts[2 * challenger]
            assert share == pytest.approx((1 / n_h) / (1 / n_h + 1 / n_c))
        else:
            assert share == 1.0


def test_a_test_on_one_arm_samples_it():
    _, problem = _instance([0.0, 0.5, 1.2], [-0.5, -0.6, 0.6])
    mu = np.array([[0.0, -0.5], [0.5, -0.6], [1.2, 0.6]]).ravel()
    counts = np.array([50.0, 50.0, 50.0, 50.0, 1.0, 1.0])  # arm 2 (past the bound) barely seen: its keep test is weakest
    leader, challenger, share = problem.top_two(counts, mu, tci=False)
    assert leader == challenger == 2 and share == 1.0
    tests = problem.tests(-1)  # no answer: every item is an arm's keep tests, a test on one arm
    got = top_two_candidates(tests, counts, mu, problem.variances, 2, False)
    assert got[0] == got[1]


def test_refused_on_other_goals():
    from pybai import BestArmProblem

    with pytest.raises(InvalidParameterError, match="top-two-guardrails"):
        make_strategy("top-two-guardrails").start(
            BestArmProblem(3, GaussianEnvironment([0.0, 0.5, 1.0]).family(), FixedConfidence(0.1)), rng=0)


def _unknown_variance_instance():
    env = MultiMetricEnvironment({"revenue": GaussianEnvironment([-0.55, 0.18, 1.03, 1.34]),
                                  "latency": GaussianEnvironment([0.68, 0.92, 0.59, 0.38], [1.0, 1.43, 0.78, 0.65])},
                                 [[1.0, -0.4], [-0.4, 1.0]])
    metrics = [Metric("revenue", sigma=1.0), Metric("latency", reward_model="gaussian-unknown-variance", at_most=0.0)]
    return env, GuardrailProblem(4, metrics, FixedConfidence(0.1, max_samples=5000))


def test_unknown_variance_forces_the_arms_seen_less_than_sqrt_t():
    """An arm seen twice may have a plug-in variance near 0 (its tests then look settled): it is sampled until it
    has sqrt(t) observations, and every run stops."""
    env, problem = _unknown_variance_instance()
    assert problem.answer(env.source_means) == -1
    counts = np.repeat([60.0, 60.0, 60.0, 2.0], 2)
    assert problem.top_two(counts, env.source_means)[:2] == (3, 3)
    for seed in range(8):
        s = make_strategy("top-two-guardrails", threshold="delta-correct").start(problem, rng=seed)
        noise = np.random.default_rng(200 + seed)
        while not s.stopped:
            s.tell(*env.respond(s.ask(), noise))
            n = s.requests_.counts(s.counts_)
        assert s.status_ == "stopped" and s.recommendation() == -1, seed
        assert n.min() >= 2
