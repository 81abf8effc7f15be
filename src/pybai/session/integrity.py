"""Checks that a session database is whole before anything reads or writes it.

A session database is a plain SQLite file: a disk fault, a copy cut short or a hand edit can
leave it damaged.  The checks here turn every such state into one line naming the file,
and run before the first write, so a damaged database is never written to:

* on open (:func:`check_database`): the file starts with the SQLite header; ``PRAGMA
  quick_check`` (the b-tree pages, in time linear in the file); ``schema_version`` an integer;
  every table of that schema with its columns; every ``definition`` row complete, with a JSON
  object as its document; ``PRAGMA foreign_key_check`` (no observation or answer pointing at a
  row that does not exist);
* on replay (:func:`request_sources`, :func:`answer_rows`): every request a JSON list of
  source indices; every answer with exactly ``size`` observations of its own request, integer
  sources and finite real rewards.

What the checks cannot see is a change that leaves a valid row (a flipped bit inside a stored
reward): SQLite keeps no checksums of its pages.
"""

from __future__ import annotations

import json
import math
import sqlite3
from functools import cache

from pybai.exceptions import SessionStateError

__all__ = ["SQLITE_MAGIC", "damaged", "read_only", "translate", "check_database", "expected_columns", "request_sources",
           "answer_rows"]

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


def damaged(path, what: str) -> SessionStateError:
    """The one-line error of a damaged database (raise the result)."""
    what = " ".join(str(what).split()).rstrip(".")  # one line, whatever SQLite said
    return SessionStateError(f"{path}: database is damaged: {what}.")


def read_only(path, what: str) -> SessionStateError:
    """The one-line error of a database this process may not write (raise the result)."""
    return SessionStateError(f"{path}: read-only: {what} (the file or its folder is not writable; "
                             "status, export and report still read it).")


def translate(path, exc: sqlite3.Error, doing: str) -> SessionStateError:
    """An ``sqlite3`` error met while ``doing`` something, as one line naming ``path``."""
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return read_only(path, f"cannot {doing}")
    if "locked" in low or "busy" in low:
        return SessionStateError(f"{path}: cannot {doing}: another process holds the database ({text}); "
                                 "try again when it has finished.")
    if isinstance(exc, sqlite3.OperationalError) and ("disk i/o" in low or "full" in low or "unable to open" in low):
        return SessionStateError(f"{path}: cannot {doing} ({text}).")
    return damaged(path, text)


@cache
def expected_columns(schema: str) -> dict[str, tuple[str, ...]]:
    """The columns of every table the SQL ``schema`` creates, in order."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        return {table: tuple(r[1] for r in db.execute(f"PRAGMA table_info({table})"))
                for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_database(db: sqlite3.Connection, path, schemas: dict[int, dict[str, tuple[str, ...]]], newer) -> int:
    """Refuse (one :class:`SessionStateError` line) a session database that is not whole; its schema version.

    ``schemas`` maps each schema version this code reads to the columns of its tables
    (:func:`expected_columns` of the SQL that creates them); ``newer(version)`` is the error of a
    version above them all.  Call after the application id identified a session database.
    """
    problems = [r[0] for r in db.execute("PRAGMA quick_check(1)")]
    if problems != ["ok"]:
        raise damaged(path, f"{str(problems[0] if problems else 'no answer').replace('*** in database main ***', '')} (PRAGMA quick_check)")
    if not db.execute("PRAGMA table_info(meta)").fetchall():
        raise damaged(path, "the table meta is missing")
    rows = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    if len(rows) != 1:
        raise damaged(path, "meta has no schema_version")
    text = rows[0][0]
    if not (isinstance(text, str) and text.isascii() and text.isdigit()):
        raise damaged(path, f"meta schema_version is {text!r}, expected an integer")
    version = int(text)
    if version > max(schemas):
        raise newer(version)
    if version not in schemas:
        raise SessionStateError(f"{path}: not a pybai session database (no schema version).")
    for table, columns in schemas[version].items():
        found = tuple(r[1] for r in db.execute(f"PRAGMA table_info({table})"))
        if not found:
            raise damaged(path, f"the table {table} is missing")
        if found != columns:
            raise damaged(path, f"the table {table} has the columns {', '.join(found)}; "
                                f"expected {', '.join(columns)}")
    definitions = db.execute("SELECT id, name, document, seed, strategy, created FROM definition").fetchall()
    if not definitions or (version == 1 and len(definitions) != 1):
        raise damaged(path, f"the table definition has {len(definitions)} rows, expected "
                            f"{'1' if version == 1 else 'one per session'}")
    for _, name, document, seed, strategy, created in definitions:
        if not all(isinstance(v, str) for v in (name, document, strategy, created)):
            raise damaged(path, "the definition row has a value of the wrong type")
        if not _is_int(seed) or seed < 0:
            raise damaged(path, f"the definition's seed is {seed!r}, expected an integer >= 0")
        try:
            parsed = json.loads(document)
        except (ValueError, RecursionError):
            raise damaged(path, "the definition's document is not valid JSON") from None
        if not isinstance(parsed, dict):
            raise damaged(path, "the definition's document is not a JSON object")
    orphan = db.execute("PRAGMA foreign_key_check").fetchone()
    if orphan is not None:
        table, rowid, parent = orphan[0], orphan[1], orphan[2]
        raise damaged(path, f"row {rowid} of {table} points at a row of {parent} that does not exist")
    return version


def request_sources(path, request_id, text) -> list[int]:
    """The sources of a logged request (a JSON list of integers >= 0), else a damaged-database error."""
    if not _is_int(request_id) or request_id < 1:
        raise damaged(path, f"a request has the id {request_id!r}")
    try:
        sources = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        sources = None
    if not isinstance(sources, list) or not sources or not all(_is_int(s) and s >= 0 for s in sources):
        raise damaged(path, f"request {request_id} does not list its sources as integers")
    return sources


def answer_rows(path, rows: list[tuple]) -> list[tuple[int, int, str, list[int], list[float]]]:
    """Group the rows ``(answer, request, size, created, obs_request, source, reward)`` of
    answers left-joined with their observations into ``(answer, request, created, sources, rewards)``,
    refusing an answer without exactly ``size`` observations of its own request, a source that is
    not an integer or a reward that is not a finite real number."""
    out = []
    start = 0
    for end in range(1, len(rows) + 1):
        if end < len(rows) and rows[end][0] == rows[start][0]:
            continue
        chunk = rows[start:end]
        start = end
        aid, request, size, created = chunk[0][:4]
        if not (_is_int(aid) and _is_int(request) and _is_int(size) and isinstance(created, str)):
            raise damaged(path, f"answer {aid!r} has a value of the wrong type")
        observed = [r for r in chunk if r[4] is not None or r[5] is not None or r[6] is not None]
        if len(observed) != size:
            raise damaged(path, f"answer {aid} says {size} samples but has {len(observed)} observations")
        for _, _, _, _, obs_request, source, reward in observed:
            if obs_request != request:
                raise damaged(path, f"an observation of answer {aid} belongs to request {obs_request!r}, "
                                    f"not {request}")
            if not _is_int(source) or source < 0:
                raise damaged(path, f"an observation of answer {aid} has the source {source!r}")
            if not isinstance(reward, float) or not math.isfinite(reward):
                raise damaged(path, f"an observation of answer {aid} has the reward {reward!r}, "
                                    "not a finite number")
        out.append((aid, request, created, [r[5] for r in observed], [r[6] for r in observed]))
    return out
