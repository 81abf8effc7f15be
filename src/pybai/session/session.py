"""Persistent ask/tell sessions: a strategy driven by the real world, stored in a database.

A :class:`Session` couples a session definition (problem, strategy, seed) with its database
(:mod:`pybai.session.store`: an SQLite file or a PostgreSQL server).  The definition and the
log of requests and answers are the record: the strategy is rebuilt by replaying the log
(:mod:`pybai.session.replay`, from the newest stored state that agrees with it) when the
session is opened, and brought up to date with whatever other processes wrote before every
operation.  Each :meth:`Session.ask` that makes a new request and each accepted
:meth:`Session.tell` is one transaction; a refused ``tell`` writes nothing.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from pybai._validation import real_values
from pybai._version import __version__
from pybai.config.experiment import read_document
from pybai.config.learner import SessionSpec, parse_session_file, session_document
from pybai.exceptions import ConfigError, InvalidParameterError, PybaiError, RequestError, SessionStateError
from pybai.naming import answer_name
from pybai.problems.base import FixedConfidence
from pybai.session.integrity import damaged, read_only
from pybai.session.intervals import confidence_intervals
from pybai.session.near_tie import near_tie, progress
from pybai.session.replay import STATE_EVERY, Replay, ReplayDiverged
from pybai.session.rows import Layout, read_csv
from pybai.session.store import Store, utc_now
from pybai.stopping.thresholds import is_default_kind
from pybai.strategies.certificate import is_proven, threshold_kind

__all__ = ["Session", "Request", "Receipt", "describe_answer", "stop_reason", "SESSION_THRESHOLD"]

#: The threshold of a session whose strategy does not choose one (``pybai run`` keeps the papers'
#: heuristic): proven delta-correct, so that a stop certifies the answer.
SESSION_THRESHOLD = "delta-correct"


@dataclass(frozen=True)
class Request:
    """A numbered request: what to sample next.

    Attributes
    ----------
    id : int
        The number to give back with the answer (:meth:`Session.tell`).
    requests : ndarray of int
        What the strategy asks, one entry per sample: sources, or arms in the "arm"
        sampling model of subpopulation problems (the subpopulation then arrives).
    rows : list of dict
        The same as table rows (the CSV of ``pybai session ask``).
    """

    id: int
    requests: np.ndarray
    rows: list[dict] = field(repr=False)

    def __len__(self) -> int:
        return int(self.requests.shape[0])


@dataclass(frozen=True)
class Receipt:
    """What an accepted :meth:`Session.tell` stored."""

    request: int
    stored: int
    pending: int  # samples of the request still unanswered (asked again by the next ask)
    samples: int
    status: str

    @property
    def stopped(self) -> bool:
        return self.status != "running"


def stop_reason(message: str) -> str:
    """A result message without its status prefix ("stopped: the answer ..." -> "the answer ...")."""
    return message.split(": ", 1)[1] if message.startswith(("stopped: ", "censored: ")) else message


def describe_answer(problem, recommendation) -> str:
    """A recommendation in words: "arm 2", "control (arm 2)", "arms 0, 3", "no feasible arm (-1)", "none yet"."""
    if recommendation is None:
        return "none yet"
    return answer_name(recommendation, problem.labels)


def recommendation_label(problem, recommendation):
    """The recommendation as labels: a label, a list of labels (top-k), or None (no labels, no arm)."""
    labels = problem.labels
    if labels is None or recommendation is None:
        return None
    if np.ndim(recommendation):
        return [labels[int(a)] for a in np.asarray(recommendation).ravel()]
    return labels[int(recommendation)] if 0 <= int(recommendation) < len(labels) else None


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _request_id(value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(f"The 'request_id' parameter of tell must be an int. Got {value!r}.")
    return int(value)


def _answer_arrays(sources, rewards) -> tuple[np.ndarray, np.ndarray]:
    src = np.asarray(sources).reshape(-1)
    if src.size and src.dtype.kind not in "iu":
        raise InvalidParameterError(f"The 'sources' parameter of tell must be integer source indices. Got {sources!r}.")
    rew = real_values(rewards, "rewards", "tell")
    if src.size == 0 or src.size != rew.size:
        raise InvalidParameterError(
            f"The 'rewards' parameter of tell must be one reward per source ({src.size}). Got {rew.size} rewards.")
    return src.astype(np.intp), rew


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
        self.layout = Layout(spec.problem)
        self._replay: Replay | None = None

    # ------------------------------------------------------------ creating and opening
    @classmethod
    def create(cls, db, file=None, *, problem=None, strategy=None, seed: int | None = None,
               name: str | None = None, labels=None) -> "Session":
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

        Notes
        -----
        A fixed-confidence session whose strategy leaves ``threshold`` at its default runs with
        :data:`SESSION_THRESHOLD` (``"delta-correct"``), stored in the session file of the
        database; ``threshold = "heuristic"`` must be asked for explicitly, and its stop is then
        reported as "the heuristic threshold was crossed", never as certified.
        """
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise InvalidParameterError(f"The 'seed' parameter of Session.create must be an int >= 0. Got {seed!r}.")
        if file is not None:
            if problem is not None or strategy is not None:
                raise InvalidParameterError("Session.create takes a session file or problem and strategy, not both.")
            document = dict(file) if isinstance(file, dict) else read_document(file)
            default = "session" if isinstance(file, dict) else Path(file).stem
            if seed is not None:
                document["seed"] = int(seed)
            if name is not None:
                document["name"] = name
        else:
            if problem is None or strategy is None:
                raise InvalidParameterError("Session.create needs a session file, or both a problem and a strategy.")
            document = session_document(problem, strategy, name=name or "session", seed=int(seed or 0))
            default = "session"
        if labels is not None:
            document["environment"] = {**document.get("environment", {}), "labels": labels}
        try:
            document = json.loads(json.dumps(document, allow_nan=False))
        except (TypeError, ValueError):
            raise ConfigError("session file: only strings, numbers, booleans, arrays and tables are allowed "
                              "(no dates or non-finite numbers).") from None
        spec = parse_session_file(document, default_name=default)
        unchosen = is_default_kind((strategy if file is None else spec.strategy).threshold)
        if unchosen and isinstance(spec.problem.regime, FixedConfidence):
            # sessions certify: an unchosen threshold is the proven one, written into the stored file
            # so that replay never depends on a default (databases without the key keep theirs)
            document["strategy"][0]["threshold"] = SESSION_THRESHOLD
            spec = parse_session_file(document, default_name=default)
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
        if self._replay is None:
            self._replay = Replay.resume(self._store, self.problem, self.spec.strategy, self.spec.seed)
        replay = self._replay
        events = self._store.events_after(replay.last_request, replay.last_answer)
        if events.requests or events.answers:
            try:
                replay.apply(events)
            except ReplayDiverged as exc:
                self._replay = None
                written = self._store.meta().get("package_version", "?")
                if written == __version__:  # the code that wrote the log reads it back: the log changed
                    raise damaged(self.path, str(exc)) from None
                raise SessionStateError(
                    f"{self.path}: {exc} The session was written by pybai {written}, this is {__version__}; "
                    "open it with the version that wrote it (pybai session export still lists every observation)."
                ) from None
            except BaseException:
                self._replay = None
                raise
        return replay

    def _pending_text(self, strategy) -> str:
        if strategy.request_id is None:
            return "no request is pending (ask first)"
        return f"the pending request is {strategy.request_id}"

    def _stopped_text(self, strategy) -> str:
        res = strategy.result()
        answer = describe_answer(self.problem, res.recommendation)
        return (f"the session has stopped after {res.samples} samples ({res.status}, {stop_reason(res.message)}); "
                f"recommendation: {answer}.")

    # ------------------------------------------------------------ ask / tell
    def ask(self) -> Request:
        """The next request: the pending one (its unanswered part) or a new one.

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
                if strategy.stopped:
                    raise SessionStateError(self._stopped_text(strategy))
                new = strategy.request_id is None
                if new and not store.writable:
                    raise read_only(self.path, "cannot record the next request")
                changed = new
                requests = strategy.ask().copy()
                if new:
                    self._store.add_request(cast(int, strategy.request_id), requests, utc_now())
            if new:
                replay.last_request = cast(int, strategy.request_id)
        except BaseException:
            if changed:
                self._replay = None
            raise
        rid = cast(int, strategy.request_id)  # ask() numbered the pending request
        return Request(rid, requests, self.layout.ask_rows(rid, requests))

    def tell(self, request_id: int, sources, rewards) -> Receipt:
        """Record the answers to request ``request_id`` (all of it, or part of a batch).

        Parameters
        ----------
        request_id : int
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
        rid = _request_id(request_id)
        src, rew = _answer_arrays(self.layout.sources(sources), rewards)
        changed = False
        try:
            with self._store.writing("record the answer"):
                replay = self._sync()
                strategy = replay.strategy
                self._check_answerable(strategy, rid)
                strategy.tell(src, rew, request_id=rid)
                changed = True
                answer = self._store.add_answer(rid, src, rew, utc_now())
                if (replay.n_answers + 1) % self.state_every == 0:  # a shortcut for reopening, checked then
                    self._store.add_state(answer, replay.last_request, strategy.t_, replay.state_text(), utc_now())
            replay.last_answer = answer
            replay.n_answers += 1
        except BaseException:
            if changed:
                self._replay = None
            raise
        pending = len(strategy.ask()) if strategy.request_id == rid else 0
        return Receipt(rid, int(src.size), pending, int(strategy.t_), strategy.status_)

    def tell_csv(self, request_id: int, path) -> Receipt:
        """:meth:`tell` with the answers of a CSV file (columns: see :mod:`pybai.session.rows`)."""
        header, rows = read_csv(path)
        sources, rewards = self.layout.parse_answer(header, rows, _request_id(request_id), where=str(path))
        return self.tell(request_id, sources, rewards)

    def _check_answerable(self, strategy, rid: int) -> None:
        if strategy.stopped:
            raise SessionStateError(f"request {rid} cannot be answered: {self._stopped_text(strategy)}")
        if strategy.request_id == rid:
            return  # the pending request, logged when it was asked: no need to read the log (a scan of every answer)
        info = self._store.request_info(rid)
        if info is None:
            error = SessionStateError if strategy.request_id is None else RequestError
            raise error(f"request {rid} does not exist; {self._pending_text(strategy)}.")
        size, answered, last = info
        if strategy.request_id != rid:
            raise RequestError(f"request {rid} was already answered ({answered} samples, last at {last}); "
                               f"nothing recorded; {self._pending_text(strategy)}.")

    # ------------------------------------------------------------ reading
    @property
    def stopped(self) -> bool:
        with self._store.reading():
            return self._sync().strategy.stopped

    def status(self, level: float = 0.95) -> dict:
        """The state of the session as a JSON-safe dict.

        Keys: ``name``, ``goal``, ``strategy``, ``seed``, ``regime``, ``status``, ``stopped``,
        ``message``, ``recommendation`` (and ``answer``: in words), ``labels`` (the arms' names, or
        null), ``recommendation_label`` (the recommended arm's label, a list for top-k; null without
        labels), ``samples``, ``batches``,
        ``requests``, ``answers``, ``pending`` (``{"request", "size"}`` or null), ``statistic``
        and ``threshold`` (fixed confidence: the GLR statistic of the empirical answer and the
        stopping threshold at the current sample count; else null), ``threshold_kind``
        (``"heuristic"``, ``"delta-correct"``, ...; null in fixed budget),
        ``threshold_count_dependent`` (true for rules that test each piece with its own counts,
        such as the ``delta-correct`` rule of best arm and top-k: they may stop while the
        statistic is still below ``threshold``, which is then their t-only proven bound), ``proven`` (whether a
        stop would be proven delta-correct), ``certified`` (true only once the session stopped on
        a proven threshold), ``estimated_samples_to_stop`` (running, fixed confidence: the further
        samples after which the stopping rule would stop if the estimates and proportions stayed;
        null when never or unknown), ``near_tie`` (null, or the report of
        :func:`pybai.session.near_tie.near_tie`), ``delta``/``budget``,
        ``counts``, ``means``, ``ci_low``, ``ci_high`` (per source, shaped like the problem's
        sources; null where undefined), ``sd`` (per source, the estimated standard deviation under an
        unknown-variance reward model; null otherwise), ``level``, ``created``, ``last_answer``, ``version``.
        """
        with self._store.reading():
            replay = self._sync()
            n_requests, n_answers, _ = self._store.counts()
            created = self._store.definition()["created"]
            last = self._store.last_answer_time()
        strategy = replay.strategy
        res = strategy.result()
        problem = self.problem
        statistic, threshold = self._statistic(strategy)
        low, high = confidence_intervals(problem, strategy.model_, level)
        sd = problem.family.sample_sd(strategy.model_)
        shape = problem.source_shape
        pending = None
        if strategy.request_id is not None:
            pending = {"request": int(strategy.request_id), "size": int(strategy.ask().size)}
        regime = problem.regime
        proven = is_proven(strategy)
        estimate = progress(problem, strategy)
        return {
            "name": self.spec.name,
            "goal": problem.goal,
            "strategy": self.spec.label,
            "seed": self.spec.seed,
            "regime": regime.kind,
            "delta": getattr(regime, "delta", None),
            "budget": getattr(regime, "budget", None),
            "status": res.status,
            "stopped": bool(res.stopped),
            "message": res.message,
            "recommendation": _plain(res.recommendation),
            "answer": describe_answer(problem, res.recommendation),
            "labels": None if problem.labels is None else list(problem.labels),
            "recommendation_label": recommendation_label(problem, res.recommendation),
            "samples": int(res.samples),
            "batches": int(res.batches),
            "requests": int(n_requests),
            "answers": int(n_answers),
            "pending": pending,
            "statistic": statistic,
            "threshold": threshold,
            "threshold_kind": threshold_kind(strategy),
            "threshold_count_dependent": bool(getattr(strategy.threshold_, "count_dependent", False)),
            "proven": proven,
            "certified": res.status == "stopped" and proven,
            "estimated_samples_to_stop": None if estimate is None else estimate[1],
            "near_tie": None if estimate is None else near_tie(problem, strategy, proven, estimate),
            "counts": _plain(res.counts.reshape(shape).astype(int)),
            "means": _plain(res.means.reshape(shape)),
            "ci_low": _plain(low.reshape(shape)),
            "ci_high": _plain(high.reshape(shape)),
            "sd": None if sd is None else _plain(np.asarray(sd, dtype=float).reshape(shape)),
            "level": level,
            "created": created,
            "last_answer": last,
            "version": __version__,
        }

    def _statistic(self, strategy) -> tuple[float | None, float | None]:
        if not isinstance(self.problem.regime, FixedConfidence) or strategy.t_ == 0:
            return None, None
        threshold = float(strategy.threshold_.at(strategy.t_, strategy.model_))
        if np.isnan(strategy.model_.estimate).any():
            return None, threshold
        return _plain(float(strategy.problem_.statistic(strategy.model_))), threshold

    def observations(self) -> list[dict]:
        """Every observation as a row: observation, answer, request, source (arm, subpopulation),
        reward (exact text), time."""
        with self._store.reading():
            rows = self._store.observation_rows()
        return [self.layout.export_row(r) for r in rows]

    def history(self):
        """The session replayed answer by answer (see :func:`pybai.session.history.replay_history`)."""
        from pybai.session.history import replay_history

        return replay_history(self)
