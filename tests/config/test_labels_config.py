"""``[environment] labels`` in experiment and session files: every kind with arms, one clear error."""

import pytest

from pybai.config.experiment import parse_experiment
from pybai.config.learner import parse_session_file, session_document
from pybai.exceptions import ConfigError

NAMES = ["a", "b", "c"]

#: (goal, simulated [environment] without labels, the same for a session file) for every kind with arms
KINDS = {
    "gaussian": ("best-arm", {"kind": "gaussian", "means": [0.0, 1.0, 0.5]}, {"kind": "gaussian", "arms": 3}),
    "bernoulli": ("top-k", {"kind": "bernoulli", "means": [0.1, 0.9, 0.5]}, {"kind": "bernoulli", "arms": 3}),
    "beta": ("best-arm", {"kind": "beta", "means": [0.2, 0.8, 0.5]}, {"kind": "beta", "arms": 3}),
    "subpopulation-gaussian": (
        "best-feasible-arm",
        {"kind": "subpopulation-gaussian", "means": [[0.2, 0.6], [0.4, 0.4], [-0.2, 1.0]], "weights": [0.5, 0.5]},
        {"kind": "subpopulation-gaussian", "arms": 3, "weights": [0.5, 0.5]}),
    "linear-gaussian": (
        "best-arm",
        {"kind": "linear-gaussian", "features": [[1, 0], [0, 1], [1, 1]], "theta": [1.0, 0.5]},
        {"kind": "linear-gaussian", "features": [[1, 0], [0, 1], [1, 1]]}),
    "correlated-gaussian": (
        "best-arm",
        {"kind": "correlated-gaussian", "means": [0.0, 1.0, 0.5], "covariance": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
        {"kind": "correlated-gaussian", "covariance": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}),
}


def _doc(goal, environment, labels):
    problem = {"goal": goal, "delta": 0.1, **({"k": 1} if goal == "top-k" else {})}
    return {"problem": problem, "environment": {**environment, "labels": labels}, "strategy": [{"name": "uniform"}]}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_labels_reach_the_problem_in_experiment_and_session_files(kind):
    goal, simulated, learner = KINDS[kind]
    experiment = parse_experiment(_doc(goal, simulated, NAMES))
    assert experiment.problem.labels == tuple(NAMES) == experiment.environment.labels
    spec = parse_session_file(_doc(goal, learner, NAMES))
    assert spec.problem.labels == tuple(NAMES)
    stored = session_document(spec.problem, spec.strategy)  # a session created from Python keeps them
    assert stored["environment"]["labels"] == NAMES


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("labels, message", [
    (["a", "b"], "one label per arm (3 labels, 2 given)"),
    (["a", "b", "a"], 'label "a" is given twice'),
    (["a", "", "c"], "non-empty names"),
])
def test_wrong_labels_are_one_config_error_naming_the_key(kind, labels, message):
    goal, simulated, learner = KINDS[kind]
    for parse, environment in ((parse_experiment, simulated), (parse_session_file, learner)):
        with pytest.raises(ConfigError) as info:
            parse(_doc(goal, environment, labels))
        text = str(info.value)
        assert text.startswith("environment.labels: expected") and message in text and "\n" not in text


def test_named_linear_instances_take_labels_too():
    env = {"kind": "linear-gaussian", "instance": "soare", "d": 2}
    assert parse_experiment(_doc("best-arm", env, NAMES)).problem.labels == tuple(NAMES)
    with pytest.raises(ConfigError, match=r"^environment\.labels: expected one label per arm \(3 labels"):
        parse_experiment(_doc("best-arm", env, ["a"]))


@pytest.mark.parametrize("kind", ["gaussian", "bernoulli", "beta", "subpopulation-gaussian"])
def test_a_session_file_with_labels_needs_no_arms_count(kind):
    """The labels are the arms: ``arms`` may be left out; given too, it must agree (one line naming the key)."""
    goal, _, learner = KINDS[kind]
    without = {k: v for k, v in learner.items() if k != "arms"}
    spec = parse_session_file(_doc(goal, without, NAMES))
    assert spec.problem.n_arms == 3 and spec.problem.labels == tuple(NAMES)
    with pytest.raises(ConfigError, match=r"^environment\.labels: expected one label per arm \(2 labels, 3 given\)"):
        parse_session_file(_doc(goal, {**without, "arms": 2}, NAMES))
    if kind != "subpopulation-gaussian":  # one arm is a valid feasibility question
        with pytest.raises(ConfigError, match=r"^environment\.labels: expected at least 2 labels \(one per arm\)"):
            parse_session_file(_doc(goal, without, ["a"]))
    with pytest.raises(ConfigError, match=r"^environment\.arms: missing required key"):
        parse_session_file(_doc(goal, without, None) | {"environment": without})
