"""Sessions on guardrail metrics: every answer carries every metric of its arm.

Through the command line against a simulated world (the same stopping time, counts and answer as
``pybai run`` on replication 0 of the seed), through Python (answers as ``{metric: values}`` or
rows, stored and replayed from SQLite), and through HTTP (``pybai serve``).
"""

import copy
import csv
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pybai import FixedConfidence, make_strategy
from pybai.cli import main
from pybai.config import load_experiment
from pybai.exceptions import ConfigError, InvalidParameterError, RequestError
from pybai.config.learner import parse_session_file
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.session import Session
from pybai.simulate.runner import run_replication
from pybai.simulate.seeding import replication_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from _serve_sessions import client_for, folder  # noqa: E402,F401 (fixtures)
from _session_driver import drive  # noqa: E402

#: the learner's metrics (both files); the world adds the truth
METRICS = """
[[problem.metric]]
name = "revenue"
sigma = 1.0
[[problem.metric]]
name = "latency"
sigma = 1.0
at_most = 0.0
[[problem.metric]]
name = "refunds"
reward_model = "bernoulli"
at_most_vs_control = 0.2
"""
WORLD = """
name = "guarded"
seed = 38
replications = 1
[problem]
goal = "best-arm"
delta = 0.1
control = "control"
{metrics}
[environment]
kind = "multi-metric"
labels = ["control", "small", "big", "heavy"]
correlation = [[1.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 1.0]]
[[environment.metric]]
name = "revenue"
kind = "gaussian"
means = [0.0, 0.2, 2.0, 3.0]
sigma = 1.0
[[environment.metric]]
name = "latency"
kind = "gaussian"
means = [-1.0, -1.0, -1.5, 1.5]
sigma = 1.0
[[environment.metric]]
name = "refunds"
kind = "bernoulli"
means = [0.3, 0.3, 0.05, 0.3]
[[strategy]]
name = "tas"
threshold = "delta-correct"
"""
SESSION = """
name = "guarded"
seed = 38
[problem]
goal = "best-arm"
delta = 0.1
control = "control"
{metrics}
[environment]
kind = "multi-metric"
labels = ["control", "small", "big", "heavy"]
[[strategy]]
name = "tas"
"""
NAMES = ("revenue", "latency", "refunds")


def _files(tmp_path):
    world = tmp_path / "world.toml"
    world.write_text(textwrap.dedent(WORLD.format(metrics=METRICS)))
    session = tmp_path / "session.toml"
    session.write_text(textwrap.dedent(SESSION.format(metrics=METRICS)))
    return world, session


def test_a_cli_session_equals_pybai_run(tmp_path, capsys, monkeypatch):
    """The world answers each ``ask`` CSV with one row per observation (arm label and every metric)."""
    # every command reopens the session: a stored state every 8 answers (the class default: 500) makes each reopen
    # restore one (checked against the log) and replay the rest, instead of replaying the whole log each time
    monkeypatch.setattr(Session, "state_every", 8)
    world_file, session_file = _files(tmp_path)
    experiment = load_experiment(world_file)
    seed = replication_seed(experiment.seed, 0)
    db = tmp_path / "s.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    drive(world_file, db, tmp_path, max_rounds=20_000, metrics=NAMES)
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    outcome = run_replication(experiment.strategies[0][1], experiment.environment, experiment.problem, seed)
    assert status["stopped"] and status["certified"]
    assert status["samples"] == outcome.samples
    assert np.array_equal(np.asarray(status["counts"], dtype=float).ravel(), np.asarray(outcome.counts).ravel())
    assert status["recommendation"] == outcome.recommendation == 2  # "heavy" breaks the latency guardrail
    export = tmp_path / "export.csv"
    assert main(["session", "export", "--db", str(db), "--csv", str(export)]) == 0
    with open(export, newline="") as fh:
        exported = list(csv.DictReader(fh))
    assert len(exported) == outcome.samples  # one row per observation, every metric in it
    assert list(exported[0])[3:8] == ["arm", "label", *NAMES]


