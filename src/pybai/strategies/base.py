"""The base strategy: ask/tell mechanics shared by every sampling rule.

A strategy object only stores its parameters when constructed.  :meth:`Strategy.start`
validates them against a :class:`~pybai.problems.base.Problem` and creates the state:
sufficient statistics (counts, sums, means per source), the stopping threshold and
the sampling rule's own small state.  Then

* :meth:`Strategy.ask` returns the sources to sample next (an int array; one entry for
  sequential rules, a whole batch for batch rules);
* :meth:`Strategy.tell` feeds the observed rewards back, updates the statistics and
  applies the stopping rule;
* :attr:`Strategy.stopped` and :meth:`Strategy.recommendation` say when and what.

The same object drives a simulation and a real experiment.  A concrete strategy
implements one hook, :meth:`Strategy._select` (the next sources), and optionally
:meth:`Strategy._observe`, :meth:`Strategy._should_stop`, :meth:`Strategy._recommend`.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, ClassVar

import numpy as np

from pybai._validation import check_choice, check_positive_int, fail
from pybai.exceptions import InvalidParameterError, SessionStateError
from pybai.problems.base import FixedConfidence, Problem
from pybai.result import RunResult
from pybai.stopping.thresholds import make_threshold

__all__ = ["Strategy", "THRESHOLDS"]

THRESHOLDS = ("heuristic", "delta-correct")


class Strategy:
    """Base class of sampling strategies (see the module docstring).

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
        Stopping threshold of fixed-confidence strategies: the seed papers'
        ln((1 + ln t)/delta), or a threshold proven delta-correct
        (:mod:`pybai.stopping.thresholds`).
    n_init : int, default 1
        Initial samples of every source before the sampling rule takes over.
    """

    #: contract name in the strategy registry
    name: ClassVar[str] = ""
    #: goals this strategy can solve
    goals: ClassVar[tuple[str, ...]] = ("best-arm",)
    #: regimes this strategy supports
    regimes: ClassVar[tuple[str, ...]] = ("fixed-confidence",)
    #: "unstarted" until :meth:`start`, then "running", "stopped", "censored" or "budget-spent"
    status_: str = "unstarted"

    def __init__(self, *, threshold: str = "heuristic", n_init: int = 1):
        self.threshold = threshold
        self.n_init = n_init

    # ------------------------------------------------------------------ params
    @classmethod
    def _param_names(cls) -> list[str]:
        names: list[str] = []
        for klass in cls.__mro__:
            if "__init__" in vars(klass):
                sig = inspect.signature(vars(klass)["__init__"])
                for p in sig.parameters.values():
                    if p.kind is p.KEYWORD_ONLY and p.name not in names:
                        names.append(p.name)
        return names

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def _check_params(self, problem: Problem | None) -> None:
        """Validate parameters (subclasses extend, calling ``super()``)."""
        owner = type(self).__name__
        check_choice(self.threshold, THRESHOLDS, "threshold", owner)
        check_positive_int(self.n_init, "n_init", owner)
        if problem is None:
            return
        if problem.goal not in self.goals:
            raise InvalidParameterError(
                f"{owner} ('{self.name}') cannot solve goal '{problem.goal}'; "
                f"it solves {', '.join(self.goals)}."
            )
        if problem.regime.kind not in self.regimes:
            raise InvalidParameterError(
                f"{owner} ('{self.name}') does not support the {problem.regime.kind} regime."
            )

    def validate(self, problem: Problem | None = None) -> "Strategy":
        """Check the parameters (and their fit with ``problem``) without starting."""
        self._check_params(problem)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ start
    def start(self, problem: Problem, rng: np.random.Generator | int | None = None) -> "Strategy":
        """Validate the parameters on ``problem`` and create a fresh state.

        Parameters
        ----------
        problem : Problem
            What the learner knows (never the hidden truth).
        rng : numpy.random.Generator or int or None
            Randomness of the sampling rule (normalised by ``numpy.random.default_rng``).

        Returns
        -------
        self
        """
        self._check_params(problem)
        self.problem_ = problem
        self.rng_ = np.random.default_rng(rng)
        n = problem.n_sources
        self.counts_ = np.zeros(n)
        self.sums_ = np.zeros(n)
        self.means_ = np.zeros(n)
        self.t_ = 0
        self.batches_ = 0
        self.status_ = "running"
        self.statistic_ = 0.0
        self._pending: np.ndarray | None = None
        self._ready = False  # every source has n_init samples
        regime = problem.regime
        if isinstance(regime, FixedConfidence):
            self.threshold_ = make_threshold(
                self.threshold,
                regime.delta,
                n_alternatives=problem.n_alternatives,
                n_terms=problem.n_terms,
                family=problem.family.name,
            )
            self._limit = regime.max_samples
        else:
            self.threshold_ = None
            self._limit = regime.budget
        self._initialize()
        return self

    def _initialize(self) -> None:
        """Hook: create the sampling rule's own state (``self.problem_`` is set)."""

    # ------------------------------------------------------------------ ask/tell
    @property
    def stopped(self) -> bool:
        """Whether the strategy has stopped (confident, budget spent or censored)."""
        self._require_started()
        return self.status_ != "running"

    def ask(self) -> np.ndarray:
        """Requests to sample next (int array); the same array until :meth:`tell`.

        A request is a source index, except for problems whose requests are coarser than
        their sources (``problem.n_requests < problem.n_sources``): then the environment
        answers each request with the source it observed, and :meth:`tell` takes those.
        """
        if self.status_ != "running":
            self._require_started()
            raise SessionStateError(f"{type(self).__name__} has stopped ({self.status_}); no more asks.")
        if self._pending is None:
            if not self._ready:
                self._pending = np.array([self._next_initial()], dtype=np.intp)
            else:
                self._pending = np.atleast_1d(np.asarray(self._select(), dtype=np.intp))
        return self._pending

    def _next_initial(self) -> int:
        """The least-sampled request while some request has fewer than ``n_init`` samples."""
        return int(np.argmin(self.problem_.request_counts(self.counts_)))

    def tell(self, sources, rewards) -> None:
        """Record the rewards observed for ``sources`` and apply the stopping rule.

        Parameters
        ----------
        sources : int or array-like of int
            Indices of the sampled sources (repeats allowed).
        rewards : float or array-like of float
            One finite reward per source.
        """
        if self.status_ != "running":
            self._require_started()
            raise SessionStateError(f"{type(self).__name__} has stopped ({self.status_}); no more tells.")
        src = np.asarray(sources).reshape(-1)
        rew = np.asarray(rewards, dtype=float).reshape(-1)
        n = self.counts_.shape[0]
        if src.shape != rew.shape:
            raise fail("rewards", "tell", f"one reward per source ({src.size})", f"{rew.size} rewards")
        if src.size == 1:
            s, r = int(src[0]), float(rew[0])
            if not 0 <= s < n or src.dtype.kind not in "iu":
                raise fail("sources", "tell", f"integer indices in [0, {n - 1}]", src.tolist())
            if not math.isfinite(r):
                raise fail("rewards", "tell", "finite numbers", rew.tolist())
            c = self.counts_[s] + 1.0
            total = self.sums_[s] + r
            self.counts_[s] = c
            self.sums_[s] = total
            self.means_[s] = total / c
        else:
            if src.size == 0 or src.dtype.kind not in "iu" or src.min() < 0 or src.max() >= n:
                raise fail("sources", "tell", f"integer indices in [0, {n - 1}]", src.tolist())
            if not np.all(np.isfinite(rew)):
                raise fail("rewards", "tell", "finite numbers", rew.tolist())
            src = src.astype(np.intp, copy=False)
            np.add.at(self.counts_, src, 1.0)
            np.add.at(self.sums_, src, rew)
            touched = np.unique(src)
            self.means_[touched] = self.sums_[touched] / self.counts_[touched]
        self.t_ += src.size
        self.batches_ += 1
        self._pending = None
        if not self._ready:
            self._ready = bool(self.problem_.request_counts(self.counts_).min() >= self.n_init)
        self._observe(src, rew)
        if self._ready and self._should_stop():
            self.status_ = "stopped"
        elif self.t_ >= self._limit:
            self.status_ = "censored" if self.threshold_ is not None else "budget-spent"

    def _require_started(self) -> None:
        if self.status_ == "unstarted":
            raise SessionStateError(f"{type(self).__name__} is not started; call start(problem) first.")

    # ------------------------------------------------------------------ hooks
    def _select(self) -> np.ndarray | int:
        """Hook: the next source(s) once every source has ``n_init`` samples."""
        raise NotImplementedError

    def _observe(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """Hook: update the rule's own state after the statistics are updated."""

    def _should_stop(self) -> bool:
        """Stopping rule: GLR > threshold(t) in fixed confidence, budget in fixed budget."""
        if self.threshold_ is None:
            return False
        self.statistic_ = self.problem_.glr(self.counts_, self.means_)
        return self.statistic_ > self.threshold_(self.t_)

    def _recommend(self) -> Any:
        """Hook: the recommendation (default: the empirical answer)."""
        return self.problem_.answer(self.means_)

    # ------------------------------------------------------------------ outputs
    def recommendation(self) -> Any:
        """Current recommendation (the final one once :attr:`stopped`)."""
        self._require_started()
        return self._recommend()

    def result(self) -> RunResult:
        """Summary of the run so far as a :class:`~pybai.result.RunResult`."""
        self._require_started()
        messages = {
            "running": "still sampling",
            "stopped": "stopped: the answer is certified at the requested confidence"
            if self.threshold_ is not None
            else "stopped by the sampling rule",
            "censored": f"censored: reached max_samples = {self._limit} before certifying",
            "budget-spent": f"budget of {self._limit} samples spent",
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
            means=self.means_.copy(),
            statistic=float(self.statistic_),
        )
