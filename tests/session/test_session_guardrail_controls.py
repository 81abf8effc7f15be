"""Cancel and set_epsilon on guardrail sessions, through Python, the command line and HTTP: a cancelled
request's arm goes back to the rule and its answer is refused; an epsilon on the objective is journaled,
replayed and lets a tie of two feasible arms stop, certified; a relative epsilon is refused with one line.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from pybai import FixedConfidence, GaussianEnvironment, make_strategy
from pybai.cli import main
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import InvalidParameterError, RequestError
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.session import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from _serve_sessions import client_for, folder  # noqa: E402,F401 (fixtures)

NAMES = ("revenue", "latency")
#: "a" and "b" tie on revenue and keep latency <= 0; "fast" earns most and breaks it
WORLD = MultiMetricEnvironment({"revenue": GaussianEnvironment([0.5, 0.5, 1.5]),
                                "latency": GaussianEnvironment([-1.0, -1.0, 1.0])}, [[1.0, 0.6], [0.6, 1.0]])


def _create(db, max_pending=1, name="g"):
    problem = GuardrailProblem(3, [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0)],
                               FixedConfidence(0.1), labels=["a", "b", "fast"])
    return Session.create(db, problem=problem, strategy=make_strategy("tas"), seed=5, name=name,
                          max_pending=max_pending)


def _rewards(request, rng):
    _, rewards = WORLD.respond(np.asarray(request.requests), rng)
    table = rewards.reshape(len(request.requests), len(NAMES))
    return {m: table[:, i].tolist() for i, m in enumerate(NAMES)}


def _answer(session, rng, n):
    for _ in range(n):
        request = session.ask()
        session.tell(request.id, request.requests, _rewards(request, rng))


def test_cancel_in_python_and_on_the_command_line(tmp_path, capsys):
    db = tmp_path / "g.db"
    rng = np.random.default_rng(1)
    with _create(db, max_pending=3) as s:
        _answer(s, rng, 6)
        first, second = s.ask(), s.ask()
        assert s.cancel(first.id) == len(first.requests)
        with pytest.raises(RequestError, match="cancelled"):
            s.tell(first.id, first.requests, _rewards(first, rng))
        s.tell(second.id, second.requests, _rewards(second, rng))
        status = s.status()
        assert status["withdrawn"] == 1 and status["pending"] == [] and status["samples"] == 7
        assert [int(c[0]) for c in status["counts"]] == np.asarray(status["counts"])[:, 1].tolist()  # whole rows
        third = s.ask()
    assert main(["session", "cancel", "--db", str(db), "--request", str(third.id)]) == 0
    assert "withdrew 1" in capsys.readouterr().out
    assert main(["session", "cancel", "--db", str(db), "--request", str(third.id)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "was cancelled" in err
    with Session.open(db) as again:  # replayed: the cancelled requests stay withdrawn, the rule goes on
        assert again.status()["withdrawn"] == 2 and again.status()["samples"] == 7
        _answer(again, rng, 3)
        assert again.status()["samples"] == 10


def test_cancel_over_http(folder, client_for):  # noqa: F811 (fixtures)
    _create(folder / "g.db", max_pending=2).close()
    client = client_for(folder / "g.db")
    asks = [client.post("/sessions/g/ask").json() for _ in range(2)]
    done = client.post("/sessions/g/cancel", json={"request": asks[0]["request"]}).json()
    assert done == {"request": asks[0]["request"], "withdrawn": 1}
    late = client.post("/sessions/g/tell", json={"request": asks[0]["request"], "sources": asks[0]["sources"],
                                                 "rewards": {"revenue": [1.0], "latency": [0.0]}})
    assert late.status_code == 410 and "cancelled" in late.json()["error"]
    told = client.post("/sessions/g/tell", json={"request": asks[1]["request"], "sources": asks[1]["sources"],
                                                 "rewards": {"revenue": [1.0], "latency": [-0.5]}})
    assert told.status_code == 200 and told.json()["samples"] == 1
    status = client.get("/sessions/g/status").json()
    assert status["withdrawn"] == 1 and status["pending"] == [] and status["guardrails"] is not None


def test_set_epsilon_lets_a_tie_stop_certified(tmp_path):
    db = tmp_path / "g.db"
    rng = np.random.default_rng(2)
    with _create(db) as s:
        _answer(s, rng, 60)
        assert s.status()["epsilon_settable"] and not s.stopped
        with pytest.raises(InvalidParameterError, match='epsilon_mode.*"additive" with guardrail metrics'):
            s.set_epsilon(0.3, "relative")
        assert s.status()["epsilon"] is None  # nothing written
        status = s.set_epsilon(0.3)
        assert (status["epsilon"], status["epsilon_mode"]) == (0.3, "additive")
        for _ in range(20_000):
            if s.stopped:
                break
            _answer(s, rng, 1)
        status = s.status()
    assert status["certified"] and status["recommendation"] in (0, 1)  # within 0.3 of the best feasible arm
    assert status["guardrails"]["arms"][status["recommendation"]]["state"] == "holds"
    with Session.open(db) as again:  # the journal has the epsilon: the replay stops at the same place
        replayed = again.status()
        assert again.problem.epsilon == 0.3
    for key in ("samples", "recommendation", "certified", "epsilon", "guardrails"):
        assert replayed[key] == status[key], key


def test_set_epsilon_on_the_command_line(tmp_path, capsys):
    db = tmp_path / "g.db"
    with _create(db) as s:
        _answer(s, np.random.default_rng(3), 20)
    assert main(["session", "epsilon", "--db", str(db), "--epsilon", "0.2", "--mode", "relative"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'epsilon_mode'" in err and '"additive" with guardrail metrics' in err
    assert main(["session", "epsilon", "--db", str(db), "--epsilon", "0.2"]) == 0
    assert "epsilon 0.2 (additive) given" in capsys.readouterr().out
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["epsilon"] == 0.2


def test_set_epsilon_over_http(folder, client_for):  # noqa: F811 (fixtures)
    with _create(folder / "g.db") as s:
        _answer(s, np.random.default_rng(4), 20)
    client = client_for(folder / "g.db")
    refused = client.post("/sessions/g/epsilon", json={"epsilon": 0.2, "epsilon_mode": "relative"})
    assert refused.status_code == 400 and '"additive" with guardrail metrics' in refused.json()["error"]
    status = client.post("/sessions/g/epsilon", json={"epsilon": 0.2}).json()
    assert status["epsilon"] == 0.2 and status["guardrails"] is not None
    assert client.get("/sessions/g/status").json()["epsilon"] == 0.2


def test_a_session_file_takes_an_epsilon_on_the_objective(tmp_path, capsys):
    path = tmp_path / "e.toml"
    path.write_text('name = "e"\n[problem]\ngoal = "best-arm"\ndelta = 0.1\nepsilon = 0.25\n'
                    '[[problem.metric]]\nname = "revenue"\nsigma = 1.0\n'
                    '[[problem.metric]]\nname = "latency"\nsigma = 1.0\nat_most = 0.0\n'
                    '[environment]\nkind = "multi-metric"\narms = 3\n[[strategy]]\nname = "tas"\n')
    db = tmp_path / "e.db"
    assert main(["session", "new", str(path), "--db", str(db)]) == 0
    capsys.readouterr()
    with Session.open(db) as s:
        assert s.problem.epsilon == 0.25 and s.status()["epsilon"] == 0.25
    path.write_text(path.read_text().replace('epsilon = 0.25\n', 'epsilon = 0.25\nepsilon_mode = "relative"\n'))
    assert main(["session", "new", str(path), "--db", str(tmp_path / "r.db")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "epsilon_mode" in err and not (tmp_path / "r.db").exists()
