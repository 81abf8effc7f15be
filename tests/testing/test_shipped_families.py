"""pybai.testing's problem and family checks on every instance of the common checks (pybai's own
goals and reward families): the same functions a family written outside pybai calls."""

import pytest

from pybai.testing import GOAL_INSTANCES, build, check_family, check_problem

LABELS = [(goal, label) for goal, items in GOAL_INSTANCES.items() for label, _ in items]


@pytest.mark.parametrize(("goal", "label"), LABELS, ids=[label for _, label in LABELS])
def test_problem_checks(goal, label):
    env, problem = build(goal, label, "fixed-confidence", False)
    report = check_problem(env, problem)
    assert report["check_answer"] == report["check_glr_scaling"] == "passed", report


@pytest.mark.parametrize(("goal", "label"), LABELS, ids=[label for _, label in LABELS])
def test_family_checks(goal, label):
    _, problem = build(goal, label, "fixed-confidence", False)
    report = check_family(problem.family)
    assert report["check_rewards_support"] == report["check_model_and_bounds"] == "passed", report
