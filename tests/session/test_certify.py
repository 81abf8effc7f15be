"""Sessions certify only under a proven threshold (issue 22, section 2).

A session whose strategy chooses no threshold runs the proven ``delta-correct`` one (stored in the
database's session file); an explicit ``threshold = "heuristic"`` stops "by the heuristic
threshold", never "certified"; a database written before this rule keeps its heuristic threshold
and replays exactly.
"""

import copy
import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import World, learner_document
from pybai import make_strategy
from pybai.cli import main
from pybai.config.learner import parse_session_file
from pybai.session import Session
from pybai.simulate.runner import run_replication
from pybai.simulate.seeding import replication_seed

DATA = Path(__file__).resolve().parent / "data"
HEURISTIC_STOP = "stopped: the heuristic threshold was crossed (not a proven guarantee)"


def stored_strategy(db) -> dict:
    con = sqlite3.connect(db)
    try:
        return json.loads(con.execute("SELECT document FROM definition").fetchone()[0])["strategy"][0]
    finally:
        con.close()


def test_default_session_is_delta_correct_and_certifies(workdir, gaussian_doc):
    world = World(gaussian_doc)  # the world's experiment runs "delta-correct", as the session must
    exp = world.experiment
    expected = run_replication(exp.strategies[0][1], exp.environment, exp.problem, replication_seed(11, 0))
    db = workdir / "s.db"
    with Session.create(db, learner_document(gaussian_doc)) as s:
        running = s.status()
        world.drive(s)
        st = s.status()
    assert stored_strategy(db) == {"name": "tas", "threshold": "delta-correct"}
    assert running["threshold_kind"] == "delta-correct" and running["proven"] and not running["certified"]
    assert st["stopped"] and st["samples"] == expected.samples
    assert st["threshold_kind"] == "delta-correct" and st["certified"] is True
    assert st["message"] == "stopped: the answer is certified at the requested confidence"


def test_session_from_objects_uses_delta_correct_unless_chosen(workdir, gaussian_doc):
    problem = World(gaussian_doc).experiment.problem
    with Session.create(workdir / "a.db", problem=problem, strategy=make_strategy("tas"), seed=3) as s:
        assert s.status()["threshold_kind"] == "delta-correct"
    assert stored_strategy(workdir / "a.db")["threshold"] == "delta-correct"
    chosen = make_strategy("tas", threshold="heuristic")
    with Session.create(workdir / "b.db", problem=problem, strategy=chosen, seed=3) as s:
        assert s.status()["threshold_kind"] == "heuristic" and not s.status()["proven"]
    assert stored_strategy(workdir / "b.db")["threshold"] == "heuristic"


def test_session_create_parses_its_document_once(workdir, gaussian_doc, monkeypatch):
    """The unchosen threshold is decided while the document is parsed, not by parsing it again."""
    import pybai.session.definition as session_module

    calls = []

    def counted(*args, **kwargs):
        calls.append(args[0])
        return parse_session_file(*args, **kwargs)

    monkeypatch.setattr(session_module, "parse_session_file", counted)
    problem = World(gaussian_doc).experiment.problem
    Session.create(workdir / "f.db", learner_document(gaussian_doc)).close()
    Session.create(workdir / "o.db", problem=problem, strategy=make_strategy("tas")).close()
    assert len(calls) == 2  # one a session
    assert stored_strategy(workdir / "f.db")["threshold"] == stored_strategy(workdir / "o.db")["threshold"] \
        == "delta-correct"
    budget = {**learner_document(gaussian_doc), "problem": {"goal": "best-arm", "budget": 50},
              "strategy": [{"name": "uniform"}]}
    Session.create(workdir / "b.db", budget).close()  # fixed budget: no threshold to choose
    assert "threshold" not in stored_strategy(workdir / "b.db") and len(calls) == 3


def test_explicit_heuristic_stops_without_certifying(workdir, gaussian_doc, capsys):
    doc = copy.deepcopy(gaussian_doc)
    doc["strategy"][0]["threshold"] = "heuristic"
    world = World(doc)
    db = workdir / "h.db"
    with Session.create(db, learner_document(doc)) as s:
        world.drive(s)
        st = s.status()
    assert st["stopped"] and st["status"] == "stopped"
    assert st["threshold_kind"] == "heuristic" and st["certified"] is False and st["proven"] is False
    assert st["message"] == HEURISTIC_STOP
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "certified: no, the heuristic threshold was crossed (not a proven guarantee)" in text
    assert "threshold heuristic (not a proven guarantee)" in text and "certified at" not in text
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certified"] is False
    assert main(["session", "export", "--db", str(db), "--csv", str(workdir / "obs.csv")]) == 0
    assert "(not certified: the heuristic threshold was crossed" in capsys.readouterr().out
    assert main(["session", "report", "--db", str(db), "--out", str(workdir / "report")]) == 0
    page = (workdir / "report" / "session.html").read_text()
    assert "heuristic (not a proven guarantee)" in page and "certified at" not in page


def test_old_database_keeps_its_heuristic_threshold_and_replays_identically(workdir, gaussian_doc):
    """A database written by pybai before issue 22 (no threshold key: the heuristic default)."""
    db = workdir / "old.db"
    shutil.copy(DATA / "old-default-threshold.db", db)
    assert "threshold" not in stored_strategy(db)
    doc = copy.deepcopy(gaussian_doc)
    doc["name"] = "old"
    doc["strategy"][0]["threshold"] = "heuristic"
    exp = World(doc).experiment
    expected = run_replication(exp.strategies[0][1], exp.environment, exp.problem, replication_seed(11, 0))
    with Session.open(db) as s:
        st = s.status()
        state = s._replay.strategy.get_state()
    assert st["samples"] == expected.samples == 26  # what the old code stopped at
    assert np.array_equal(np.asarray(st["counts"]), expected.counts)
    assert st["threshold_kind"] == "heuristic" and st["certified"] is False and st["message"] == HEURISTIC_STOP
    with Session.open(db) as again:
        assert again._replay.strategy.get_state() == state


def test_fixed_budget_sessions_have_no_threshold(workdir):
    doc = {"problem": {"goal": "best-arm", "budget": 4}, "environment": {"kind": "bernoulli", "arms": 2},
           "strategy": [{"name": "uniform"}]}
    with Session.create(workdir / "b.db", doc) as s:
        st = s.status()
    assert "threshold" not in stored_strategy(workdir / "b.db")
    assert st["threshold_kind"] is None and st["certified"] is False and st["near_tie"] is None


@pytest.mark.parametrize("threshold", ["delta-correct", "heuristic"])
def test_a_rule_with_its_own_proven_stopping_certifies(workdir, threshold):
    doc = {"name": "racing", "seed": 2, "replications": 1,
           "problem": {"goal": "top-k", "k": 1, "delta": 0.1},
           "environment": {"kind": "gaussian", "means": [2.0, 0.0, -0.5]},
           "strategy": [{"name": "batch-racing", "threshold": threshold}]}
    world = World(doc)
    with Session.create(workdir / "r.db", learner_document(doc)) as s:
        world.drive(s)
        st = s.status()
    assert st["threshold_kind"] == "delta-correct" and st["certified"] is True
