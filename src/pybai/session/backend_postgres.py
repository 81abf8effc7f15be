"""The server backend: session databases on PostgreSQL (through SQLAlchemy Core and psycopg 3).

``postgresql://user[:password]@host[:port]/dbname`` (``?host=/socket/dir`` for a Unix
socket).  One PostgreSQL database holds any number of sessions, each named by its session
file's ``name``.  Writers of one session are serialised by a row lock on the session's
``definition`` row (``SELECT ... FOR UPDATE``, held until the transaction ends), so many
processes on many connections may ask and tell one session at once: each sees the answers the
others committed before it (READ COMMITTED: every statement after the lock reads the newest
committed rows) and nothing is lost or counted twice.  Readers take a REPEATABLE READ
snapshot and never wait.  The tables are created, under an advisory lock, by the first
``session new`` on an empty database.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from pybai._secrets import mask_credentials
from pybai.exceptions import InvalidParameterError, SessionStateError, StorageUnavailableError
from pybai.session import schema
from pybai.session.backend_base import BUSY_TIMEOUT_SECONDS, Backend
from pybai.session.integrity import damaged

__all__ = ["PostgresBackend"]

#: ``pg_advisory_xact_lock`` key taken while the tables are created ("pbai").
_CREATE_LOCK = 0x70626169


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return " ".join(text.splitlines()[0].split()) if text else type(exc).__name__


class PostgresBackend(Backend):
    """Session databases in the PostgreSQL database of ``url``."""

    dialect = "postgresql"

    def __init__(self, url: str):
        try:
            parsed = sa.engine.make_url(url)
            port = parsed.port
        except (sa.exc.ArgumentError, ValueError) as exc:
            raise InvalidParameterError(f"The 'db' parameter is not a database URL ({_first_line(exc)}). "
                                        f"Got {url!r}.") from None
        if port is not None and not 1 <= port <= 65535:
            raise InvalidParameterError(f"The 'db' parameter has the port {port}; a port is in 1..65535. Got {url!r}.")
        self.url = parsed.set(drivername="postgresql+psycopg")
        self.label = mask_credentials(
            self.url.render_as_string(hide_password=True).replace("postgresql+psycopg://", "postgresql://"))

    def connect(self, create: bool = False) -> tuple[sa.Connection, bool]:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise InvalidParameterError(
                f"{self.label}: PostgreSQL needs the psycopg driver: pip install 'pybai[postgresql]'.") from None
        timeout = int(BUSY_TIMEOUT_SECONDS * 1000)
        try:
            engine = sa.create_engine(self.url, poolclass=NullPool, connect_args={
                "connect_timeout": 10, "options": f"-c lock_timeout={timeout} -c statement_timeout={10 * timeout}"})
        except (sa.exc.ArgumentError, ValueError, TypeError) as exc:  # e.g. ?port=abc
            raise InvalidParameterError(f"{self.label}: not a usable PostgreSQL URL ({_first_line(exc)}).") from None
        try:
            connection = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        except sa.exc.DBAPIError as exc:
            if self.is_disconnect(exc):  # no server there (yet): a restart, a network fault
                raise StorageUnavailableError(f"{self.label}: cannot connect ({_first_line(exc)}).") from None
            raise self.fail(f"cannot connect ({_first_line(exc)}).") from None
        return connection, True

    def is_disconnect(self, exc: BaseException) -> bool:
        """A connection the server closed or could not open: SQLAlchemy's own verdict, the SQLSTATE classes
        08 (connection exception) and 57P01-57P03 (the server shutting down or starting), or a driver
        error without an SQLSTATE (the socket is gone)."""
        if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
            return True
        if isinstance(exc, (sa.exc.PendingRollbackError, sa.exc.ResourceClosedError)):
            return True
        orig = getattr(exc, "orig", exc)
        import psycopg

        if not isinstance(orig, psycopg.Error):
            return False
        state = orig.sqlstate or ""
        return state.startswith("08") or state in ("57P01", "57P02", "57P03") or (
            not state and isinstance(orig, (psycopg.OperationalError, psycopg.InterfaceError)))

    def begin_read(self, connection: sa.Connection) -> None:
        connection.exec_driver_sql("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")

    def begin_write(self, connection: sa.Connection, session_id: int | None) -> None:
        connection.exec_driver_sql("BEGIN")
        if session_id is None:  # creating a session: one creator at a time
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _CREATE_LOCK})
        else:
            connection.execute(sa.select(schema.definition.c.id).where(schema.definition.c.id == session_id)
                               .with_for_update())

    def translate(self, exc: BaseException, doing: str) -> SessionStateError:
        text = _first_line(exc)
        low = text.lower()
        if "lock" in low and ("timeout" in low or "not available" in low) or "deadlock" in low:
            return self.fail(f"cannot {doing}: another process holds the session ({text}); try again when it "
                             "has finished.")
        if isinstance(exc, sa.exc.OperationalError) or "connection" in low or "server" in low:
            return self.fail(f"cannot {doing} ({text}).")
        if "permission denied" in low or "read-only" in low:
            return self.fail(f"read-only: cannot {doing} ({text}).")
        return damaged(self.label, text)

    def check(self, connection: sa.Connection) -> int:
        inspector = sa.inspect(connection)
        tables = set(inspector.get_table_names())
        if "meta" not in tables:
            raise InvalidParameterError(
                f"{self.label}: holds no pybai session (create one with: pybai session new FILE --db URL).")
        for table in schema.metadata.sorted_tables:
            if table.name not in tables:
                raise damaged(self.label, f"the table {table.name} is missing")
            found = tuple(c["name"] for c in inspector.get_columns(table.name))
            if found != tuple(table.columns.keys()):
                raise damaged(self.label, f"the table {table.name} has the columns {', '.join(found)}; "
                                          f"expected {', '.join(table.columns.keys())}")
        value = connection.execute(sa.select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
                                   ).scalar()
        if not (isinstance(value, str) and value.isascii() and value.isdigit()):
            raise damaged(self.label, f"meta schema_version is {value!r}, expected an integer")
        version = int(value)
        if version > schema.SCHEMA_VERSION:
            from pybai._version import __version__

            raise self.fail(f"written with session schema {version}, newer than this pybai ({__version__}) "
                            f"reads (schema {schema.SCHEMA_VERSION}); upgrade pybai to open it.")
        return version

    def has_tables(self, connection: sa.Connection) -> bool:
        return "meta" in sa.inspect(connection).get_table_names()

    def prepare(self, connection: sa.Connection) -> None:
        schema.metadata.create_all(connection)

    def upgrade(self, connection: sa.Connection, version: int) -> None:
        raise self.fail(f"session schema {version} has no upgrade on PostgreSQL (databases start at 2).")
