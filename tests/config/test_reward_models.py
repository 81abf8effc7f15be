"""[problem] reward_model: the keys, their refusals, and the runs they give."""

import numpy as np
import pytest

from pybai import ConfigError, GaussianUnknownVariance
from pybai.complexity import complexity_report
from pybai.config.experiment import parse_experiment
from pybai.config.learner import parse_session_file, session_document


def doc(**problem):
    return {
        "name": "t", "replications": 2, "seed": 1,
        "environment": {"kind": "gaussian", "means": [1.0, 0.5, 0.0], "sigma": [0.5, 1.0, 2.0]},
        "problem": {"goal": "best-arm", "delta": 0.05, **problem},
        "strategy": [{"name": "tas", "threshold": "delta-correct"}],
    }


def test_unknown_variance_model_from_a_file():
    exp = parse_experiment(doc(reward_model="gaussian-unknown-variance"))
    assert isinstance(exp.problem.family, GaussianUnknownVariance) and exp.problem.family.statistic == "glr"
    ev = parse_experiment(doc(reward_model="gaussian-unknown-variance", statistic="ev-glr"))
    assert ev.problem.family.statistic == "ev-glr"


def test_complexity_uses_the_true_variances():
    known = complexity_report(parse_experiment(doc()))
    unknown = complexity_report(parse_experiment(doc(reward_model="gaussian-unknown-variance")))
    assert unknown["characteristic_time"] >= known["characteristic_time"]
    assert unknown["characteristic_time"] < 1.5 * known["characteristic_time"]


@pytest.mark.parametrize("problem, message", [
    ({"reward_model": "student"}, "problem.reward_model: expected one of"),
    ({"statistic": "glr"}, "problem.statistic: only with a reward_model"),
    ({"reward_model": "gaussian-unknown-variance", "statistic": "z"}, "problem.statistic: expected one of"),
])
def test_bad_keys_name_the_key(problem, message):
    with pytest.raises(ConfigError, match=message):
        parse_experiment(doc(**problem))


def test_bernoulli_rewards_are_not_gaussian():
    bad = doc(reward_model="gaussian-unknown-variance")
    bad["environment"] = {"kind": "bernoulli", "means": [0.5, 0.4]}
    with pytest.raises(ConfigError, match="needs Gaussian rewards"):
        parse_experiment(bad)


def test_a_rule_that_needs_sigma_is_refused_with_one_line():
    bad = doc(reward_model="gaussian-unknown-variance")
    bad["problem"] = {"goal": "best-arm", "budget": 100, "reward_model": "gaussian-unknown-variance"}
    bad["strategy"] = [{"name": "ucbe"}]
    with pytest.raises(ConfigError, match="strategy\\[0\\].*known noise scale"):
        parse_experiment(bad)


def session(**env):
    return {"name": "s", "problem": {"goal": "best-arm", "delta": 0.05, "reward_model": "gaussian-unknown-variance"},
            "environment": {"kind": "gaussian", "arms": 4, **env}, "strategy": [{"name": "top-two"}]}


def test_session_files_take_the_model_and_refuse_a_sigma():
    spec = parse_session_file(session())
    assert spec.problem.family.name == "gaussian-unknown-variance"
    with pytest.raises(ConfigError, match="environment.sigma: not used under reward_model"):
        parse_session_file(session(sigma=1.0))
    again = session_document(spec.problem, spec.strategy)
    assert again["problem"]["reward_model"] == "gaussian-unknown-variance"
    assert "sigma" not in again["environment"]


def test_shipped_experiment_runs_and_is_correct():
    from pybai.config.experiment import load_experiment
    from pybai.cli._common import experiment_file
    from pybai.simulate import run_experiment

    exp = load_experiment(experiment_file("uv-gaussian-5"))
    exp.replications = 3
    exp.strategies = exp.strategies[:2]
    result = run_experiment(exp)
    for row in result["results"]:
        assert row["correct_rate"] == 1.0 and row["censored"] == 0
