"""Fixed budget and (b, r) batches end to end, and replications run concurrently in threads."""

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pybai import ConfigError, parse_experiment, run_experiment, run_replication
from pybai.simulate.seeding import replication_seed

BASE = {
    "name": "regimes",
    "replications": 40,
    "seed": 3,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "gaussian", "means": [1.0, 0.5, 0.4, 0.0], "sigma": 1.0},
    "strategy": [{"name": "uniform"}],
}


def doc(**problem):
    data = json.loads(json.dumps(BASE))
    data["problem"] = {"goal": "best-arm", **problem}
    return data


def test_fixed_budget_spends_exactly_the_budget_and_more_budget_helps():
    small = run_experiment(parse_experiment(doc(budget=12)))["results"][0]
    large = run_experiment(parse_experiment(doc(budget=400)))["results"][0]
    assert small["mean_samples"] == 12 and large["mean_samples"] == 400
    assert small["censored"] == 0 and small["mean_batches"] is None
    assert large["correct_rate"] > small["correct_rate"]
    assert large["mean_simple_regret"] < small["mean_simple_regret"]
    np.testing.assert_allclose(large["mean_allocation"], [0.25] * 4)


def test_batches_count_in_budgets_and_results():
    data = doc(budget=10)
    data["problem"]["batch"] = {"size": 6, "max_repeats": 2}
    res = run_experiment(parse_experiment(data))["results"][0]
    # the initial batch holds the 4 initial samples, then 9 full batches of 6 (at most 2 of one arm)
    assert res["mean_batches"] == 10 and res["mean_samples"] == 4 + 9 * 6
    data = doc(delta=0.1)
    data["problem"]["batch"] = {"size": 8, "max_repeats": 2}
    res = run_experiment(parse_experiment(data))["results"][0]
    assert res["mean_samples"] == pytest.approx(4 + 8 * (res["mean_batches"] - 1))  # full batches after the first
    assert res["correct_rate"] >= 0.9


def test_a_sequential_strategy_with_batches_is_refused():
    data = doc(delta=0.1)
    data["problem"]["batch"] = {"size": 8, "max_repeats": 2}
    data["strategy"] = [{"name": "tas"}]
    with pytest.raises(ConfigError, match=r"strategy\[0\].*batch"):
        parse_experiment(data)


def test_budget_smaller_than_the_initial_phase_is_refused():
    with pytest.raises(ConfigError, match=r"strategy\[0\].budget: expected at least the 4 samples of the initial phase"):
        parse_experiment(doc(budget=3))  # 4 arms, one initial sample each
    data = doc(budget=7)
    data["strategy"] = [{"name": "uniform", "n_init": 2}]
    with pytest.raises(ConfigError, match="budget"):
        parse_experiment(data)
    parse_experiment(doc(budget=4))  # the initial phase alone is allowed


def test_replications_in_threads_match_the_serial_run():
    data = doc(delta=0.05)
    data["strategy"] = [{"name": "tas"}]
    experiment = parse_experiment(data)
    _, template = experiment.strategies[0]

    def one(r):
        out = run_replication(template, experiment.environment, experiment.problem, replication_seed(3, r))
        return out.samples, out.counts.tolist(), out.recommendation

    serial = [one(r) for r in range(16)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(one, range(16)))
    assert threaded == serial
    assert template.status_ == "unstarted"  # the template itself never runs
