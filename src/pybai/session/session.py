"""Persistent ask/tell sessions: a strategy driven by the real world, stored in a database.

A :class:`Session` couples a session definition (problem, strategy, seed) with its database
(:mod:`pybai.session.store`: an SQLite file or a PostgreSQL server).  The definition and the
log of requests and answers are the record: the strategy is rebuilt by replaying the log
(:mod:`pybai.session.replay`, from the newest stored state that agrees with it) when the
session is opened, and brought up to date with whatever other processes wrote before every
operation.  Each :meth:`Session.ask` that makes a new request, each accepted
:meth:`Session.tell` and each :meth:`Session.cancel` is one transaction; a refused ``tell`` writes
nothing.

With ``[session] max_pending = N`` (N > 1) a session hands out new requests while earlier ones
are unanswered, up to N, and takes their answers in any order; ``[session] expire_after =
seconds`` makes a request outstanding for longer count as cancelled at the next ask, tell or
cancel.  Cancels and expiries are events of the log (the journal, schema 2), so a replay
rebuilds the same state whatever the clock says.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from pybai._version import __version__
from pybai.config.learner import SessionSpec, parse_session_file
from pybai.exceptions import InvalidParameterError, PybaiError, RequestError, SessionStateError
from pybai.session.integrity import damaged, read_only
from pybai.session.link import retrying
from pybai.session.replay import STATE_EVERY, Replay, ReplayDiverged
from pybai.session.messages import Receipt, Request, checked_request_id
from pybai.session.metric_rows import layout_for
from pybai.session.rows import read_csv
from pybai.session.status import describe_answer, session_status, stop_reason
from pybai.session.definition import SESSION_THRESHOLD, session_spec
from pybai.session.store import Store, utc_now
from pybai.strategies.certificate import is_proven

__all__ = ["Session", "Request", "Receipt", "describe_answer", "stop_reason", "SESSION_THRESHOLD"]

class Session:
    """A persistent ask/tell session (create with :meth:`create`, reopen with :meth:`open`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pybai import BestArmProblem, Bernoulli, FixedConfidence, make_strategy
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "ab.db"
    >>> problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.05))
    >>> with Session.create(db, problem=problem, strategy=make_strategy("tas"), seed=1) as s:
    ...     request = s.ask()
    ...     receipt = s.tell(request.id, request.requests, [1.0])
    >>> with Session.open(db) as s:                  # another day, another process (or name="...")
    ...     st = s.status()
    >>> st["samples"], st["requests"], st["stopped"]
    (1, 1, False)
    """

    state_every = STATE_EVERY  #: store the strategy's state every ``state_every`` answers (for reopening)

    def __init__(self, store: Store, spec: SessionSpec):
        self._store = store
        self.spec = spec
        self.problem = spec.problem
        self.layout = layout_for(spec.problem)
        self._replay: Replay | None = None
        self._log_seen: tuple | None = None  # the store's log_version() when the replay was last brought up to date

    # ------------------------------------------------------------ creating and opening
    @classmethod
    def create(cls, db, file=None, *, problem=None, strategy=None, seed: int | None = None,
               name: str | None = None, labels=None, max_pending: int | None = None,
               expire_after: float | None = None) -> "Session":
        """A new session in ``db``: a new SQLite file, or a PostgreSQL database.

        Parameters
        ----------
        db : str or Path
            A new SQLite file, or a ``postgresql://`` URL (:mod:`pybai.session.backends`).
        file : str, Path or dict, optional
            A session file (its path, or the parsed document).
        problem, strategy : Problem and Strategy, optional
            Instead of ``file``: the objects (stored as the session file that describes them).
        seed : int, optional
            Master seed (default: the file's ``seed``, else 0).  The strategy's generator is
            the replication-0 strategy stream of ``pybai run`` with this seed.
        name : str, optional
            The session's name, unique in the database (default: the file's ``name``).
        labels : list of str, optional
            One distinct name per arm (``[environment] labels``; replaces the file's or the
            problem's): shown in statuses, reports and exports, accepted as sources by :meth:`tell`.
        max_pending : int, optional
            Requests that may be outstanding at once (default: the file's ``[session] max_pending``,
            else 1); see :meth:`ask`.
        expire_after : float, optional
            Seconds after which an outstanding request counts as cancelled (default: the file's
            ``[session] expire_after``, else never); see :meth:`cancel`.

        Notes
        -----
        A fixed-confidence session whose strategy leaves ``threshold`` at its default runs with
        :data:`SESSION_THRESHOLD` (``"delta-correct"``), stored in the session file of the
        database; ``threshold = "heuristic"`` must be asked for explicitly, and its stop is then
        reported as "the heuristic threshold was crossed", never as certified.
        """
        spec = session_spec(file, problem=problem, strategy=strategy, seed=seed, name=name, labels=labels,
                            max_pending=max_pending, expire_after=expire_after)
        store = Store.create(db, name=spec.name, document=spec.document, seed=spec.seed,
                             strategy=spec.strategy_name)
        return cls(store, spec)

    @classmethod
    def open(cls, db, name: str | None = None) -> "Session":
        """Open the session ``name`` of ``db`` (optional when it holds one); the strategy is rebuilt
        from the newest stored state and the log after it."""
        store = Store.open(db, name)
        path = store.path
        try:
            definition = store.definition()
            try:
                spec = parse_session_file(definition["document"], default_name=definition["name"])
            except PybaiError as exc:
                if store.meta().get("package_version") == __version__:
                    raise damaged(path, f"the stored session file does not read ({exc})") from None
                raise SessionStateError(f"{path}: the stored session file does not read in this version of "
                                        f"pybai ({exc})") from None
            spec.seed = int(definition["seed"])
            session = cls(store, spec)
            with store.reading():
                session._sync()
        except BaseException:
            store.close()
            raise
        return session

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def path(self) -> Path | str:
        return self._store.path

    @property
    def seed(self) -> int:
        return self.spec.seed

    # ------------------------------------------------------------ replay
    def _sync(self) -> Replay:
        """Bring the replayed strategy up to date with the log (inside a transaction)."""
        store, replay = self._store, self._replay
        version, seen, self._log_seen = store.log_version(), self._log_seen, None  # the transaction's first statement
        if replay is None:
            replay = self._replay = Replay.resume(store, self.spec.problem, self.spec.strategy, self.spec.seed,
                                                  self.spec.max_pending)
        elif version is not None and version == seen:  # no other connection committed since the log was read:
            self._log_seen = version                     # nothing to read (this session's own writes are applied)
            return replay
        events = store.log_after(replay.last_request, replay.last_answer, replay.last_event)
        if events.requests or events.answers or events.journal:
            try:
                replay.apply(events)
            except ReplayDiverged as exc:
                self._replay = None
                written = store.meta().get("package_version", "?")
                if written == __version__:  # the code that wrote the log reads it back: the log changed
                    raise damaged(self.path, str(exc)) from None
                raise SessionStateError(
                    f"{self.path}: {exc} The session was written by pybai {written}, this is {__version__}; "
                    "open it with the version that wrote it (pybai session export still lists every observation)."
                ) from None
            except BaseException:
                self._replay = None
                raise
        self.problem = replay.problem  # with the last epsilon given
        self._log_seen = version
        return replay

    def _pending_text(self, strategy) -> str:
        ids = list(strategy.outstanding)
        if not ids:
            return "no request is pending (ask first)"
        if len(ids) == 1:
            return f"the pending request is {ids[0]}"
        return "the outstanding requests are " + ", ".join(str(i) for i in ids)

    def _expire(self, replay: Replay) -> bool:
        """Record as expired every outstanding request older than ``expire_after`` (inside a write
        transaction); True when one was."""
        after = self.spec.expire_after
        strategy = replay.strategy
        if after is None or not self._store.writable:
            return False
        now = datetime.now(timezone.utc)
        expired = False
        for rid in list(strategy.outstanding):
            created = replay.created.get(rid)
            if strategy.stopped or created is None or (now - datetime.fromisoformat(created)).total_seconds() <= after:
                continue
            part = strategy.cancel(rid)
            replay.last_event = self._store.add_event("expire", rid, utc_now(), withdrawn=part)
            replay.withdrawn[rid] = "expire"
            expired = True
        return expired

    def _stopped_text(self, strategy) -> str:
        res = strategy.result()
        answer = describe_answer(self.problem, res.recommendation)
        return (f"the session has stopped after {res.samples} samples ({res.status}, {stop_reason(res.message)}); "
                f"recommendation: {answer}.")

    # ------------------------------------------------------------ ask / tell
    @retrying
    def ask(self) -> Request:
        """The next request.

        With ``max_pending = 1``: the pending one (its unanswered part) or a new one.  With
        N > 1: a new request while fewer than N are outstanding, else the unanswered part of the
        oldest outstanding one (the same request, the same id).

        Raises
        ------
        SessionStateError
            The session has stopped (the message gives the recommendation).
        """
        changed = False
        store = self._store
        try:  # a read-only database still hands out its pending request
            with store.writing("record the request") if store.writable else store.reading():
                replay = self._sync()
                strategy = replay.strategy
                changed = self._expire(replay)
                if strategy.stopped:
                    raise SessionStateError(self._stopped_text(strategy))
                before = set(strategy.outstanding)
                requests = strategy.ask().copy()
                rid = cast(int, strategy.request_id)  # ask() numbered the request it handed out
                new = rid not in before
                changed = changed or new
                if new and not store.writable:
                    raise read_only(self.path, "cannot record the next request")
                if new:
                    now = utc_now()
                    store.add_request(rid, requests, now)
                    replay.last_event = store.add_event("request", rid, now)
            if new:
                replay.last_request = rid
                replay.created[rid] = now
        except BaseException:
            if changed:
                self._replay = None
            raise
        return Request(rid, requests, self.layout.ask_rows(rid, requests))

    def tell(self, request_id: int, sources, rewards) -> Receipt:
        """Record the answers to request ``request_id`` (all of it, or part of a batch).

        Parameters
        ----------
        request_id : int
            Any outstanding request (answers may arrive in any order).
        sources : array-like of int or str
            The sources sampled (for subpopulation problems: ``arm * L + subpopulation``); when
            the arms have labels, an arm may be given by its label (mixed with indices).
        rewards : array-like of float
            One finite reward per source (0 or 1 for Bernoulli problems).

        Raises
        ------
        RequestError
            Unknown or already answered request, sources that were not requested, rewards
            outside the family's support; nothing is written.
        SessionStateError
            The session has stopped, or nothing was asked.
        """
        rid = checked_request_id(request_id)
        src, rew = self.layout.answer(sources, rewards)
        return self._tell(rid, src, rew)

    @retrying
    def _tell(self, rid: int, src, rew) -> Receipt:
        changed = False
        try:
            with self._store.writing("record the answer"):
                replay = self._sync()
                strategy = replay.strategy
                changed = self._expire(replay)
                refused, _ = _refusal(changed, lambda: self._check_answerable(replay, rid),
                                      lambda: strategy.tell(src, rew, request_id=rid))
                if refused is None:
                    changed = True
                    now = utc_now()
                    answer = self._store.add_answer(rid, src, rew, now)
                    replay.last_event = self._store.add_event("answer", rid, now, answer=answer)
                    if (replay.n_answers + 1) % self.state_every == 0:  # a shortcut for reopening, checked then
                        self._store.add_state(answer, replay.last_request, strategy.t_, replay.state_text(), now,
                                              event=replay.last_event)
            if refused is not None:  # after the commit: the expiries recorded above stay recorded
                raise refused
            replay.last_answer = answer
            replay.n_answers += 1
        except BaseException:
            if changed:
                self._replay = None
            raise
        pending = len(strategy.outstanding.get(rid, ()))
        return Receipt(rid, self.layout.samples(src), pending, int(strategy.t_), strategy.status_)

    def cancel(self, request_id: int) -> int:
        """Withdraw the unanswered part of outstanding request ``request_id``; returns its samples.

        Its sources go back to the sampling rule (the next asks may ask them again); answers to
        it are refused from now on.  A partly answered request is then complete.  With
        ``[session] expire_after`` requests outstanding for longer are cancelled the same way
        (recorded as expired) at the next ask, tell or cancel.

        Raises
        ------
        RequestError
            ``request_id`` is not outstanding (unknown, answered, cancelled or expired).
        SessionStateError
            The session has stopped.
        """
        rid = checked_request_id(request_id)
        return self._cancel(rid)

    @retrying
    def _cancel(self, rid: int) -> int:
        store = self._store
        changed = False
        try:
            with store.writing("record the cancel"):
                replay = self._sync()
                strategy = replay.strategy
                changed = self._expire(replay)
                refused, part = _refusal(changed, lambda: self._check_answerable(replay, rid),
                                         lambda: strategy.cancel(rid))
                if refused is None:
                    changed = True
                    replay.last_event = store.add_event("cancel", rid, utc_now(), withdrawn=part)
                    replay.withdrawn[rid] = "cancel"
            if refused is not None:  # after the commit: the expiries recorded above stay recorded
                raise refused
        except BaseException:
            if changed:
                self._replay = None
            raise
        return int(part.size)

    def set_epsilon(self, epsilon: float, epsilon_mode: str = "additive") -> dict:
        """Give the running session an answer tolerance: from now on it identifies an epsilon-good arm.

        For a near-tie that would not stop.  The proven threshold keeps its guarantee with an epsilon
        chosen late, from the data (:meth:`Strategy.retarget <pybai.strategies.base.Strategy.retarget>`); the stopping rule is
        applied at once; the journal records it, so a replay applies it at the same place; a later
        call replaces it.  Returns the status document.  Raises ``InvalidParameterError`` (bad
        values, no epsilon version of the goal, a threshold that is not proven) or
        ``SessionStateError`` (stopped, or nothing asked yet: then put ``epsilon`` in the file).
        """
        problem = self.spec.problem
        if not hasattr(problem, "with_epsilon"):
            raise InvalidParameterError(f"The 'epsilon' parameter of set_epsilon has no meaning for goal "
                                        f"'{problem.goal}' ({type(problem).__name__}): no epsilon version.")
        self._record_epsilon(epsilon, epsilon_mode)
        return self.status()

    @retrying
    def _record_epsilon(self, epsilon, epsilon_mode: str) -> None:
        with self._store.writing("record the epsilon"):
            replay = self._sync()
            strategy = replay.strategy
            if strategy.stopped:
                raise SessionStateError(self._stopped_text(strategy))
            if not is_proven(strategy):
                raise InvalidParameterError("The 'epsilon' parameter of set_epsilon needs a proven threshold "
                                            "(threshold = \"delta-correct\"): this session's stop would certify nothing.")
            if replay.last_request == 0:
                raise SessionStateError(f"{self.path}: nothing was asked yet: give epsilon in the session file "
                                        "([problem] epsilon) instead.")
            cast(Any, replay.problem).with_epsilon(epsilon, epsilon_mode)  # checks the values before anything is written
            event = self._store.add_epsilon(replay.last_request, epsilon, epsilon_mode, utc_now())
            try:
                replay.set_epsilon(float(epsilon), epsilon_mode)
            except BaseException:
                self._replay = None
                raise
            replay.last_event = event
            self.problem = replay.problem

    def tell_csv(self, request_id: int, path) -> Receipt:
        """:meth:`tell` with the answers of a CSV file (columns: see :mod:`pybai.session.rows`)."""
        header, rows = read_csv(path)
        sources, rewards = self.layout.parse_answer(header, rows, checked_request_id(request_id), where=str(path))
        return self.tell(request_id, sources, rewards)

    def _check_answerable(self, replay: Replay, rid: int) -> None:
        strategy = replay.strategy
        if strategy.stopped:
            raise SessionStateError(f"request {rid} cannot be answered: {self._stopped_text(strategy)}")
        if rid in strategy.outstanding:
            return  # outstanding, logged when it was asked: no need to read the log (a scan of every answer)
        info = self._store.request_info(rid)
        if info is None:
            error = RequestError if strategy.outstanding else SessionStateError
            raise error(f"request {rid} does not exist; {self._pending_text(strategy)}.")
        size, answered, last = info
        if rid in replay.withdrawn:
            what = "cancelled" if replay.withdrawn[rid] == "cancel" else f"expired (after {self.spec.expire_after:g} s)"
            raise RequestError(f"request {rid} was {what} after {answered} of its {size} samples were answered; "
                               f"nothing recorded; {self._pending_text(strategy)}.")
        raise RequestError(f"request {rid} was already answered ({answered} samples, last at {last}); "
                           f"nothing recorded; {self._pending_text(strategy)}.")

    # ------------------------------------------------------------ reading
    @property
    @retrying
    def stopped(self) -> bool:
        with self._store.reading():
            return self._sync().strategy.stopped

    @retrying
    def status(self, level: float = 0.95) -> dict:
        """The state of the session as a JSON-safe dict.

        Keys: ``name``, ``goal``, ``strategy``, ``seed``, ``regime``, ``status``, ``state`` (in words: ``"running"``, ``"certified"``, ...), ``stopped``,
        ``message``, ``recommendation`` (and ``answer``: in words), ``labels`` (the arms' names, or
        null), ``recommendation_label`` (the recommended arm's label, a list for top-k; null without
        labels), ``samples``, ``batches``,
        ``requests``, ``answers``, ``pending`` (with ``max_pending = 1``: ``{"request", "size"}`` or
        null; with N > 1: a list of ``{"request", "size", "created"}``, oldest first), ``max_pending``,
        ``expire_after`` (seconds or null), ``withdrawn`` (requests cancelled or expired), ``statistic``
        and ``threshold`` (what decides the stop and the level it must reach: ``statistic >= threshold``
        exactly when the rule has stopped, :func:`pybai.session.status.stopping_evidence`; null in fixed
        budget or for a rule of the strategy's own), ``statistic_name`` (what it is, in words), ``threshold_kind``
        (``"heuristic"``, ``"delta-correct"``, ...; null in fixed budget),
        ``threshold_count_dependent`` (true for rules that test each piece with its own counts,
        such as the ``delta-correct`` rule of best arm and top-k), ``proven`` (whether a
        stop would be proven delta-correct), ``certified`` (true only once the session stopped on
        a proven threshold), ``epsilon`` and ``epsilon_mode`` (the answer tolerance in force, null without one),
        ``epsilon_settable`` (whether :meth:`set_epsilon` would take one now: running, fixed
        confidence, a proven threshold, a goal with an epsilon version, something asked),
        ``max_samples`` (fixed confidence: the cap), ``estimated_samples_to_stop`` (running, fixed confidence: the further
        samples after which the stopping rule would stop if the estimates and proportions stayed;
        null when never or unknown), ``near_tie`` (null, or the report of
        :func:`pybai.session.near_tie.near_tie`), ``delta``/``budget``,
        ``counts``, ``means``, ``ci_low``, ``ci_high`` (per source, shaped like the problem's
        sources; null where undefined), ``sd`` (per source, the estimated standard deviation under an
        unknown-variance reward model; null otherwise), ``level``, ``created``, ``last_answer``, ``version``.

        Raises
        ------
        InvalidParameterError
            ``level`` is not a number in (0, 1).
        """
        from pybai._validation import check_probability

        level = check_probability(level, "level", "Session.status")
        with self._store.reading():
            replay = self._sync()
            n_requests, n_answers, _ = self._store.counts()
            created = self._store.definition()["created"]
            last = self._store.last_answer_time()
        return session_status(self, replay, level, n_requests=n_requests, n_answers=n_answers, created=created,
                              last=last)

    @retrying
    def observations(self) -> list[dict]:
        """Every observation as a row: observation, answer, request, source (arm, subpopulation),
        reward (exact text), time."""
        with self._store.reading():
            rows = self._store.observation_rows()
        return self.layout.export_rows(rows)

    @retrying
    def history(self):
        """The session replayed answer by answer (see :func:`pybai.session.history.replay_history`)."""
        from pybai.session.history import replay_history

        return replay_history(self)


def _refusal(expired: bool, check, change) -> tuple[PybaiError | None, Any]:
    """``check()`` then ``change()`` (a tell's or cancel's checks, then the strategy's change): ``(None, what
    change returned)``; a refusal is returned, ``(refusal, None)``, rather than raised when expiries were
    recorded in the same transaction, so that they are committed (a refused answer never brings an
    expired request back)."""
    try:
        check()
        return None, change()
    except PybaiError as exc:
        if not expired:
            raise
        return exc, None
