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


@pytest.mark.parametrize("key, value", [("reward_range", [0, 100]), ("low", 0), ("high", 100), ("max", 100),
                                        ("bounds", [0, 100])])
@pytest.mark.parametrize("session", [False, True])
def test_a_range_written_in_the_environment_points_to_the_bounded_reward_model(key, value, session):
    """What a user writes for a revenue in [0, 100] on a Gaussian environment: one line that says how to say it."""
    environment = {"kind": "gaussian", "arms": 3} if session else {"kind": "gaussian", "means": [1.0, 2.0]}
    document = {"problem": {"goal": "best-arm", "delta": 0.05}, "environment": {**environment, key: value},
                "strategy": [{"name": "tas"}]}
    with pytest.raises(ConfigError) as info:
        (parse_session_file if session else parse_experiment)(document)
    text = str(info.value)
    assert text.startswith(f"environment.{key}: not a key of the environment; rewards in a known range are "
                           '[problem] reward_model = "bounded" with reward_range = [low, high]'), text
    assert 'kind = "beta"' in text and "\n" not in text


def test_bounded_on_gaussian_rewards_names_the_kinds_that_fit():
    document = _doc({"reward_range": [0, 100]}, {"kind": "gaussian", "means": [1.0, 2.0]})
    with pytest.raises(ConfigError, match=r'^problem\.reward_model: "bounded" on \[0, 100\] needs rewards in that '
                                          r'range; the environment\'s "gaussian" rewards lie in \[-inf, inf\] '
                                          r'\(bounded rewards: .*kind = "beta" or "bernoulli"'):
        parse_experiment(document)


def test_other_unknown_environment_keys_keep_their_suggestion():
    with pytest.raises(ConfigError, match=r"^environment\.sigmaa: unknown key \(did you mean 'sigma'\?\)\.$"):
        parse_experiment({"problem": {"goal": "best-arm", "delta": 0.05}, "strategy": [{"name": "tas"}],
                          "environment": {"kind": "gaussian", "means": [0.6, 0.4], "sigmaa": 0.1}})
