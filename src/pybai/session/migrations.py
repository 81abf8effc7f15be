"""Upgrading a session database written by an older schema, one ordered step at a time.

Each step turns schema ``n`` into ``n + 1`` inside the caller's write transaction and sets
``meta.schema_version``; :func:`migrate` runs the steps from the database's version up to
:data:`pybai.session.schema.SCHEMA_VERSION`.  A step's SQL is frozen: it writes the tables of
*its* target version, whatever later versions change.

========  =================================================================================
step      what it does
========  =================================================================================
1 -> 2    SQLite only (PostgreSQL databases start at 2): one session per file becomes several
          sessions per database (``session`` columns in ``requests`` and ``answers``; the
          ``definition`` row keeps its id 1 and becomes session 1), the ``snapshots``
          table is added, and the ``journal`` is written in the order schema 1 implies (one
          request outstanding at a time: each request, then its answers in id order).  Every row is copied unchanged: ids, times, rewards (bit for bit).
2 -> 3    SQLite and PostgreSQL: the journal gets the columns ``epsilon`` and ``epsilon_mode``
          (at the end), and each ``epsilon`` row moves its JSON ``{"epsilon", "epsilon_mode"}``
          out of ``withdrawn`` into them (SQLite: a row whose JSON is not valid gets NULLs, which
          the store refuses when it reads it, as before; PostgreSQL: the upgrade is refused and
          rolled back).
========  =================================================================================
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["STEPS", "migrate", "ADDED_COLUMNS", "columns_at"]

_V2_SQLITE = """
CREATE TABLE definition (
    id INTEGER NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL, seed BIGINT NOT NULL,
    strategy TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (id), UNIQUE (name));
CREATE TABLE requests (
    session INTEGER NOT NULL, id INTEGER NOT NULL, sources TEXT NOT NULL, created TEXT NOT NULL,
    PRIMARY KEY (session, id), FOREIGN KEY(session) REFERENCES definition (id));
CREATE TABLE snapshots (
    session INTEGER NOT NULL, answer INTEGER NOT NULL, request INTEGER NOT NULL, event INTEGER NOT NULL,
    samples BIGINT NOT NULL, state TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (session, answer),
    FOREIGN KEY(session) REFERENCES definition (id));
CREATE TABLE answers (
    id INTEGER NOT NULL, session INTEGER NOT NULL, request INTEGER NOT NULL, size INTEGER NOT NULL,
    created TEXT NOT NULL, PRIMARY KEY (id), FOREIGN KEY(session, request) REFERENCES requests (session, id));
CREATE INDEX answers_by_request ON answers (session, request);
CREATE TABLE observations (
    id INTEGER NOT NULL, answer INTEGER NOT NULL, request INTEGER NOT NULL, source INTEGER NOT NULL,
    reward DOUBLE NOT NULL, time TEXT NOT NULL, PRIMARY KEY (id), FOREIGN KEY(answer) REFERENCES answers (id));
CREATE INDEX observations_by_answer ON observations (answer);
INSERT INTO definition SELECT id, name, document, seed, strategy, created FROM v1_definition;
INSERT INTO requests SELECT 1, id, sources, created FROM v1_requests;
INSERT INTO answers SELECT id, 1, request, size, created FROM v1_answers;
CREATE TABLE journal (
    id INTEGER NOT NULL, session INTEGER NOT NULL, kind TEXT NOT NULL, request INTEGER NOT NULL, answer INTEGER,
    withdrawn TEXT, created TEXT NOT NULL, PRIMARY KEY (id),
    CONSTRAINT journal_kind CHECK (kind IN ('request', 'answer', 'cancel', 'expire', 'epsilon')),
    FOREIGN KEY(session) REFERENCES definition (id), FOREIGN KEY(answer) REFERENCES answers (id),
    FOREIGN KEY(session, request) REFERENCES requests (session, id));
