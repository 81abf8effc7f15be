"""The base strategy: ask/tell mechanics shared by every sampling rule.

A strategy object only stores its parameters when constructed.  :meth:`Strategy.start`
validates them against a :class:`~pybai.problems.base.Problem` and creates the state: the
problem's model (per-source statistics and estimates), the stopping threshold and the
sampling rule's own small state.  Then

* :meth:`Strategy.ask` returns the requests to sample next (an int array: one entry for
  sequential rules, a whole batch for batch rules) and numbers them (:attr:`request_id`);
* :meth:`Strategy.tell` answers the pending request (all of it, or part of a batch), updates
  the model and applies the stopping rule once the request is complete;
* :attr:`Strategy.stopped` and :meth:`Strategy.recommendation` say when and what.

The base owns everything that is the same for every rule: the initial phase
(:meth:`~pybai.problems.base.Problem.initial_requests`, cut into batches for batch rules), the
regime (fixed confidence: ``max_samples``; fixed budget: the budget in samples or batches,
never exceeded by an ask), the (b, r) limits of batches, the validation of answers, and the
state as a JSON-safe dict (:mod:`pybai.strategies.state`).  A concrete strategy implements
:meth:`Strategy._select` and optionally :meth:`_initialize`, :meth:`_observe`,
:meth:`_should_stop`, :meth:`_recommend`; it lists the attributes of its own state in ``_state_attrs``.
"""

from __future__ import annotations

import copy
import inspect
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from pybai._validation import check_choice, check_positive_int, fail
from pybai.exceptions import InvalidParameterError, RequestError, SessionStateError
from pybai.problems.base import FixedConfidence, Problem
from pybai.result import RunResult
from pybai.stopping.rule import StoppingRule
from pybai.stopping.thresholds import KINDS, UNSET_KIND
from pybai.strategies.batching import check_batch, split_plan
from pybai.strategies.compatibility import check_fit, check_initial_phase, check_max_pending, check_threshold
from pybai.strategies.requests import Outstanding, believer_model, match_answer, next_missing, parse_answer
from pybai._serialize import decode
from pybai.strategies.state import (check_digest, check_header, check_status, corrupted, decoded_section,
                                    expected_digest, get_path, kind_of, state_key, stopping_is_foreign, stopping_state,
                                    strategy_state)
from pybai.strategies._views import StateArray, read_only_view as _read_only_view  # noqa: F401 (StateArray: for the rules)

if TYPE_CHECKING:
    from pybai.stopping.base import Threshold
from pybai.strategies.certificate import stopped_message

__all__ = ["Strategy"]

_NO_SELECTION = np.empty(0, dtype=np.intp)
#: how many one-request arrays a strategy caches (sequential rules: one per request up to this)
_SINGLES_CACHED = 4096

