"""The embedded backend: a session database in one SQLite file (the default).

The file is in WAL mode with ``synchronous = FULL``: readers never block the writer nor each
other, each write transaction (``BEGIN IMMEDIATE``: one writer at a time) is on disk when it
returns.  ``PRAGMA application_id`` marks the file as pybai's.  Before anything reads a
session, :func:`pybai.session.integrity.check_database` checks the whole file; a database of
schema 1 (one session per file) is upgraded in place, in one transaction, the first time a
process that may write it opens it (:mod:`pybai.session.migrations`).
"""

from __future__ import annotations

import os
import sqlite3
from functools import cache
from pathlib import Path
from typing import cast
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.pool import NullPool
from sqlalchemy.schema import CreateIndex, CreateTable

from pybai.exceptions import InvalidParameterError, SessionStateError
from pybai.session import schema
from pybai.session.backend_base import BUSY_TIMEOUT_SECONDS, Backend
from pybai.session.integrity import SQLITE_MAGIC, check_database, damaged, expected_columns, translate
from pybai.session.migrations import columns_at, migrate

__all__ = ["SQLiteBackend", "APPLICATION_ID", "SCHEMA_V1"]

#: ``PRAGMA application_id`` of session databases ("pbai").
APPLICATION_ID = 0x70626169

