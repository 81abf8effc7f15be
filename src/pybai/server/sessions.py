"""Which sessions a ``--db`` holds, and opening one by name: the one place that maps (db, name) -> Session.

``--db`` is a database URL (``postgresql://...``, ``sqlite:///PATH``: every session it holds, by
name, :func:`pybai.session.store.list_sessions`), an SQLite session file (every session it holds)
or a directory of SQLite session files (every file's sessions; a name held by two files is served
from the first in name order).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from pybai.exceptions import InvalidParameterError, PybaiError
from pybai.naming import is_session_name
from pybai.session.backend_base import is_url
from pybai.session.integrity import SQLITE_MAGIC
from pybai.session.session import Session
from pybai.session.store import list_sessions

__all__ = ["UnknownSessionError", "check_db", "find_sessions", "open_session", "identity", "session_links"]

#: (path, inode, mtime) -> the session names stored in the file
_NAMES: dict[tuple[str, int, int], list[str]] = {}


class UnknownSessionError(InvalidParameterError, LookupError):
    """No session of that name in the database (HTTP 404)."""


def check_db(db: str) -> str:
    """``db`` when it is a database URL, a readable session database file or a directory, else one
    line: no such file or directory (:class:`InvalidParameterError`), or why the file cannot be
    served (not a session database, damaged, newer schema: the error of
    :func:`~pybai.session.store.list_sessions`).  A URL's server is reached at the first request."""
    if is_url(db):
        return db
    path = Path(db)
    if not (path.is_file() or path.is_dir()):
        raise InvalidParameterError(f"--db {db}: no such session database or directory "
                                    f"(create one with: pybai session new FILE --db {db}).")
    if path.is_file():
        list_sessions(path)  # a damaged file says so now rather than serving no session
    return db


def session_links(name: str) -> dict[str, str | None]:
    """``{"status", "dashboard"}``: the addresses of session ``name``, or None for a name no address
    reaches (``.``, ``..``, a ``/``: refused for new sessions, :func:`pybai.naming.check_session_name`,
    but an older database may hold one)."""
    if not is_session_name(name):
        return {"status": None, "dashboard": None}
    quoted = quote(name, safe="")
    return {"status": f"/sessions/{quoted}/status", "dashboard": f"/sessions/{quoted}"}


def _session_files(db: str) -> list[Path]:
    path = Path(db)
    if path.is_file():
        return [path]
    files = []
    for child in sorted(path.iterdir()) if path.is_dir() else []:
        if not child.is_file():
            continue
        try:
            with open(child, "rb") as handle:
                if handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC:
                    files.append(child)
        except OSError:
            continue
    return files


def _names_in(path: Path, unreadable: list[tuple[str, str]] | None) -> list[str]:
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_ino, stat.st_mtime_ns)
    except OSError:
        return []
    if key not in _NAMES:
        try:
            _NAMES[key] = list_sessions(path)
        except PybaiError as exc:  # not a session database (or a damaged one): not served, and said
            if unreadable is not None:
                unreadable.append((str(path), str(exc)))
            return []
    return _NAMES[key]


def find_sessions(db: str, unreadable: list[tuple[str, str]] | None = None) -> dict[str, str]:
    """Session name -> the database that holds it (the URL, or a file path), for every session of ``db``.

    A file of a directory that starts like an SQLite database but cannot be read (damaged, not a
    session database, a newer schema) is not served; ``unreadable``, when given, receives
    ``(path, why)`` for each (``pybai serve`` prints them).
    """
    if is_url(db):
        return {name: db for name in list_sessions(db)}
    found: dict[str, str] = {}
    for path in _session_files(db):
        for name in _names_in(path, unreadable):
            found.setdefault(name, str(path))
    return found


def open_session(db: str, name: str) -> Session:
    """The session ``name`` of ``db``, opened (its strategy rebuilt by replay).

    Raises
    ------
    UnknownSessionError
        ``db`` holds no session of that name (the message lists those it holds).
    """
    found = find_sessions(db)
    if name not in found:
        held = ", ".join(sorted(found)) or "none"
        raise UnknownSessionError(f"no session named {name!r} in {db} (sessions: {held}).")
    return Session.open(found[name], name)


def identity(session: Session) -> object:
    """What identifies the stored session an open ``session`` reads: a changed value means the file was
    replaced (deleted and created again), so the server opens it again instead of serving the old one."""
    try:
        stat = session.path.stat()  # type: ignore[union-attr]  # a str (a URL) has none: None below
    except (OSError, AttributeError, TypeError):  # not a file (a server database): nothing to compare
        return None
    return (stat.st_dev, stat.st_ino)
