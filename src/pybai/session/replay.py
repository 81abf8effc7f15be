"""Rebuilding a strategy by replaying the event log (deterministic; stored states only save time).

The strategy of a session is started on the session's problem with the generator of
:func:`strategy_rng` (the seed's replication-0 strategy stream, as ``pybai run`` derives it),
then every logged request is asked again, every logged answer told again and every cancel or
expiry applied again, in the order of the journal (every database has one since schema 2: the
migration from schema 1 writes it from the order of that log).  Each ask must give back exactly the logged request and id, and each cancel withdraw exactly the
logged samples; otherwise the replay has *diverged* (the strategy's code changed since the
session was written) and is refused with one line rather than continued on a different path.

Every :data:`STATE_EVERY` answers a session stores its strategy's state
(:meth:`~pybai.strategies.base.Strategy.get_state`) beside the log; reopening restores the
newest one (:meth:`Replay.restored`) and replays only the events after it.  A stored state is
used only when it agrees with the log (its sample count and the samples of each source equal
those of the answers up to it, its parameters those of the session's strategy), else the whole
log is replayed: the log is the record, a state only a shortcut to the same strategy.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from pybai._serialize import encode

from pybai.exceptions import PybaiError, PybaiWarning, SessionStateError
from pybai.problems.base import Problem
from pybai.session.store import LoggedAnswer, LoggedEvent, LoggedRequest, LogTail, StoredState
from pybai.strategies.base import Strategy

__all__ = ["STATE_EVERY", "REPLICATION", "STREAM_STRATEGY", "strategy_seed", "strategy_rng", "Replay", "ReplayDiverged"]

#: A session stores its strategy's state after every ``STATE_EVERY``-th answer.
STATE_EVERY = 500

#: The session's strategy stream is that of replication ``REPLICATION`` of ``pybai run``...
REPLICATION = 0
#: ... child ``STREAM_STRATEGY`` of its seed sequence (the same index as ``pybai.simulate.seeding``).
STREAM_STRATEGY = 2


def strategy_seed(seed: int) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=(0, 2))``: the strategy stream of replication 0 of a run with ``seed``.

    Equal to ``child(replication_seed(seed, 0), STREAM_STRATEGY)`` of
    :mod:`pybai.simulate.seeding` (a test checks it), so a session and ``pybai run`` with the
    same seed make the same choices on the same answers.
    """
    return np.random.SeedSequence(int(seed), spawn_key=(REPLICATION, STREAM_STRATEGY))


def strategy_rng(seed: int) -> np.random.Generator:
    """The generator of the session's strategy."""
    return np.random.default_rng(strategy_seed(seed))


class ReplayDiverged(SessionStateError):
    """The log cannot be replayed by this version of the strategy."""


def _preview(values: np.ndarray) -> str:
    items = values.tolist()
    return str(items[:8])[:-1] + (", ...]" if len(items) > 8 else "]")