#: The tables of schema 1 (frozen: what older files hold, checked before they are upgraded).
SCHEMA_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE definition (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, document TEXT NOT NULL,
    seed INTEGER NOT NULL, strategy TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE requests (id INTEGER PRIMARY KEY, sources TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE answers (id INTEGER PRIMARY KEY, request INTEGER NOT NULL REFERENCES requests(id),
    size INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE observations (id INTEGER PRIMARY KEY, answer INTEGER NOT NULL REFERENCES answers(id),
    request INTEGER NOT NULL REFERENCES requests(id), source INTEGER NOT NULL, reward REAL NOT NULL,
    time TEXT NOT NULL);
CREATE INDEX observations_by_answer ON observations(answer);
"""


@cache
def current_schema_sql() -> str:
    """The SQLite DDL of the current schema (from :mod:`pybai.session.schema`)."""
    dialect = sqlite_dialect.dialect()
    parts = []
    for table in schema.metadata.sorted_tables:
        parts.append(str(CreateTable(table).compile(dialect=dialect)).strip())
        parts += [str(CreateIndex(index).compile(dialect=dialect)).strip() for index in table.indexes]
    return ";\n".join(parts) + ";\n"


@cache
def _columns_by_version() -> dict[int, dict[str, tuple[str, ...]]]:
    """The columns of every schema this code reads: 1 (frozen), 2 (the current ones without those added since), current."""
    current = expected_columns(current_schema_sql())
    out = {1: expected_columns(SCHEMA_V1), schema.SCHEMA_VERSION: current}
    out.update({v: columns_at(v, current) for v in range(2, schema.SCHEMA_VERSION)})
    return out


def _starts_like_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _writable(path: Path) -> bool:
    """Whether this process may write the file and create its ``-wal``/``-shm`` files beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


def _raw_connect(path: Path, mode: str, immutable: bool = False) -> sqlite3.Connection:
    uri = f"file:{quote(path.resolve().as_posix())}?mode={mode}" + ("&immutable=1" if immutable else "")
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                         check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        if mode != "ro":
            db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        db.close()
        raise
    return db


def _raw(connection: sa.Connection) -> sqlite3.Connection:
    """The ``sqlite3`` connection under an SQLAlchemy one (the file checks speak to it directly)."""
    return cast(sqlite3.Connection, connection.connection.dbapi_connection)


def _engine(make) -> sa.Engine:
    return sa.create_engine("sqlite://", creator=make, poolclass=NullPool)


class SQLiteBackend(Backend):
    """A session database in the SQLite file ``path``."""

    dialect = "sqlite"
    one_session_per_create = True

    def __init__(self, path: Path):
        self.path = Path(path)
        self.label = str(path)
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file the connection opened

    def _remember_file(self) -> None:
        try:
            st = os.stat(self.path)
        except OSError:
            self._identity = None
            return
        self._identity = (st.st_dev, st.st_ino)

    def _check_same_file(self) -> None:
        """Refuse (one line) to go on with a file removed or replaced since it was opened: what an open
        connection would write there (an unlinked inode) no one could read again."""
        if self._identity is None:
            return
        try:
            st = os.stat(self.path)
        except OSError:
            raise self.fail("the database file was removed since the session was opened; nothing more is "
                            "recorded (open it again once the file is back).") from None
        if (st.st_dev, st.st_ino) != self._identity:
            raise self.fail("the database file was replaced by another since the session was opened; nothing more "
                            "is recorded (open it again to use the new file).")

    # ------------------------------------------------------------ connecting
    def connect(self, create: bool = False) -> tuple[sa.Connection, bool]:
        path = self.path
        if create:
            return self._create_file(), True
        if not path.is_file():
            raise InvalidParameterError(
                f"{path}: no such session database (create one with: pybai session new FILE --db {path}).")
        if not _starts_like_sqlite(path):
            raise self.fail("not a pybai session database (not an SQLite file, or its header is damaged).")
        writable = _writable(path)
        # a folder nobody can write holds no -wal file being written: read the file as it is
        immutable = not writable and not os.access(path.parent, os.W_OK) and not Path(f"{path}-wal").exists()
        try:
            raw = _raw_connect(path, "rw" if writable else "ro", immutable)
        except sqlite3.Error as exc:
            raise translate(path, exc, "open it") from None
        except UnicodeDecodeError:  # SQLite's message quotes bytes of the damaged header
            raise damaged(path, "SQLite cannot read its header") from None
        self._remember_file()
        return _engine(lambda: raw).connect().execution_options(isolation_level="AUTOCOMMIT"), writable

    def _create_file(self) -> sa.Connection:
        path = self.path
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            raise InvalidParameterError(f"{path}: already exists; a new session needs a new database file.") from None
        except OSError as exc:
            raise InvalidParameterError(f"{path}: cannot create ({exc.strerror}).") from None
        os.close(fd)
        try:
            raw = _raw_connect(path, "rw")
            raw.execute("PRAGMA journal_mode = WAL")
            raw.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        except sqlite3.Error as exc:
            self.discard()
            raise InvalidParameterError(f"{path}: cannot create ({exc}).") from None
        self._remember_file()
        return _engine(lambda: raw).connect().execution_options(isolation_level="AUTOCOMMIT")

    def discard(self) -> None:
        """Remove a database whose creation failed (and its WAL files)."""
        for suffix in ("", "-wal", "-shm"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)

    # ------------------------------------------------------------ transactions and errors
    def begin_read(self, connection: sa.Connection) -> None:
        self._check_same_file()
        connection.exec_driver_sql("BEGIN")

    def begin_write(self, connection: sa.Connection, session_id: int | None) -> None:
        self._check_same_file()
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    def data_version(self, connection: sa.Connection) -> int:
        """SQLite's ``PRAGMA data_version``: unchanged on a connection until another connection commits
        (its own commits leave it as it is); inside a transaction it starts the read of the snapshot."""
        return int(_raw(connection).execute("PRAGMA data_version").fetchone()[0])

    def translate(self, exc: BaseException, doing: str) -> SessionStateError:
        orig = getattr(exc, "orig", exc)
        if not isinstance(orig, sqlite3.Error):
            return damaged(self.path, str(orig))
        return translate(self.path, orig, doing)

    # ------------------------------------------------------------ checks and set-up
    def check(self, connection: sa.Connection) -> int:
        """The checks of :func:`~pybai.session.integrity.check_database`; returns the schema version."""
        raw = _raw(connection)
        path = self.path
        try:
            app = raw.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if app != APPLICATION_ID and "meta" not in tables:
                raise self.fail("not a pybai session database.")
            if app != APPLICATION_ID:
                raise damaged(path, f"the application id is {app}, expected {APPLICATION_ID}")
            return check_database(raw, path, _columns_by_version(), newer=self._newer)
        except sqlite3.Error as exc:
            raise translate(path, exc, "read it") from None
        except UnicodeDecodeError:
            raise damaged(path, "SQLite reports unreadable text") from None

    def _newer(self, version: int) -> SessionStateError:
        from pybai._version import __version__

        return self.fail(f"written with session schema {version}, newer than this pybai ({__version__}) "
                         f"reads (schema {schema.SCHEMA_VERSION}); upgrade pybai to open it.")

    def prepare(self, connection: sa.Connection) -> None:
        raw = _raw(connection)
        for statement in filter(str.strip, current_schema_sql().split(";")):
            raw.execute(statement)

    def upgrade(self, connection: sa.Connection, version: int) -> None:
        """Migrate the file from ``version`` to the current schema in one transaction."""
        raw = _raw(connection)
        try:
            raw.execute("PRAGMA foreign_keys = OFF")  # tables are rebuilt; checked before the commit
            raw.execute("BEGIN IMMEDIATE")
            try:
                migrate("sqlite", version, schema.SCHEMA_VERSION, raw.execute)
                orphan = raw.execute("PRAGMA foreign_key_check").fetchone()
                if orphan is not None:
                    raise damaged(self.path, f"upgrading schema {version}: row {orphan[1]} of {orphan[0]} "
                                             f"points at a row of {orphan[2]} that does not exist")
                raw.execute("COMMIT")
            except BaseException:
                if raw.in_transaction:
                    raw.execute("ROLLBACK")
                raise
            finally:
                raw.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise translate(self.path, exc, f"upgrade it from session schema {version}") from None

    def upgraded_copy(self, connection: sa.Connection, version: int) -> sa.Connection:
        """A read-only file of an older schema: an upgraded copy in memory (the file is left as it is)."""
        raw = _raw(connection)
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            raw.backup(memory)
        except sqlite3.Error as exc:
            memory.close()
            raise translate(self.path, exc, "read it") from None
        finally:
            connection.close()
        copy = _engine(lambda: memory).connect().execution_options(isolation_level="AUTOCOMMIT")
        self.upgrade(copy, version)
        return copy

