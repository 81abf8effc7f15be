"""Threshold.evidence: the statistic that decides and its level reach each other exactly when the rule stops.

Every goal with a count-dependent (per-piece) rule and a t-only one, run step by step: at every
check, ``statistic >= level`` equals the rule's decision (:meth:`Threshold.decide`), and the level of a
per-piece rule is its own ``ln(m / delta)`` (not the t-only bound that a status showed before).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pybai.config import parse_experiment
from pybai.strategies import make_strategy

BERNOULLI = {"kind": "bernoulli", "means": [0.7, 0.55, 0.4]}
GAUSS = {"kind": "gaussian", "means": [1.0, 0.6, 0.2, 0.0], "sigma": 1.0}
CASES = {
    "best-arm pair mixture": ({"goal": "best-arm", "delta": 0.05}, GAUSS, "pair-mixture"),
    "best-arm leader (delta-correct)": ({"goal": "best-arm", "delta": 0.05}, GAUSS, "delta-correct"),
    "best-arm heuristic": ({"goal": "best-arm", "delta": 0.05}, GAUSS, "heuristic"),
    "best-arm epsilon": ({"goal": "best-arm", "delta": 0.05, "epsilon": 0.1}, GAUSS, "delta-correct"),
    "bernoulli pair tilt": ({"goal": "best-arm", "delta": 0.05}, BERNOULLI, "pair-tilt"),
    "bernoulli leader (delta-correct)": ({"goal": "best-arm", "delta": 0.05}, BERNOULLI, "delta-correct"),
    "top-k pair mixture": ({"goal": "top-k", "k": 2, "delta": 0.05}, GAUSS, "delta-correct"),
    "unknown variances": ({"goal": "best-arm", "delta": 0.05, "reward_model": "gaussian-unknown-variance"},
                          GAUSS, "delta-correct"),
    "bounded kl-inf": ({"goal": "best-arm", "delta": 0.05, "reward_model": "bounded", "statistic": "kl-inf"},
                       BERNOULLI, "delta-correct"),
    "bounded kl-inf heuristic": ({"goal": "best-arm", "delta": 0.05, "reward_model": "bounded",
                                  "statistic": "kl-inf"}, BERNOULLI, "heuristic"),
    "bounded sub-bernoulli": ({"goal": "best-arm", "delta": 0.05, "reward_model": "bounded",
                               "statistic": "sub-bernoulli"}, BERNOULLI, "delta-correct"),
    "feasible mixture": ({"goal": "best-feasible-arm", "delta": 0.1},
                         {"kind": "subpopulation-gaussian", "means": [[1.6, 1.4, 1.5], [0.6, 0.5, 0.7], [-1.0, 2.0, 2.5]],
                          "weights": [0.2, 0.3, 0.5], "constrained": [0, 1, 2], "floor": 0.0, "sigma": 1.0,
                          "sampling": "pair"}, "delta-correct"),
}


def _run(problem_doc, env, threshold, seed=1, steps=4000):
    doc = {"name": "e", "seed": seed, "replications": 1, "problem": problem_doc, "environment": env,
           "strategy": [{"name": "uniform", "threshold": threshold}]}
    exp = parse_experiment(doc)
    rng = np.random.default_rng(seed)
    truth = exp.environment.realize(rng)
    strategy = make_strategy("uniform", threshold=threshold).start(exp.problem, rng=seed)
    checks = []
    for _ in range(steps):
        if strategy.stopped:
            break
        req = strategy.ask()
        sources, rewards = truth.respond(np.asarray(req), rng)
        strategy.tell(sources, rewards)
        if strategy.t_ >= 2 * exp.problem.n_sources:
            problem, model, rule = strategy.problem_, strategy.model_, strategy.threshold_
            statistic, level = rule.evidence(problem, model, strategy.t_)
            checks.append((statistic, level, rule.decide(problem, model, strategy.t_).stop))
    return exp.problem, strategy, checks


@pytest.mark.parametrize("case", sorted(CASES))
def test_statistic_reaches_its_level_exactly_when_the_rule_stops(case):
    problem_doc, env, threshold = CASES[case]
    problem, strategy, checks = _run(problem_doc, env, threshold)
    assert strategy.stopped and strategy.status_ == "stopped", case
    assert len(checks) > 5
    for statistic, level, stop in checks:
        assert (statistic >= level) == stop, (case, statistic, level, stop)
    assert checks[-1][2] and not any(stop for _, _, stop in checks[:-1])
    rule = strategy.threshold_
    if rule.count_dependent:  # the rule's own level, constant over time (or ln((1 + ln t)/delta))
        assert all(level == checks[-1][1] for _, level, _ in checks) or threshold == "heuristic"
        assert rule.proven is (threshold != "heuristic")
    else:
        assert checks[-1][1] == pytest.approx(rule.at(strategy.t_, strategy.model_))


def test_a_per_pair_level_is_the_union_bound_over_the_pairs():
    problem, strategy, checks = _run(*CASES["best-arm pair mixture"])
    assert checks[-1][1] == pytest.approx(math.log(3 / 0.05))  # K - 1 = 3 pairs, delta = 0.05
    # the leader rule (delta-correct on plain best arm) tests one hypothesis per arm without the union: ln(1/delta)
    _, _, leader = _run(*CASES["best-arm leader (delta-correct)"])
    assert leader[-1][1] == pytest.approx(math.log(1 / 0.05))
