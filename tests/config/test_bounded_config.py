"""Experiment and session files with reward_model = "bounded" and the beta environment."""

import pytest

from pybai import Bounded, parse_experiment
from pybai.config.learner import parse_session_file
from pybai.exceptions import ConfigError


def _doc(problem=None, environment=None):
    p = {"goal": "best-arm", "delta": 0.05, "reward_model": "bounded", **(problem or {})}
    env = environment or {"kind": "beta", "means": [0.6, 0.4], "sd": 0.1}
    return {"problem": p, "environment": env, "strategy": [{"name": "tas"}]}


def test_bounded_file_builds_the_family_with_its_keys():
    family = parse_experiment(_doc({"reward_range": [-1, 2], "statistic": "sub-bernoulli"})).problem.family
    assert isinstance(family, Bounded) and (family.low, family.high, family.statistic) == (-1.0, 2.0, "sub-bernoulli")
    assert parse_experiment(_doc()).problem.family.statistic == "kl-inf"
    assert parse_experiment(_doc()).problem.family.max_values == 64
    assert parse_experiment(_doc({"max_values": 0})).problem.family.max_values == 0
    assert parse_experiment(_doc({"max_values": 200})).problem.family.max_values == 200


@pytest.mark.parametrize("problem, environment, message", [
    ({"reward_range": [1, 1]}, None, "reward_range: expected low < high"),
    ({"reward_range": [0, "x"]}, None, "reward_range: expected \\[low, high\\]"),
    ({"statistic": "glr"}, None, "statistic"),
    ({"max_values": -1}, None, "max_values"),
    ({"max_values": 2.5}, None, "max_values"),
    ({}, {"kind": "gaussian", "means": [0.6, 0.4]}, "needs rewards in that range"),
    ({"reward_range": [0.2, 1]}, {"kind": "bernoulli", "means": [0.6, 0.4]}, "needs rewards in that range"),
    ({}, {"kind": "beta", "means": [0.6, 0.4], "sd": 0.5}, "sd"),
])
def test_bad_bounded_input_is_one_clear_line(problem, environment, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_experiment(_doc(problem, environment))
    assert "\n" not in str(info.value)


def test_session_file_with_a_beta_learner_kind():
    doc = _doc(environment={"kind": "beta", "arms": 3})
    doc["strategy"] = [{"name": "top-two", "threshold": "delta-correct"}]
    spec = parse_session_file(doc)
    assert spec.problem.n_sources == 3 and spec.problem.family.name == "bounded-kl-inf"
    doc["problem"]["max_values"] = 8
    assert parse_session_file(doc).problem.family.max_values == 8
    with pytest.raises(ConfigError, match="means"):
        parse_session_file(_doc(environment={"kind": "beta", "arms": 3, "means": [0.1, 0.2, 0.3]}))