CREATE INDEX journal_by_session ON journal (session, id);
INSERT INTO observations SELECT id, answer, request, source, reward, time FROM v1_observations;
INSERT INTO journal (session, kind, request, answer, withdrawn, created)
    SELECT 1, kind, request, answer, NULL, created FROM (
        SELECT 'request' AS kind, id AS request, NULL AS answer, created, id AS k1, 0 AS k2, 0 AS k3 FROM v1_requests
        UNION ALL
        SELECT 'answer', request, id, created, request, 1, id FROM v1_answers)
    ORDER BY k1, k2, k3;
DROP TABLE v1_observations;
DROP TABLE v1_answers;
DROP TABLE v1_requests;
DROP TABLE v1_definition;
UPDATE meta SET value = '2' WHERE key = 'schema_version'
"""


def _sqlite_1_to_2(execute: Callable[[str], object]) -> None:
    # the old tables step aside (the connection runs with foreign_keys = OFF, so nothing cascades)
    for table in ("definition", "requests", "answers", "observations"):
        execute(f"ALTER TABLE {table} RENAME TO v1_{table}")
    execute("DROP INDEX IF EXISTS observations_by_answer")
    for statement in filter(str.strip, _V2_SQLITE.split(";")):
        execute(statement)


#: ``{version: {table: columns}}``: the columns each schema added at the end of a table
ADDED_COLUMNS = {3: {"journal": ("epsilon", "epsilon_mode")}}

_V2_TO_V3_SQLITE = """
ALTER TABLE journal ADD COLUMN epsilon DOUBLE;
ALTER TABLE journal ADD COLUMN epsilon_mode TEXT;
UPDATE journal SET
    epsilon = CASE WHEN json_valid(withdrawn) THEN CAST(json_extract(withdrawn, '$.epsilon') AS REAL) END,
    epsilon_mode = CASE WHEN json_valid(withdrawn) THEN json_extract(withdrawn, '$.epsilon_mode') END,
    withdrawn = NULL
    WHERE kind = 'epsilon';
UPDATE meta SET value = '3' WHERE key = 'schema_version'
"""

_V2_TO_V3_POSTGRESQL = """
ALTER TABLE journal ADD COLUMN epsilon DOUBLE PRECISION;
ALTER TABLE journal ADD COLUMN epsilon_mode TEXT;
UPDATE journal SET
    epsilon = CAST(withdrawn::json ->> 'epsilon' AS DOUBLE PRECISION),
    epsilon_mode = withdrawn::json ->> 'epsilon_mode',
    withdrawn = NULL
    WHERE kind = 'epsilon';
UPDATE meta SET value = '3' WHERE key = 'schema_version'
"""


def _statements(sql: str) -> Callable[[Callable[[str], object]], None]:
    def step(execute: Callable[[str], object]) -> None:
        for statement in filter(str.strip, sql.split(";")):
            execute(statement)

    return step


#: ``{(dialect, from_version): step}``; a step takes a function executing one SQL statement.
STEPS: dict[tuple[str, int], Callable[[Callable[[str], object]], None]] = {
    ("sqlite", 1): _sqlite_1_to_2,
    ("sqlite", 2): _statements(_V2_TO_V3_SQLITE),
    ("postgresql", 2): _statements(_V2_TO_V3_POSTGRESQL),
}


def columns_at(version: int, current: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """The columns of each table at schema ``version`` (>= 2), from the ``current`` ones: without the
    columns later schemas added (:data:`ADDED_COLUMNS`)."""
    out = dict(current)
    for later, tables in ADDED_COLUMNS.items():
        if later > version:
            for table, added in tables.items():
                out[table] = tuple(c for c in out[table] if c not in added)
    return out


def migrate(dialect: str, version: int, target: int, execute: Callable[[str], object]) -> list[int]:
    """Run the steps from ``version`` to ``target`` (inside a write transaction); the versions passed.

    Raises
    ------
    KeyError
        No step leads from some version on this dialect (the caller words the error).
    """
    passed = []
    while version < target:
        STEPS[(dialect, version)](execute)
        version += 1
        passed.append(version)
    return passed
