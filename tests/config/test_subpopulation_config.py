"""The "subpopulation-gaussian" environment kind, goal "best-feasible-arm" and the shipped files."""

import copy
import json
from importlib import resources

import numpy as np
import pytest

from pybai import ConfigError, load_experiment, parse_experiment
from pybai.cli import main
from pybai.problems.feasible.problem import FeasibleArmProblem

BASE = {
    "name": "baics",
    "replications": 4,
    "seed": 1,
    "problem": {"goal": "best-feasible-arm", "delta": 0.1, "max_samples": 20000},
    "environment": {
        "kind": "subpopulation-gaussian",
        "means": [[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]],
        "weights": [0.2, 0.3, 0.5],
        "constrained": [0, 1, 2],
        "floor": 0.0,
        "sigma": 1.0,
        "sampling": "pair",
    },
    "strategy": [{"name": "tas-cs"}, {"name": "tas", "n_init": 5}, {"name": "uniform"}],
}

EXPERIMENTS = resources.files("pybai") / "experiments"


def edit(key, value, delete=False):
    data = copy.deepcopy(BASE)
    if delete:
        del data["environment"][key]
    else:
        data["environment"][key] = value
    return data


def test_valid_file_builds_problem_and_environment():
    exp = parse_experiment(copy.deepcopy(BASE))
    p = exp.problem
    assert isinstance(p, FeasibleArmProblem) and p.source_shape == (3, 3) and p.sampling == "pair"
    assert p.answer(exp.environment.source_means) == 0
    assert [label for label, _ in exp.strategies] == ["tas-cs", "tas", "uniform"]


def test_defaults_and_per_subpopulation_floors():
    data = edit("constrained", None, delete=True)
    del data["environment"]["floor"], data["environment"]["sigma"], data["environment"]["sampling"]
    p = parse_experiment(data).problem
    assert p.constrained == (0, 1, 2) and p.sampling == "pair"
    p = parse_experiment(edit("floor", [0.1, -1.0, 0.0])).problem
    np.testing.assert_array_equal(p.floor, [0.1, -1.0, 0.0])
    data = edit("constrained", [2])
    data["environment"]["floor"] = [0.5]
    assert parse_experiment(data).problem.answer(np.ravel(BASE["environment"]["means"])) == 2


@pytest.mark.parametrize(
    "key,value,message",
    [
        ("means", [0.2, 0.6], r"environment\.means: expected a list of lists of numbers"),
        ("means", [[0.2, 0.6], [0.4]], r"environment\.means: expected"),
        ("weights", [0.2, 0.8], r"environment\.weights: expected of shape \(3\)"),
        ("weights", [0.2, 0.0, 0.8], r"environment\.weights: expected all > 0"),
        ("weights", [0.2, -0.3, 0.8], r"environment\.weights: expected all > 0"),
        ("constrained", [0, 3], r"environment\.constrained: expected a list of distinct 0-based"),
        ("constrained", [-1], r"environment\.constrained: expected"),
        ("constrained", [1, 1], r"environment\.constrained: expected"),
        ("constrained", 1, r"environment\.constrained: expected"),
        ("constrained", [1.5], r"environment\.constrained: expected"),
        ("floor", [0.0, 0.0], r"environment\.floor: expected a number or a list of 3 numbers"),
        ("sigma", [1.0, 1.0, 1.0], r"environment\.sigma: expected a number or a 3 x 3 matrix"),
        ("sigma", -1.0, r"environment\.sigma: expected all > 0"),
        ("sampling", "cell", r"environment\.sampling: expected one of 'pair', 'arm'"),
        ("floors", 0.0, r"environment\.floors: unknown key"),
    ],
)
def test_bad_inputs_name_the_key(key, value, message):
    with pytest.raises(ConfigError, match=message):
        parse_experiment(edit(key, value))


def test_goal_and_kind_must_match():
    data = copy.deepcopy(BASE)
    data["problem"]["goal"] = "best-arm"
    with pytest.raises(ConfigError, match="not available on environment kind"):
        parse_experiment(data)
    data = copy.deepcopy(BASE)
    data["strategy"] = [{"name": "lucb"}]
    with pytest.raises(ConfigError, match=r"strategy\[0\].*cannot solve goal 'best-feasible-arm'"):
        parse_experiment(data)
    data = copy.deepcopy(BASE)
    data["strategy"] = [{"name": "tas-cs", "oracle": "newton"}]
    with pytest.raises(ConfigError, match=r"strategy\[0\].oracle: expected one of"):
        parse_experiment(data)


@pytest.mark.parametrize("name", ["baics-example-1", "baics-example-2", "star-class-size"])
def test_shipped_files_load(name):
    exp = load_experiment(EXPERIMENTS / f"{name}.toml")
    assert exp.problem.goal == "best-feasible-arm"
    assert {label for label, _ in exp.strategies} == {"tas-cs", "tas", "uniform"}


def test_star_data_is_shipped_and_matches_the_file():
    import csv

    data = resources.files("pybai") / "data"
    rows = list(csv.DictReader((data / "star-grade1-math-cells.csv").open()))
    assert len(rows) == 12
    assert "Krueger 1999" in (data / "README.md").read_text()
    exp = load_experiment(EXPERIMENTS / "star-class-size.toml")
    env = exp.environment
    arms, subs = ["regular", "regular+aide", "small"], ["inner-city", "rural", "suburban", "urban"]
    for r in rows:
        k, l = arms.index(r["class_type"]), subs.index(r["school_type"])
        assert env.means[k, l] == pytest.approx(float(r["math1_mean"]))
        assert env.sigma[k, l] == pytest.approx(float(r["math1_sd"]))
    np.testing.assert_allclose(env.floor, env.means[0] - 5.0)
    assert exp.problem.answer(env.source_means) == 2


def test_cli_complexity_on_example_1(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main(["complexity", str(EXPERIMENTS / "baics-example-1.toml"), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["answer"] == 0
    assert doc["characteristic_time"] == pytest.approx(190.9, abs=0.05)
    assert doc["lower_bound"] == pytest.approx(335.5, abs=0.1)
    assert np.shape(doc["optimal_weights"]) == (3, 3)


def test_cli_run_on_example_1_few_replications(tmp_path):
    text = (EXPERIMENTS / "baics-example-1.toml").read_text().replace("replications = 300", "replications = 3")
    path = tmp_path / "ex1.toml"
    path.write_text(text)
    out = tmp_path / "r.json"
    assert main(["run", str(path), "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    res = {r["strategy"]: r for r in doc["results"]}
    assert set(res) == {"tas-cs", "tas", "uniform"}
    for r in res.values():
        assert r["replications"] == 3 and r["censored"] == 0
        assert np.shape(r["mean_allocation"]) == (3, 3)


def test_cli_bad_key_exits_2(tmp_path, capsys):
    text = (EXPERIMENTS / "baics-example-1.toml").read_text().replace("weights = [0.2, 0.3, 0.5]", "weights = [0.2, 0.3]")
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["run", str(path), "--quiet"]) == 2
    assert "environment.weights: expected" in capsys.readouterr().err
