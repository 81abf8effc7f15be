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

import numpy as np

from pybai._version import __version__
from pybai.exceptions import InvalidParameterError, SessionStateError

__all__ = ["SCHEMA_VERSION", "APPLICATION_ID", "Store", "LoggedRequest", "LoggedAnswer", "Snapshot", "utc_now"]

#: Version of the schema this module writes; a database with a larger one is refused.
SCHEMA_VERSION = 1

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
class Snapshot:
    """Events after a cursor, read in one transaction (a consistent view of the log)."""

    requests: list[LoggedRequest]
    answers: list[LoggedAnswer]


def _fail(path, message: str) -> SessionStateError:
    return SessionStateError(f"{path}: {message}")


class Store:
    """An open session database (use :meth:`create` or :meth:`open`)."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self._db = connection

    # ------------------------------------------------------------ opening
    @staticmethod
    def _connect(path: Path, mode: str) -> sqlite3.Connection:
        uri = f"file:{path.resolve().as_posix()}?mode={mode}"
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
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
        except BaseException:
            try:
                db.close()
            except Exception:
                pass
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            raise
        return cls(path, db)

    @classmethod
    def open(cls, path) -> "Store":
        """Open an existing database; refuses other files and newer schemas with one line."""
        path = Path(path)
        if not path.is_file():
            raise InvalidParameterError(
                f"{path}: no such session database (create one with: pybai session new FILE --db {path}).")
        try:
            db = cls._connect(path, "rw")
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc):
                raise _fail(path, "not a pybai session database (not an SQLite file).") from None
            raise _fail(path, f"cannot open ({exc}).") from None
        try:
            app = db.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError:
            db.close()
            raise _fail(path, "not a pybai session database (not an SQLite file).") from None
        if app != APPLICATION_ID or "meta" not in tables:
            db.close()
            raise _fail(path, "not a pybai session database.")
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            db.close()
            raise _fail(path, f"written with session schema {version}, newer than this pybai ({__version__}) "
                              f"reads (schema {SCHEMA_VERSION}); upgrade pybai to open it.")
        if version < 1:
            db.close()
            raise _fail(path, "not a pybai session database (no schema version).")
        return cls(path, db)

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ reading
    def meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    def definition(self) -> dict:
        name, document, seed, strategy, created = self._db.execute(
            "SELECT name, document, seed, strategy, created FROM definition WHERE id = 1").fetchone()
        return {"name": name, "document": json.loads(document), "seed": seed, "strategy": strategy,
                "created": created}

    @contextmanager
    def reading(self):
        """A read transaction: every query inside sees one consistent state of the log."""
        try:
            self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise _fail(self.path, f"cannot read ({exc}).") from None
        try:
            yield self
        finally:
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    @contextmanager
    def writing(self):
        """A write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back on error."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _fail(self.path, f"cannot write ({exc}).") from None
        try:
            yield self
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise _fail(self.path, f"the answer could not be stored ({exc}); nothing was recorded.") from None

    def events_after(self, last_request: int, last_answer: int) -> Snapshot:
        """Requests with id > ``last_request`` and answers with id > ``last_answer``, in order."""
        db = self._db
        requests = [LoggedRequest(i, np.asarray(json.loads(s), dtype=np.intp), c) for i, s, c in db.execute(
            "SELECT id, sources, created FROM requests WHERE id > ? ORDER BY id", (last_request,))]
        rows = db.execute(
            "SELECT a.id, a.request, a.created, o.source, o.reward FROM answers a JOIN observations o "
            "ON o.answer = a.id WHERE a.id > ? ORDER BY a.id, o.id", (last_answer,)).fetchall()
        answers: list[LoggedAnswer] = []
        start = 0
        for end in range(1, len(rows) + 1):
            if end == len(rows) or rows[end][0] != rows[start][0]:
                chunk = rows[start:end]
                aid, request, created = chunk[0][:3]
                answers.append(LoggedAnswer(aid, request, np.array([r[3] for r in chunk], dtype=np.intp),
                                            np.array([r[4] for r in chunk], dtype=float), created))
                start = end
        return Snapshot(requests, answers)

    def counts(self) -> tuple[int, int, int]:
        """(requests, answers, observations) in the log."""
        return tuple(self._db.execute(
            "SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM answers), "
            "(SELECT COUNT(*) FROM observations)").fetchone())

    def last_answer_time(self) -> str | None:
        return self._db.execute("SELECT MAX(created) FROM answers").fetchone()[0]

    def request_info(self, request_id: int) -> tuple[int, int, str | None] | None:
        """(size of the request, samples answered so far, time of the last answer) or None if unknown."""
        row = self._db.execute("SELECT sources FROM requests WHERE id = ?", (request_id,)).fetchone()
        if row is None:
            return None
        answered, last = self._db.execute(
            "SELECT COALESCE(SUM(size), 0), MAX(created) FROM answers WHERE request = ?", (request_id,)).fetchone()
        return len(json.loads(row[0])), int(answered), last

    def observation_rows(self):
        """Every observation, in order: (id, answer, request, source, reward, time)."""
        return self._db.execute(
            "SELECT id, answer, request, source, reward, time FROM observations ORDER BY id").fetchall()

    # ------------------------------------------------------------ writing (inside writing())
    def add_request(self, request_id: int, requests: np.ndarray, created: str) -> None:
        self._db.execute("INSERT INTO requests VALUES (?, ?, ?)",
                         (int(request_id), json.dumps([int(r) for r in requests]), created))

    def add_answer(self, request_id: int, sources: np.ndarray, rewards: np.ndarray, created: str) -> int:
        cur = self._db.execute("INSERT INTO answers (request, size, created) VALUES (?, ?, ?)",
                               (int(request_id), int(sources.shape[0]), created))
        answer = cast(int, cur.lastrowid)  # set by the INSERT
        self._db.executemany(
            "INSERT INTO observations (answer, request, source, reward, time) VALUES (?, ?, ?, ?, ?)",
            [(answer, int(request_id), int(s), float(r), created) for s, r in zip(sources.tolist(), rewards.tolist())])
        return answer

    def integrity_check(self) -> str:
        return self._db.execute("PRAGMA integrity_check").fetchone()[0]