def test_cli_answers_refused_in_one_line(tmp_path, capsys):
    _, session_file = _files(tmp_path)
    db = tmp_path / "s.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    assert main(["session", "ask", "--db", str(db), "--csv", str(tmp_path / "ask.csv")]) == 0
    capsys.readouterr()
    bad = {"missing": "arm,revenue,latency\n0,1,2\n", "partial": "arm,revenue,latency,refunds\n0,1,,0\n",
           "range": "arm,revenue,latency,refunds\n0,1,2,1.5\n", "unknown": "arm,revenue,latency,refunds,x\n0,1,2,0,1\n"}
    expected = {"missing": "missing column 'refunds'", "partial": "metric 'latency' is empty",
                "range": "metric 'refunds' takes rewards 0 or 1. Got 1.5", "unknown": "unknown column 'x'"}
    for name, text in bad.items():
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        assert main(["session", "tell", "--db", str(db), "--request", "1", "--csv", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and expected[name] in err, (name, err)
    empty = tmp_path / "pending.csv"
    empty.write_text("arm,revenue,latency,refunds\n0,,,\n")  # every metric empty: stays pending, nothing told
    assert main(["session", "tell", "--db", str(db), "--request", "1", "--csv", str(empty)]) == 2
    assert "no rewards" in capsys.readouterr().err


def _problem():
    return GuardrailProblem(3, [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
                                Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.1)],
                            FixedConfidence(0.1), control="control", labels=["control", "a", "b"])


def test_python_answers_are_stored_and_replayed(tmp_path):
    db = tmp_path / "p.db"
    rng = np.random.default_rng(4)
    with Session.create(db, problem=_problem(), strategy=make_strategy("tas"), seed=2) as s:
        s.state_every = 7  # snapshots on the way: reopening restores one and replays the rest
        for i in range(40):
            req = s.ask()
            n = len(req.requests)
            values = {"revenue": rng.normal(size=n), "latency": rng.normal(-0.5, 1.0, n),
                      "refunds": (rng.random(n) < 0.2).astype(float)}
            if i % 2:  # rows of M values per arm, arms by label
                table = np.column_stack([values[m] for m in NAMES])
                receipt = s.tell(req.id, [["control", "a", "b"][a] for a in req.requests], table)
            else:
                receipt = s.tell(req.id, req.requests, values)
            assert receipt.stored == n
        status = s.status()
        rows = s.observations()
    assert status["samples"] == 40 and len(rows) == 40
    assert np.asarray(status["counts"]).shape == (3, 3)
    assert np.asarray(status["counts"]).sum() == 40 * 3
    with Session.open(db) as again:
        replayed = again.status()
        assert again.observations() == rows
    for key in ("samples", "counts", "means", "statistic", "recommendation"):
        assert replayed[key] == status[key], key


def test_python_answers_refused_name_the_metric(tmp_path):
    with Session.create(tmp_path / "r.db", problem=_problem(), strategy=make_strategy("uniform"), seed=1) as s:
        req = s.ask()
        arms = req.requests
        cases = [({"revenue": [1.0], "latency": [0.0]}, "metric 'refunds' is missing"),
                 ({"revenue": [1.0], "latency": [0.0], "refunds": [0.0], "x": [1.0]}, "unknown metric 'x'"),
                 ({"revenue": [1.0, 2.0], "latency": [0.0], "refunds": [0.0]}, "metric 'revenue' has 2 values"),
                 ([1.0, 0.0], "one row of 3 values")]
        for rewards, text in cases:
            with pytest.raises(InvalidParameterError, match=text):
                s.tell(req.id, arms, rewards)
        with pytest.raises(RequestError, match="refunds"):
            s.tell(req.id, arms, {"revenue": [1.0], "latency": [0.0], "refunds": [1.5]})
        assert s.status()["samples"] == 0  # nothing written


def test_session_files_refuse_the_truth_and_check_the_metrics():
    doc = parse_session_file  # noqa: F841 (the reader under test)
    base = {"problem": {"goal": "best-arm", "delta": 0.1, "metric": [{"name": "revenue", "sigma": 1.0},
                                                                       {"name": "latency", "sigma": 1.0, "at_most": 0}]},
            "environment": {"kind": "multi-metric", "arms": 3}, "strategy": [{"name": "tas"}]}
    spec = parse_session_file(copy.deepcopy(base))
    assert isinstance(spec.problem, GuardrailProblem) and spec.problem.metric_names == ("revenue", "latency")
    for where, value, text in [("environment", {"metric": [{"name": "revenue", "kind": "gaussian"}]},
                                "environment.metric: a session file says"),
                               ("environment", {"correlation": [[1, 0], [0, 1]]}, "environment.correlation"),
                               ("problem", {"control": 7}, "control")]:
        bad = copy.deepcopy(base)
        bad[where].update(value)
        with pytest.raises(ConfigError, match=text) as info:
            parse_session_file(bad)
        assert "\n" not in str(info.value)
    bad = copy.deepcopy(base)
    bad["problem"]["metric"][1]["sigma"] = None
    del bad["problem"]["metric"][1]["sigma"]
    with pytest.raises(ConfigError, match=r"problem.metric\[1\].sigma"):
        parse_session_file(bad)


def test_http_tell_takes_an_object_of_metrics(folder, client_for):  # noqa: F811 (fixtures)
    Session.create(folder / "g.db", problem=_problem(), strategy=make_strategy("tas"), seed=3, name="g").close()
    client = client_for(folder)
    asked = client.post("/sessions/g/ask").json()
    assert asked["rows"] == [{"request": 1, "arm": asked["sources"][0], "label": "control",
                              "revenue": "", "latency": "", "refunds": ""}]
    body = {"request": 1, "sources": ["control"], "rewards": {"revenue": [0.5], "latency": [-0.2], "refunds": [0]}}
    receipt = client.post("/sessions/g/tell", json=body)
    assert receipt.status_code == 200, receipt.text
    assert receipt.json()["stored"] == 1 and receipt.json()["samples"] == 1
    missing = client.post("/sessions/g/ask").json()
    bad = client.post("/sessions/g/tell", json={"request": missing["request"], "sources": missing["sources"],
                                                "rewards": {"revenue": [1.0], "latency": [0.0]}})
    assert bad.status_code == 400 and "metric 'refunds' is missing" in bad.json()["error"]
    status = client.get("/sessions/g/status").json()
    assert status["samples"] == 1 and np.asarray(status["means"]).shape == (3, 3)
    export = client.get("/sessions/g/export").text.splitlines()
    assert export[0] == "observation,answer,request,arm,label,revenue,latency,refunds,time"
    assert export[1].split(",")[5:8] == ["0.5", "-0.2", "0.0"]
