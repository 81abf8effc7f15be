"""Sessions on guardrail metrics with a metric of unknown variance (``reward_model = "gaussian-unknown-variance"``).

Through the command line against a simulated world (the same stopping time, counts and answer as ``pybai run`` on
replication 0 of the seed, certified), through Python (stored, snapshot and replayed from SQLite), and through HTTP
(status, export, report): the metric's mean and Student-t interval per arm, its guardrail's state.
"""

import csv
import json
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pybai import FixedConfidence, make_strategy
from pybai.cli import main
from pybai.config import load_experiment
from pybai.exceptions import ConfigError
from pybai.config.learner import parse_session_file
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.session import Session
from pybai.simulate.runner import run_replication
from pybai.simulate.seeding import replication_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from _serve_sessions import client_for, folder  # noqa: E402,F401 (fixtures)
from _session_driver import drive  # noqa: E402

METRICS = """
[[problem.metric]]
name = "revenue"
sigma = 1.0
[[problem.metric]]
name = "latency"
reward_model = "gaussian-unknown-variance"
at_most = 0.0
"""
WORLD = """
name = "guarded-uv"
seed = 38
replications = 1
[problem]
goal = "best-arm"
delta = 0.1
control = "control"
{metrics}
[environment]
kind = "multi-metric"
labels = ["control", "big", "heavy"]
correlation = [[1.0, 0.5], [0.5, 1.0]]
[[environment.metric]]
name = "revenue"
kind = "gaussian"
means = [0.0, 1.5, 3.0]
sigma = 1.0
[[environment.metric]]
name = "latency"
kind = "gaussian"
means = [-1.0, -1.5, 1.5]
sigma = [0.5, 1.0, 2.0]
[[strategy]]
name = "tas"
threshold = "delta-correct"
"""
SESSION = """
name = "guarded-uv"
seed = 38
[problem]
goal = "best-arm"
delta = 0.1
control = "control"
{metrics}
[environment]
kind = "multi-metric"
labels = ["control", "big", "heavy"]
[[strategy]]
name = "tas"
"""
NAMES = ("revenue", "latency")


def _files(tmp_path):
    world = tmp_path / "world.toml"
    world.write_text(textwrap.dedent(WORLD.format(metrics=METRICS)))
    session = tmp_path / "session.toml"
    session.write_text(textwrap.dedent(SESSION.format(metrics=METRICS)))
    return world, session


