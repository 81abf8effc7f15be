"""The session database: one session's definition and event log, on any storage backend.

A :class:`Store` is one session of a database (tables: :mod:`pybai.session.schema`) opened
through a backend (:mod:`pybai.session.backends`: an SQLite file, or a PostgreSQL server).
Its queries are the same on every backend (SQLAlchemy Core); the backend begins the
transactions: a read transaction sees one consistent state of the log, a write transaction
excludes every other writer of the session until it commits, so each ``tell`` (its answer row
and observations) appears whole or not at all, and a transaction that returned is durable.
Every driver error becomes one :class:`SessionStateError` line naming the database; a connection
a database server dropped is replaced (:mod:`pybai.session.link`).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from pybai._version import __version__
from pybai.exceptions import InvalidParameterError
from pybai.session import schema
from pybai.session.backend_base import Backend
from pybai.session.backends import backend_for
from pybai.session.integrity import answer_rows, damaged, read_only, request_sources
from pybai.session.link import Link
from pybai.session.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "Store", "LoggedRequest", "LoggedAnswer", "LoggedEvent", "LogTail", "StoredState", "utc_now",
           "list_sessions"]

_ERRORS = (sa.exc.DBAPIError, sqlite3.Error, UnicodeDecodeError)  # while creating or opening (no Link yet)


def utc_now() -> str:
    """The current time, UTC, ISO 8601 with microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class LoggedRequest:
    id: int
    requests: np.ndarray
    created: str


@dataclass(frozen=True)
class LoggedAnswer:
    id: int
    request: int
    sources: np.ndarray
    rewards: np.ndarray
    created: str


@dataclass(frozen=True)
class LoggedEvent:
    """A row of the journal: ``kind`` "request", "answer" (``answer``: its id), "cancel" or
    "expire" (``withdrawn``: the unanswered samples withdrawn), "epsilon" (``epsilon``: the answer
    tolerance given, ``(epsilon, epsilon_mode)``)."""

    id: int
    kind: str
    request: int
    answer: int | None
    withdrawn: np.ndarray | None
    created: str
    epsilon: tuple[float, str] | None = None


@dataclass(frozen=True)
class LogTail:
    """The log after a cursor, read in one transaction (a consistent view of the log).

    ``journal`` is the order of the events (:meth:`Store.journal_after`; every database has one
    since schema 2, the migration from schema 1 writes it from the order of the log), None when
    only the requests and answers were read (:meth:`Store.events_after`).
    """

    requests: list[LoggedRequest]
    answers: list[LoggedAnswer]
    journal: list[LoggedEvent] | None = None


@dataclass(frozen=True)
class StoredState:
    """A stored strategy state (a row of ``snapshots``): the log up to ``answer``, ``request`` and journal row ``event`` replayed."""

    answer: int
    request: int
    event: int
    samples: int
    state: str


def _sessions(connection: sa.Connection) -> list[tuple[int, str]]:
    return [(int(i), n) for i, n in connection.execute(sa.text("SELECT id, name FROM definition ORDER BY id"))]


def list_sessions(db) -> list[str]:
    """The names of the sessions a database holds, in order of creation.

    Parameters
    ----------
    db : str or Path
        An SQLite file or a ``postgresql://`` URL (see :mod:`pybai.session.backends`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pybai import BestArmProblem, Bernoulli, FixedConfidence, make_strategy
    >>> from pybai.session import Session
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "ab.db"
    >>> problem = BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.05))
    >>> Session.create(db, problem=problem, strategy=make_strategy("tas"), name="checkout").close()
    >>> list_sessions(db)
    ['checkout']
    """
    store = Store.open(db, name=None, any_session=True)
    try:
        return [name for _, name in store._call(lambda c: _sessions(c), "read it")]
    finally:
        store.close()