class Replay:
    """A strategy kept in step with a session's log.

    Parameters
    ----------
    problem : Problem
    template : Strategy
        Unstarted; the replay runs on a clone.
    seed : int
        The session's master seed.
    max_pending : int, default 1
        The session's ``max_pending`` (:meth:`pybai.strategies.base.Strategy.start`).
    """

    def __init__(self, problem: Problem, template: Strategy, seed: int, max_pending: int = 1):
        self.strategy = template.clone().start(problem, rng=strategy_rng(seed), max_pending=max_pending)
        self.problem = problem  # the session's problem, with the last epsilon given (journal "epsilon" rows)
        self.last_request = 0  # id of the last logged request asked again
        self.last_answer = 0  # id of the last logged answer told again
        self.last_event = 0  # id of the last journal row applied again
        self.n_answers = 0  # answers of the log up to last_answer
        self.created: dict[int, str] = {}  # request id -> when it was asked (for expiry)
        self.withdrawn: dict[int, str] = {}  # request id -> "cancel" or "expire"

    @classmethod
    def resume(cls, store, problem: Problem, template: Strategy, seed: int, max_pending: int = 1) -> "Replay":
        """A replay from the newest stored state of ``store`` that agrees with its log, else from the start.

        A stored state that disagrees with the log (see :meth:`restored`) is ignored and reported
        (a :class:`~pybai.exceptions.PybaiWarning` naming the reason): the log is the record.
        """
        stored = store.latest_state()
        if stored is not None:
            n_answers, counts = store.log_up_to(stored.answer)
            epsilon = store.epsilon_up_to(stored.event)
            at = problem if epsilon is None else cast(Any, problem).with_epsilon(*epsilon)
            replay, found = cls._from_stored(at, template, seed, stored, n_answers, counts)
            reason = found if replay is None else _cursor_disagreement(store, stored, replay.strategy)
            if replay is not None and reason is None:
                replay.withdrawn = store.withdrawn_up_to(stored.event)
                replay.created = store.request_times(replay.strategy.outstanding)
                return replay
            warnings.warn(PybaiWarning(
                f"{store.path}: the strategy's state stored after answer {stored.answer} disagrees with the log "
                f"({reason}); it is ignored and the whole log replayed (the log is the record)."), stacklevel=2)
        return cls(problem, template, seed, max_pending)

    @classmethod
    def restored(cls, problem: Problem, template: Strategy, seed: int, stored: StoredState, n_answers: int,
                 counts: dict[int, int]) -> "Replay | None":
        """A replay continuing from a stored state, or None when the state disagrees with the log.

        ``n_answers`` and ``counts`` ({source: samples}) describe the log up to ``stored.answer``;
        the caller fills :attr:`withdrawn` and :attr:`created` from the log up to ``stored.event``.
        """
        return cls._from_stored(problem, template, seed, stored, n_answers, counts)[0]

    @classmethod
    def _from_stored(cls, problem, template, seed, stored, n_answers, counts) -> "tuple[Replay | None, str]":
        """(the replay, "") or (None, why the stored state disagrees with the log or does not restore)."""
        replay = cls.__new__(cls)
        try:
            state = json.loads(stored.state)
            if not isinstance(state, dict) or state.get("params") != encode(template.get_params()):
                return None, "the strategy's parameters are not the session's"
            strategy = template.clone().set_state(problem, state)
        except (PybaiError, ValueError, TypeError, KeyError, RecursionError) as exc:
            return None, " ".join(str(exc).split())[:200]
        logged = np.zeros(problem.n_sources)
        for source, count in counts.items():
            if not 0 <= source < problem.n_sources:
                return None, f"the log has samples of source {source}"
            logged[source] = count
        samples = problem.request_space().counts(logged).sum()  # one sample per observation (of several metrics)
        if strategy.t_ != stored.samples or strategy.t_ != samples or \
                not np.array_equal(np.asarray(strategy.counts_, dtype=float).ravel(), logged):
            return None, f"its samples per source are not the log's up to answer {stored.answer}"
        replay.strategy = strategy
        replay.last_request, replay.last_answer, replay.n_answers = stored.request, stored.answer, n_answers
        replay.last_event = stored.event
        replay.problem = problem
        replay.created, replay.withdrawn = {}, {}
        return replay, ""

    def state_text(self) -> str:
        return json.dumps(self.strategy.get_state(), allow_nan=False)

    def apply(self, events: LogTail, on_answer: Callable[["Replay", LoggedAnswer], None] | None = None) -> None:
        """Ask and tell the events (which follow this replay's cursor) in the order of their journal."""
        if events.journal is None:
            raise ValueError("Replay.apply: the events need their journal (Store.journal_after)")
        requests = {r.id: r for r in events.requests}
        answers = {a.id: a for a in events.answers}
        for event in events.journal:
            if event.kind == "request":
                self._ask(requests.get(event.request), event.request)
            elif event.kind == "answer":
                answer = answers.get(cast(int, event.answer))
                if answer is None or answer.request != event.request:
                    raise ReplayDiverged(f"journal row {event.id} names answer {event.answer}, which the log lacks.")
                self._tell(answer, on_answer)
            elif event.kind == "epsilon":
                self.set_epsilon(*cast(tuple, event.epsilon))
            else:
                self._withdraw(event)
            self.last_event = event.id

    def set_epsilon(self, epsilon: float, epsilon_mode: str) -> None:
        """Continue on the session's problem with ``epsilon`` (:meth:`Strategy.retarget <pybai.strategies.base.Strategy.retarget>`)."""
        problem = cast(Any, self.problem).with_epsilon(epsilon, epsilon_mode)
        self.strategy.retarget(problem)
        self.problem = problem

    def _tell(self, answer: LoggedAnswer, on_answer) -> None:
        try:
            self.strategy.tell(answer.sources, answer.rewards, request_id=answer.request)
        except PybaiError as exc:
            raise ReplayDiverged(f"replaying answer {answer.id} (request {answer.request}) failed: {exc}") from None
        self.last_answer = answer.id
        self.n_answers += 1
        if on_answer is not None:
            on_answer(self, answer)

    def _withdraw(self, event: LoggedEvent) -> None:
        try:
            part = self.strategy.cancel(event.request)
        except PybaiError as exc:
            raise ReplayDiverged(f"replaying the {event.kind} of request {event.request} failed: {exc}") from None
        if event.withdrawn is None or not np.array_equal(part, event.withdrawn):
            raise ReplayDiverged(f"replaying the {event.kind} of request {event.request} withdrew {_preview(part)}, "
                                 f"where the log has {_preview(np.asarray(event.withdrawn))}.")
        self.withdrawn[event.request] = event.kind

    def _ask(self, logged: LoggedRequest | None, wanted: int) -> None:
        if logged is None:
            raise ReplayDiverged(f"the log has an answer to request {wanted}, which it never asked.")
        strategy = self.strategy
        if strategy.stopped:
            raise ReplayDiverged(f"the strategy stopped ({strategy.status_}) before request {logged.id} of the log.")
        asked = strategy.ask()
        if strategy.request_id != logged.id or not np.array_equal(asked, logged.requests):
            raise ReplayDiverged(
                f"replaying the log diverged at request {logged.id}: the strategy now asks {_preview(asked)} "
                f"(request {strategy.request_id}) where the log has {_preview(logged.requests)}."
            )
        self.last_request = logged.id
        self.created[logged.id] = logged.created


def _cursor_disagreement(store, stored: StoredState, strategy: Strategy) -> str | None:
    """Why the cursors of a stored state (its row's request and journal row) disagree with the log and the
    restored strategy, or None: the journal row is the answer the state follows, the last request asked
    by then is the state's, and the strategy numbers its next request after it."""
    row = store.journal_row(stored.event)
    if row is None or row[0] != "answer" or row[2] != stored.answer:
        return f"journal row {stored.event} is not the answer {stored.answer} it follows"
    if store.last_request_up_to(stored.event) != stored.request or strategy._next_id != stored.request + 1:
        return f"request {stored.request} is not the last one asked by answer {stored.answer}"
    return None