def test_a_cli_session_equals_pybai_run_and_shows_the_metric(tmp_path, capsys, monkeypatch):
    # every command reopens the session: a stored state every 8 answers (the class default: 500) makes each reopen
    # restore one (checked against the log) and replay the rest, instead of replaying the whole log each time
    monkeypatch.setattr(Session, "state_every", 8)
    world_file, session_file = _files(tmp_path)
    experiment = load_experiment(world_file)
    seed = replication_seed(experiment.seed, 0)
    db = tmp_path / "s.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    assert "latency: gaussian rewards, variance unknown (estimated per arm), at most 0" in capsys.readouterr().out
    drive(world_file, db, tmp_path, max_rounds=20_000, metrics=NAMES)
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    outcome = run_replication(experiment.strategies[0][1], experiment.environment, experiment.problem, seed)
    assert status["stopped"] and status["certified"]
    assert status["samples"] == outcome.samples
    assert status["recommendation"] == outcome.recommendation == 1  # "heavy" breaks the latency guardrail
    means, low, high = (np.asarray(status[k], dtype=float) for k in ("means", "ci_low", "ci_high"))
    assert np.all(low < means) and np.all(means < high)  # every arm has >= 2 observations: finite intervals
    sd = np.asarray(status["sd"], dtype=float)
    assert np.isnan(sd[:, 0]).all() and np.all(sd[:, 1] > 0)  # estimated for the latency only
    arms = {a["arm"]: a for a in status["guardrails"]["arms"]}
    assert arms[1]["state"] == "holds"
    assert main(["session", "status", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"latency +mean", text) and "at most 0: holds" in text
    export = tmp_path / "export.csv"
    assert main(["session", "export", "--db", str(db), "--csv", str(export)]) == 0
    with open(export, newline="") as fh:
        assert len(list(csv.DictReader(fh))) == outcome.samples
    report = tmp_path / "report"
    assert main(["session", "report", "--db", str(db), "--out", str(report)]) == 0
    assert "latency" in (report / "session.html").read_text()


def _problem():
    return GuardrailProblem(3, [Metric("revenue", sigma=1.0),
                                Metric("latency", reward_model="gaussian-unknown-variance", at_most=0.0)],
                            FixedConfidence(0.1), control="control", labels=["control", "a", "b"])


def test_python_answers_are_stored_snapshot_and_replayed(tmp_path):
    db = tmp_path / "p.db"
    rng = np.random.default_rng(4)
    with Session.create(db, problem=_problem(), strategy=make_strategy("tas"), seed=2) as s:
        s.state_every = 7  # snapshots on the way: reopening restores one and replays the rest
        for _ in range(60):
            req = s.ask()
            n = len(req.requests)
            s.tell(req.id, req.requests, {"revenue": rng.normal(size=n), "latency": rng.normal(-0.5, 0.3, n)})
        status = s.status()
    with Session.open(db) as again:
        replayed = again.status()
    for key in ("samples", "counts", "means", "ci_low", "ci_high", "sd", "statistic", "recommendation", "guardrails",
                "estimated_samples_to_stop"):
        assert replayed[key] == status[key], key


def test_a_constant_metric_never_certifies_and_status_reads(tmp_path):
    """Every latency of arm 'b' is the same value (a misfit of the model): status still reads, names the arm and
    the metric, and the session does not certify from that metric."""
    with Session.create(tmp_path / "c.db", problem=_problem(), strategy=make_strategy("uniform"), seed=1) as s:
        rng = np.random.default_rng(0)
        with pytest.warns(Warning, match="repeat"):
            for _ in range(300):
                req = s.ask()
                arms = np.asarray(req.requests)
                latency = np.where(arms == 2, -0.7, rng.normal(-0.5, 0.3, arms.size))
                revenue = np.where(arms == 2, 3.0, 0.0) + rng.normal(size=arms.size)
                s.tell(req.id, req.requests, {"revenue": revenue, "latency": latency})
                if s.stopped:
                    break
        status = s.status()
    assert not status["stopped"]  # b's revenue is best, but its latency carries no evidence
    assert "b (arm 2) on latency" in status["reward_model_note"]
    assert status["guardrails"]["arms"][2]["state"] == "undecided"


def test_http_status_export_and_report(folder, client_for):  # noqa: F811 (fixtures)
    Session.create(folder / "g.db", problem=_problem(), strategy=make_strategy("tas"), seed=3, name="g").close()
    client = client_for(folder)
    rng = np.random.default_rng(5)
    for _ in range(12):
        asked = client.post("/sessions/g/ask").json()
        n = len(asked["sources"])
        body = {"request": asked["request"], "sources": asked["sources"],
                "rewards": {"revenue": rng.normal(size=n).tolist(), "latency": rng.normal(-0.5, 0.3, n).tolist()}}
        assert client.post("/sessions/g/tell", json=body).status_code == 200
    status = client.get("/sessions/g/status").json()
    assert status["metrics"] == ["revenue", "latency"] and np.asarray(status["means"]).shape == (3, 2)
    assert all(low is None or low < high for row_l, row_h in zip(status["ci_low"], status["ci_high"])
               for low, high in zip(row_l, row_h))
    assert [g["rule"] for g in status["guardrails"]["arms"][0]["guardrails"]] == ["at most 0"]
    assert client.get("/sessions/g/export").text.splitlines()[0].endswith("revenue,latency,time")
    assert client.get("/sessions/g").status_code == 200  # the dashboard (drawn from the status by its script)


def test_session_file_refuses_sigma_with_unknown_variance_naming_the_key():
    doc = {"problem": {"goal": "best-arm", "delta": 0.1,
                       "metric": [{"name": "revenue", "sigma": 1.0},
                                  {"name": "latency", "reward_model": "gaussian-unknown-variance", "sigma": 2.0,
                                   "at_most": 0}]},
           "environment": {"kind": "multi-metric", "arms": 3}, "strategy": [{"name": "tas"}]}
    with pytest.raises(ConfigError, match=r"problem.metric\[1\].sigma") as info:
        parse_session_file(doc)
    assert "\n" not in str(info.value)
