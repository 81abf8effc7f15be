"""One conformance suite run on every storage backend: an SQLite file and a real PostgreSQL server.

The ``storage_db`` fixture (tests/session/conftest.py) gives a new empty database of each backend.
"""

import json
import shutil
import sqlite3

import numpy as np
import pytest

from pybai.cli import main
from pybai.exceptions import InvalidParameterError, RequestError, SessionStateError
from pybai.session import Session, list_sessions

EVERY = 20  # the sessions here store their strategy's state every 20 answers (pybai: EVERY)
from pybai.session.schema import SCHEMA_VERSION

DOC = {"name": "ab", "seed": 5, "problem": {"goal": "best-arm", "delta": 0.05},
       "environment": {"kind": "bernoulli", "arms": 3}, "strategy": [{"name": "tas"}]}
MEANS = np.array([0.3, 0.5, 0.7])


@pytest.fixture(autouse=True)
def _store_states_often(monkeypatch):
    monkeypatch.setattr(Session, "state_every", EVERY)


def answer(session, rng, n):
    """Ask and tell ``n`` times (Bernoulli rewards of MEANS); the receipts."""
    out = []
    for _ in range(n):
        request = session.ask()
        out.append(session.tell(request.id, request.requests, (rng.random(len(request)) < MEANS[request.requests])
                                .astype(float)))
    return out


