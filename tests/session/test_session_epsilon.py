"""An epsilon given to a running session (Session.set_epsilon, pybai session epsilon): a near-tie stops."""

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, TopKProblem, make_strategy
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
    top = TopKProblem(3, 1, Gaussian(1.0, n_sources=3), FixedConfidence(0.05))
    with Session.create(tmp_path / "k.db", problem=top, strategy=make_strategy("lucb"), seed=1, name="k") as session:
        with pytest.raises(InvalidParameterError, match="no epsilon version"):
            session.set_epsilon(0.5)


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
