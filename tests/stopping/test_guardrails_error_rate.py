"""The delta-correct guardrail rule errs at most delta of the time, correlated metrics included."""

import math

import numpy as np
import pytest

from pybai import BernoulliEnvironment, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.stopping.guardrails import GuardrailMixtureThreshold

DELTA = 0.1
RUNS = 60


def _instance(revenue, latency, rho, refunds=None):
    metrics = {"revenue": GaussianEnvironment(revenue), "latency": GaussianEnvironment(latency)}
    known = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0)]
    R = [[1.0, rho], [rho, 1.0]]
    if refunds is not None:
        metrics["refunds"] = BernoulliEnvironment(refunds)
        known.append(Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.05))
        R = [[1.0, rho, -rho / 2], [rho, 1.0, rho / 2], [-rho / 2, rho / 2, 1.0]]
    env = MultiMetricEnvironment(metrics, R)
    return env, GuardrailProblem(len(revenue), known, FixedConfidence(DELTA, max_samples=20_000))


INSTANCES = {
    # the best-revenue arm breaks the latency bound, revenue and latency strongly correlated (both signs)
    "infeasible-best+0.8": _instance([0.0, 0.5, 0.8], [-0.3, -0.3, 0.3], 0.8),
    "infeasible-best-0.8": _instance([0.0, 0.5, 0.8], [-0.3, -0.3, 0.3], -0.8),
    # no arm keeps the guardrail
    "no-feasible+0.8": _instance([0.0, 0.5, 0.8], [0.35, 0.3, 0.4], 0.8),
    # a non-inferiority margin on Bernoulli refunds against the control
    "relative-0.8": _instance([0.0, 0.6, 0.9], [-0.4, -0.4, -0.4], -0.8, refunds=[0.25, 0.1, 0.5]),
}


def _run(env, problem, name, seed):
    strategy = make_strategy(name, threshold="delta-correct").start(problem, rng=seed)
    noise = np.random.default_rng(10_000 + seed)
    while not strategy.stopped:
        strategy.tell(*env.respond(strategy.ask(), noise))
    return strategy


CASES = [("tas", label) for label in sorted(INSTANCES)] + [("uniform", "infeasible-best-0.8"),
                                                           ("uniform", "relative-0.8"),
                                                           ("top-two-guardrails", "infeasible-best+0.8"),
                                                           ("top-two-guardrails", "relative-0.8")]


@pytest.mark.slow
@pytest.mark.parametrize("name, label", CASES)
def test_errors_at_most_delta(name, label):
    env, problem = INSTANCES[label]
    mu = env.source_means
    assert isinstance(problem.threshold("delta-correct", DELTA), GuardrailMixtureThreshold)
    errors = censored = 0
    for seed in range(RUNS):
        s = _run(env, problem, name, seed)
        censored += s.status_ != "stopped"
        errors += s.status_ == "stopped" and not problem.is_correct(s.recommendation(), mu)
    assert censored == 0
    # at most delta, up to three binomial standard deviations
    assert errors <= DELTA * RUNS + 3 * math.sqrt(RUNS * DELTA * (1 - DELTA)), errors


def test_the_rule_answers_no_feasible_arm():
    env, problem = INSTANCES["no-feasible+0.8"]
    assert problem.answer(env.source_means) == -1
    s = _run(env, problem, "tas", 0)
    assert s.recommendation() == -1 and s.status_ == "stopped"


def test_the_mixture_rule_is_at_least_the_statistic():
    """No item passes while the guardrail statistic is at most ln(m/delta) (the filter is exact)."""
    env, problem = INSTANCES["infeasible-best+0.8"]
    threshold = problem.threshold("delta-correct", DELTA)
    s = _run(env, problem, "uniform", 1)
    model = s.model_
    margin = threshold.margin(problem.pieces(model), model)
    assert margin + threshold.level <= problem.statistic(model) + 1e-9
