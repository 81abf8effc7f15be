"""``pybai run`` and ``pybai complexity`` number arms from 0 and show ``[environment] labels``."""

import json

import pytest

from pybai.cli import main

FILE = """
name = "named"
replications = 2
seed = 3
[problem]
goal = "{goal}"
delta = 0.1
{k}
[environment]
kind = "gaussian"
means = [0.0, 3.0, 1.5]
{labels}
[[strategy]]
name = "uniform"
"""


def _write(tmp_path, labels=True, goal="best-arm"):
    path = tmp_path / "named.toml"
    path.write_text(FILE.format(goal=goal, k='k = 2' if goal == "top-k" else "",
                                labels='labels = ["control", "new-checkout", "two-step"]' if labels else ""))
    return path


@pytest.mark.parametrize("goal, with_labels, answer", [
    ("best-arm", True, "true answer new-checkout (arm 1)"),
    ("best-arm", False, "true answer arm 1"),
    ("top-k", True, "true answer new-checkout (arm 1), two-step (arm 2)"),
    ("top-k", False, "true answer arms 1, 2"),
])
def test_run_table_and_document_show_labels_and_count_from_zero(tmp_path, capsys, goal, with_labels, answer):
    out = tmp_path / "out.json"
    assert main(["run", str(_write(tmp_path, with_labels, goal)), "--quiet", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert answer in table.splitlines()[0] and "index" not in table
    document = json.loads(out.read_text())
    assert document.get("labels") == (["control", "new-checkout", "two-step"] if with_labels else None)
    assert document["answer"] == (1 if goal == "best-arm" else [1, 2])


def test_complexity_prints_the_answer_by_name_and_its_json_has_the_labels(tmp_path, capsys):
    path = _write(tmp_path)
    assert main(["complexity", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "answer: new-checkout (arm 1)" in lines
    assert any(line.startswith("optimal_weights: control 0.") and "new-checkout" in line for line in lines)
    assert main(["complexity", str(path), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["answer"] == 1 and report["labels"] == ["control", "new-checkout", "two-step"]
    assert main(["complexity", str(_write(tmp_path, labels=False))]) == 0
    assert "answer: arm 1" in capsys.readouterr().out.splitlines()
