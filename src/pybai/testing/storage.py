"""The checks every storage backend of sessions must pass (:mod:`pybai.session.backends`).

Each check takes ``new_database``, a function that returns a new, empty database each time it
is called: an SQLite path, a ``postgresql://`` URL, or a :class:`~pybai.session.backend_base.Backend`
object (what ``Session.create`` and ``Session.open`` accept as ``db``), and drives real sessions
in it: create, open, ask, tell, replay, stored states, several sessions.  pybai's own suite runs
them on an SQLite file and on a PostgreSQL server started for the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from pybai.exceptions import InvalidParameterError, RequestError, SessionStateError
from pybai.session.backends import backend_for
from pybai.session.session import Session
from pybai.session.store import list_sessions
from pybai.testing._outcomes import raises, run_checks

__all__ = ["DOCUMENT", "MEANS", "EVERY", "stored_states_every", "answer", "check_create_open_ask_tell",
           "check_run_to_the_stop_equals_its_replay", "check_stored_states", "check_several_sessions",
           "STORAGE_CHECKS", "check_storage"]

#: the session of the checks: best arm among three Bernoulli arms of means :data:`MEANS`
DOCUMENT = {"name": "ab", "seed": 5, "problem": {"goal": "best-arm", "delta": 0.05},
            "environment": {"kind": "bernoulli", "arms": 3}, "strategy": [{"name": "tas"}]}
MEANS = np.array([0.3, 0.5, 0.7])
#: the checks store the strategy's state every EVERY answers (sessions: every STATE_EVERY)
EVERY = 20


def _replay(session: Any) -> Any:
    """The session's live replay (open sessions always have one)."""
    assert session._replay is not None, "the session is closed"
    return session._replay


@contextmanager
def stored_states_every(answers: int) -> Iterator[None]:
    """Sessions store their strategy's state every ``answers`` answers inside the block."""
    before = Session.state_every
    Session.state_every = answers
    try:
        yield
    finally:
        Session.state_every = before


def answer(session, rng: np.random.Generator, n: int) -> list:
    """Ask and tell ``n`` times (Bernoulli rewards of :data:`MEANS`); the receipts."""
    out = []
    for _ in range(n):
        request = session.ask()
        rewards = (rng.random(len(request)) < MEANS[request.requests]).astype(float)
        out.append(session.tell(request.id, request.requests, rewards))
    return out


def _same_status(a: dict, b: dict) -> bool:
    return {**a, "version": 0} == {**b, "version": 0}


def check_create_open_ask_tell(new_database: Callable[[], Any]) -> None:
    """A session created, asked and told is listed by name and reopens (by name or alone) with the
    same status, observations and pending request; a refused tell writes nothing."""
    db = new_database()
    rng = np.random.default_rng(0)
    with Session.create(db, DOCUMENT) as session:
        answer(session, rng, 30)
        pending = session.ask()
        with raises(RequestError, match="already answered", doing="a tell of an answered request"):
            session.tell(pending.id - 1, [0], [1.0])
        status = session.status()
        rows = session.observations()
    assert list_sessions(db) == ["ab"], f"list_sessions gives {list_sessions(db)}"
    with Session.open(db) as again, Session.open(db, "ab") as named:
        assert again.ask().id == pending.id, "the pending request did not survive reopening"
        for reopened in (again, named):
            assert _same_status(reopened.status(), status), "a reopened session has another status"
        assert again.observations() == rows and len(rows) == 30, "a reopened session has other observations"
        assert again._store.integrity_check() == "ok", "the database fails its integrity check"
    assert (status["samples"], status["requests"], status["answers"]) == (30, 31, 30), status
    with raises(InvalidParameterError, match="no session named 'other'", doing="opening an unknown name"):
        Session.open(db, "other")


def check_run_to_the_stop_equals_its_replay(new_database: Callable[[], Any]) -> None:
    """A session run to its stop refuses to ask; reopened, its replay is the live strategy exactly."""
    db = new_database()
    rng = np.random.default_rng(1)
    document = {**DOCUMENT, "problem": {"goal": "best-arm", "delta": 0.2, "max_samples": 90}}
    with Session.create(db, document) as session:
        for _ in range(1000):
            if session.stopped:
                break
            answer(session, rng, 1)
        assert session.stopped, "the session did not stop within max_samples"
        state = _replay(session).strategy.get_state()
        with raises(SessionStateError, match="has stopped", doing="ask() after the stop"):
            session.ask()
    with Session.open(db) as again:
        assert _replay(again).strategy.get_state() == state, "the replayed strategy differs from the live one"
        assert again.history().samples[-1] == again.status()["samples"] > 0, "the history disagrees with the status"


def check_stored_states(new_database: Callable[[], Any]) -> None:
    """Reopening restores the newest stored state and replays only the answers after it, to the
    same strategy; the session goes on."""
    db = new_database()
    rng = np.random.default_rng(2)
    document = {**DOCUMENT, "problem": {"goal": "best-arm", "delta": 1e-12}}  # never stops in these samples
    with stored_states_every(EVERY):
        with Session.create(db, document) as session:
            answer(session, rng, EVERY + 7)
            state = _replay(session).strategy.get_state()
            stored = session._store.latest_state()
        assert stored is not None and stored.samples == EVERY, f"the stored state is {stored}"
        with Session.open(db) as again:
            assert len(again._store.events_after(0, 0).answers) == EVERY + 7, "answers were lost"
            assert _replay(again).n_answers == EVERY + 7, "the replay did not reach the last answer"
            assert _replay(again).strategy.get_state() == state, "restored and replayed, the strategy differs"
            answer(again, rng, 3)


def check_several_sessions(new_database: Callable[[], Any]) -> None:
    """A database that holds several sessions keeps them apart by name (and refuses a name twice);
    one that holds one session (a file per session) refuses a second."""
    db = new_database()
    Session.create(db, DOCUMENT).close()
    if backend_for(db).one_session_per_create:
        with raises(InvalidParameterError, match="already exists", doing="a second session in a one-session database"):
            Session.create(db, {**DOCUMENT, "name": "second"})
        return
    Session.create(db, {**DOCUMENT, "name": "second", "seed": 9}).close()
    with raises(InvalidParameterError, match="already holds a session named 'ab'", doing="a name twice"):
        Session.create(db, DOCUMENT)
    assert list_sessions(db) == ["ab", "second"], f"list_sessions gives {list_sessions(db)}"
    with raises(InvalidParameterError, match="holds 2 sessions", doing="opening without a name"):
        Session.open(db)
    rng = np.random.default_rng(3)
    with Session.open(db, "ab") as a, Session.open(db, "second") as b:
        answer(a, rng, 5)
        answer(b, rng, 2)
        assert (a.status()["samples"], b.status()["samples"]) == (5, 2), "the sessions share samples"
        assert (len(a.observations()), len(b.observations())) == (5, 2), "the sessions share observations"


#: the checks of one backend
STORAGE_CHECKS = (check_create_open_ask_tell, check_run_to_the_stop_equals_its_replay, check_stored_states,
                  check_several_sessions)


def check_storage(new_database: Callable[[], Any]) -> dict[str, str]:
    """Run every check of :data:`STORAGE_CHECKS`, each on a new database from ``new_database()``.

    Returns
    -------
    dict
        ``{check name: "passed"}``.

    Raises
    ------
    AssertionError
        One line per failed check.
    """
    return run_checks((check.__name__, check, (new_database,)) for check in STORAGE_CHECKS)
