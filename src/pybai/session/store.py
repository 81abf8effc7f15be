"""The session database: one SQLite file holding the definition and the event log.

Schema (version :data:`SCHEMA_VERSION`; no pickled objects, only text, integers and reals):

``meta(key, value)``
    ``schema_version``, ``package_version`` (of the creator), ``created`` (UTC, ISO 8601).
``definition(id = 1, name, document, seed, strategy, created)``
    ``document``: the session file's parsed TOML as JSON; ``strategy``: its name.
``requests(id, sources, created)``
    One row per request the strategy made, numbered as the strategy numbers them;
    ``sources`` is the JSON list of what was asked (sources; arms in the "arm" sampling model).
``answers(id, request, size, created)``
    One row per accepted ``tell``: the request answered and how many samples it brought.
``observations(id, answer, request, source, reward, time)``
    One row per sample (``reward`` is an 8-byte IEEE double: exact).

The file is in WAL mode with ``synchronous = FULL``: readers never block the writer nor each
other, each ``tell`` is one transaction (its answer row and observations appear together or
not at all), and a transaction that returned is on disk.  A database written by a newer schema
is refused with one line.
"""

from __future__ import annotations

from typing import cast

import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

import numpy as np

from pybai._version import __version__
from pybai.exceptions import InvalidParameterError, SessionStateError
from pybai.session.integrity import (SQLITE_MAGIC, answer_rows, check_database, damaged, read_only,
                                     request_sources, translate)

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "Store", "LoggedRequest", "LoggedAnswer", "LoggedEvent", "Snapshot",
           "utc_now"]

#: Version of the schema this module writes; a database with a larger one is refused.  Version 2 adds
#: the ``journal`` table (the order of requests, answers, cancels and expiries); a version-1 database
#: (no journal: one request outstanding at a time) is still read and written as it is.
SCHEMA_VERSION = 2

#: ``PRAGMA application_id`` of session databases ("pbai").
APPLICATION_ID = 0x70626169

