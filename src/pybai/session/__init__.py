"""Persistent ask/tell sessions for real experiments, stored in an SQLite file or on a PostgreSQL server.

>>> from pybai.session import Session
>>> # Session.create("plate.db", "screen.toml"); Session.open("plate.db").ask() ...

See ``docs/sessions.md``: the session file, the database, replay, the rules of ``tell``.
"""

from pybai.session.history import History, replay_history
from pybai.session.replay import strategy_rng, strategy_seed
from pybai.session.near_tie import near_tie
from pybai.session.session import SESSION_THRESHOLD, Receipt, Request, Session, describe_answer, stop_reason
from pybai.session.store import SCHEMA_VERSION, list_sessions

__all__ = ["Session", "Request", "Receipt", "History", "replay_history", "describe_answer", "stop_reason", "strategy_seed",
           "strategy_rng", "SCHEMA_VERSION", "SESSION_THRESHOLD", "near_tie", "list_sessions"]
