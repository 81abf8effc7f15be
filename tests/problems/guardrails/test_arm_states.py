"""The per-arm guardrail states of the two-stage baseline, computed in one compiled pass, are exactly those
read from every test's evidence; the model of one observation adds what the empirical means add."""

import numpy as np
import pytest

from pybai import BernoulliEnvironment, EmpiricalMeans, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import RequestError
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.states import arm_states, guardrail_evidence


def _instance():
    env = MultiMetricEnvironment({"revenue": GaussianEnvironment([0.0, 0.6, 0.9]),
                                  "latency": GaussianEnvironment([-0.4, 0.05, -0.4]),
                                  "refunds": BernoulliEnvironment([0.25, 0.1, 0.5])},
                                 [[1.0, -0.8, 0.4], [-0.8, 1.0, -0.4], [0.4, -0.4, 1.0]])
    metrics = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
               Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.05)]
    return env, GuardrailProblem(3, metrics, FixedConfidence(0.1, max_samples=3000))


def _from_evidence(problem, model, threshold, t):
    holds, broken, level = guardrail_evidence(problem, model, threshold, t)
    out = np.where((holds > level).all(axis=1), 1, 0)
    return np.where((broken > level).any(axis=1) & (out == 0), -1, out)


@pytest.mark.parametrize("kind", ["delta-correct", "heuristic"])
def test_arm_states_equal_the_evidence(kind):
    env, problem = _instance()
    threshold = problem.threshold(kind, 0.1)
    seen = set()
    for seed in range(2):
        s = make_strategy("two-stage", threshold=kind).start(problem, rng=seed)
        noise = np.random.default_rng(seed)
        while not s.stopped:
            s.tell(*env.respond(s.ask(), noise))
            for th in (threshold, None):
                got = arm_states(problem, s.model_, th, s.t_)
                assert np.array_equal(got, _from_evidence(problem, s.model_, th, s.t_)), s.t_
                seen.update(got.tolist())
    assert seen == {-1, 0, 1}  # every state was met


def test_one_observation_updates_as_the_empirical_means():
    _, problem = _instance()
    model, plain = problem.new_model(), EmpiricalMeans(problem.n_sources)
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(3))
        src = np.arange(3 * k, 3 * k + 3)
        rew = np.array([rng.normal(), rng.normal(), float(rng.integers(2))])
        model.update(src, rew)
        plain.update(src, rew)
    src = np.array([0, 1, 2, 0, 1, 2, 6, 7, 8])  # several observations, a source repeated
    rew = rng.normal(size=9)
    rew[[2, 5, 8]] = [1.0, 0.0, 1.0]
    model.update(src, rew)
    plain.update(src, rew)
    assert np.array_equal(model.counts, plain.counts) and np.array_equal(model.sums, plain.sums)
    assert np.array_equal(model.estimate, plain.estimate, equal_nan=True)
    before = model.sums.copy()
    with pytest.raises(RequestError, match="metric 'refunds' takes rewards in \\[0, 1\\]. Got 1.5"):
        model.update(np.array([3, 4, 5]), np.array([0.0, 0.0, 1.5]))
    assert np.array_equal(model.sums, before)  # nothing recorded