BUSY_TIMEOUT_SECONDS = 30.0

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE definition (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    document TEXT NOT NULL,
    seed INTEGER NOT NULL,
    strategy TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE requests (id INTEGER PRIMARY KEY, sources TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE answers (
    id INTEGER PRIMARY KEY,
    request INTEGER NOT NULL REFERENCES requests(id),
    size INTEGER NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE observations (
    id INTEGER PRIMARY KEY,
    answer INTEGER NOT NULL REFERENCES answers(id),
    request INTEGER NOT NULL REFERENCES requests(id),
    source INTEGER NOT NULL,
    reward REAL NOT NULL,
    time TEXT NOT NULL
);
CREATE INDEX observations_by_answer ON observations(answer);
"""

#: The event log of schema 2: one row per request, answer, cancel or expiry, in the order they happened.
_JOURNAL = """
CREATE TABLE journal (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('request', 'answer', 'cancel', 'expire')),
    request INTEGER NOT NULL REFERENCES requests(id),
    answer INTEGER REFERENCES answers(id),
    withdrawn TEXT,
    created TEXT NOT NULL
);
"""
_SCHEMA_V1 = _SCHEMA
_SCHEMA = _SCHEMA_V1 + _JOURNAL


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
    "expire" (``withdrawn``: the unanswered samples withdrawn)."""

    id: int
    kind: str
    request: int
    answer: int | None
    withdrawn: np.ndarray | None
    created: str


@dataclass(frozen=True)
class Snapshot:
    """Events after a cursor, read in one transaction (a consistent view of the log).

    ``journal`` is the order of the events (schema 2), None for a database without a journal
    (schema 1: request 1, its answers, request 2, ...).
    """

    requests: list[LoggedRequest]
    answers: list[LoggedAnswer]
    journal: list[LoggedEvent] | None = None


def _fail(path, message: str) -> SessionStateError:
    return SessionStateError(f"{path}: {message}")


def _starts_like_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _writable(path: Path) -> bool:
    """Whether this process may write the file and create its ``-wal``/``-shm`` files beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


class Store:
    """An open session database (use :meth:`create` or :meth:`open`).

    Every ``sqlite3`` error of a query becomes one :class:`SessionStateError` line naming the
    file (:func:`pybai.session.integrity.translate`): "database is damaged", "read-only", or
    busy.  A store opened on a file this process may not write is read-only: reading works,
    :meth:`writing` refuses before anything is written.
    """

    def __init__(self, path: Path, connection: sqlite3.Connection, writable: bool = True):
        self.path = path
        self._db = connection
        self.writable = writable
        #: whether the database has the journal of schema 2 (cancels, expiries, several outstanding requests)
        self.journaled = True

    # ------------------------------------------------------------ queries (errors as one line)
    def _rows(self, sql: str, params=(), doing: str = "read it") -> list:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise translate(self.path, exc, doing) from None

    def _one(self, sql: str, params=(), doing: str = "read it"):
        rows = self._rows(sql, params, doing)
        return rows[0] if rows else None

    # ------------------------------------------------------------ opening
    @staticmethod
    def _connect(path: Path, mode: str, immutable: bool = False) -> sqlite3.Connection:
        uri = f"file:{quote(path.resolve().as_posix())}?mode={mode}" + ("&immutable=1" if immutable else "")
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            if mode != "ro":
                db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            db.close()
            raise
        return db

    @classmethod
    def create(cls, path, *, name: str, document: dict, seed: int, strategy: str) -> "Store":
        """A new database at ``path`` (refused when the file exists) holding the definition."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            raise InvalidParameterError(f"{path}: already exists; a new session needs a new database file.") from None
        except OSError as exc:
            raise InvalidParameterError(f"{path}: cannot create ({exc.strerror}).") from None
        os.close(fd)
        db = None
        try:
            db = cls._connect(path, "rw")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            now = utc_now()
            db.execute("BEGIN IMMEDIATE")
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("package_version", __version__), ("created", now)])
            db.execute("INSERT INTO definition VALUES (1, ?, ?, ?, ?, ?)",
                       (name, json.dumps(document, allow_nan=False), int(seed), strategy, now))
            db.execute("COMMIT")
        except BaseException as exc:
            try:
                if db is not None:
                    db.close()
            except Exception:
                pass
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            if isinstance(exc, sqlite3.Error):
                raise InvalidParameterError(f"{path}: cannot create ({exc}).") from None
            raise
        return cls(path, db)

    @classmethod
    def open(cls, path) -> "Store":
        """Open an existing database; refuses other files, damaged ones and newer schemas with one line.

        The checks of :func:`pybai.session.integrity.check_database` run first.  A file this
        process may not write is opened read-only (see :class:`Store`).
        """
        path = Path(path)
        if not path.is_file():
            raise InvalidParameterError(
                f"{path}: no such session database (create one with: pybai session new FILE --db {path}).")
        if not _starts_like_sqlite(path):
            raise _fail(path, "not a pybai session database (not an SQLite file, or its header is damaged).")
        writable = _writable(path)
        # a folder nobody can write holds no -wal file being written: read the file as it is
        immutable = not writable and not os.access(path.parent, os.W_OK) and not Path(f"{path}-wal").exists()
        try:
            db = cls._connect(path, "rw" if writable else "ro", immutable)
        except sqlite3.Error as exc:
            raise translate(path, exc, "open it") from None
        store = cls(path, db, writable)
        try:
            app = store._one("PRAGMA application_id")[0]
            tables = {r[0] for r in store._rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if app != APPLICATION_ID and "meta" not in tables:
                raise _fail(path, "not a pybai session database.")
            if app != APPLICATION_ID:
                raise damaged(path, f"the application id is {app}, expected {APPLICATION_ID}")
            store.journaled = "journal" in tables
            try:
                check_database(db, path, _SCHEMA if store.journaled else _SCHEMA_V1)
            except sqlite3.Error as exc:
                raise translate(path, exc, "read it") from None
            version = int(store._one("SELECT value FROM meta WHERE key = 'schema_version'")[0])
            if version >= 2 and not store.journaled:
                raise damaged(path, "the table journal is missing")
            if version > SCHEMA_VERSION:
                raise _fail(path, f"written with session schema {version}, newer than this pybai ({__version__}) "
                                  f"reads (schema {SCHEMA_VERSION}); upgrade pybai to open it.")
            if version < 1:
                raise _fail(path, "not a pybai session database (no schema version).")
        except BaseException:
            db.close()
            raise
        return store

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ reading
    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def definition(self) -> dict:
        row = self._one("SELECT name, document, seed, strategy, created FROM definition WHERE id = 1")
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
        self._rows("BEGIN", doing="read it")
        try:
            yield self
        finally:
            if self._db.in_transaction:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error:
                    pass  # a read transaction wrote nothing: ending it cannot lose anything

    @contextmanager
    def writing(self, doing: str = "record anything"):
        """A write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back on error.

        Refused with one "read-only" line, before anything is read, on a read-only store.
        """
        if not self.writable:
            raise read_only(self.path, f"cannot {doing}")
        self._rows("BEGIN IMMEDIATE", doing="write")
        try:
            yield self
        except BaseException:
            self._rollback()
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            error = translate(self.path, exc, "store the answer")
            raise SessionStateError(f"{error} Nothing was recorded.") from None

    def _rollback(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite rolls an unfinished transaction back itself when the connection closes

    def events_after(self, last_request: int, last_answer: int) -> Snapshot:
        """Requests with id > ``last_request`` and answers with id > ``last_answer``, in order.

        Every row is checked (:func:`pybai.session.integrity.request_sources`,
        :func:`~pybai.session.integrity.answer_rows`): a damaged one is refused with one line.
        """
        requests = [LoggedRequest(i, np.asarray(request_sources(self.path, i, s), dtype=np.intp), c)
                    for i, s, c in self._rows(
                        "SELECT id, sources, created FROM requests WHERE id > ? ORDER BY id", (last_request,))]
        rows = self._rows(
            "SELECT a.id, a.request, a.size, a.created, o.request, o.source, o.reward FROM answers a "
            "LEFT JOIN observations o ON o.answer = a.id WHERE a.id > ? ORDER BY a.id, o.id", (last_answer,))
        answers = [LoggedAnswer(aid, request, np.array(sources, dtype=np.intp), np.array(rewards, dtype=float),
                                created) for aid, request, created, sources, rewards in answer_rows(self.path, rows)]
        return Snapshot(requests, answers)

    def counts(self) -> tuple[int, int, int]:
        """(requests, answers, observations) in the log."""
        return tuple(self._one(
            "SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM answers), "
            "(SELECT COUNT(*) FROM observations)"))

    def last_answer_time(self) -> str | None:
        return self._one("SELECT MAX(created) FROM answers")[0]

    def request_info(self, request_id: int) -> tuple[int, int, str | None] | None:
        """(size of the request, samples answered so far, time of the last answer) or None if unknown."""
        row = self._one("SELECT sources FROM requests WHERE id = ?", (request_id,))
        if row is None:
            return None
        answered, last = self._one(
            "SELECT COALESCE(SUM(size), 0), MAX(created) FROM answers WHERE request = ?", (request_id,))
        return len(request_sources(self.path, request_id, row[0])), int(answered), last

    def observation_rows(self):
        """Every observation, in order: (id, answer, request, source, reward, time)."""
        return self._rows("SELECT id, answer, request, source, reward, time FROM observations ORDER BY id")

    # ------------------------------------------------------------ writing (inside writing())
    def add_request(self, request_id: int, requests: np.ndarray, created: str) -> None:
        self._rows("INSERT INTO requests VALUES (?, ?, ?)",
                   (int(request_id), json.dumps([int(r) for r in requests]), created), doing="record the request")

    def add_answer(self, request_id: int, sources: np.ndarray, rewards: np.ndarray, created: str) -> int:
        try:
            cur = self._db.execute("INSERT INTO answers (request, size, created) VALUES (?, ?, ?)",
                                   (int(request_id), int(sources.shape[0]), created))
            answer = cast(int, cur.lastrowid)  # set by the INSERT
            self._db.executemany(
                "INSERT INTO observations (answer, request, source, reward, time) VALUES (?, ?, ?, ?, ?)",
                [(answer, int(request_id), int(s), float(r), created)
                 for s, r in zip(sources.tolist(), rewards.tolist())])
        except sqlite3.Error as exc:
            raise translate(self.path, exc, "store the answer") from None
        return answer

    # ------------------------------------------------------------ the journal (schema 2)
    def add_event(self, kind: str, request_id: int, created: str, *, answer: int | None = None,
                  withdrawn: np.ndarray | None = None) -> int:
        """Append an event to the journal (inside :meth:`writing`); returns its id."""
        text = None if withdrawn is None else json.dumps([int(r) for r in withdrawn])
        try:
            cur = self._db.execute("INSERT INTO journal (kind, request, answer, withdrawn, created) VALUES (?, ?, ?, ?, ?)",
                                   (kind, int(request_id), None if answer is None else int(answer), text, created))
        except sqlite3.Error as exc:
            raise translate(self.path, exc, f"record the {kind}") from None
        return cast(int, cur.lastrowid)

    def journal_after(self, last_event: int) -> list[LoggedEvent]:
        """Journal rows with id > ``last_event``, in order (each checked: a damaged one is refused)."""
        out = []
        for eid, kind, request, answer, withdrawn, created in self._rows(
                "SELECT id, kind, request, answer, withdrawn, created FROM journal WHERE id > ? ORDER BY id",
                (last_event,)):
            if (kind not in ("request", "answer", "cancel", "expire") or not isinstance(request, int)
                    or (kind == "answer") != isinstance(answer, int) or not isinstance(created, str)):
                raise damaged(self.path, f"journal row {eid} is not a request, answer, cancel or expiry")
            part = None
            if kind in ("cancel", "expire"):
                part = np.asarray(request_sources(self.path, request, withdrawn), dtype=np.intp)
            out.append(LoggedEvent(eid, kind, request, answer, part, created))
        return out

    def integrity_check(self) -> str:
        return self._one("PRAGMA integrity_check")[0]
