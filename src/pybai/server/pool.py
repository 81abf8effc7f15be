"""The sessions a server keeps open: one worker thread per session runs everything done to it.

A :class:`~pybai.session.Session` and its database connection belong to one thread, so each
served session gets a single-thread executor that opens it on first use and then runs every
call on it in turn (calls to one session are serialised; calls to different sessions run side
by side while the event loop keeps reading requests).  An open session stays correct when other
processes write its database: before every operation it reads what was logged since its last one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pybai.server.sessions import UnknownSessionError, find_sessions, identity, open_session
from pybai.session.session import Session
from pybai.session.timeline import SampleTimeline

__all__ = ["SessionPool", "Served"]

T = TypeVar("T")


class Served:
    """One served session: opened on first use in its own thread, with its live sample timeline."""

    def __init__(self, db: str, name: str):
        self.db = db
        self.name = name
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"pybai-session-{name}")
        self._session: Session | None = None
        self._identity: object = None
        self._timeline: SampleTimeline | None = None

    @property
    def session(self) -> Session:
        """The open session (in the worker thread only); opened again when its file was replaced."""
        if self._session is not None and identity(self._session) != self._identity:
            self._session.close()
            self._session = self._timeline = None
        if self._session is None:
            self._session = open_session(self.db, self.name)
            self._identity = identity(self._session)
        return self._session

    def timeline(self) -> SampleTimeline:
        """The samples-per-source timeline, brought up to date with the log (in the worker thread only)."""
        session = self.session
        if self._timeline is None:
            self._timeline = SampleTimeline(session.problem.n_sources)
        return self._timeline.update(session)

    def close(self) -> None:
        def shut() -> None:
            if self._session is not None:
                self._session.close()
                self._session = None

        self.executor.submit(shut).result()
        self.executor.shutdown(wait=True)


class SessionPool:
    """The sessions of ``db`` a server has opened, by name.

    Parameters
    ----------
    db : str
        What ``pybai serve --db`` names (see :mod:`pybai.server.sessions`).
    """

    def __init__(self, db: str):
        self.db = db
        self._served: dict[str, Served] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Every session name ``db`` holds now (sessions added later appear)."""
        return sorted(find_sessions(self.db))

    def _get(self, name: str) -> Served:
        with self._lock:
            served = self._served.get(name)
        if served is not None:
            return served
        if name not in find_sessions(self.db):
            held = ", ".join(self.names()) or "none"
            raise UnknownSessionError(f"no session named {name!r} in {self.db} (sessions: {held}).")
        with self._lock:
            return self._served.setdefault(name, Served(self.db, name))

    async def call(self, name: str, work: Callable[[Served], T]) -> T:
        """``work(served)`` in the session's worker thread; its exceptions are raised here."""
        served = self._served.get(name)
        if served is None:  # looking the name up reads files: not on the event loop
            served = await asyncio.to_thread(self._get, name)
        future = served.executor.submit(work, served)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        with self._lock:
            served, self._served = list(self._served.values()), {}
        for item in served:
            item.close()

    def __repr__(self) -> str:
        return f"SessionPool({self.db!r}, open={sorted(self._served)})"