def test_create_open_ask_tell_status_export(storage_db, capsys):
    db = storage_db
    rng = np.random.default_rng(0)
    with Session.create(storage_db, DOC) as session:
        answer(session, rng, 30)
        pending = session.ask()
        with pytest.raises(RequestError, match="already answered"):
            session.tell(pending.id - 1, [0], [1.0])
        status = session.status()
        rows = session.observations()
    assert list_sessions(db) == ["ab"]
    with Session.open(db) as again, Session.open(storage_db, "ab") as named:
        assert again.ask().id == pending.id  # the pending request survives, nothing was written by the refusal
        for s in (again, named):
            assert {**s.status(), "version": 0} == {**status, "version": 0}
        assert again.observations() == rows and len(rows) == 30
        assert again._store.integrity_check() == "ok"
    assert status["samples"] == 30 and status["requests"] == 31 and status["answers"] == 30
    with pytest.raises(InvalidParameterError, match="no session named 'other'"):
        Session.open(storage_db, "other")
    # the command line: --db takes the path or the URL, --session the name
    assert main(["session", "status", "--db", str(db), "--json", "--session", "ab"]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] == 30
    assert main(["session", "export", "--db", str(db)]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 31
    assert main(["session", "status", "--db", str(db), "--session", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no session named 'nope'" in err[0]


def test_a_run_to_the_stop_equals_its_replay(storage_db):
    db = storage_db
    rng = np.random.default_rng(1)
    doc = {**DOC, "problem": {"goal": "best-arm", "delta": 0.2, "max_samples": 90}}
    with Session.create(storage_db, doc) as session:
        while not session.stopped:
            answer(session, rng, 1)
        state = session._replay.strategy.get_state()
        with pytest.raises(SessionStateError, match="has stopped"):
            session.ask()
    with Session.open(db) as again:
        assert again._replay.strategy.get_state() == state
        assert again.history().samples[-1] == again.status()["samples"] > 0


def test_stored_states_shorten_reopening_and_equal_replay(storage_db):
    db = storage_db
    rng = np.random.default_rng(2)
    doc = {**DOC, "problem": {"goal": "best-arm", "delta": 1e-12}}  # never stops in these samples
    with Session.create(storage_db, doc) as session:
        answer(session, rng, EVERY + 7)
        state = session._replay.strategy.get_state()
        stored = session._store.latest_state()
    assert stored is not None and stored.samples == EVERY
    with Session.open(db) as again:
        events = again._store.events_after(0, 0)
        assert again._replay.n_answers == EVERY + 7  # restored at EVERY, 7 replayed
        assert again._replay.strategy.get_state() == state
        assert len(events.answers) == EVERY + 7
        answer(again, rng, 3)


def test_several_sessions_in_one_database(storage_db, tmp_path):
    db = storage_db
    first = Session.create(storage_db, DOC)
    first.close()
    if isinstance(storage_db, type(tmp_path)):  # an SQLite file is created with its session
        with pytest.raises(InvalidParameterError, match="already exists"):
            Session.create(storage_db, {**DOC, "name": "second"})
        return
    Session.create(storage_db, {**DOC, "name": "second", "seed": 9}).close()
    with pytest.raises(InvalidParameterError, match="already holds a session named 'ab'"):
        Session.create(storage_db, DOC)
    assert list_sessions(db) == ["ab", "second"]
    with pytest.raises(InvalidParameterError, match="holds 2 sessions"):
        Session.open(db)
    rng = np.random.default_rng(3)
    with Session.open(storage_db, "ab") as a, Session.open(db, "second") as b:
        answer(a, rng, 5)
        answer(b, rng, 2)
        assert a.status()["samples"] == 5 and b.status()["samples"] == 2
        assert len(a.observations()) == 5 and len(b.observations()) == 2


def test_unreachable_or_foreign_databases_are_one_line(postgres_server, tmp_path):
    url = postgres_server.url.rsplit(":", 1)[0] + ":1/pybai"  # nothing listens on port 1
    with pytest.raises(SessionStateError, match="cannot connect"):
        Session.open(url)
    empty = postgres_server.new_database("empty_for_open")
    with pytest.raises(InvalidParameterError, match="holds no pybai session"):
        Session.open(empty)
    with pytest.raises(InvalidParameterError, match="scheme 'mysql'"):
        Session.open("mysql://x@y/z")


# ---------------------------------------------------------------- SQLite: schema 1 files and stored states
def _v1_file(tmp_path):
    """A copy of a database written by schema 1 (pybai before several sessions per database)."""
    from pathlib import Path

    path = tmp_path / "v1.db"
    shutil.copyfile(Path(__file__).parent / "data" / "old-default-threshold.db", path)
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
    rows = {t: con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
            for t in ("definition", "requests", "answers", "observations")}
    con.close()
    return path, rows


def test_schema_1_is_upgraded_in_place_with_every_row(tmp_path):
    path, before = _v1_file(tmp_path)
    with Session.open(path) as session:
        status = session.status()
        rows = session.observations()
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    assert con.execute("SELECT * FROM definition").fetchall() == before["definition"]
    assert con.execute("SELECT id, sources, created FROM requests ORDER BY id").fetchall() == before["requests"]
    assert con.execute("SELECT id, request, size, created FROM answers ORDER BY id").fetchall() == before["answers"]
    assert con.execute("SELECT * FROM observations ORDER BY id").fetchall() == before["observations"]
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    fresh = sqlite3.connect(":memory:")
    from pybai.session.backend_sqlite import current_schema_sql

    fresh.executescript(current_schema_sql())
    for table in ("definition", "requests", "answers", "observations", "snapshots"):
        info = con.execute(f"PRAGMA table_info({table})").fetchall()
        assert info == fresh.execute(f"PRAGMA table_info({table})").fetchall(), table
    con.close()
    with Session.open(path) as again:  # opened again: nothing more to do, same session
        assert {**again.status(), "version": 0} == {**status, "version": 0}
        assert again.observations() == rows and len(rows) == len(before["observations"])


def test_a_damaged_stored_state_is_ignored_for_the_log(tmp_path):
    path = tmp_path / "s.db"
    rng = np.random.default_rng(4)
    doc = {**DOC, "problem": {"goal": "best-arm", "delta": 1e-12}}
    with Session.create(path, doc) as session:
        answer(session, rng, EVERY + 2)
        state = session._replay.strategy.get_state()
    con = sqlite3.connect(path)
    stored = json.loads(con.execute("SELECT state FROM snapshots").fetchone()[0])
    for edit in ('{"format": ', json.dumps({**stored, "model": {**stored["model"], "counts": stored["model"]["sums"]}}),
                 json.dumps({**stored, "params": {}})):
        con.execute("UPDATE snapshots SET state = ?", (edit,))
        con.commit()
        with Session.open(path) as again:
            assert again._replay.strategy.get_state() == state
            assert again._replay.n_answers == EVERY + 2
    con.execute("UPDATE snapshots SET samples = samples + 1")  # disagrees with the log
    con.commit()
    con.close()
    with Session.open(path) as again:
        assert again._replay.strategy.get_state() == state


def test_a_read_only_schema_1_file_is_read_through_an_upgraded_copy(tmp_path, monkeypatch):
    import hashlib

    import pybai.session.backend_sqlite as backend_sqlite

    path, before = _v1_file(tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    monkeypatch.setattr(backend_sqlite, "_writable", lambda _: False)  # as for a file this user may not write
    with Session.open(path) as session:
        assert len(session.observations()) == len(before["observations"])
        assert session.status()["answers"] == len(before["answers"])
        with pytest.raises(SessionStateError, match="read-only"):
            session.tell(1, [0], [0.5])
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
    con.close()


# ---------------------------------------------------------------- schema 2 -> 3: the epsilon in a column of its own
def _as_schema_2(db) -> None:
    """Rewrite a schema-3 database as schema 2 wrote it: an epsilon given later as JSON in ``withdrawn``."""
    import sqlalchemy as sa

    url = f"sqlite:///{db}" if not str(db).startswith("postgresql") else str(db).replace("postgresql://",
                                                                                         "postgresql+psycopg://")
    as_json = ("json_object('epsilon', epsilon, 'epsilon_mode', epsilon_mode)" if url.startswith("sqlite")
               else "json_build_object('epsilon', epsilon, 'epsilon_mode', epsilon_mode)::text")
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.exec_driver_sql(f"UPDATE journal SET withdrawn = {as_json} WHERE kind = 'epsilon'")
        c.exec_driver_sql("ALTER TABLE journal DROP COLUMN epsilon_mode")
        c.exec_driver_sql("ALTER TABLE journal DROP COLUMN epsilon")
        c.exec_driver_sql("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    engine.dispose()


def _journal_epsilons(db):
    import sqlalchemy as sa

    url = f"sqlite:///{db}" if not str(db).startswith("postgresql") else str(db).replace("postgresql://",
                                                                                         "postgresql+psycopg://")
    engine = sa.create_engine(url)
    with engine.connect() as c:
        version = c.exec_driver_sql("SELECT value FROM meta WHERE key = 'schema_version'").scalar()
        rows = c.exec_driver_sql("SELECT epsilon, epsilon_mode, withdrawn FROM journal WHERE kind = 'epsilon'").all()
    engine.dispose()
    return version, [tuple(r) for r in rows]


def test_schema_2_is_upgraded_with_the_epsilon_in_its_own_columns(storage_db):
    """Both backends: a schema-2 database (the epsilon as JSON in ``withdrawn``) opens as schema 3 with the
    epsilon in ``epsilon`` and ``epsilon_mode``, and the session continues as before the upgrade."""
    rng = np.random.default_rng(2)
    doc = {**DOC, "strategy": [{"name": "tas", "threshold": "delta-correct"}]}
    with Session.create(storage_db, doc) as session:
        answer(session, rng, 30)
        session.set_epsilon(0.15, "relative")
        answer(session, rng, 5)
        status = session.status()
    _as_schema_2(storage_db)
    with Session.open(storage_db) as again:
        assert {**again.status(), "version": 0} == {**status, "version": 0}
        assert again.problem.epsilon == 0.15 and again.problem.epsilon_mode == "relative"
        answer(again, rng, 3)  # and it continues, writing schema 3
    assert _journal_epsilons(storage_db) == (str(SCHEMA_VERSION), [(0.15, "relative", None)])


def test_a_schema_2_file_of_the_previous_version_is_upgraded(tmp_path):
    """A file written by pybai with schema 2 (tests/session/data/schema-2-epsilon.db: 45 answers, epsilon 0.4
    given, 3 more answers): upgraded in place, its journal rows kept, its session unchanged."""
    from pathlib import Path

    from pybai.session.backend_sqlite import current_schema_sql

    path = tmp_path / "v2.db"
    shutil.copyfile(Path(__file__).parent / "data" / "schema-2-epsilon.db", path)
    con = sqlite3.connect(path)
    before = con.execute("SELECT id, session, kind, request, answer, created FROM journal ORDER BY id").fetchall()
    con.close()
    with Session.open(path) as session:
        status = session.status()
        assert status["samples"] == 48 and status["status"] == "running"
        assert session.problem.epsilon == 0.4 and session.problem.epsilon_mode == "additive"
    con = sqlite3.connect(path)
    assert con.execute("SELECT id, session, kind, request, answer, created FROM journal ORDER BY id").fetchall() == before
    assert con.execute("SELECT epsilon, epsilon_mode, withdrawn FROM journal WHERE kind = 'epsilon'").fetchall() == [
        (0.4, "additive", None)]
    fresh = sqlite3.connect(":memory:")
    fresh.executescript(current_schema_sql())
    assert con.execute("PRAGMA table_info(journal)").fetchall() == fresh.execute("PRAGMA table_info(journal)").fetchall()
    con.close()
    with Session.open(path) as again:
        assert {**again.status(), "version": 0} == {**status, "version": 0}
