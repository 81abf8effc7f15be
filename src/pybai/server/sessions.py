"""Which sessions a ``--db`` holds, and opening one by name: the one place that maps (db, name) -> Session.

``--db`` is a database URL (``postgresql://...``, ``sqlite:///PATH``: every session it holds, by
name, :func:`pybai.session.store.list_sessions`), an SQLite session file (every session it holds)
or a directory of SQLite session files (every file's sessions; a name held by two files is served
from the first in name order).
"""

from __future__ import annotations

from pathlib import Path

from pybai.exceptions import InvalidParameterError, PybaiError
from pybai.session.backend_base import is_url
from pybai.session.integrity import SQLITE_MAGIC
from pybai.session.session import Session
from pybai.session.store import list_sessions

__all__ = ["UnknownSessionError", "check_db", "find_sessions", "open_session", "identity"]

#: (path, inode, mtime) -> the session names stored in the file
_NAMES: dict[tuple[str, int, int], list[str]] = {}


class UnknownSessionError(InvalidParameterError, LookupError):
    """No session of that name in the database (HTTP 404)."""


def check_db(db: str) -> str:
    """``db`` when it is a database URL or names an existing file or directory, else one
    :class:`InvalidParameterError` line (a URL's server is reached at the first request)."""
    if is_url(db):
        return db
    path = Path(db)
    if not (path.is_file() or path.is_dir()):
        raise InvalidParameterError(f"--db {db}: no such session database or directory "
                                    f"(create one with: pybai session new FILE --db {db}).")
    return db


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


def _names_in(path: Path) -> list[str]:
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_ino, stat.st_mtime_ns)
    except OSError:
        return []
    if key not in _NAMES:
        try:
            _NAMES[key] = list_sessions(path)
        except PybaiError:
            return []  # not a session database (or a damaged one): not served
    return _NAMES[key]


def find_sessions(db: str) -> dict[str, str]:
    """Session name -> the database that holds it (the URL, or a file path), for every session of ``db``."""
    if is_url(db):
        return {name: db for name in list_sessions(db)}
    found: dict[str, str] = {}
    for path in _session_files(db):
        for name in _names_in(path):
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
