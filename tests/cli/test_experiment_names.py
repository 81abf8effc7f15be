"""Shipped experiments by name: every command taking a FILE resolves them (cli/_common.py), `pybai list` shows them."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pybai.experiments
from pybai.cli import main
from pybai.cli._common import experiment_file
from pybai.exceptions import ConfigError
from pybai.experiments import experiment_names, experiment_path

NAME = "gk16-bernoulli-mu2"

TINY = """
name = "tiny"
replications = 3
seed = 1
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
[[strategy]]
name = "uniform"
"""


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pybai.cli", *args], capture_output=True, text=True)


def test_an_existing_path_wins_over_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert experiment_file(NAME) == str(experiment_path(NAME))
    (tmp_path / NAME).write_text("x")
    assert experiment_file(NAME) == NAME
    assert experiment_file(str(tmp_path)) == str(tmp_path)  # a folder exists: its own error comes later


def test_every_shipped_name_resolves_to_its_file():
    for name in experiment_names():
        assert Path(experiment_file(name)) == experiment_path(name)


def test_unknown_name_is_one_line_with_the_closest_names():
    with pytest.raises(ConfigError, match=r"^FILE gk16-bernouli-mu2: no such file, nor a shipped experiment name "
                                          r"\(closest: gk16-bernoulli-mu2, "):
        experiment_file("gk16-bernouli-mu2")
    with pytest.raises(ConfigError, match=r"none\.toml: no such file.*\(pybai list shows them all\)\.$"):
        experiment_file("none.toml")


def test_complexity_by_name_equals_complexity_by_path(tmp_path):
    by_name, by_path = tmp_path / "name.json", tmp_path / "path.json"
    assert main(["complexity", NAME, "--json", str(by_name)]) == 0
    assert main(["complexity", str(experiment_path(NAME)), "--json", str(by_path)]) == 0
    assert json.loads(by_name.read_text()) == json.loads(by_path.read_text())


def test_run_resolves_a_name(tmp_path, monkeypatch, capsys):
    # the shipped files run 1000 replications: a tiny stand-in checks run's wiring in well under a second
    tiny = tmp_path / "tiny.toml"
    tiny.write_text(textwrap.dedent(TINY))
    monkeypatch.setattr(pybai.experiments, "experiment_names", lambda: ["tiny"])
    monkeypatch.setattr(pybai.experiments, "experiment_path", lambda name: tiny)
    out = tmp_path / "res.json"
    assert main(["run", "tiny", "--quiet", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["results"][0]["replications"] == 3


def test_typo_exits_2_with_one_line_naming_the_closest_name():
    for command in (["run", "gk16-bernouli-mu2", "--quiet"], ["complexity", "gk16-bernouli-mu2"]):
        proc = _cli(*command)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert lines[0].startswith("pybai: error: FILE gk16-bernouli-mu2: no such file")
        assert "closest: gk16-bernoulli-mu2" in lines[0] and "Traceback" not in proc.stderr


def test_session_new_resolves_names_too(tmp_path):
    # a shipped experiment carries its truth, so a session refuses it with the session file's own error line
    assert main(["session", "new", NAME, "--db", str(tmp_path / "s.db")]) == 2
    proc = _cli("session", "new", "gk16-bernouli-mu2", "--db", str(tmp_path / "t.db"))
    assert proc.returncode == 2 and "closest: gk16-bernoulli-mu2" in proc.stderr
    assert not (tmp_path / "t.db").exists()


def test_list_shows_every_shipped_name_with_goal_and_title():
    proc = _cli("list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[0] for line in lines] == experiment_names()
    mu2 = next(line for line in lines if line.startswith(NAME + " "))
    assert "best-arm" in mu2 and "instance mu2 of Garivier & Kaufmann (2016), Table 2." in mu2
    assert len({line.index(line.split()[2]) for line in lines}) == 1  # titles aligned in one column


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == experiment_names()
    assert all(set(r) == {"name", "goal", "title", "path"} and r["title"] and r["goal"] for r in rows)
    assert all(Path(r["path"]) == experiment_path(r["name"]) for r in rows)
    untitled = next(r for r in rows if r["name"] == "bai-gaussian-5")  # the file's first comment
    assert untitled["title"].startswith("Standard best-arm identification on five Gaussian arms")


def test_list_titles_are_whole_sentences_for_users(capsys):
    """Each title says what the experiment finds, in one sentence, without internal history."""
    assert main(["list", "--json"]) == 0
    for row in json.loads(capsys.readouterr().out):
        title = row["title"]
        assert title[0].isupper() and title.endswith("."), row
        assert not any(word in title.lower() for word in ("issue", "session ", "round")), row
