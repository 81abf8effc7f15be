"""``pybai complexity``: a file needs no ``[[strategy]]``; a file with a ``[grid]`` gets a report per point."""

import json

from pybai.cli import main

FILE = """
name = "cx"
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
"""


def test_a_file_without_strategies(tmp_path, capsys):
    path = tmp_path / "cx.toml"
    path.write_text(FILE)
    assert main(["complexity", str(path), "--json", "-"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["answer"] == 0 and abs(document["characteristic_time"] - 8.0) < 1e-6


def test_a_strategy_given_is_still_checked(tmp_path, capsys):
    path = tmp_path / "cx.toml"
    path.write_text(FILE + '[[strategy]]\nname = "fastest"\n')
    assert main(["complexity", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pybai: error: strategy[0]") and err.count("\n") == 1


def test_a_grid_gets_one_report_per_point(tmp_path, capsys):
    path = tmp_path / "cx.toml"
    path.write_text(FILE + '[grid]\n"environment.sigma" = [0.5, 2.0]\n')
    out = tmp_path / "cx.json"
    assert main(["complexity", str(path), "--json", str(out)]) == 0
    points = json.loads(out.read_text())["points"]
    assert [p["name"] for p in points] == ["cx[sigma=0.5]", "cx[sigma=2.0]"]
    assert [p["grid"] for p in points] == [{"environment.sigma": 0.5}, {"environment.sigma": 2.0}]
    # two Gaussian arms: T* = 8 sigma^2 / gap^2, 16 times larger at sigma 2 than at 0.5
    assert abs(points[1]["characteristic_time"] / points[0]["characteristic_time"] - 16.0) < 1e-6
    text = capsys.readouterr().out
    assert "cx[sigma=0.5]:\n  answer: arm 0\n" in text and "cx[sigma=2.0]:\n" in text
