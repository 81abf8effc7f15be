"""Samples per source over a session's answers, read from its log a piece at a time (live figures).

:func:`pybai.session.history.replay_history` replays the whole log for the report; a dashboard
that redraws every second needs only the counts, and only what was told since its last look.
A :class:`SampleTimeline` keeps the running counts and a thinned list of points (at most about
``2 * max_points``: when the list grows past that, every other point is dropped and the spacing
doubles), so its memory stays bounded however long the session runs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SampleTimeline"]

#: a request cursor beyond any request id: :meth:`Store.events_after` then reads answers only
_NO_REQUESTS = 2**62


class SampleTimeline:
    """Cumulative samples per source after each answer, thinned to a bounded number of points.

    Parameters
    ----------
    n_sources : int
    max_points : int
        Points kept between thinnings (at least 2).

    Examples
    --------
    >>> t = SampleTimeline(2, max_points=4)
    >>> for source in [0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0]:
    ...     t.add(np.array([source]))
    >>> doc = t.document()
    >>> doc["answers"][-1], doc["counts"][-1]
    (11, [5, 6])
    >>> len(doc["answers"]) <= 2 * 4 + 1
    True
    """

    def __init__(self, n_sources: int, max_points: int = 200):
        self.n_sources = int(n_sources)
        self.max_points = max(2, int(max_points))
        self.last_answer = 0  # id of the last logged answer counted
        self.n_answers = 0
        self._counts = np.zeros(self.n_sources, dtype=np.int64)
        self._stride = 1
        self._points: list[tuple[int, list[int]]] = [(0, [0] * self.n_sources)]

    def add(self, sources: np.ndarray) -> None:
        """Count one answer (the sources it brought)."""
        np.add.at(self._counts, np.asarray(sources, dtype=np.intp), 1)
        self.n_answers += 1
        if self.n_answers % self._stride == 0:
            self._points.append((self.n_answers, self._counts.tolist()))
            if len(self._points) > 2 * self.max_points:
                self._stride *= 2
                self._points = [p for p in self._points if p[0] % self._stride == 0]

    def update(self, session) -> "SampleTimeline":
        """Count the answers ``session`` logged since the last update (one read transaction)."""
        store = session._store
        with store.reading():
            events = store.events_after(_NO_REQUESTS, self.last_answer)
        for answer in events.answers:
            self.add(answer.sources)
            self.last_answer = answer.id
        return self

    def document(self) -> dict:
        """``{"answers": [...], "samples": [...], "counts": [[...], ...]}``: after each kept answer
        (the first point is the start, the last the current state)."""
        points = list(self._points)
        if points[-1][0] != self.n_answers:
            points.append((self.n_answers, self._counts.tolist()))
        return {"answers": [p[0] for p in points], "samples": [int(sum(p[1])) for p in points],
                "counts": [p[1] for p in points]}