class Strategy:
    """Base class of sampling strategies (see the module docstring).

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"} or None, default None
        Stopping threshold of fixed-confidence strategies, built by the problem
        (:meth:`~pybai.problems.base.Problem.threshold`): the seed papers' ln((1 + ln t)/delta),
        or a threshold proven delta-correct (:mod:`pybai.stopping.thresholds`).  None leaves it
        unset: a simulation runs the heuristic (:data:`~pybai.stopping.thresholds.UNSET_KIND`), a
        session ``"delta-correct"``; only a proven one certifies an answer.
    n_init : int, default 1
        The initial phase: every request ``n_init`` times (or the problem's own start, e.g.
        a spanning set of a linear problem) before the sampling rule takes over.
    """

    #: name in the strategy registry (what experiment files and make_strategy use)
    name: ClassVar[str] = ""
    #: goals this strategy can solve
    goals: ClassVar[tuple[str, ...]] = ("best-arm",)
    #: regimes this strategy supports
    regimes: ClassVar[tuple[str, ...]] = ("fixed-confidence",)
    #: whether the rule chooses whole batches (required when the problem has a BatchSpec)
    batched: ClassVar[bool] = False
    #: what the rule needs of a problem: a subset of the problem's ``provides``
    #: (:attr:`Problem.provides <pybai.problems.base.Problem.provides>`).  The default,
    #: ``{"independent-arms"}``, is for rules built on per-source statistics; rules that use only
    #: the problem's methods (oracle, GLR, best response) need nothing and run on linear problems too
    requires: ClassVar[frozenset[str]] = frozenset({"independent-arms"})
    #: True for rules that ask many samples in one request (a stretch of a fixed design)
    asks_chunks: ClassVar[bool] = False
    #: True for rules that may end a fixed-budget run before the budget is spent (answer forced)
    may_stop_early: ClassVar[bool] = False
    #: True for a reference point that is not a real strategy: it is told the truth
    #: (:meth:`reveal_truth`, by the simulation runner), so it cannot run in a session
    reference: ClassVar[bool] = False
    #: shown by reports and docs beside a reference's results
    reference_note: ClassVar[str] = ""
    #: attributes of the rule's own state, saved by :meth:`get_state` (``"tracker_.x"``: a component's)
    _state_attrs: ClassVar[tuple[str, ...]] = ()
    #: the entries of ``_state_attrs`` that count rounds or samples (restored only as non-negative whole numbers; rounds
    #: are counted when asked, so with outstanding requests they may pass t_) and
    #: those that only accumulate non-negative amounts (restored only as finite numbers >= 0)
    _count_attrs: ClassVar[tuple[str, ...]] = ()
    _nonnegative_attrs: ClassVar[tuple[str, ...]] = ()
    #: a rule whose stopping never reads ``threshold`` names its own proven rule here (a stop is then
    #: certified whatever ``threshold`` says; :mod:`pybai.strategies.certificate`)
    proven_rule: ClassVar[str] = ""
    #: a rule that stops by its own unproven rule (not ``threshold``) names it: never certified (``"mixture-sprt"``)
    stopping_rule: ClassVar[str] = ""
    #: False for a rule with a ``_should_stop`` of its own; else a restored "stopped" state is checked against it
    stops_on_statistics: ClassVar[bool] = True
    #: why the rule needs each request answered before the next (refuses ``max_pending > 1``); empty: it allocates on counts + pending
    single_request: ClassVar[str] = ""
    #: accepted values of ``threshold`` (a family's rules may add the kinds their problem builds)
    threshold_kinds: ClassVar[tuple[str, ...]] = KINDS
    #: "unstarted" until :meth:`start`, then "running", "stopped", "censored" or "budget-spent"
    status_: str = "unstarted"
    _param_names_: ClassVar[tuple[str, ...]]  # cache of :meth:`_param_names`, per class

    def __init__(self, *, threshold: str | None = None, n_init: int = 1):
        self.threshold = threshold
        self.n_init = n_init

    # ------------------------------------------------------------------ params
    @classmethod
    def _param_names(cls) -> list[str]:
        """The keyword-only parameters of the ``__init__`` methods along the MRO (once per class)."""
        if "_param_names_" not in vars(cls):
            cls._param_names_ = tuple(dict.fromkeys(
                p.name for klass in cls.__mro__ if "__init__" in vars(klass)
                for p in inspect.signature(vars(klass)["__init__"]).parameters.values() if p.kind is p.KEYWORD_ONLY))
        return list(cls._param_names_)

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def clone(self) -> "Strategy":
        """A new, unstarted strategy with the same parameters (as scikit-learn's ``clone``)."""
        return type(self)(**copy.deepcopy(self.get_params()))

    @property
    def threshold_kind(self) -> str:
        """The kind of threshold the strategy runs with: ``threshold``, or :data:`~pybai.stopping.thresholds.UNSET_KIND` when unset."""
        return UNSET_KIND if self.threshold is None else self.threshold

    def _check_params(self, problem: Problem | None) -> None:
        """Validate parameters (subclasses extend, calling ``super()``)."""
        owner = type(self).__name__
        if self.threshold is not None:
            check_choice(self.threshold, self.threshold_kinds, "threshold", owner)
        check_positive_int(self.n_init, "n_init", owner)
        if problem is None:
            return
        if not isinstance(problem, Problem):
            raise fail("problem", owner, "a Problem (e.g. BestArmProblem)", problem)
        check_fit(self, problem, owner)
        check_initial_phase(self, problem, owner)
        check_threshold(self, problem, owner)

    def validate(self, problem: Problem | None = None) -> "Strategy":
        """Check the parameters (and their fit with ``problem``) without starting."""
        self._check_params(problem)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ start
    def start(self, problem: Problem, rng: np.random.Generator | int | None = None, *,
              max_pending: int = 1) -> "Strategy":
        """Validate the parameters on ``problem`` and create a fresh state.

        Parameters
        ----------
        problem : Problem
            What the learner knows (never the hidden truth).
        rng : numpy.random.Generator or int or None
            Randomness of the sampling rule (normalised by ``numpy.random.default_rng``).
        max_pending : int, default 1
            How many requests may be outstanding (handed out by :meth:`ask`, not yet fully
            answered or cancelled) at once.  1: each request is answered before the next.  N > 1:
            :meth:`ask` hands out a new request while fewer than N are outstanding, chosen on
            the counts plus the pending samples (:mod:`pybai.strategies.requests`), and the oldest
            unanswered one when N are.  Refused by rules that need every answer first
            (:attr:`single_request`) and on (b, r) batch problems.

        Returns
        -------
        self
        """
        self._check_params(problem)
        check_max_pending(self, max_pending, problem)
        self.problem_ = problem
        try:
            self.rng_ = np.random.default_rng(rng)
        except (TypeError, ValueError):
            raise fail("rng", type(self).__name__, "a numpy.random.Generator, an int >= 0 or None", rng) from None
        self.model_ = problem.new_model()
        self.problem_ = problem.learner_view(self.model_)  # reads what the learner estimates (e.g. variances)
        # read-only views of the model's arrays: the model updates them in place, a caller cannot
        self.counts_ = _read_only_view(self.model_.counts)
        self.sums_ = _read_only_view(self.model_.sums)
        self.means_ = _read_only_view(self.model_.estimate)
        self.t_ = 0
        self.batches_ = 0
        self.status_ = "running"
        self.statistic_ = 0.0
        self.request_id: int | None = None  # id of the request the last ask() handed out, while outstanding
        self._pending: np.ndarray | None = None  # its unanswered part (read-only: ask() hands it out)
        self._book = Outstanding(max_pending)  # every outstanding request (one at most when max_pending = 1)
        self._singles: dict[int | np.integer, np.ndarray] = {}  # read-only one-request arrays, see _checked
        self._next_id = 1
        self.requests_ = problem.request_space()
        self._n_requests = self.requests_.n_requests
        self._requests_are_sources = self.requests_.identity
        self._batch = problem.batch
        regime = problem.regime
        self._max_samples: int | None = regime.max_samples if isinstance(regime, FixedConfidence) else None
        self._max_batches: int | None = None
        self.threshold_: Threshold | None
        self.stopping_rule_: StoppingRule | None
        if isinstance(regime, FixedConfidence):
            self.stopping_rule_ = StoppingRule.of(problem, self.threshold_kind, [regime.delta])
            self.threshold_ = self.stopping_rule_.threshold
        else:
            self.threshold_ = self.stopping_rule_ = None
            if problem.budget_unit == "samples":
                self._max_samples = regime.budget
            else:
                self._max_batches = regime.budget
        self._plan = self._initial_batches(problem)
        self._plan_pos = 0
        self._ready = not self._plan and not np.isnan(self.means_).any()
        self._initialize()
        return self

    def _initial_plan(self, problem: Problem) -> np.ndarray:
        """Hook: the requests of the initial phase (default: the request space's, ``n_init`` rounds)."""
        return problem.request_space().initial_requests(self._init_rounds(problem))

    def _initial_size(self, problem: Problem) -> int:
        """Hook: samples of the initial phase (or a lower bound), known before its plan is built.

        A rule that overrides :meth:`_initial_plan` overrides this too.
        """
        space = problem.request_space()
        return self._init_rounds(problem) * (space.n_requests if space.default_start else 1)

    def _init_rounds(self, problem: Problem) -> int:
        """Rounds of the initial phase: ``n_init``, at least the family's ``min_samples`` (a variance needs 2)."""
        return max(int(self.n_init), int(problem.family.min_samples))

    def _initial_batches(self, problem: Problem) -> list[np.ndarray]:
        """The initial phase as the successive asks: one request each, or (b, r) batches."""
        plan = np.array(self._initial_plan(problem), dtype=np.intp)
        plan.setflags(write=False)  # its pieces are handed out by ask(): read-only views
        if problem.batch is not None:
            batches = split_plan(plan, problem.batch.size, problem.batch.max_repeats)
            for batch in batches:
                batch.setflags(write=False)
            return batches
        return [plan[i : i + 1] for i in range(plan.size)]

    def _initialize(self) -> None:
        """Hook: create the sampling rule's own state (``self.problem_``, ``self.model_`` are set)."""

    def retarget(self, problem: Problem) -> None:
        """Continue on ``problem`` from where the run is: same model, counts, generator and requests.

        ``problem`` must be the strategy's problem with another answer tolerance (its
        :meth:`~pybai.problems.best_arm.problem.BestArmProblem.with_epsilon`): the same sources, family
        and regime; what a session is given by :meth:`~pybai.session.Session.set_epsilon`.  The
        learner's view and the stopping rule are rebuilt on it, and the stopping rule is applied at
        once (a tolerance may certify what the data already show).  The rule's own state (tracking
        sums, learners) is kept: it reads the problem anew at each step.

        Why the delta guarantee survives an epsilon chosen late, from the data: the proven rules test
        one supermartingale per pair of arms at the true means, or (the leader rules) one e-process per
        hypothesis "j is the best", whose state the new rule takes over
        (:meth:`~pybai.stopping.rule.StoppingRule.continue_from`; docs/thresholds.md); the pieces of the
        alternative only move the infimum, so a wrong stop under any epsilon, chosen at any time,
        makes the supermartingale of the truth cross its level: probability at most delta.
        """
        self._require_started()
        current = self.problem_
        if (type(problem) is not type(current) or problem.n_sources != current.n_sources
                or problem.regime != current.regime or type(problem.family) is not type(current.family)):
            raise InvalidParameterError(f"The 'problem' parameter of retarget must be the strategy's problem with "
                                        f"another tolerance. Got {type(problem).__name__}.")
        self.problem_ = problem.learner_view(self.model_)
        rule = StoppingRule.of(problem, self.threshold_kind, [cast(Any, problem.regime).delta])
        if self.stopping_rule_ is not None:  # the leader rules keep their e-processes (one process per run)
            rule.continue_from(self.stopping_rule_)
        self.stopping_rule_ = rule
        self.threshold_ = self.stopping_rule_.threshold
        if self.status_ == "running" and self._ready and self._should_stop():
            self.status_ = "stopped"

    def reveal_truth(self, means) -> None:
        """Tell a reference rule (:attr:`reference`) the true source means, right after :meth:`start`.

        The simulation runner does it; a learning strategy never knows the truth and refuses.
        """
        raise InvalidParameterError(f"{type(self).__name__} ('{self.name}') is a learning strategy: "
                                    "it is never told the truth.")

    # ------------------------------------------------------------------ ask/tell
    @property
    def stopped(self) -> bool:
        """Whether the strategy has stopped (confident, budget spent or censored)."""
        self._require_started()
        return self.status_ != "running"

    def ask(self) -> np.ndarray:
        """Requests to sample next (a read-only int array), numbered by :attr:`request_id`.

        With ``max_pending = 1`` (:meth:`start`): the same array, with the same id, until the
        request is answered.  With N > 1: a new request while fewer than N are outstanding (and
        ``max_samples`` or the budget leaves room), else the unanswered part of the oldest
        outstanding one (:attr:`outstanding`).

        A request is a source index, except where requests are coarser than sources
        (``problem.n_requests < problem.n_sources``): the environment answers with the source it observed.
        """
        if self.status_ != "running":
            self._require_started()
            raise SessionStateError(f"{type(self).__name__} has stopped ({self.status_}); no more asks.")
        book = self._book
        if book._open and (len(book) >= book.limit or self._no_room(book)):
            self.request_id, self._pending = book.oldest()
            return self._pending
        initial = True
        if self._plan_pos < len(self._plan):
            req = self._plan[self._plan_pos]
            self._plan_pos += 1
        elif book.requeued:  # a cancelled part of the initial phase
            req = book.requeued.pop(0)
        elif not self._ready and np.isnan(self.means_).any():  # plan done, some source still unidentified
            req, initial = next_missing(self.means_, self.requests_, book), False
        else:
            self._ready, initial = True, False
            if book.samples:  # choose on counts plus pending
                with self._believed(book):
                    req = self._checked(self._select())
            else:
                req = self._checked(self._select())
        if self._max_samples is not None and self.t_ + book.samples + req.size > self._max_samples:
            req = req[: self._max_samples - self.t_ - book.samples]  # never beyond max_samples or the budget
        self._pending = req
        self.request_id = self._next_id
        book.add(self._next_id, req, initial=initial)
        self._next_id += 1
        return req

    @contextmanager
    def _believed(self, book: Outstanding):
        """Inside the block the strategy sees its model with the outstanding samples told at the current
        estimates (:func:`~pybai.strategies.requests.believer_model`): ``model_``, ``counts_``, ``sums_``,
        ``means_`` and ``t_`` are the believer's; everything is put back when the block ends."""
        saved = (self.model_, self.counts_, self.sums_, self.means_, self.t_)
        model = believer_model(self.model_, self.requests_, book, self.problem_.family)
        self.model_ = model
        self.counts_ = _read_only_view(model.counts)
        self.sums_ = _read_only_view(model.sums)
        self.means_ = _read_only_view(model.estimate)
        self.t_ = saved[4] + int(book.samples)
        try:
            yield
        finally:
            self.model_, self.counts_, self.sums_, self.means_, self.t_ = saved

    def _no_room(self, book: Outstanding) -> bool:
        """Whether the outstanding requests already take what is left of max_samples or the budget."""
        return ((self._max_samples is not None and self.t_ + book.samples >= self._max_samples)
                or (self._max_batches is not None and self.batches_ + len(book) >= self._max_batches))

    @property
    def outstanding(self) -> dict[int, np.ndarray]:
        """The outstanding requests, oldest first: id -> unanswered part (read-only arrays)."""
        self._require_started()
        return dict(self._book._open)

    def _checked(self, selection) -> np.ndarray:
        """The rule's selection as a read-only int array (never the rule's own array), checked
        against the request space and (b, r)."""
        if isinstance(selection, (int, np.integer)):
            single = self._singles.get(selection)  # the hot path: one cached read-only array per request
            if single is None:
                if not 0 <= selection < self._n_requests:
                    check_batch(np.array([selection]), self._n_requests, None, None, type(self).__name__)
                single = np.array([selection], dtype=np.intp)
                single.setflags(write=False)
                if len(self._singles) < _SINGLES_CACHED:
                    self._singles[int(selection)] = single
            return single
        req = np.array(selection, dtype=np.intp).reshape(-1)  # a copy: the rule may reuse its array
        batch = self._batch
        check_batch(req, self._n_requests, None if batch is None else batch.size,
                    None if batch is None else batch.max_repeats, type(self).__name__)
        req.setflags(write=False)
        return req

    def tell(self, sources, rewards, request_id: int | None = None) -> None:
        """Record the rewards observed for an outstanding request and apply the stopping rule.

        Parameters
        ----------
        sources : int or array-like of int
            The sampled sources (the requests themselves, or the sources observed for them).
            All of the request's unanswered part, or part of it: the rest stays outstanding.
        rewards : float or array-like of float
            One finite reward per source, in the family's support.
        request_id : int, optional
            Id of the request answered (any outstanding one, in any order); default
            :attr:`request_id`, the request the last :meth:`ask` handed out.

        Raises
        ------
        RequestError
            The answer does not fit an outstanding request; nothing is recorded.
        SessionStateError
            No request is pending, or the strategy has stopped.

        The stopping rule is applied, to what has been told, each time a request is complete.
        """
        book = self._book
        if not book._open or self.status_ != "running":
            self._require_started()
            if self.status_ != "running":
                raise SessionStateError(f"{type(self).__name__} has stopped ({self.status_}); no more tells.")
            raise SessionStateError(f"{type(self).__name__} has no pending request; call ask() first.")
        rid = self.request_id if request_id is None else request_id
        pending = book.get(rid)
        if pending is None:
            raise RequestError(f"request {rid!r} is not pending ({book.describe()}).")
        src, rew = parse_answer(self, sources, rewards)
        answered = src if self._requests_are_sources else self.requests_.answered(src)
        remaining = match_answer(pending, answered)
        self.model_.update(src, rew)
        self.t_ += answered.shape[0]  # samples: one per request answered (an observation may carry several sources)
        if remaining is not None:
            book.set(cast(int, rid), remaining)
            if rid == self.request_id:
                self._pending = remaining
            self._observe(src, rew)
            return
        book.remove(cast(int, rid))
        if rid == self.request_id:
            self._pending = None
            self.request_id = None
        self._close_request(src, rew)

    def _close_request(self, src=None, rew=None) -> None:
        """A request is complete: count it, observe its last answer, then the stopping rule and the regime's limits."""
        self.batches_ += 1
        if not self._ready:
            self._ready = self._plan_pos >= len(self._plan) and not self._book.requeued and not np.isnan(self.means_).any()
        if src is not None:
            self._observe(src, rew)
        if self._ready and self._should_stop():
            self.status_ = "stopped"
        elif (self._max_samples is not None and self.t_ >= self._max_samples) or (
            self._max_batches is not None and self.batches_ >= self._max_batches
        ):
            self.status_ = "censored" if self.threshold_ is not None else "budget-spent"

    def cancel(self, request_id: int) -> np.ndarray:
        """Withdraw the unanswered part of outstanding request ``request_id``; returns it.

        Its samples go back to the rule (the next asks may ask them again).  A request that was
        partly answered is then complete: it counts as a request and the stopping rule is applied.

        Raises
        ------
        RequestError
            ``request_id`` is not outstanding; nothing changes.
        SessionStateError
            The strategy has stopped.
        """
        self._require_started()
        if self.status_ != "running":
            raise SessionStateError(f"{type(self).__name__} has stopped ({self.status_}); nothing to cancel.")
        book = self._book
        part = book.get(request_id)
        if part is None:
            raise RequestError(f"request {request_id!r} is not pending ({book.describe()}).")
        partly = book.partly_answered(request_id)
        book.cancel(request_id)
        if request_id == self.request_id:
            self._pending = None
            self.request_id = None
        if partly:
            self._close_request()
        return part

    def _require_started(self) -> None:
        if self.status_ == "unstarted":
            raise SessionStateError(f"{type(self).__name__} is not started; call start(problem) first.")

    # ------------------------------------------------------------------ hooks
    def _select(self) -> np.ndarray | int:
        """Hook: the next request(s) once the initial phase is over."""
        raise NotImplementedError

    def _observe(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """Hook: update the rule's own state after the model is updated."""

    def _should_stop(self) -> bool:
        """Stopping rule: the run's check of :attr:`threshold_` (:meth:`~pybai.stopping.base.Threshold.run_check`:
        a test with a state of the run's own, :attr:`~pybai.stopping.base.Threshold.stateful`, advanced, then
        its decision: the problem's GLR statistic above the threshold, or every piece passing its own test).

        Never in fixed budget (the base stops when the budget is spent).
        """
        threshold = self.threshold_
        if threshold is None:
            return False
        self.statistic_, stop = threshold.run_check(self.problem_, self.model_, self.t_)
        return stop

    def _recommend(self) -> Any:
        """Hook: the recommendation (default: the problem's answer on the model's estimate)."""
        if np.isnan(self.means_).all():
            return None
        return self.problem_.answer(np.where(np.isnan(self.means_), -np.inf, self.means_))

    def finish_compiled_run(self, records, index: int, t: int, tells: int, statistic: float, checked: bool, *,
                            tells_at=None) -> None:
        """Leave the strategy as the ask/tell loop leaves it at the stop of delta ``index`` of a compiled run
        (:mod:`pybai.strategies._compiled`), or at its censoring.

        ``records`` holds, per delta, the stopping time (-1: never), the statistic and the model's counts
        and sums when it stopped; ``t``, ``tells``, ``statistic`` and ``checked`` are where the run ended
        (samples, answered requests, last statistic, whether the stopping rule was applied);
        ``tells_at(samples)`` converts a stopping time into answered requests (default: one sample per
        request).  The model holds the run's final statistics.
        """
        stop = int(records.stop_t[index])
        if stop >= 0:
            self.model_.set_statistics(records.counts[index], records.sums[index])
            tells = tells if (stop == t or tells_at is None) else tells_at(stop)
            t, statistic, checked, status = stop, float(records.stop_z[index]), True, "stopped"
        else:
            status = "censored"
        self.t_ = int(t)
        self.batches_ = int(tells)
        self._next_id += int(tells)
        n_plan = len(self._plan)
        self._plan_pos = min(int(tells), n_plan)
        self._ready = bool(tells >= n_plan)
        if checked:
            self.statistic_ = float(statistic)
        self.status_ = status

    # ------------------------------------------------------------------ outputs
    def recommendation(self) -> Any:
        """Current recommendation (the final one once :attr:`stopped`; None before any sample)."""
        self._require_started()
        return self._recommend()

    def result(self) -> RunResult:
        """Summary of the run so far as a :class:`~pybai.result.RunResult`."""
        self._require_started()
        unit = "batches" if self._max_batches is not None else "samples"
        limit = self._max_batches if self._max_batches is not None else self._max_samples
        messages = {
            "running": "still sampling",
            "stopped": stopped_message(self) if self.threshold_ is not None else "stopped by the sampling rule",
            "censored": f"censored: reached max_samples = {limit} before certifying",
            "budget-spent": f"budget of {limit} {unit} spent",
        }
        return RunResult(
            recommendation=self._recommend(),
            stopped=self.stopped,
            status=self.status_,
            success=self.status_ in ("stopped", "budget-spent"),
            message=messages[self.status_],
            samples=self.t_,
            batches=self.batches_,
            counts=self.counts_.copy(),
            means=self.problem_.family.to_user(self.means_),  # the user's units (bounded: rescaled inside)
            statistic=float(self.statistic_),
        )

    # ------------------------------------------------------------------ state
    def get_state(self) -> dict:
        """The whole state as a JSON-safe dict (see :func:`pybai.strategies.state.strategy_state`)."""
        self._require_started()
        return strategy_state(self)

    #: the base's part of the state (saved under "base", each path under its last name)
    _base_state: ClassVar[tuple[str, ...]] = ("t_", "batches_", "status_", "statistic_", "request_id", "_pending",
                                              "_next_id", "_plan_pos", "_ready", "_book.limit", "_book.listing")

    def set_state(self, problem: Problem, state: dict) -> "Strategy":
        """Start on ``problem`` and continue the run ``state`` saved (:meth:`get_state`, same problem); returns self.

        A state that was not written by :meth:`get_state` for this strategy and problem, or was altered
        since (missing or extra keys, values of another type, array shapes that do not fit, counts that
        do not add up to ``t_``), is refused with one :class:`~pybai.exceptions.InvalidParameterError`
        naming the part (``state.model.counts``); every value of a section is checked before any is set.
        """
        check_header(self, problem, state)
        digest = expected_digest(state)  # of the state as given, before anything is decoded
        self.start(problem, rng=0)
        try:
            self.rng_.bit_generator.state = decode(state["rng"])
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise corrupted("rng", "the state of a numpy PCG64 generator", exc) from None
        model = self.model_
        stopping = stopping_state(self, state)  # checked before anything is set
        for section, owner, paths in (("model", model, model.state_attrs), ("base", self, self._base_state),
                                      ("rule", self, self._state_attrs)):
            fresh = {path: get_path(owner, path) for path in paths}
            values = decoded_section(state[section], fresh, section, in_place=owner is model)
            for path, value in values.items():
                if owner is model and isinstance(fresh[path], np.ndarray):
                    fresh[path][...] = value  # in place: the strategy's read-only views stay on them
                    continue
                parent, _, name = path.rpartition(".")
                try:
                    setattr(get_path(owner, parent) if parent else owner, name, value)
                except (TypeError, ValueError) as exc:  # a component that checks what it is given (the book)
                    raise corrupted(f"{section}.{state_key(path)}", str(exc), value) from None
        if stopping is not None:
            cast(Any, self.threshold_).state_[:] = stopping
        self._check_restored(foreign_rule=stopping_is_foreign(self, state))
        check_digest(state, digest)
        if self._pending is not None:  # handed out by ask(): read-only, as a fresh one
            self._pending = np.array(self._pending, dtype=np.intp)
            self._pending.setflags(write=False)
        return self

    def _check_restored(self, foreign_rule: bool = False) -> None:
        """Refuse a restored state whose parts disagree (:meth:`set_state`; ``foreign_rule``:
        :func:`~pybai.strategies.state.stopping_is_foreign`)."""
        if self.status_ not in ("running", "stopped", "censored", "budget-spent"):
            raise corrupted("base.status_", "one of running, stopped, censored, budget-spent", self.status_)
        t = self.t_
        if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or t < 0:
            raise corrupted("base.t_", "an integer >= 0", t)
        pending = self._pending
        if pending is not None and not (isinstance(pending, np.ndarray) and pending.ndim == 1
                                        and pending.dtype.kind in "iu"):
            raise corrupted("base._pending", "none or a list of requests", kind_of(pending))
        if self.request_id is not None and kind_of(self.request_id) != "an integer":
            raise corrupted("base.request_id", "none or an integer", self.request_id)
        book = self._book
        if kind_of(book.limit) != "an integer" or book.limit < 1 or len(book) > book.limit:
            raise corrupted("base.limit", "an integer >= 1, at least the outstanding requests", book.limit)
        if (pending is None) != (self.request_id not in book) or (
                pending is not None and not np.array_equal(pending, cast(np.ndarray, book.get(self.request_id)))):
            raise corrupted("base._pending", "the unanswered part of the outstanding request_id", kind_of(pending))
        counts = self.model_.counts
        if isinstance(counts, np.ndarray) and (np.any(counts < 0) or self.requests_.counts(counts).sum() != t):
            # t_ counts requests answered: one per source, or one per observation of several sources
            raise corrupted("model.counts", f"non-negative counts adding up to t_ = {t}", counts.sum())
        problem = self.model_.check_state()
        if problem:
            where, expected = problem.split(": ", 1)
            raise corrupted(f"model.{where}", expected.removeprefix("expected "), "an inconsistent value")
        if kind_of(self._next_id) != "an integer" or self._next_id < 1 or any(i >= self._next_id for i in book.ids()):
            raise corrupted("base._next_id", "an integer >= 1, above every outstanding request", self._next_id)
        if kind_of(self.batches_) != "an integer" or not 0 <= self.batches_ <= t:
            raise corrupted("base.batches_", f"an integer in [0, t_ = {t}]", self.batches_)
        for path in self._count_attrs + self._nonnegative_attrs:
            value = np.asarray(get_path(self, path), dtype=float)
            whole = path not in self._nonnegative_attrs
            if not (np.isfinite(value).all() and (value >= 0).all() and (not whole or (value == np.floor(value)).all())):
                raise corrupted(f"rule.{state_key(path)}", f"non-negative {'whole' if whole else 'finite'} numbers",
                                "another value")
        threshold = getattr(self, "threshold_", None)
        stopping = threshold.check_state(counts) if threshold is not None and threshold.stateful else None
        if stopping:
            raise corrupted("stopping", stopping, "another value")
        check_status(self, foreign_rule)