class Store:
    """One session of an open database (use :meth:`create` or :meth:`open`).

    A store opened on an SQLite file this process may not write is read-only: reading works,
    :meth:`writing` refuses before anything is written.

    Attributes
    ----------
    path : Path or str
        The SQLite file, or the URL of a PostgreSQL database (without its password).
    session_id : int
        The session's number in the database (``definition.id``).
    """

    def __init__(self, backend: Backend, connection: sa.Connection, session_id: int, writable: bool = True):
        self.backend = backend
        self.path: Path | str = getattr(backend, "path", backend.label)
        self._link = Link(backend, connection)  # reconnects after a database server dropped the connection
        self.session_id = session_id
        self.writable = writable

    # ------------------------------------------------------------ queries (errors as one line)
    @property
    def _db(self) -> sa.Connection:
        """The current connection (a new one after the server dropped the last)."""
        return self._link.connection

    def _call(self, work, doing: str):
        return self._link.call(work, doing)

    def _rows(self, sql: str, params: dict | None = None, doing: str = "read it") -> list:
        return self._call(lambda c: [tuple(r) for r in c.execute(sa.text(sql), {"s": self.session_id,
                                                                             **(params or {})})], doing)

    def _one(self, sql: str, params: dict | None = None, doing: str = "read it"):
        rows = self._rows(sql, params, doing)
        return rows[0] if rows else None

    # ------------------------------------------------------------ creating and opening
    @classmethod
    def create(cls, db, *, name: str, document: dict, seed: int, strategy: str) -> "Store":
        """A new session named ``name`` in ``db`` holding its definition.

        An SQLite file must not exist yet (one file per new session); a PostgreSQL database
        gets its tables with its first session and refuses a second session of the same name.
        """
        backend = backend_for(db)
        connection, _ = backend.connect(create=backend.one_session_per_create)
        try:
            backend.begin_write(connection, None)
            if backend.one_session_per_create or not backend.has_tables(connection):
                backend.prepare(connection)
                connection.execute(schema.meta.insert(), [
                    {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                    {"key": "package_version", "value": __version__}, {"key": "created", "value": utc_now()}])
            else:
                version = backend.check(connection)
                if version < SCHEMA_VERSION:
                    raise backend.fail(f"written with session schema {version}: open a session of it first "
                                       "(which upgrades it), then add one.")
                if name in {n for _, n in _sessions(connection)}:
                    raise InvalidParameterError(f"{backend.label}: already holds a session named {name!r}; "
                                                "give the new one another name (the session file's name).")
            sid = connection.execute(schema.definition.insert().returning(schema.definition.c.id), {
                "name": name, "document": json.dumps(document, allow_nan=False), "seed": int(seed),
                "strategy": strategy, "created": utc_now()}).scalar_one()
            connection.exec_driver_sql("COMMIT")
        except BaseException as exc:
            _quietly(connection.exec_driver_sql, "ROLLBACK")
            _quietly(connection.close)
            if backend.one_session_per_create:
                backend.discard()
            if isinstance(exc, _ERRORS):
                text = " ".join(str(getattr(exc, "orig", None) or exc).split())
                raise InvalidParameterError(f"{backend.label}: cannot create ({text}).") from None
            raise
        return cls(backend, connection, int(sid))

    @classmethod
    def open(cls, db, name: str | None = None, *, any_session: bool = False) -> "Store":
        """Open the session ``name`` of an existing database (``name`` may be omitted when it holds one).

        The backend's checks run first (SQLite: :func:`pybai.session.integrity.check_database`);
        other files, damaged ones and newer schemas are refused with one line, an older schema
        is upgraded (:mod:`pybai.session.migrations`; a read-only SQLite file: in memory).
        """
        if name is not None and not isinstance(name, str):
            raise InvalidParameterError(f"The 'name' parameter must be a session name (str). Got {name!r}.")
        backend = backend_for(db)
        connection, writable = backend.connect()
        try:
            try:
                version = backend.check(connection)
                if version < SCHEMA_VERSION:
                    if writable:
                        backend.upgrade(connection, version)
                    else:
                        connection = backend.upgraded_copy(connection, version)
                sessions = _sessions(connection)
            except _ERRORS as exc:
                raise backend.translate(exc, "open it") from None
            sid = 0 if any_session else _choose(backend, sessions, name)
        except BaseException:
            _quietly(connection.close)
            raise
        return cls(backend, connection, sid, writable)

    def close(self) -> None:
        _quietly(self._link.connection.close)

    # ------------------------------------------------------------ reading
    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def definition(self) -> dict:
        row = self._one("SELECT name, document, seed, strategy, created FROM definition WHERE id = :s")
        if row is None:
            raise damaged(self.path, "the definition row is missing")
        name, document, seed, strategy, created = row
        try:
            parsed = json.loads(document)
        except (TypeError, ValueError, RecursionError):
            raise damaged(self.path, "the definition's document is not valid JSON") from None
        return {"name": name, "document": parsed, "seed": seed, "strategy": strategy, "created": created}

    @contextmanager
    def reading(self):
        """A read transaction: every query inside sees one consistent state of the log."""
        link = self._link
        if link.in_transaction:  # already inside a transaction of this store: it is consistent
            yield self
            return
        link.begin(self.backend.begin_read, "read it")
        try:
            yield self
        finally:
            link.end_read()  # a read transaction wrote nothing

    @contextmanager
    def writing(self, doing: str = "record anything"):
        """A write transaction: committed when the block ends, rolled back on error.

        Refused with one "read-only" line, before anything is read, on a read-only store.
        """
        if not self.writable:
            raise read_only(self.path, f"cannot {doing}")
        link = self._link
        link.begin(lambda c: self.backend.begin_write(c, self.session_id), doing)
        try:
            yield self
        except BaseException:
            link.rollback()
            raise
        link.commit(doing)

    def log_version(self) -> tuple[sa.Connection, int] | None:
        """Inside a transaction, as its first statement: a token equal to the one of an earlier transaction
        exactly when no other connection committed to the database in between (this store's own commits
        leave it as it is); None when the backend cannot tell (then the log must be read)."""
        version = self._call(self.backend.data_version, "read it")
        return None if version is None else (self._db, version)

    def events_after(self, last_request: int, last_answer: int) -> LogTail:
        """Requests with id > ``last_request`` and answers with id > ``last_answer``, in order.

        Every row is checked (:func:`pybai.session.integrity.request_sources`,
        :func:`~pybai.session.integrity.answer_rows`): a damaged one is refused with one line.
        """
        requests = [LoggedRequest(i, np.asarray(request_sources(self.path, i, s), dtype=np.intp), c)
                    for i, s, c in self._rows("SELECT id, sources, created FROM requests WHERE session = :s "
                                              "AND id > :r ORDER BY id", {"r": last_request})]
        rows = self._rows(
            "SELECT a.id, a.request, a.size, a.created, o.request, o.source, o.reward FROM answers a "
            "LEFT JOIN observations o ON o.answer = a.id WHERE a.session = :s AND a.id > :a ORDER BY a.id, o.id",
            {"a": last_answer})
        answers = [LoggedAnswer(aid, request, np.array(sources, dtype=np.intp), np.array(rewards, dtype=float),
                                created) for aid, request, created, sources, rewards in answer_rows(self.path, rows)]
        return LogTail(requests, answers)

    def log_after(self, last_request: int, last_answer: int, last_event: int) -> LogTail:
        """:meth:`events_after` the cursors with the journal after ``last_event`` (inside a transaction)."""
        return replace(self.events_after(last_request, last_answer), journal=self.journal_after(last_event))

    def counts(self) -> tuple[int, int, int]:
        """(requests, answers, observations) of the session."""
        row = self._one("SELECT (SELECT COUNT(*) FROM requests WHERE session = :s), COUNT(*), "
                        "COALESCE(SUM(size), 0) FROM answers WHERE session = :s")
        return int(row[0]), int(row[1]), int(row[2])

    def last_answer_time(self) -> str | None:
        return self._one("SELECT MAX(created) FROM answers WHERE session = :s")[0]

    def request_info(self, request_id: int) -> tuple[int, int, str | None] | None:
        """(size of the request, samples answered so far, time of the last answer) or None if unknown."""
        row = self._one("SELECT sources FROM requests WHERE session = :s AND id = :r", {"r": int(request_id)})
        if row is None:
            return None
        answered, last = self._one("SELECT COALESCE(SUM(size), 0), MAX(created) FROM answers "
                                   "WHERE session = :s AND request = :r", {"r": int(request_id)})
        return len(request_sources(self.path, request_id, row[0])), int(answered), last

    def observation_rows(self):
        """Every observation, in order: (id, answer, request, source, reward, time)."""
        return self._rows("SELECT o.id, o.answer, o.request, o.source, o.reward, o.time FROM observations o "
                          "JOIN answers a ON a.id = o.answer WHERE a.session = :s ORDER BY o.id")

    def latest_state(self) -> StoredState | None:
        """The newest stored strategy state of the session, or None."""
        row = self._one("SELECT answer, request, event, samples, state FROM snapshots WHERE session = :s "
                        "ORDER BY answer DESC LIMIT 1")
        return None if row is None else StoredState(*row)

    def journal_row(self, event: int) -> tuple[str, int, int | None] | None:
        """(kind, request, answer) of the session's journal row ``event``, or None."""
        row = self._one("SELECT kind, request, answer FROM journal WHERE session = :s AND id = :e", {"e": int(event)})
        return None if row is None else (row[0], row[1], row[2])

    def last_request_up_to(self, event: int) -> int:
        """The last request the journal records as asked at or before row ``event`` (0: none)."""
        row = self._one("SELECT MAX(request) FROM journal WHERE session = :s AND id <= :e AND kind = 'request'",
                        {"e": int(event)})
        return int(row[0] or 0)

    def log_up_to(self, answer: int) -> tuple[int, dict[int, int]]:
        """(answers with id <= ``answer``, {source: samples} of their observations): to check a stored state."""
        n = self._one("SELECT COUNT(*) FROM answers WHERE session = :s AND id <= :a", {"a": answer})[0]
        rows = self._rows("SELECT o.source, COUNT(*) FROM observations o JOIN answers a ON a.id = o.answer "
                          "WHERE a.session = :s AND a.id <= :a GROUP BY o.source", {"a": answer})
        return int(n), {int(s): int(c) for s, c in rows}

    # ------------------------------------------------------------ writing (inside writing())
    def add_request(self, request_id: int, requests: np.ndarray, created: str) -> None:
        values = {"session": self.session_id, "id": int(request_id),
                  "sources": json.dumps([int(r) for r in requests]), "created": created}
        self._call(lambda c: c.execute(schema.requests.insert(), values), "record the request")

    def add_answer(self, request_id: int, sources: np.ndarray, rewards: np.ndarray, created: str) -> int:
        def work(c: sa.Connection) -> int:
            answer = int(c.execute(schema.answers.insert().returning(schema.answers.c.id), {
                "session": self.session_id, "request": int(request_id), "size": int(sources.shape[0]),
                "created": created}).scalar_one())
            c.execute(schema.observations.insert(), [
                {"answer": answer, "request": int(request_id), "source": int(s), "reward": float(r), "time": created}
                for s, r in zip(sources.tolist(), rewards.tolist())])
            return answer

        return self._call(work, "store the answer")

    def add_state(self, answer: int, request: int, samples: int, state: str, created: str, *, event: int) -> None:
        """Store the strategy's state once the log up to ``answer``, ``request`` and journal row ``event`` was replayed."""
        values = {"session": self.session_id, "answer": int(answer), "request": int(request), "event": int(event),
                  "samples": int(samples), "state": state, "created": created}
        self._call(lambda c: c.execute(schema.snapshots.insert(), values), "store the strategy's state")

    # ------------------------------------------------------------ the journal (schema 2)
    def add_event(self, kind: str, request_id: int, created: str, *, answer: int | None = None,
                  withdrawn: np.ndarray | None = None) -> int:
        """Append an event to the session's journal (inside :meth:`writing`); returns its id."""
        values = {"session": self.session_id, "kind": kind, "request": int(request_id),
                  "answer": None if answer is None else int(answer),
                  "withdrawn": None if withdrawn is None else json.dumps([int(r) for r in withdrawn]),
                  "created": created}
        return self._journal_row(values, f"record the {kind}")

    def _journal_row(self, values: dict, doing: str) -> int:
        """Insert a journal row; it marks the transaction (found after a lost COMMIT: the transaction happened)."""
        row = self._call(lambda c: int(c.execute(schema.journal.insert().returning(schema.journal.c.id),
                                                 values).scalar_one()), doing)
        self._link.marker = ("journal", row)
        return row

    def journal_after(self, last_event: int) -> list[LoggedEvent]:
        """Journal rows of the session with id > ``last_event``, in order (each checked: a damaged one is refused)."""
        out = []
        for eid, kind, request, answer, withdrawn, created, epsilon, mode in self._rows(
                "SELECT id, kind, request, answer, withdrawn, created, epsilon, epsilon_mode FROM journal "
                "WHERE session = :s AND id > :e ORDER BY id", {"e": last_event}):
            if (kind not in ("request", "answer", "cancel", "expire", "epsilon") or not isinstance(request, int)
                    or (kind == "answer") != isinstance(answer, int) or not isinstance(created, str)):
                raise damaged(self.path, f"journal row {eid} is not a request, answer, cancel, expiry or epsilon")
            part, given = None, None
            if kind in ("cancel", "expire"):
                part = np.asarray(request_sources(self.path, request, withdrawn), dtype=np.intp)
            elif kind == "epsilon":
                given = _epsilon(self.path, eid, epsilon, mode)
            out.append(LoggedEvent(eid, kind, request, answer, part, created, given))
        return out

    def add_epsilon(self, request_id: int, epsilon: float, epsilon_mode: str, created: str) -> int:
        """Append "epsilon given" to the journal (inside :meth:`writing`); returns its id."""
        values = {"session": self.session_id, "kind": "epsilon", "request": int(request_id), "answer": None,
                  "withdrawn": None, "created": created, "epsilon": float(epsilon), "epsilon_mode": str(epsilon_mode)}
        return self._journal_row(values, "record the epsilon")

    def epsilon_up_to(self, last_event: int) -> tuple[float, str] | None:
        """The last epsilon given by a journal row with id <= ``last_event`` (a stored state's), or None."""
        row = self._one("SELECT id, epsilon, epsilon_mode FROM journal WHERE session = :s AND id <= :e "
                        "AND kind = 'epsilon' ORDER BY id DESC LIMIT 1", {"e": last_event})
        return None if row is None else _epsilon(self.path, row[0], row[1], row[2])

    def withdrawn_up_to(self, last_event: int) -> dict[int, str]:
        """{request: "cancel" or "expire"} of the journal rows with id <= ``last_event`` (a stored state's)."""
        return {int(r): k for r, k in self._rows(
            "SELECT request, kind FROM journal WHERE session = :s AND id <= :e AND kind IN ('cancel', 'expire')",
            {"e": last_event})}

    def request_times(self, ids) -> dict[int, str]:
        """{request: when it was asked} for the requests ``ids`` of the session."""
        wanted = sorted({int(i) for i in ids})
        if not wanted:
            return {}
        rows = self._rows("SELECT id, created FROM requests WHERE session = :s AND id >= :lo AND id <= :hi",
                          {"lo": wanted[0], "hi": wanted[-1]})
        keep = set(wanted)
        return {int(i): c for i, c in rows if int(i) in keep}

    def integrity_check(self) -> str:
        if self.backend.dialect != "sqlite":
            return "ok"
        return self._one("PRAGMA integrity_check")[0]


def _epsilon(path, eid, epsilon, mode) -> tuple[float, str]:
    """The (epsilon, epsilon_mode) of an "epsilon" journal row (a damaged one is refused)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0.0 or \
            not isinstance(mode, str):
        raise damaged(path, f"journal row {eid} is an epsilon without a positive epsilon and its mode")
    return float(epsilon), mode


def _choose(backend: Backend, sessions: list[tuple[int, str]], name: str | None) -> int:
    names = ", ".join(repr(n) for _, n in sessions)
    if name is None:
        if len(sessions) == 1:
            return sessions[0][0]
        if not sessions:
            raise InvalidParameterError(f"{backend.label}: holds no session "
                                        "(create one with: pybai session new FILE --db URL).")
        raise InvalidParameterError(f"{backend.label}: holds {len(sessions)} sessions ({names}); "
                                    "name one (--session NAME).")
    for sid, found in sessions:
        if found == name:
            return sid
    raise InvalidParameterError(f"{backend.label}: no session named {name!r} (it holds {names or 'none'}).")


def _quietly(action, *args) -> None:
    """Run a clean-up step whose failure changes nothing (ending a read transaction, closing)."""
    try:
        action(*args)
    except Exception:
        pass
