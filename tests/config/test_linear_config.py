"""The linear-gaussian environment kind in experiment files, and its documented degenerate cases."""

import pytest

from pybai.config.experiment import parse_experiment
from pybai.exceptions import ConfigError
from pybai.problems.linear import LinearBestArmProblem


def doc(env, strategies=("tas",), **problem):
    return {"problem": {"goal": "best-arm", "delta": 0.05, **problem},
            "environment": {"kind": "linear-gaussian", **env},
            "strategy": [{"name": s} for s in strategies]}


def test_explicit_keys_build_the_linear_problem():
    e = parse_experiment(doc({"features": [[1, 0], [0, 1], [1, 1]], "theta": [1.0, 0.5], "sigma": 0.5},
                             ("tas", "game", "xy-static", "xy-adaptive", "xy-oracle", "g-allocation",
                              "xy-fully-adaptive", "uniform")))
    assert isinstance(e.problem, LinearBestArmProblem) and e.problem.sigma == 0.5
    assert e.environment.source_means.tolist() == [1.0, 0.5, 1.5]
    assert e.problem.complexity(e.environment.source_means)["h_lb"] > 0


def test_soare_instance_and_a_grid_over_d(tmp_path):
    from pybai.config import load_sweep

    e = parse_experiment(doc({"instance": "soare", "d": 4, "omega": 0.1}))
    assert e.environment.features.shape == (5, 4) and e.environment.theta.tolist() == [2.0, 0, 0, 0]
    path = tmp_path / "f4.toml"
    path.write_text('[problem]\ngoal = "best-arm"\ndelta = 0.05\n[environment]\nkind = "linear-gaussian"\n'
                    'instance = "soare"\nd = 2\n[grid]\n"environment.d" = [2, 3]\n[[strategy]]\nname = "xy-static"\n')
    sweep = load_sweep(path)
    assert [x.problem.n_features for x in sweep] == [2, 3] and sweep[1].name.endswith("[d=3]")


def test_wine_instance_from_the_packaged_data():
    e = parse_experiment(doc({"instance": "wine"}))
    assert e.environment.features.shape == (1599, 12)
    assert e.environment.sigma == pytest.approx(0.648, abs=0.001)
    assert e.problem.n_distinct < 1599  # duplicate wines are one arm


@pytest.mark.parametrize("env,key", [
    ({"features": [[1, 0], [2, 0], [3, 0]], "theta": [1.0, 0.0]}, "environment.features"),  # rank 1 < d = 2
    ({"features": [[1, 0], [0, 1]], "theta": [1.0, 0.0, 0.0]}, "environment.theta"),
    ({"features": [[1, 0], [0, 1]], "theta": [1.0, float("nan")]}, "environment.theta"),
    ({"instance": "soare", "d": 1}, "environment.d"),
    ({"instance": "soare", "d": 3, "theta": [1, 0, 0]}, "environment.theta"),
    ({"instance": "cube"}, "environment.instance"),
    ({"instance": "soare", "d": 3, "extra": 1}, "environment.extra"),
])
def test_bad_linear_environments_name_the_key(env, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_experiment(doc(env))


def test_ties_are_refused_and_duplicates_are_one_arm():
    with pytest.raises(ConfigError, match="not unique"):
        parse_experiment(doc({"features": [[1, 0], [0, 1]], "theta": [1.0, 1.0]}))
    e = parse_experiment(doc({"features": [[1, 0], [0, 1], [1, 0]], "theta": [1.0, 0.5]}))
    assert e.problem.answer(e.environment.source_means) == 0 and e.problem.n_distinct == 2


def test_linear_rules_refuse_other_environments():
    with pytest.raises(ConfigError, match="linear"):
        parse_experiment({"problem": {"goal": "best-arm", "delta": 0.1},
                          "environment": {"kind": "gaussian", "means": [1.0, 0.5]},
                          "strategy": [{"name": "xy-static"}]})
