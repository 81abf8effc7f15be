"""A store's connection to its database, and what happens when a database server drops it.

A :class:`Link` runs every statement of a :class:`~pybai.session.store.Store` and begins and
ends its transactions.  A server database (PostgreSQL) may go away under an open session: a
restart, a network fault, an administrator ending connections.  Then:

* **before a transaction** (its ``BEGIN`` is the ping: nothing has been sent yet) a dead
  connection is replaced by a new one at once, waiting up to :data:`RECONNECT_SECONDS` for a
  restarting server; the caller never sees the fault;
* **inside a transaction** the server has rolled the transaction back: the call raises
  :class:`~pybai.exceptions.StorageUnavailableError` ("nothing was recorded"), the connection
  is dropped (never reused: no driver state such as a pending rollback survives it), and the
  next transaction reconnects;
* **during COMMIT** the outcome is hidden by the lost connection: once the server is back,
  the last row the transaction inserted (its *marker*, a journal row or a session's
  definition) is looked up: found, the commit happened and the call succeeds; missing,
  nothing was recorded and :class:`~pybai.exceptions.StorageUnavailableError` says so.  If the
  server stays away the error says the outcome is unknown (``in_doubt``).

:func:`retrying` wraps the operations of a :class:`~pybai.session.Session`: an operation that
failed with "nothing was recorded" is run again (the session rebuilt from its journal) until it
succeeds or :data:`RECONNECT_SECONDS` have passed.  An SQLite file has no connection to lose:
its errors are worded as before and never retried.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeVar

import sqlalchemy as sa

from pybai.exceptions import SessionStateError, StorageUnavailableError

__all__ = ["Link", "retrying", "RECONNECT_SECONDS", "DRIVER_ERRORS"]

#: How long an operation waits for a database server that went away (a restart takes a few seconds).
RECONNECT_SECONDS = 20.0

#: Errors of the drivers and of SQLAlchemy that a store words as one line.
DRIVER_ERRORS = (sa.exc.DBAPIError, sa.exc.InvalidRequestError, sqlite3.Error, UnicodeDecodeError)

T = TypeVar("T")


def _pause(attempt: int) -> None:
    time.sleep(min(0.05 * 2 ** attempt, 1.0))


class Link:
    """The connection of a store (``backend.connect()``), replaced when the server dropped it."""

    def __init__(self, backend, connection: sa.Connection):
        self.backend = backend
        self.connection = connection
        self.lost = False  # the connection is gone: the next transaction opens a new one
        self.in_transaction = False
        #: ``(table, id)`` of the last row the open write transaction inserted (checked after a lost COMMIT)
        self.marker: tuple[str, int] | None = None

    # ------------------------------------------------------------ statements
    def call(self, work: Callable[[sa.Connection], T], doing: str) -> T:
        """``work(connection)``; a driver error as one line (a lost connection: StorageUnavailableError)."""
        if self.lost:
            if self.in_transaction:  # the server already rolled this transaction back
                raise self._unavailable(doing, "the connection was lost")
            self._reconnect(doing, time.monotonic() + RECONNECT_SECONDS)
        try:
            return work(self.connection)
        except DRIVER_ERRORS as exc:
            if self.backend.is_disconnect(exc):
                self._drop()
                raise self._unavailable(doing, _first_line(exc)) from None
            if isinstance(exc, sa.exc.InvalidRequestError) and not isinstance(exc, sa.exc.DBAPIError):
                raise
            raise self.backend.translate(exc, doing) from None

    # ------------------------------------------------------------ transactions
    def begin(self, begin: Callable[[sa.Connection], None], doing: str) -> None:
        """Begin a transaction (``begin(connection)``), on a new connection when the old one is dead."""
        deadline = time.monotonic() + RECONNECT_SECONDS
        for attempt in range(1000):
            if self.lost:
                self._reconnect(doing, deadline)
            try:
                begin(self.connection)
            except DRIVER_ERRORS as exc:
                if self.backend.is_disconnect(exc) and time.monotonic() < deadline:
                    self._drop()  # nothing was sent but the BEGIN: open a new connection and begin again
                    _pause(min(attempt, 2))
                    continue
                self.rollback()
                if self.backend.is_disconnect(exc):
                    self._drop()
                    raise self._unavailable(doing, _first_line(exc)) from None
                raise self.backend.translate(exc, doing) from None
            except BaseException:
                self.rollback()
                raise
            self.in_transaction = True
            self.marker = None
            return
        raise self._unavailable(doing, "the database server does not answer")  # pragma: no cover

    def rollback(self) -> None:
        """End the transaction without recording anything (nothing to do on a lost connection)."""
        self.in_transaction = False
        if not self.lost:
            _quietly(self.connection.exec_driver_sql, "ROLLBACK")

    def end_read(self) -> None:
        """End a read transaction (it wrote nothing: a failure changes nothing)."""
        self.in_transaction = False
        if not self.lost:
            _quietly(self.connection.exec_driver_sql, "COMMIT")

    def commit(self, doing: str) -> None:
        """Commit the write transaction; a commit whose answer was lost is resolved with its marker."""
        self.in_transaction = False
        if self.lost:
            raise self._unavailable(doing, "the connection was lost")
        try:
            self.connection.exec_driver_sql("COMMIT")
            return
        except DRIVER_ERRORS as exc:
            if not self.backend.is_disconnect(exc):
                _quietly(self.connection.exec_driver_sql, "ROLLBACK")
                error = self.backend.translate(exc, doing)
                raise SessionStateError(f"{error} Nothing was recorded.") from None
            reason = _first_line(exc)
        self._drop()
        if self.marker is None:  # the transaction inserted nothing: nothing to look for
            raise self._unavailable(doing, reason)
        try:
            found = self._find_marker(doing)
        except StorageUnavailableError:
            raise StorageUnavailableError(
                f"{self.backend.label}: the connection was lost while the database committed ({reason}) and the "
                f"server did not come back within {RECONNECT_SECONDS:g} s to say whether it did: cannot tell "
                f"whether it was recorded (a status shows it once the server is back).", in_doubt=True) from None
        if not found:
            raise self._unavailable(doing, reason)

    # ------------------------------------------------------------ reconnecting
    def _find_marker(self, doing: str) -> bool:
        table, row = self.marker or ("", 0)
        self._reconnect(doing, time.monotonic() + RECONNECT_SECONDS)
        statement = sa.text(f"SELECT 1 FROM {table} WHERE id = :id")  # table: "journal" or "definition"
        return self.call(lambda c: c.execute(statement, {"id": row}).first() is not None, doing)

    def _drop(self) -> None:
        self.lost = True
        _quietly(self.connection.invalidate)
        _quietly(self.connection.close)

    def _reconnect(self, doing: str, deadline: float) -> None:
        """A new connection, waiting until ``deadline`` for a server that does not answer yet."""
        attempt = 0
        while True:
            try:
                self.connection, _ = self.backend.connect()
            except StorageUnavailableError as exc:
                if time.monotonic() >= deadline:
                    raise self._unavailable(doing, str(exc).split(": ", 1)[-1]) from None
                _pause(attempt)
                attempt += 1
                continue
            self.lost = False
            return

    def _unavailable(self, doing: str, reason: str) -> StorageUnavailableError:
        return StorageUnavailableError(f"{self.backend.label}: cannot {doing}: the database server cannot be "
                                       f"reached ({reason}); nothing was recorded, try again.")


def retrying(method: Callable[..., T]) -> Callable[..., T]:
    """A :class:`~pybai.session.Session` operation run again after "nothing was recorded" (the session
    rebuilt from its journal), for up to :data:`RECONNECT_SECONDS`."""

    @functools.wraps(method)
    def run(self, *args: Any, **kwargs: Any) -> T:
        deadline = time.monotonic() + RECONNECT_SECONDS
        attempt = 0
        while True:
            try:
                return method(self, *args, **kwargs)
            except StorageUnavailableError as exc:
                self._replay = None  # rebuilt from the stored state and the journal at the next call
                if exc.in_doubt or time.monotonic() >= deadline:
                    raise
            _pause(attempt)
            attempt += 1

    return run


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return " ".join(text.splitlines()[0].split()) if text else type(exc).__name__


def _quietly(action, *args) -> None:
    """A clean-up step whose failure changes nothing (ending a read transaction, closing)."""
    try:
        action(*args)
    except Exception:
        pass
