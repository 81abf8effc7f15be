"""T* and w* of the guardrail rule against a brute-force search over the simplex of arm weights."""

import itertools
import math

import numpy as np
import pytest

from pybai import FixedConfidence
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.oracle import rule_value


def _problem(n_arms, guard, *, maximize=True, control=0, refunds=None):
    metrics = [Metric("revenue", sigma=1.0, maximize=maximize), Metric("latency", sigma=0.8, **guard)]
    if refunds is not None:
        metrics.append(Metric("refunds", reward_model="bounded", reward_range=[0.0, 1.0], **refunds))
    return GuardrailProblem(n_arms, metrics, FixedConfidence(0.05), control=control)


def _brute(problem, mu, n=120):
    """max over a grid of the simplex (K = 3), refined around the best point, of the rule's value."""
    tests = problem.tests(problem.answer(mu))
    flat = np.asarray(mu, dtype=float).ravel()

    def value(w):
        return rule_value(tests, w, flat, problem.variances, problem.n_metrics)

    best, arg = -1.0, None
    for i, j in itertools.product(range(1, n), repeat=2):
        if i + j < n:
            w = np.array([i, j, n - i - j]) / n
            v = value(w)
            if v > best:
                best, arg = v, w
    width = 2.0 / n
    for _ in range(12):  # zoomed grids around the best point (any direction: the value has kinks)
        center = arg
        for a, b in itertools.product(np.linspace(-width, width, 41), repeat=2):
            w = center + np.array([a, b, -a - b])
            if w.min() > 0:
                v = value(w)
                if v > best:
                    best, arg = v, w
        width /= 5.0
    return 1.0 / best, arg


INSTANCES = {
    # the best-revenue arm breaks the latency bound; the others keep it
    "infeasible-best": (_problem(3, {"at_most": 0.0}), [[0.0, -0.3], [0.6, -0.2], [1.0, 0.4]]),
    # minimise the objective, a lower bound on the guarded metric
    "minimise": (_problem(3, {"at_least": 1.0}, maximize=False), [[0.5, 1.4], [0.2, 0.6], [0.9, 1.2]]),
    # no arm keeps the guardrail
    "no-feasible": (_problem(3, {"at_most": 0.0}), [[0.0, 0.3], [0.5, 0.5], [1.0, 0.2]]),
    # a non-inferiority margin against the control (two hubs: the answer and the control)
    "relative": (_problem(3, {"at_most": 1.0}, refunds={"at_most_vs_control": 0.1}),
                 [[0.0, 0.0, 0.3], [0.7, 0.2, 0.35], [1.0, 0.3, 0.5]]),
    # the control is the answer, relative guardrails on the others
    "control-answer": (_problem(3, {"at_most": 1.0}, refunds={"at_most_vs_control": 0.05}, control=0),
                       [[1.0, 0.0, 0.3], [1.2, 0.2, 0.5], [0.5, 0.3, 0.3]]),
}


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_oracle_matches_brute_force(name):
    problem, mu = INSTANCES[name]
    t_star, w = problem.oracle(mu)
    w_arm = np.asarray(w).reshape(problem.source_shape).sum(axis=1)
    assert math.isfinite(t_star) and abs(w_arm.sum() - 1.0) < 1e-9
    brute_t, _ = _brute(problem, mu)
    # the oracle's T* is attained by its weights, and no weights of the grid search do better
    value = rule_value(problem.tests(problem.answer(mu)), w_arm, np.ravel(mu), problem.variances, problem.n_metrics)
    assert t_star == pytest.approx(1.0 / value, rel=1e-9)
    assert t_star <= brute_t * (1 + 1e-6)
    assert t_star >= brute_t * (1 - 1e-3), (t_star, brute_t)


def test_answers_and_correctness():
    problem, mu = INSTANCES["infeasible-best"]
    assert problem.answer(mu) == 1 and problem.is_correct(1, mu) and not problem.is_correct(2, mu)
    problem, mu = INSTANCES["no-feasible"]
    assert problem.answer(mu) == -1 and problem.is_correct(-1, mu) and not problem.is_correct(0, mu)
    assert problem.complexity(mu)["answer_note"] == "no arm keeps every guardrail"
    problem, mu = INSTANCES["minimise"]
    assert problem.answer(mu) == 0  # arm 1 has the smallest objective but latency 0.6 < 1.0
    problem, mu = INSTANCES["relative"]
    assert problem.answer(mu) == 1  # arm 2's refunds exceed the control's + 0.1


def test_a_mean_on_its_bound_is_degenerate():
    problem = _problem(3, {"at_most": 0.0})
    mu = [[0.0, -0.3], [0.6, 0.0], [1.0, 0.4]]
    assert problem.answer(mu) == 1 and problem.feasible(mu)[1]
    assert problem.oracle(mu)[0] == math.inf and not problem.answer_is_unique(mu)


def test_union_size():
    # m = K - 1 + G_max: 2 + 1 with one guardrail; 2 + 2 with a relative one (which spares the control)
    assert INSTANCES["infeasible-best"][0].n_alternatives == 3
    assert INSTANCES["relative"][0].n_alternatives == 4
