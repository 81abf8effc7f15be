"""Sessions with named arms: status, export, ask rows, answers by label or index, report."""

import json

import numpy as np
import pytest

from pybai import BestArmProblem, Bernoulli, FixedConfidence, make_strategy
from pybai.cli import main
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.session import Session

LABELS = ["control", "new-checkout", "two-step"]

FILE = """
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "bernoulli"
arms = 3
labels = ["control", "new-checkout", "two-step"]
[[strategy]]
name = "uniform"
"""

SUBPOPULATIONS = """
[problem]
goal = "best-feasible-arm"
delta = 0.1
[environment]
kind = "subpopulation-gaussian"
arms = 2
weights = [0.5, 0.5]
labels = ["old", "new"]
[[strategy]]
name = "uniform"
"""


def _python_session(tmp_path, labels=LABELS):
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.1))
    return Session.create(tmp_path / "ab.db", problem=problem, strategy=make_strategy("uniform"), labels=labels)


def test_tell_takes_labels_and_indices_and_status_names_the_arms(tmp_path):
    with _python_session(tmp_path) as session:
        for _ in range(6):  # uniform: two rounds of the three arms
            request = session.ask()
            sources = [LABELS[a] if a != 1 else int(a) for a in request.requests]  # labels mixed with indices
            session.tell(request.id, sources, [float(a == 1) for a in request.requests])
        assert request.rows[0]["label"] == LABELS[request.requests[0]]
        status = session.status()
        assert status["labels"] == LABELS and status["recommendation"] == 1
        assert status["recommendation_label"] == "new-checkout" and status["answer"] == "new-checkout (arm 1)"
        assert [row["label"] for row in session.observations()] == LABELS * 2
        request = session.ask()
        with pytest.raises(InvalidParameterError, match="unknown label 'new-chekout'") as info:
            session.tell(request.id, ["new-chekout"], [1.0])
        assert "\n" not in str(info.value)
        assert session.status()["answers"] == 6  # nothing written


def test_without_labels_the_status_keys_are_null_and_strings_are_refused(tmp_path):
    with _python_session(tmp_path, labels=None) as session:
        request = session.ask()
        with pytest.raises(InvalidParameterError, match="not an arm index"):
            session.tell(request.id, ["control"], [1.0])
        session.tell(request.id, request.requests, [1.0])
        status = session.status()
        assert status["labels"] is None and status["recommendation_label"] is None
        assert status["answer"].startswith("arm ") and "label" not in session.observations()[0]


def test_bad_labels_of_session_create_are_one_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"^environment\.labels: expected one label per arm \(3 labels, 2 given\)"):
        _python_session(tmp_path, labels=["a", "b"])


def _cli(*args) -> int:
    return main([str(a) for a in args])


def test_cli_answers_by_label_status_and_export_show_them(tmp_path, capsys):
    db, file, answers = tmp_path / "s.db", tmp_path / "s.toml", tmp_path / "answers.csv"
    file.write_text(FILE)
    assert _cli("session", "new", file, "--db", db) == 0
    for request, text in enumerate(["source,reward\ncontrol,0\n", "label,reward\nnew-checkout,1\n",
                                    "request,source,label,reward\n3,2,two-step,1\n"], start=1):
        assert _cli("session", "ask", "--db", db, "--csv", tmp_path / "ask.csv") == 0
        asked = (tmp_path / "ask.csv").read_text().splitlines()
        assert asked[0] == "request,source,label" and asked[1].endswith(LABELS[request - 1])
        answers.write_text(text)
        assert _cli("session", "tell", "--db", db, "--request", request, "--csv", answers) == 0
    capsys.readouterr()
    assert _cli("session", "status", "--db", db) == 0
    text = capsys.readouterr().out
    assert "recommendation: new-checkout (arm 1)" in text and "two-step (arm 2)" in text
    assert _cli("session", "status", "--db", db, "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["labels"] == LABELS and status["recommendation_label"] == "new-checkout"
    assert _cli("session", "export", "--db", db) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "observation,answer,request,source,label,reward,time"
    assert [line.split(",")[4] for line in lines[1:]] == LABELS


@pytest.mark.parametrize("text, message", [
    ("source,reward\nnew-chekout,1\n", "answers.csv, line 2: source: unknown label 'new-chekout'"),
    ("source,label,reward\n0,two-step,1\n", "label 'two-step' is not the arm of source 0"),
])
def test_cli_refuses_an_unknown_or_contradicting_label_with_one_line(tmp_path, capsys, text, message):
    db, file, answers = tmp_path / "s.db", tmp_path / "s.toml", tmp_path / "answers.csv"
    file.write_text(FILE)
    assert _cli("session", "new", file, "--db", db) == 0
    assert _cli("session", "ask", "--db", db, "--csv", tmp_path / "ask.csv") == 0
    answers.write_text(text)
    capsys.readouterr()
    assert _cli("session", "tell", "--db", db, "--request", 1, "--csv", answers) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1


def test_subpopulation_answers_name_the_arm_by_label(tmp_path):
    file = tmp_path / "s.toml"
    file.write_text(SUBPOPULATIONS)
    with Session.create(tmp_path / "s.db", file) as session:
        request = session.ask()  # cell 0: arm "old", subpopulation 0
        assert request.rows[0] == {"request": 1, "source": 0, "arm": 0, "subpopulation": 0, "label": "old"}
        answers = tmp_path / "answers.csv"
        answers.write_text("arm,subpopulation,reward\nold,0,0.5\n")
        session.tell_csv(1, answers)
        assert session.observations()[0]["label"] == "old"
        assert session.layout.label(3) == "new (arm 1) / subpopulation 1"


def test_report_names_the_arms_in_its_table_and_legends(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.session_plots import plot_means_with_intervals, plot_samples_over_time
    from pybai.session.report import write_session_report

    with _python_session(tmp_path) as session:
        for _ in range(2):
            request = session.ask()
            session.tell(request.id, request.requests, [float(a == 1) for a in request.requests])
        page = write_session_report(session, tmp_path / "report").read_text()
    assert "new-checkout (arm 1)" in page and "two-step (arm 2)" in page
    fig, ax = plt.subplots()
    plot_samples_over_time(np.arange(1, 4), np.eye(3).cumsum(axis=0), ax, labels=LABELS, highlight=[1])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["new-checkout (recommended)", "control", "two-step"]
    ax.clear()
    plot_means_with_intervals(np.zeros(3), -np.ones(3), np.ones(3), ax, labels=LABELS)
    assert [t.get_text() for t in ax.get_xticklabels()] == LABELS
    plt.close("all")
