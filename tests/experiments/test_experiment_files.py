"""Shipped BayesGap experiment files, the route-delays kind (truth = held-out day r) and the callable kind."""

import numpy as np
import pytest

import pybai
from pybai.config import load_sweep
from pybai.datasets import data_file, load_flight_delays
from pybai.environments.from_callable import RewardFunctionError
from pybai.exceptions import ConfigError
from pybai.simulate.montecarlo import run_outcomes

EXPERIMENTS = ["bayesgap-synthetic", "bayesgap-sensors", "bayesgap-automl"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_shipped_files_parse_with_a_reproduce_table(name):
    from importlib import resources

    path = resources.files("pybai") / "experiments" / f"{name}.toml"
    points = load_sweep(str(path))
    assert points and all(p.source["reproduce"]["name"].startswith("bayesgap") for p in points)
    for p in points:
        assert p.problem.regime.kind == "fixed-budget" and p.problem.error_tolerance == 0.0


def test_route_delays_replication_r_plays_held_out_day_r():
    doc = {"replications": 3, "seed": 1, "problem": {"goal": "best-arm", "budget": 129},
           "environment": {"kind": "route-delays"}, "strategy": [{"name": "uniform"}]}
    experiment = pybai.parse_experiment(doc)
    data = load_flight_delays()
    assert data.truths.shape == (122, 129) and data.history.shape == (243, 129)
    assert experiment.problem.sigma ** 2 == pytest.approx(0.05 * np.mean(np.diag(data.covariance)))
    assert experiment.problem.eta == 20.0
    (outs,) = run_outcomes(experiment)
    for r, o in enumerate(outs):  # uniform over 129 arms, one pull each: regret against day r's truth
        day = data.truths[r]
        assert o.simple_regret == pytest.approx(day.max() - day[o.recommendation])
    assert data_file("nycflights13-daily-route-delay.csv").is_file()


def _callable_doc(**env):
    return {"replications": 2, "seed": 0, "problem": {"goal": "best-arm", "budget": 12},
            "environment": {"kind": "callable", "n_arms": 4, "sigma": 0.1, **env},
            "strategy": [{"name": "uniform"}]}


def test_callable_environment_from_a_file():
    doc = _callable_doc(function="_bayesgap_rewards:linear_reward", means=[0.0, 0.1, 0.2, 0.3],
                        covariance="_bayesgap_rewards:identity_covariance")
    experiment = pybai.parse_experiment(doc)
    assert type(experiment.problem).__name__ == "CorrelatedBestArmProblem"
    out = pybai.run_experiment(experiment)
    assert out["results"][0]["correct_rate"] == 1.0
    plain = pybai.parse_experiment(_callable_doc(function="_bayesgap_rewards:linear_reward"))
    assert type(plain.problem).__name__ == "BestArmProblem"


@pytest.mark.parametrize("value", ["raise", "nan"])
def test_failing_reward_function_names_the_arm_and_stops(value):
    doc = _callable_doc(function="_bayesgap_rewards:make_failing_reward", params={"bad_arm": 2, "value": value},
                        means=[0.0, 1.0, 2.0, 3.0])
    with pytest.raises(RewardFunctionError, match="arm 2") as info:
        pybai.run_experiment(pybai.parse_experiment(doc))
    assert ("diverged" if value == "raise" else "non-finite") in str(info.value)


def test_bad_callable_keys_name_the_key():
    with pytest.raises(ConfigError, match="environment.function"):
        pybai.parse_experiment(_callable_doc(function="no_such_module_xyz:f"))
    with pytest.raises(ConfigError, match="environment.covariance"):
        pybai.parse_experiment(_callable_doc(function="_bayesgap_rewards:linear_reward",
                                             covariance="_bayesgap_rewards:missing"))
    with pytest.raises(ConfigError, match="environment.history_fraction"):
        pybai.parse_experiment({"problem": {"goal": "best-arm", "budget": 200},
                                "environment": {"kind": "route-delays", "history_fraction": 1.5},
                                "strategy": [{"name": "uniform"}]})
