"""What the (b, r)-batch top-k rules of Jun, Jamieson, Nowak & Zhu (AISTATS 2016) share.

``batch-racing``, ``batch-sar``, ``halving`` and ``round-robin`` are ordinary strategies: the
base :class:`~pybai.strategies.base.Strategy` owns request ids, partial answers (a batch told
in parts is complete when its last part arrives), the regime (budgets in batches with
``[problem.batch]``), the (b, r) checks, the state, and the model's counts and sums, summed
from every tell.  After each complete batch a rule reads them (``counts_``, ``sums_``) and
updates only its own decisions (survivors, accepted and rejected arms, stage), listed in its
``_state_attrs``.  Without a :class:`~pybai.problems.base.BatchSpec` the rules run with
b = r = 1 (one sample per batch, budgets in samples = batches).

Conventions shared by the four rules (:class:`BatchTopKRule`):

* every batch is RoundRobin (Algorithm 1, :func:`pybai.batch.round_robin.round_robin`) over
  the rule's surviving arms: it pulls every arm once before any arm twice, which is the
  initial phase, so there is no separate one (``n_init`` is accepted for the common
  interface and unused);
* ``ties = "random"`` (default) draws one random tie order from the strategy's generator at
  the start, as the paper does ("randomness in breaking ties"); ``"index"`` breaks ties by
  the lowest arm index (and Halving then gives the remainder of the budget to the first
  stages instead of random ones);
* empirical ranks use the means sums / counts (-inf for an arm never pulled), ties by the
  tie order (:mod:`pybai.batch.ranking`);
* once a rule has decided its answer (``answer_``) the run stops, status ``"stopped"``
  (fixed budget: unless the budget is spent with that batch, then ``"budget-spent"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from pybai._validation import check_choice
from pybai.batch.ranking import ranking_means, top_positions
from pybai.batch.round_robin import round_robin
from pybai.stopping.thresholds import DEFAULT_KIND
from pybai.strategies.base import StateArray, Strategy

if TYPE_CHECKING:
    from pybai.problems.top_k import TopKProblem

__all__ = ["BatchTopKRule", "batch_shape"]

_NO_SOURCES = np.empty(0, dtype=np.intp)


def batch_shape(problem) -> tuple[int, int]:
    """(b, r) of ``problem``: its BatchSpec, or (1, 1) for a problem without batches."""
    batch = problem.batch
    return (1, 1) if batch is None else (batch.size, batch.max_repeats)


class BatchTopKRule(Strategy):
    """Base of the batch top-k rules (see the module docstring).

    Parameters
    ----------
    ties : {"random", "index"}, default "random"
        Tie order of the empirical ranks and of RoundRobin.
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
        Unused (the rules have their own decision rules); accepted for the common interface.
    n_init : int, default 1
        Unused (RoundRobin pulls every arm once first).

    Attributes
    ----------
    priority_ : ndarray of int (n,)
        The tie order: lower first.
    answer_ : ndarray of int or None
        The k arms the rule decided (sorted), None before.
    """

    stops_on_statistics = False  # its own stopping rule (_should_stop): the racing or elimination ends

    # state arrays: the rule writes the private ones, callers get read-only views
    priority_ = StateArray()
    answer_ = StateArray()

    goals = ("top-k",)
    batched = True
    single_request = "it decides on each batch's answers before the next batch"
    _state_attrs: ClassVar[tuple[str, ...]] = ("priority_", "answer_")
    problem_: TopKProblem  # for the type checker: goals are top-k only

    def __init__(self, *, ties: str = "random", threshold: str = DEFAULT_KIND, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.ties = ties

    # --- hooks for subclasses ---------------------------------------------------
    def _check_rule(self, problem) -> None:
        """Validate the rule's parameters against ``problem`` (e.g. the budget); raise naming the key."""

    def _start_rule(self) -> None:
        """Create the rule's own state (after the tie order is drawn)."""

    def _survivors(self) -> np.ndarray | None:
        """The arms the next batch pulls (sorted indices; None: every arm)."""
        return None

    def _after_batch(self) -> None:
        """Update the decisions after a complete batch (the model holds its rewards)."""

    def _current_answer(self) -> np.ndarray:
        """The anytime answer before a decision (default: the empirical top-k)."""
        return self._top(self._arms, self.problem_.k)

    def _final_statistic(self) -> float:
        """The run's statistic once the answer is decided (default 0)."""
        return 0.0

    # --- helpers ----------------------------------------------------------------------
    def _means(self) -> np.ndarray:
        """Empirical means of every arm, -inf for an arm never pulled."""
        return ranking_means(self.counts_, self.sums_)

    def _top(self, arms: np.ndarray, kk: int) -> np.ndarray:
        """The kk arms of ``arms`` with the largest empirical means (ties by the tie order)."""
        return arms[top_positions(self._means()[arms], self._priority_[arms], kk)]

    def _decide(self, arms) -> None:
        self._answer_ = np.sort(np.asarray(arms, dtype=np.int64))

    # --- Strategy hooks -----------------------------------------------------------
    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.ties, ("random", "index"), "ties", type(self).__name__)
        if problem is not None:
            self._check_rule(problem)

    def _initial_plan(self, problem):
        return _NO_SOURCES

    def _initial_size(self, problem):
        return self.n_init  # a lower bound (the engine pulls every arm first)

    def _initialize(self):
        n = self.problem_.n_sources
        self.size_, self.max_repeats_ = batch_shape(self.problem_)
        self._arms = np.arange(n)
        self._priority_ = self.rng_.permutation(n) if self.ties == "random" else np.arange(n)
        self._answer_ = None
        # RoundRobin reaches every arm before any decision: the rule is in charge from the start
        self._ready = True
        self._start_rule()

    def _select(self):
        pulls = round_robin(self.counts_, self.size_, self.max_repeats_, active=self._survivors(),
                            priority=self._priority_)
        return np.repeat(self._arms, pulls)

    def _observe(self, sources, rewards):
        if self._pending is None and self._answer_ is None:  # a complete batch (parts wait for the rest)
            self._after_batch()

    def _should_stop(self):
        if self._answer_ is None:
            return False
        self.statistic_ = self._final_statistic()
        if self.threshold_ is not None:
            return True
        return self.batches_ < self.problem_.regime.budget  # else the base ends it "budget-spent"

    def _recommend(self):
        if self.t_ == 0:
            return None
        if self._answer_ is not None:
            return self._answer_.copy()
        return np.sort(self._current_answer())
