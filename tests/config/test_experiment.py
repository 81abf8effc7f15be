import copy

import pytest

from pybai import ConfigError, parse_experiment

BASE = {
    "name": "x",
    "replications": 10,
    "seed": 1,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "gaussian", "means": [1.0, 0.5, 0.0], "sigma": 1.0},
    "strategy": [{"name": "tas"}, {"name": "uniform"}],
}


def edit(path, value, delete=False):
    data = copy.deepcopy(BASE)
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


def test_valid_file():
    exp = parse_experiment(copy.deepcopy(BASE))
    assert exp.replications == 10 and [label for label, _ in exp.strategies] == ["tas", "uniform"]
    assert exp.problem.n_arms == 3 and exp.problem.delta == 0.1


@pytest.mark.parametrize(
    "path,value,delete,message",
    [
        (("problem", "delta"), 1.5, False, r"problem.delta: expected a number in \(0, 1\)"),
        (("problem", "delta"), None, True, "exactly one of 'delta'"),
        (("problem", "goal"), "best", False, "problem.goal: expected one of"),
        (("environment", "means"), None, True, "environment.means: missing required key"),
        (("environment", "means"), [[1.0, 2.0]], False, "environment.means: expected a list of numbers"),
        (("environment", "means"), [1.0], False, "environment.means: expected non-empty"),
        (("environment", "sigma"), -1.0, False, "environment.sigma: expected all > 0"),
        (("environment", "sigma"), [1.0, 2.0], False, "environment.sigma: expected a number or a list of 3"),
        (("environment", "kind"), "poisson", False, "environment.kind: expected one of"),
        (("environment", "colour"), "red", False, "environment.colour: unknown key"),
        (("strategy",), [{"name": "nope"}], False, r"strategy\[0\].name: expected one of"),
        (("strategy",), [{"name": "tas", "tracking": "E"}], False, r"strategy\[0\].tracking: expected one of"),
        (("strategy",), [{"name": "tas", "speed": 3}], False, r"strategy\[0\].speed: unknown parameter"),
        (("strategy",), [{"name": "tas"}, {"name": "tas"}], False, "duplicate strategy label"),
        (("replications",), 0, False, "replications: expected an integer >= 1"),
        (("environment",), "gaussian", False, "environment: expected a table"),
    ],
)
def test_bad_files_name_the_key(path, value, delete, message):
    with pytest.raises(ConfigError, match=message):
        parse_experiment(edit(path, value, delete))


def test_bernoulli_means_in_unit_interval():
    data = edit(("environment",), {"kind": "bernoulli", "means": [0.5, 1.2]})
    with pytest.raises(ConfigError, match="environment.means: expected all <= 1"):
        parse_experiment(data)


def test_budget_and_batch():
    data = edit(("problem",), {"goal": "best-arm", "budget": 100, "batch": {"size": 4, "max_repeats": 8}})
    with pytest.raises(ConfigError, match="problem.batch.max_repeats"):
        parse_experiment(data)
