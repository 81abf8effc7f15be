"""Where a session database lives: the storage backends behind :class:`pybai.session.store.Store`.

A database is named by ``db``: a path (or ``sqlite:///PATH``) for the embedded SQLite backend,
``postgresql://user[:password]@host[:port]/dbname`` (also ``postgres://`` and
``postgresql+psycopg://``) for a PostgreSQL server.  :func:`backend_for` turns it into a
backend; a backend opens connections (SQLAlchemy Core, in autocommit mode: the store begins and
ends its transactions itself), words every driver error as one line naming the database, and
knows its dialect's transaction statements:

=====================  ==============================  =========================================
                       SQLite                          PostgreSQL
=====================  ==============================  =========================================
read transaction       ``BEGIN`` (WAL: a snapshot)     ``BEGIN ISOLATION LEVEL REPEATABLE READ``
write transaction      ``BEGIN IMMEDIATE`` (one        ``BEGIN`` + ``SELECT ... FOR UPDATE`` of
                       writer per file)                the session's ``definition`` row (one
                                                       writer per session)
=====================  ==============================  =========================================
"""

from __future__ import annotations

from pathlib import Path

from pybai.exceptions import InvalidParameterError
from pybai.session.backend_base import Backend, is_url

__all__ = ["Backend", "backend_for", "is_url", "POSTGRES_SCHEMES"]

POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")


def backend_for(db) -> Backend:
    """The backend of ``db`` (a path, ``sqlite:///PATH`` or a ``postgresql://`` URL).

    Raises
    ------
    InvalidParameterError
        An unknown URL scheme, or a PostgreSQL URL without the driver installed.
    """
    if isinstance(db, Backend):
        return db
    if isinstance(db, bytes) or not isinstance(db, (str, Path)):
        raise InvalidParameterError(f"The 'db' parameter must be a path or a database URL. Got {db!r}.")
    if is_url(db):
        scheme = str(db).split("://", 1)[0].lower()
        if scheme == "sqlite":
            from pybai.session.backend_sqlite import SQLiteBackend

            return SQLiteBackend(Path(str(db).split("://", 1)[1].removeprefix("/")))
        if scheme in POSTGRES_SCHEMES:
            from pybai.session.backend_postgres import PostgresBackend

            return PostgresBackend(str(db))
        raise InvalidParameterError(
            f"The 'db' parameter must be a file path, sqlite:///PATH or postgresql://user@host:port/dbname. "
            f"Got the scheme {scheme!r}.")
    from pybai.session.backend_sqlite import SQLiteBackend

    return SQLiteBackend(Path(db))
