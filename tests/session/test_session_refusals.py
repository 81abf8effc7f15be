"""Every refusal of a session: one clear message, and nothing written (the database is unchanged)."""

import hashlib
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from conftest import learner_document
from pybai.cli import main
from pybai.exceptions import ConfigError, InvalidParameterError, RequestError, SessionStateError
from pybai.session import Session
from pybai.session.store import SCHEMA_VERSION


def fingerprint(db):
    """The log's content (tables), to check that a refusal wrote nothing."""
    con = sqlite3.connect(db)
    text = repr([con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                 for t in ("requests", "answers", "observations")])
    con.close()
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def session(tmp_path, gaussian_doc):
    with Session.create(tmp_path / "s.db", learner_document(gaussian_doc)) as s:
        yield s


@pytest.fixture
def bernoulli(tmp_path):
    doc = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "bernoulli", "arms": 3},
           "strategy": [{"name": "tas"}]}
    with Session.create(tmp_path / "b.db", doc) as s:
        yield s


@pytest.fixture
def plate(tmp_path, batch_doc):
    with Session.create(tmp_path / "p.db", learner_document(batch_doc)) as s:
        yield s


def refused(session, error, match, call):
    before = fingerprint(session.path)
    status = session.status()
    with pytest.raises(error, match=match):
        call()
    assert fingerprint(session.path) == before
    assert session.status() == status
    with Session.open(session.path) as again:  # and a reopened session agrees
        assert again.status()["samples"] == status["samples"]


def test_tell_without_ask(session):
    refused(session, SessionStateError, "request 1 does not exist; no request is pending",
            lambda: session.tell(1, [0], [0.5]))


def test_unknown_request(session):
    r = session.ask()
    refused(session, RequestError, f"request 7 does not exist; the pending request is {r.id}",
            lambda: session.tell(7, r.requests, [0.5]))


def test_answered_twice_is_refused_not_double_counted(session):
    r = session.ask()
    session.tell(r.id, r.requests, [0.5])
    refused(session, RequestError, "request 1 was already answered", lambda: session.tell(r.id, r.requests, [0.5]))
    session.ask()
    refused(session, RequestError, "request 1 was already answered", lambda: session.tell(1, [0], [0.5]))
    assert session.status()["samples"] == 1


def test_source_not_requested(session):
    r = session.ask()
    other = (int(r.requests[0]) + 1) % 3
    refused(session, RequestError, "not pending", lambda: session.tell(r.id, [other], [0.5]))
    refused(session, RequestError, "not pending", lambda: session.tell(r.id, [0, 0], [0.5, 0.1]))
    refused(session, InvalidParameterError, "integer indices", lambda: session.tell(r.id, [5], [0.5]))


@pytest.mark.parametrize("reward", [np.nan, np.inf, -np.inf])
def test_non_finite_reward(session, reward):
    r = session.ask()
    refused(session, RequestError, "finite", lambda: session.tell(r.id, r.requests, [reward]))


def test_bad_types(session):
    r = session.ask()
    refused(session, InvalidParameterError, "request_id", lambda: session.tell("1", r.requests, [0.5]))
    refused(session, InvalidParameterError, "integer source", lambda: session.tell(r.id, [0.5], [0.5]))
    refused(session, InvalidParameterError, "numbers", lambda: session.tell(r.id, r.requests, ["high"]))
    refused(session, InvalidParameterError, "one reward per source", lambda: session.tell(r.id, r.requests, [1, 2]))


@pytest.mark.parametrize("reward", [0.5, 2.0, -1.0])
def test_bernoulli_rewards_outside_0_1(bernoulli, reward):
    r = bernoulli.ask()
    refused(bernoulli, RequestError, "0 or 1", lambda: bernoulli.tell(r.id, r.requests, [reward]))
    bernoulli.tell(r.id, r.requests, [1.0])


