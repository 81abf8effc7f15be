"""The interface of a storage backend (:class:`Backend`); :mod:`pybai.session.backends` picks one."""

from __future__ import annotations

import sqlalchemy as sa

from pybai.exceptions import SessionStateError

__all__ = ["Backend", "is_url", "BUSY_TIMEOUT_SECONDS"]

#: Seconds a writer waits for another one before giving up with a "try again" line.
BUSY_TIMEOUT_SECONDS = 30.0


def is_url(db) -> bool:
    """Whether ``db`` is a database URL (``scheme://...``) rather than a file path."""
    return isinstance(db, str) and "://" in db


class Backend:
    """One database: how to connect to it, begin transactions, and word its errors.

    Attributes
    ----------
    dialect : str
        ``"sqlite"`` or ``"postgresql"``.
    label : str
        How messages name the database (the path, or the URL without its password).
    """

    dialect = ""
    label = ""
    #: Whether a new session needs a new database (SQLite: one file per ``session new``).
    one_session_per_create = False

    def connect(self, create: bool = False) -> tuple[sa.Connection, bool]:
        """An autocommit connection and whether this process may write."""
        raise NotImplementedError

    def begin_read(self, connection: sa.Connection) -> None:
        raise NotImplementedError

    def begin_write(self, connection: sa.Connection, session_id: int | None) -> None:
        raise NotImplementedError

    def is_disconnect(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the connection to a database server was lost (never for a file)."""
        return False

    def translate(self, exc: BaseException, doing: str) -> SessionStateError:
        """A driver error met while ``doing`` something, as one line naming the database."""
        raise NotImplementedError

    def check(self, connection: sa.Connection) -> int:
        """Refuse a database that is not a whole pybai session database (one line), before any write;
        its schema version."""
        raise NotImplementedError

    def data_version(self, connection: sa.Connection) -> int | None:
        """A number that changes whenever another connection committed to the database (read as the first
        statement of a transaction); None when the backend has none (then every transaction reads the log
        after its cursors)."""
        return None

    def has_tables(self, connection: sa.Connection) -> bool:
        """Whether the database already holds the tables (a server database may be empty)."""
        return True

    def upgrade(self, connection: sa.Connection, version: int) -> None:
        """Migrate the database from schema ``version`` to the current one, in one transaction."""
        raise NotImplementedError

    def upgraded_copy(self, connection: sa.Connection, version: int) -> sa.Connection:
        """A read-only database of an older schema: a connection to an upgraded copy of it."""
        raise self.fail(f"read-only: written with session schema {version}, which only a process that may write "
                        "the database can upgrade.")

    def discard(self) -> None:
        """Remove what a failed creation left (nothing, unless one database is made per session)."""

    def prepare(self, connection: sa.Connection) -> None:
        """Set up a new database's tables (inside the write transaction of :meth:`Store.create`)."""
        raise NotImplementedError

    def fail(self, message: str) -> SessionStateError:
        return SessionStateError(f"{self.label}: {message}")
