"""One conformance suite run on every storage backend: an SQLite file and a real PostgreSQL server.

The ``storage_db`` fixture (tests/session/conftest.py) gives a new empty database of each backend.
"""

import json
import shutil
import sqlite3

import numpy as np
import pytest

from pybai.cli import main
from pybai.exceptions import InvalidParameterError, SessionStateError
from pybai.session import Session
from pybai.session.schema import SCHEMA_VERSION
from pybai.testing.storage import DOCUMENT as DOC
from pybai.testing.storage import EVERY, STORAGE_CHECKS, answer, check_storage


@pytest.fixture(autouse=True)
def _store_states_often(monkeypatch):
    monkeypatch.setattr(Session, "state_every", EVERY)


@pytest.mark.parametrize("check", STORAGE_CHECKS, ids=lambda check: check.__name__)
def test_storage_checks(check, storage_db):
    """pybai.testing's checks of a storage backend (what a backend written outside pybai runs)."""
    check(lambda: storage_db)


def test_check_storage_reports_every_check(tmp_path):
    paths = iter(tmp_path / f"{i}.db" for i in range(len(STORAGE_CHECKS)))
    assert check_storage(lambda: next(paths)) == {check.__name__: "passed" for check in STORAGE_CHECKS}
    with pytest.raises(AssertionError, match="checks failed"):  # a database that keeps its sessions fails
        check_storage(lambda: tmp_path / "0.db")


def test_the_command_line_reads_every_backend(storage_db, capsys):
    """--db takes the path or the URL, --session the name."""
    db = storage_db
    with Session.create(db, DOC) as session:
        answer(session, np.random.default_rng(0), 30)
        session.ask()
    assert main(["session", "status", "--db", str(db), "--json", "--session", "ab"]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] == 30
    assert main(["session", "export", "--db", str(db)]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 31
    assert main(["session", "status", "--db", str(db), "--session", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no session named 'nope'" in err[0]


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