def test_tell_and_ask_after_the_stop(tmp_path):
    doc = {"problem": {"goal": "best-arm", "budget": 3}, "environment": {"kind": "gaussian", "arms": 3},
           "strategy": [{"name": "uniform"}]}
    with Session.create(tmp_path / "fb.db", doc) as s:
        for _ in range(3):
            r = s.ask()
            s.tell(r.id, r.requests, [float(r.requests[0])])
        assert s.stopped and s.status()["status"] == "budget-spent"
        refused(s, SessionStateError, "has stopped.*recommendation: arm 2", s.ask)
        refused(s, SessionStateError, "request 3 cannot be answered: the session has stopped",
                lambda: s.tell(3, [2], [1.0]))


def test_partial_batch_answer_keeps_the_rest_pending_under_the_same_id(plate):
    first = plate.ask()
    plate.tell(first.id, first.requests, np.zeros(len(first)))
    r = plate.ask()
    assert len(r) == 8
    half = r.requests[:5]
    receipt = plate.tell(r.id, half, np.ones(5))
    assert receipt.pending == 3 and receipt.stored == 5 and not receipt.stopped
    again = plate.ask()
    assert again.id == r.id and sorted(again.requests.tolist()) == sorted(r.requests[5:].tolist())
    st = plate.status()
    assert st["pending"] == {"request": r.id, "size": 3} and st["samples"] == 5 + len(first)
    # the answered part cannot be told again: those samples are no longer pending
    refused(plate, RequestError, "not pending", lambda: plate.tell(r.id, half, np.ones(5)))
    plate.tell(r.id, again.requests, np.ones(3))
    assert plate.status()["samples"] == 8 + len(first) and plate.status()["batches"] == 2
    with Session.open(plate.path) as reopened:  # replay applies the two parts in order
        assert reopened._replay.strategy.get_state() == plate._replay.strategy.get_state()


