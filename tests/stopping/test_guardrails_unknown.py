"""The guardrail rule with a metric of unknown variance (pybai.stopping.guardrails_unknown)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from pybai import BernoulliEnvironment, FixedConfidence, GaussianEnvironment, make_strategy
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.models._invariant import PRECISIONS
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.stopping.guardrails import GuardrailMixtureThreshold
from pybai.stopping.guardrails_unknown import GuardrailUnknownVarianceThreshold
from pybai.stopping.unknown_variance import product_level

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from test_invariant_one_sided import by_integration  # noqa: E402 (the factor's definition, integrated numerically)

DELTA = 0.1
RUNS = 40


def _instance(revenue, latency, sd, rho, delta=DELTA, refunds=None):
    """Revenue (objective, known sigma 1), latency (unknown variance, sd per arm, at most 0), optional refunds."""
    metrics = {"revenue": GaussianEnvironment(revenue), "latency": GaussianEnvironment(latency, sd)}
    known = [Metric("revenue", sigma=1.0), Metric("latency", reward_model="gaussian-unknown-variance", at_most=0.0)]
    R = [[1.0, rho], [rho, 1.0]]
    if refunds is not None:
        metrics["refunds"] = BernoulliEnvironment(refunds)
        known.append(Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.05))
        R = [[1.0, rho, 0.0], [rho, 1.0, 0.0], [0.0, 0.0, 1.0]]
    env = MultiMetricEnvironment(metrics, R)
    return env, GuardrailProblem(len(revenue), known, FixedConfidence(delta, max_samples=20_000))


def _run(env, problem, name, seed, threshold="delta-correct"):
    strategy = make_strategy(name, threshold=threshold).start(problem, rng=seed)
    noise = np.random.default_rng(10_000 + seed)
    while not strategy.stopped:
        strategy.tell(*env.respond(strategy.ask(), noise))
    return strategy


def test_one_source_evidence_is_the_factor_at_the_bound_by_integration():
    """A guardrail against an absolute bound: the evidence of 'the mean is below the bound' (refuting the break) and
    of 'above' (refuting the keep) is the one-sided invariant factor at the bound, the equal mixture over the prior
    precisions; the kernel is below the integral of the definition (a lower bound of the t probability) and close."""
    rng = np.random.default_rng(3)
    problem = GuardrailProblem(1, [Metric("y", sigma=1.0), Metric("lat", reward_model="gaussian-unknown-variance",
                                                                   at_most=0.3)], FixedConfidence(DELTA))
    threshold = problem.threshold("delta-correct", DELTA)
    for n, mean in ((4, -0.4), (7, 1.2), (12, 0.1)):
        x = rng.normal(mean, 0.7, n)
        model = problem.new_model()
        for v in x:
            model.update(np.array([0, 1]), np.array([0.0, v]))
        holds, broken, level = problem_evidence(problem, model, threshold)
        for got, sign in ((holds, -1.0), (broken, 1.0)):
            exact = math.log(np.mean([math.exp(by_integration(x, 0.3, sign, c)) for c in PRECISIONS]))
            assert got - level + threshold.level <= exact + 1e-9
            if sign * (x.mean() - 0.3) > 0:  # the data on the prior's side: the t bound is close
                assert got - level + threshold.level >= exact - 0.25
        assert level == pytest.approx(math.log(problem.n_alternatives / DELTA))


def problem_evidence(problem, model, threshold):
    from pybai.problems.guardrails.states import guardrail_evidence

    holds, broken, level = guardrail_evidence(problem, model, threshold, int(model.counts[0]))
    return float(holds[0, 0]), float(broken[0, 0]), level


def test_the_rule_of_a_problem_with_unknown_variance_and_its_levels():
    env, problem = _instance([0.0, 0.5], [-0.3, 0.3], [0.5, 2.0], 0.5)
    rule = problem.threshold("delta-correct", DELTA)
    assert isinstance(rule, GuardrailUnknownVarianceThreshold)
    m = problem.n_alternatives
    assert rule.level == pytest.approx(math.log(m / DELTA))
    assert rule.level_pair == pytest.approx(product_level(DELTA / m))
    assert rule.level_pair > rule.level
    assert rule.min_statistic == pytest.approx(min(rule.level - math.log(2), rule.level_pair - 2 * math.log(2)))
    known = GuardrailProblem(2, [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0)],
                             FixedConfidence(DELTA))
    assert type(known.threshold("delta-correct", DELTA)) is GuardrailMixtureThreshold


def test_the_filter_is_below_every_passing_margin():
    """No item passes while the statistic is at most min_statistic: along a run, margin > 0 implies statistic >
    min_statistic, and the statistic is the unknown-variance GLR."""
    env, problem = _instance([0.0, 0.6, 0.9], [-0.4, -0.4, 0.4], [0.5, 1.0, 2.0], -0.8)
    rule = problem.threshold("delta-correct", DELTA)
    strategy = make_strategy("uniform", threshold="delta-correct").start(problem, rng=1)
    noise = np.random.default_rng(1)
    seen_pass = False
    for _ in range(3000):
        if strategy.stopped:
            break
        strategy.tell(*env.respond(strategy.ask(), noise))
        model = strategy.model_
        if model.counts.min() < 2:
            continue
        margin = rule.margin(problem.pieces(model), model)
        z = problem.statistic(model)
        if margin > 0:
            seen_pass = True
            assert z > rule.min_statistic
    assert strategy.stopped and seen_pass


def test_sigma_with_unknown_variance_is_refused_naming_it():
    with pytest.raises(InvalidParameterError, match="sigma"):
        Metric("latency", reward_model="gaussian-unknown-variance", sigma=2.0, at_most=1.0)


@pytest.mark.parametrize("constant", [0.5, 1.5])
def test_all_equal_samples_never_certify_and_status_does_not_crash(constant):
    """A metric whose rewards are all equal on an arm (sample variance 0): its tests carry no evidence (the ties
    guard of the single-metric rule), so the rule never certifies an answer that rests on it; the states and the
    statistic stay finite.  Arm 0 has the best objective and reads ``constant`` on the guarded metric every time:
    below the bound 1 (the empirical answer is arm 0, whose keep cannot be certified) or above it (the empirical
    answer is arm 1, which cannot be certified without refuting arm 0's keep)."""
    problem = GuardrailProblem(2, [Metric("y", sigma=1.0), Metric("lat", reward_model="gaussian-unknown-variance",
                                                                   at_most=1.0)], FixedConfidence(DELTA))
    rule = problem.threshold("delta-correct", DELTA)
    model = problem.new_model()
    rng = np.random.default_rng(0)
    with pytest.warns(Warning, match="repeat"):
        for _ in range(300):
            for arm in (0, 1):
                lat = constant if arm == 0 else float(rng.normal(0.0, 1.0))
                model.update(np.array([2 * arm, 2 * arm + 1]), np.array([float(rng.normal(3.0 - 3.0 * arm)), lat]))
    assert model.tied[1] and not model.tied[3] and not model.tied[0]
    view = problem.learner_view(model)
    assert view.answer(model.estimate) == (0 if constant < 1 else 1)
    assert not rule.margin(view.pieces(model), model) > 0
    assert not rule.decide(view, model, int(model.counts[0] + model.counts[2])).stop
    holds, broken, level = guardrail_evidence_of(view, model, rule)
    assert not holds[0, 0] > level and not broken[0, 0] > level  # arm 0: undecided, whatever its data say
    assert holds[1, 0] > level  # arm 1 (varied rewards, mean 0, bound 1): certified
    assert math.isfinite(view.statistic(model))
    states = view.guardrail_states(model, rule, int(model.counts.sum()))
    assert states["arms"][0]["state"] == "undecided" and states["arms"][1]["state"] == "holds"
    assert "arm 0 on lat" in problem.family.misfit(model)


def guardrail_evidence_of(problem, model, rule):
    from pybai.problems.guardrails.states import guardrail_evidence

    return guardrail_evidence(problem, model, rule, int(model.counts.sum()))


INSTANCES = {
    # the best revenue breaks the latency bound; the latencies' sds differ 4-fold; strongly correlated metrics
    "infeasible-best+0.8": dict(revenue=[0.0, 0.5, 0.8], latency=[-0.3, -0.3, 0.3], sd=[0.5, 1.0, 2.0], rho=0.8),
    # no arm keeps the bound
    "no-feasible-0.8": dict(revenue=[0.0, 0.5, 0.8], latency=[0.35, 0.3, 0.4], sd=[1.0, 0.5, 1.5], rho=-0.8),
}


def _relative_instance(delta=DELTA):
    """Both metrics of unknown variance (pair tests on the objective and on the control): revenue sds 1, 2, 0.5;
    latency at most the control's + 0.3, sds 0.5, 1, 2, correlated 0.3; the best revenue breaks the margin."""
    env = MultiMetricEnvironment({"rev": GaussianEnvironment([0.0, 1.0, 1.5], [1.0, 2.0, 0.5]),
                                  "lat": GaussianEnvironment([-0.5, -0.5, 0.1], [0.5, 1.0, 2.0])},
                                 [[1.0, 0.3], [0.3, 1.0]])
    problem = GuardrailProblem(3, [Metric("rev", reward_model="gaussian-unknown-variance"),
                                   Metric("lat", reward_model="gaussian-unknown-variance", at_most_vs_control=0.3)],
                               FixedConfidence(delta, max_samples=20_000))
    return env, problem


def _error_count(label, delta, runs, name="tas"):
    env, problem = _relative_instance(delta) if label == "relative" else _instance(**INSTANCES[label], delta=delta)
    mu = env.source_means
    errors = censored = 0
    for seed in range(runs):
        s = _run(env, problem, name, seed)
        censored += s.status_ != "stopped"
        errors += s.status_ == "stopped" and not problem.is_correct(s.recommendation(), mu)
    return errors, censored


@pytest.mark.slow
@pytest.mark.parametrize("label", [*sorted(INSTANCES), "relative"])
def test_errors_at_most_delta(label):
    errors, censored = _error_count(label, DELTA, RUNS)
    assert censored == 0
    assert errors <= DELTA * RUNS + 3 * math.sqrt(RUNS * DELTA * (1 - DELTA)), errors
