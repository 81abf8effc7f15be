"""Sweeps: [grid] expansion, refusals naming the key, and load_sweep on real files."""

import pytest

from pybai.config import expand_grid, load_sweep
from pybai.exceptions import ConfigError

BASE = """
name = "sw"
replications = 5
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.5, 0.0]
[[strategy]]
name = "tas"
"""


def test_product_order_and_joint_axes():
    doc = {"problem": {}, "grid": {"problem.a": [1, 2, 3], "problem.b,problem.c": [[0, "x"], [1, "y"]]}}
    points = expand_grid(doc)
    assert len(points) == 6
    assert [p.values["problem.a"] for p in points] == [1, 1, 2, 2, 3, 3]
    assert [p.document["problem"]["c"] for p in points[:2]] == ["x", "y"]
    assert "grid" not in points[0].document
    assert doc["problem"] == {}  # the input is not modified


def test_no_grid_is_one_point():
    doc = {"problem": {"delta": 0.1}}
    (point,) = expand_grid(doc)
    assert point.values == {} and point.document is doc


@pytest.mark.parametrize(
    "grid, match",
    [
        ({}, "at least one key"),
        ({"problem.delta": []}, "non-empty list"),
        ({"problem.delta": 0.1}, "non-empty list"),
        ({"strategy.alpha": [1]}, "must start with one of"),
        ({"problem..delta": [1]}, "dotted keys"),
        ({"problem.delta": [1], "problem.delta,problem.k": [[1, 2]]}, "set by two grid keys"),
        ({"problem.delta,problem.k": [[0.1]]}, "one per key"),
    ],
)
def test_refusals(grid, match):
    with pytest.raises(ConfigError, match=match):
        expand_grid({"problem": {}, "grid": grid})


def test_load_sweep_names_points_and_refuses_unknown_keys(tmp_path):
    path = tmp_path / "sw.toml"
    path.write_text(BASE + '[grid]\n"problem.delta" = [0.1, 0.01]\n"environment.sigma" = [1.0, 2.0]\n')
    experiments = load_sweep(path)
    assert [e.name for e in experiments][:2] == ["sw[delta=0.1,sigma=1.0]", "sw[delta=0.1,sigma=2.0]"]
    assert experiments[3].problem.regime.delta == 0.01
    assert experiments[1].grid == {"problem.delta": 0.1, "environment.sigma": 2.0}
    path.write_text(BASE + '[grid]\n"environment.sigmaa" = [1.0]\n')
    with pytest.raises(ConfigError, match="sigmaa"):
        load_sweep(path)


def test_load_sweep_without_grid(tmp_path):
    path = tmp_path / "one.toml"
    path.write_text(BASE)
    (experiment,) = load_sweep(path)
    assert experiment.name == "sw" and experiment.grid == {}


def test_reproduce_table_is_accepted_and_kept(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(BASE + '[reproduce]\nname = "x"\nquick = { replications = 2 }\n')
    (experiment,) = load_sweep(path)
    assert experiment.source["reproduce"]["quick"] == {"replications": 2}
    path.write_text(BASE.replace('name = "sw"', 'name = "sw"\nreproduce = 3'))
    with pytest.raises(ConfigError, match="reproduce: expected a table"):
        load_sweep(path)
