"""``[problem] epsilon`` with ``delta`` (epsilon-best-arm identification) and ``epsilon_mode`` from files."""

import pytest

from pybai.config.experiment import parse_experiment
from pybai.exceptions import ConfigError, PybaiError


def _doc(**problem):
    return {"name": "e", "replications": 2, "seed": 1,
            "problem": {"goal": "best-arm", "delta": 0.1, **problem},
            "environment": {"kind": "gaussian", "means": [1.0, 1.0, 0.0], "sigma": 1.0},
            "strategy": [{"name": "tas"}]}


def test_epsilon_with_delta_is_epsilon_best_arm_identification():
    exp = parse_experiment(_doc(epsilon=0.2))
    assert exp.problem.epsilon_best_arm and exp.problem.pair_shift == (1.0, 0.2)
    rel = parse_experiment(_doc(epsilon=0.2, epsilon_mode="relative")).problem
    assert rel.pair_shift == (0.8, 0.0) and rel.to_dict()["epsilon_mode"] == "relative"
    assert not parse_experiment(_doc()).problem.epsilon_best_arm


@pytest.mark.parametrize("problem,key", [({"epsilon": 0.2, "epsilon_mode": "ratio"}, "epsilon_mode"),
                                         ({"epsilon": -0.1}, "epsilon"),
                                         ({"epsilon": 1.2, "epsilon_mode": "relative"}, "epsilon"),
                                         ({"epsilon_mode": "relative"}, "epsilon_mode")])
def test_bad_epsilon_keys_are_named(problem, key):
    with pytest.raises(PybaiError, match=key):
        parse_experiment(_doc(**problem))


def test_epsilon_mode_is_refused_where_epsilon_is_not_available():
    doc = _doc(epsilon_mode="relative")
    doc["environment"] = {"kind": "linear-gaussian", "features": [[1.0, 0.0], [0.0, 1.0]], "theta": [1.0, 0.0],
                          "sigma": 1.0}
    with pytest.raises(ConfigError, match="epsilon_mode"):
        parse_experiment(doc)


def test_a_threshold_the_problem_does_not_build_is_refused_when_the_file_is_read():
    from pybai.config.learner import parse_session_file

    doc = {"problem": {"goal": "best-arm", "delta": 0.1, "reward_model": "gaussian-unknown-variance"},
           "environment": {"kind": "gaussian", "arms": 3}, "strategy": [{"name": "tas", "threshold": "kk21"}]}
    with pytest.raises(ConfigError, match=r'^strategy\[0\]\.threshold: expected one of "heuristic", "delta-correct"'):
        parse_session_file(doc)
