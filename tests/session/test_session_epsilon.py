"""An epsilon given to a running session (Session.set_epsilon, pybai session epsilon): a near-tie stops."""

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.problems.linear import LinearBestArmProblem
from pybai.cli import main
from pybai.exceptions import InvalidParameterError, SessionStateError
from pybai.session import Session


def _create(db, threshold=None, state_every=None):
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.05))
    strategy = make_strategy("tas") if threshold is None else make_strategy("tas", threshold=threshold)
    session = Session.create(db, problem=problem, strategy=strategy, seed=4, name="tie")
    if state_every is not None:
        session.state_every = state_every
    return session


def _answer(session, rng, n):
    for _ in range(n):
        if session.stopped:
            return
        request = session.ask()
        session.tell(request.id, request.requests, rng.normal(0.0, 1.0, len(request)))  # an exact tie


def test_a_tie_stops_and_is_certified_once_an_epsilon_is_given(tmp_path):
    rng = np.random.default_rng(0)
    with _create(tmp_path / "s.db", state_every=37) as session:
        _answer(session, rng, 300)
        assert not session.stopped  # a tie: no exact answer is ever certified
        status = session.set_epsilon(0.5)
        assert session.problem.epsilon == 0.5
        _answer(session, rng, 20_000)
        final = session.status()
    assert final["stopped"] and final["certified"] and final["samples"] < 20_300
    with Session.open(tmp_path / "s.db") as again:  # from the stored states (every 37 answers) and the journal
        assert again.status() == final and again.problem.epsilon == 0.5
    with Session.open(tmp_path / "s.db") as fresh:  # the whole log replayed: the epsilon at its place
        with fresh._store.writing("forget the stored states"):
            fresh._store._db.exec_driver_sql("DELETE FROM snapshots")
        fresh._replay = None
        assert fresh.status() == final
    assert status["samples"] <= final["samples"]


def test_refusals_write_nothing(tmp_path):
    with _create(tmp_path / "a.db") as session:
        with pytest.raises(SessionStateError, match="nothing was asked"):
            session.set_epsilon(0.5)
        request = session.ask()
        session.tell(request.id, request.requests, np.zeros(len(request)))
        for bad in (-1.0, 0.0, None):
            with pytest.raises(InvalidParameterError, match="epsilon"):
                session.set_epsilon(bad)
        with pytest.raises(InvalidParameterError, match="epsilon_mode"):
            session.set_epsilon(0.5, "sideways")
        assert session._store.journal_after(0)[-1].kind == "answer"
    with _create(tmp_path / "h.db", threshold="heuristic") as session:
        request = session.ask()
        session.tell(request.id, request.requests, np.zeros(len(request)))
        with pytest.raises(InvalidParameterError, match="proven threshold"):
            session.set_epsilon(0.5)
    line = LinearBestArmProblem([[1.0, 0.0], [0.0, 1.0]], 1.0, FixedConfidence(0.05))
    with Session.create(tmp_path / "l.db", problem=line, strategy=make_strategy("tas"), seed=1, name="l") as session:
        with pytest.raises(InvalidParameterError, match="no epsilon version"):
            session.set_epsilon(0.5)


def test_a_top_k_session_file_with_epsilon_certifies_a_tie(tmp_path):
    """epsilon-top-k in a session file: ask/tell on a tie at the boundary ends certified."""
    doc = {"name": "k", "seed": 2, "problem": {"goal": "top-k", "k": 2, "delta": 0.1, "epsilon": 0.6},
           "environment": {"kind": "gaussian", "arms": 4, "sigma": 1.0}, "strategy": [{"name": "game"}]}
    means, rng = np.array([1.0, 0.5, 0.5, 0.0]), np.random.default_rng(3)
    with Session.create(tmp_path / "t.db", doc) as session:
        assert session.problem.epsilon == 0.6 and session.problem.shift == (1.0, 0.6)
        while not session.stopped:
            request = session.ask()
            session.tell(request.id, request.requests, rng.normal(means[request.requests], 1.0))
        status = session.status()
    assert status["certified"] and status["threshold_kind"] == "delta-correct"
    assert 0 in status["recommendation"] and len(status["recommendation"]) == 2
    with Session.open(tmp_path / "t.db") as again:
        assert again.status() == status and again.problem.epsilon == 0.6


def test_cli_epsilon(tmp_path, capsys):
    db = tmp_path / "c.db"
    with _create(db) as session:
        _answer(session, np.random.default_rng(1), 50)
    assert main(["session", "epsilon", "--db", str(db), "--epsilon", "0.4"]) == 0
    assert "epsilon 0.4 (additive) given" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["session", "epsilon", "--db", str(db), "--epsilon", "-1"])
    assert exc.value.code == 2
    with Session.open(db) as session:
        assert session.problem.epsilon == 0.4
