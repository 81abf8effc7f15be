"""The tables of a session database (SQLAlchemy Core), shared by every storage backend.

Schema :data:`SCHEMA_VERSION` (no pickled objects, only text, integers and reals):

``meta(key, value)``
    ``schema_version``, ``package_version`` (of the creator), ``created`` (UTC, ISO 8601).
``definition(id, name, document, seed, strategy, created)``
    One row per session of the database: ``id`` is the session's number, ``name`` (unique)
    its name, ``document`` the session file's parsed TOML as JSON, ``strategy`` its name.
``requests(session, id, sources, created)``
    One row per request a session's strategy made, numbered as the strategy numbers them;
    ``sources`` is the JSON list of what was asked.
``answers(id, session, request, size, created)``
    One row per accepted ``tell``: the request answered and how many samples it brought.
``observations(id, answer, request, source, reward, time)``
    One row per sample (``reward`` is an 8-byte IEEE double: exact).
``journal(id, session, kind, request, answer, withdrawn, created, epsilon, epsilon_mode)``
    The order of a session's events: one row per request, answer (``answer``: its id), cancel
    or expiry (``withdrawn``: the JSON list of the unanswered samples withdrawn), and answer
    tolerance given later (kind ``epsilon``: ``epsilon`` and ``epsilon_mode``, the arguments of
    :meth:`~pybai.session.Session.set_epsilon`; ``request``: the last request asked then).  Replaying
    the journal rebuilds the strategy whatever the clock says (answers in any order,
    ``max_pending > 1``).
``snapshots(session, answer, request, event, samples, state, created)``
    The strategy's state (:meth:`pybai.strategies.base.Strategy.get_state`, as JSON) once the
    log up to answer ``answer``, request ``request`` and journal row ``event`` was replayed:
    reopening starts from the newest one instead of replaying everything.

Schema 1 (pybai 0.1 to 0.3) held one session per SQLite file (``definition.id = 1``, no
``session`` column, no journal, no snapshots); schema 2 kept an epsilon given later as JSON in the
journal's ``withdrawn`` column.  :mod:`pybai.session.migrations` upgrades both (the journal of
schema 1 is written from the order it implies: each request, then its answers).
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["SCHEMA_VERSION", "metadata", "meta", "definition", "requests", "answers", "observations", "journal", "snapshots"]

#: Version of the schema this version writes; a database with a larger one is refused.
SCHEMA_VERSION = 3

metadata = sa.MetaData()

meta = sa.Table(
    "meta", metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

definition = sa.Table(
    "definition", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.Text, nullable=False, unique=True),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("strategy", sa.Text, nullable=False),
    sa.Column("created", sa.Text, nullable=False),
)

requests = sa.Table(
    "requests", metadata,
    sa.Column("session", sa.Integer, sa.ForeignKey("definition.id"), primary_key=True, autoincrement=False),
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("sources", sa.Text, nullable=False),
    sa.Column("created", sa.Text, nullable=False),
)

answers = sa.Table(
    "answers", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("session", sa.Integer, nullable=False),
    sa.Column("request", sa.Integer, nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("created", sa.Text, nullable=False),
    sa.ForeignKeyConstraint(["session", "request"], ["requests.session", "requests.id"]),
)
sa.Index("answers_by_request", answers.c.session, answers.c.request)

observations = sa.Table(
    "observations", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("answer", sa.Integer, sa.ForeignKey("answers.id"), nullable=False),
    sa.Column("request", sa.Integer, nullable=False),
    sa.Column("source", sa.Integer, nullable=False),
    sa.Column("reward", sa.Double, nullable=False),
    sa.Column("time", sa.Text, nullable=False),
)
sa.Index("observations_by_answer", observations.c.answer)

journal = sa.Table(
    "journal", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("session", sa.Integer, sa.ForeignKey("definition.id"), nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("request", sa.Integer, nullable=False),
    sa.Column("answer", sa.Integer, sa.ForeignKey("answers.id")),
    sa.Column("withdrawn", sa.Text),
    sa.Column("created", sa.Text, nullable=False),
    sa.Column("epsilon", sa.Double),  # schema 3: columns added at the end, as ALTER TABLE adds them
    sa.Column("epsilon_mode", sa.Text),
    sa.ForeignKeyConstraint(["session", "request"], ["requests.session", "requests.id"]),
    sa.CheckConstraint("kind IN ('request', 'answer', 'cancel', 'expire', 'epsilon')", name="journal_kind"),
)
sa.Index("journal_by_session", journal.c.session, journal.c.id)

snapshots = sa.Table(
    "snapshots", metadata,
    sa.Column("session", sa.Integer, sa.ForeignKey("definition.id"), primary_key=True, autoincrement=False),
    sa.Column("answer", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("request", sa.Integer, nullable=False),
    sa.Column("event", sa.Integer, nullable=False),
    sa.Column("samples", sa.BigInteger, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("created", sa.Text, nullable=False),
)