# ----------------------------------------------------------------- files and databases
def test_newer_schema_is_refused_with_one_line(session, capsys):
    con = sqlite3.connect(session.path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    con.commit()
    con.close()
    with pytest.raises(SessionStateError, match=f"session schema {SCHEMA_VERSION + 1}, newer than"):
        Session.open(session.path)
    assert main(["session", "status", "--db", str(session.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "upgrade pybai" in err[0]


def test_not_a_session_database(tmp_path):
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(SessionStateError, match="not a pybai session database"):
        Session.open(other)
    text = tmp_path / "notes.txt"
    text.write_text("hello " * 200)
    with pytest.raises(SessionStateError, match="not a pybai session database"):
        Session.open(text)
    with pytest.raises(InvalidParameterError, match="no such session database"):
        Session.open(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_create_refuses_an_existing_file_and_bad_session_files(session, tmp_path, gaussian_doc):
    with pytest.raises(InvalidParameterError, match="already exists"):
        Session.create(session.path, learner_document(gaussian_doc))
    with pytest.raises(ConfigError, match="environment.means: a session file gives only what the learner knows"):
        Session.create(tmp_path / "t.db", gaussian_doc)
    two = learner_document(gaussian_doc)
    two["strategy"].append({"name": "uniform"})
    with pytest.raises(ConfigError, match="exactly one strategy"):
        Session.create(tmp_path / "t.db", two)
    assert not (tmp_path / "t.db").exists()


# ----------------------------------------------------------------- CSV answers
@pytest.mark.parametrize("text,message", [
    ("arm,reward\n0,1.0\n", "unknown column 'arm'; expected columns source, reward"),
    ("source,value\n0,1.0\n", "unknown column 'value'"),
    ("source\n0\n", "missing column 'reward'"),
    ("reward\n1.0\n", "missing column 'source'"),
    ("source,reward,source\n0,1,0\n", "appears twice"),
    ("source,reward\n0,high\n", "line 2: reward 'high' is not a number"),
    ("source,reward\nzero,1.0\n", "line 2: source 'zero' is not an integer"),
    ("source,reward\n0,\n", "no rewards"),
    ("request,source,reward\n9,0,1.0\n", "line 2: request 9, but the answer is for request 1"),
    ("source,reward\n0,1.0,3\n", "line 2: 3 cells, expected 2"),
    ("", "empty file"),
    ("source,reward\n0,nan\n", "finite"),
    ("source,reward\n0,1_000\n", "line 2: reward '1_000' is not a number"),
    ("source,reward\n0,１２\n", "line 2: reward '１２' is not a number"),
    ("source,reward\n０,1.0\n", "line 2: source '０' is not an integer"),
])
def test_csv_refusals_one_line_exit_2(session, tmp_path, capsys, text, message):
    session.ask()
    before = fingerprint(session.path)
    answers = tmp_path / "a.csv"
    answers.write_text(text, encoding="utf-8")
    assert main(["session", "tell", "--db", str(session.path), "--request", "1", "--csv", str(answers)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert fingerprint(session.path) == before


def test_subpopulation_csv_columns(tmp_path):
    doc = {"problem": {"goal": "best-feasible-arm", "delta": 0.1},
           "environment": {"kind": "subpopulation-gaussian", "arms": 2, "weights": [0.5, 0.5]},
           "strategy": [{"name": "tas-cs", "n_init": 1}]}
    with Session.create(tmp_path / "sub.db", doc) as s:
        r = s.ask()
        (row,) = r.rows
        assert row == {"request": 1, "source": 0, "arm": 0, "subpopulation": 0}
        answers = tmp_path / "a.csv"
        answers.write_text("arm,subpopulation,reward\n0,1,1.0\n")  # cell (0, 1) was not requested
        with pytest.raises(RequestError):
            s.tell_csv(r.id, answers)
        answers.write_text("source,arm,subpopulation,reward\n1,0,0,1.0\n")
        with pytest.raises(InvalidParameterError, match="source 1 is not arm 0, subpopulation 0"):
            s.tell_csv(r.id, answers)
        answers.write_text("arm,reward\n0,1.0\n")
        with pytest.raises(InvalidParameterError, match="'arm' and 'subpopulation' go together"):
            s.tell_csv(r.id, answers)
        answers.write_text("request,arm,subpopulation,reward\n1,0,0,0.25\n")
        assert s.tell_csv(r.id, answers).stored == 1
        assert s.observations()[0]["reward"] == "0.25"


def test_cli_user_errors_in_a_subprocess_exit_2_without_traceback(session, tmp_path):
    session.ask()
    answers = tmp_path / "a.csv"
    answers.write_text("source,reward\n2,1.0\n" if session.ask().requests[0] != 2 else "source,reward\n1,1.0\n")
    proc = subprocess.run([sys.executable, "-m", "pybai.cli", "session", "tell", "--db", str(session.path),
                           "--request", "1", "--csv", str(answers)], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "not pending" in proc.stderr


def test_create_from_objects_blames_the_family_it_cannot_describe(tmp_path):
    """A goal that session files serve, on a family none of their kinds describes: the error names the family."""
    from dataclasses import dataclass

    from pybai import BestArmProblem, FixedConfidence, Gaussian, TrackAndStop

    @dataclass(frozen=True, eq=False)
    class Laplace(Gaussian):
        def __post_init__(self):
            super().__post_init__()
            object.__setattr__(self, "name", "laplace")

    problem = BestArmProblem(3, Laplace(1.0, n_sources=3), FixedConfidence(0.05))
    with pytest.raises(InvalidParameterError) as info:
        Session.create(tmp_path / "l.db", problem=problem, strategy=TrackAndStop())
    text = str(info.value)
    assert "must have a reward family a session file can describe" in text
    assert "family 'laplace' (rewards in [-inf, inf], 3 sources)" in text and "goal 'best-arm' (gaussian, " in text
    assert not (tmp_path / "l.db").exists()


def test_create_from_objects_with_bounded_rewards_on_any_range(tmp_path):
    """Revenue in [0, 100]: the session file stored is kind "beta" with the problem's reward_range."""
    from pybai import BestArmProblem, Bounded, FixedConfidence, TrackAndStop

    problem = BestArmProblem(2, Bounded(2, 0.0, 100.0), FixedConfidence(0.05))
    with Session.create(tmp_path / "r.db", problem=problem, strategy=TrackAndStop()) as s:
        assert (s.problem.family.low, s.problem.family.high) == (0.0, 100.0)
        request = s.ask()
        s.tell(request.id, request.requests, [57.5] * len(request))
        request = s.ask()
        with pytest.raises(RequestError, match=r"in \[0, 100\]"):
            s.tell(request.id, request.requests, [120.0] * len(request))
