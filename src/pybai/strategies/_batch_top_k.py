"""Shared base of the (b, r)-batch top-k rules of Jun, Jamieson, Nowak & Zhu (AISTATS 2016).

:class:`BatchTopKRule` wraps one of the stand-alone algorithms of :mod:`pybai.batch`
(``next_batch()`` -> pulls per arm, ``observe(pulls, sums)``, ``done``, ``answer()``) as a
:class:`~pybai.strategies.base.Strategy`: the base owns request ids, partial answers, the
regime (budgets in batches with ``[problem.batch]``), the (b, r) checks and the state; the
algorithm owns the decisions.  Without a :class:`~pybai.problems.base.BatchSpec` the rules run
with b = r = 1 (one sample per batch, budgets in samples = batches).

Conventions shared by the four rules:

* no separate initial phase: RoundRobin (Algorithm 1) pulls every arm once before any arm
  twice, which is the initial phase; ``n_init`` is accepted for the common interface and
  unused;
* ``ties = "random"`` (default) draws one random tie order from the strategy's generator at
  the start, as the paper does ("randomness in breaking ties"); ``"index"`` breaks ties by
  the lowest arm index (and Halving then gives the remainder of the budget to the first
  stages instead of random ones);
* the state saves the algorithm's mutable arrays (``BatchAlgorithm.get_state``), and the
  samples of a partly answered batch, so a restored run continues exactly.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from pybai._validation import check_choice
from pybai.strategies.base import Strategy

__all__ = ["BatchTopKRule", "batch_shape"]

_NO_SOURCES = np.empty(0, dtype=np.intp)
_NO_REWARDS = np.empty(0)


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
    """

    goals = ("top-k",)
    batched = True
    _state_attrs = ("engine_state_", "_part_src", "_part_rew")
    #: whether the rule may end a fixed-budget run before its budget (status "stopped")
    may_stop_early: ClassVar[bool] = False

    def __init__(self, *, ties: str = "random", threshold: str = "heuristic", n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.ties = ties

    # --- hooks for subclasses ---------------------------------------------------
    def _make_engine(self, problem, rng):  # pragma: no cover - abstract
        """The :mod:`pybai.batch` algorithm for ``problem`` (raises on bad parameters)."""
        raise NotImplementedError

    def _engine_statistic(self) -> float:
        """The run's statistic once the algorithm is done (default 0)."""
        return 0.0

    # --- Strategy hooks -----------------------------------------------------------
    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.ties, ("random", "index"), "ties", type(self).__name__)
        if problem is not None:
            self._make_engine(problem, None)  # validates k, budget, (b, r) against the problem

    def _initial_plan(self, problem):
        return _NO_SOURCES

    def _initial_size(self, problem):
        return self.n_init  # a lower bound (the engine pulls every arm first)

    def _initialize(self):
        problem = self.problem_
        self.engine_ = self._make_engine(problem, self.rng_ if self.ties == "random" else None)
        self._arms = np.arange(problem.n_sources)
        self._part_src = _NO_SOURCES
        self._part_rew = _NO_REWARDS
        # RoundRobin reaches every arm before any decision: the rule is in charge from the start
        self._ready = True

    def _select(self):
        return np.repeat(self._arms, self.engine_.next_batch())

    def _observe(self, sources, rewards):
        if self._pending is not None:  # part of a batch: keep it until the batch is complete
            self._part_src = np.concatenate([self._part_src, sources])
            self._part_rew = np.concatenate([self._part_rew, rewards])
            return
        if self._part_src.size:
            sources = np.concatenate([self._part_src, sources])
            rewards = np.concatenate([self._part_rew, rewards])
            self._part_src, self._part_rew = _NO_SOURCES, _NO_REWARDS
        pulls = self.engine_.pending
        if sources.shape[0] != int(pulls.sum()):
            return  # the base cut the batch at max_samples: the run ends censored now
        sums = np.bincount(sources, weights=rewards, minlength=self._arms.size)
        self.engine_.observe(pulls, sums)

    def _should_stop(self):
        engine = self.engine_
        if not engine.done:
            return False
        self.statistic_ = self._engine_statistic()
        if self.threshold_ is not None:
            return True
        return self.batches_ < self.problem_.regime.budget  # else the base ends it "budget-spent"

    def _recommend(self):
        if self.t_ == 0:
            return None
        return self.engine_.answer()

    # --- state ----------------------------------------------------------------------
    @property
    def engine_state_(self) -> dict:
        """The algorithm's mutable state (saved by :meth:`get_state`)."""
        return self.engine_.get_state()

    @engine_state_.setter
    def engine_state_(self, state: dict) -> None:
        self.engine_.set_state(state)
