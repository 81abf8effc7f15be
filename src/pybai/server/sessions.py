"""Which sessions a ``--db`` holds, and opening one by name: the one place that maps (db, name) -> Session.

Today a session database is one SQLite file holding one named session, so ``--db`` is either
such a file (its session is served under its name) or a directory of them (every file's
session, by name).  A storage with several sessions per database (or a server URL) replaces
:func:`find_sessions` and :func:`open_session`, and nothing else in the server.
"""

from __future__ import annotations

from pathlib import Path

from pybai.exceptions import InvalidParameterError, PybaiError
from pybai.session.integrity import SQLITE_MAGIC
from pybai.session.session import Session
from pybai.session.store import Store

__all__ = ["UnknownSessionError", "check_db", "find_sessions", "open_session", "identity"]

#: (path, inode) -> the session name stored in the file (a session's name never changes)
_NAMES: dict[tuple[str, int], str] = {}


class UnknownSessionError(InvalidParameterError, LookupError):
    """No session of that name in the database (HTTP 404)."""


def check_db(db: str) -> str:
    """``db`` when it names an existing session file or directory, else one :class:`InvalidParameterError` line."""
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


def _name_of(path: Path) -> str | None:
    try:
        key = (str(path.resolve()), path.stat().st_ino)
    except OSError:
        return None
    if key not in _NAMES:
        try:
            store = Store.open(path)
        except PybaiError:
            return None  # not a session database (or a damaged one): not served
        try:
            _NAMES[key] = store.definition()["name"]
        except PybaiError:
            return None
        finally:
            store.close()
    return _NAMES[key]


def find_sessions(db: str) -> dict[str, str]:
    """Session name -> where it is stored (a file path), for every session ``db`` holds.

    A name held by two files of a directory is served from the first in name order.
    """
    found: dict[str, str] = {}
    for path in _session_files(db):
        name = _name_of(path)
        if name is not None:
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
    return Session.open(found[name])


def identity(session: Session) -> object:
    """What identifies the stored session an open ``session`` reads: a changed value means the file was
    replaced (deleted and created again), so the server opens it again instead of serving the old one."""
    try:
        stat = session.path.stat()
    except (OSError, AttributeError, TypeError):  # not a file (a server database): nothing to compare
        return None
    return (stat.st_dev, stat.st_ino)
