"""The stopping rule of a fixed-confidence run: the decision in one place, at one delta or several.

A :class:`StoppingRule` holds one stopping test per delta (:class:`~pybai.stopping.base.Threshold`
objects, built by the problem: :meth:`~pybai.problems.base.Problem.threshold`), ordered from the
largest delta (the first to stop) down, and

* decides (:meth:`StoppingRule.decide`): the problem's statistic against the test's value at ``t``
  (a threshold of ``t`` alone, or one that reads the data), or, for a count-dependent test
  (:class:`~pybai.stopping.base.PieceThreshold`), every piece of the alternative to the empirical
  answer (:meth:`~pybai.problems.base.Problem.pieces`) tested with its own counts;
* declares whether it is count-dependent (:attr:`StoppingRule.count_dependent`) and proven;
* a test may keep a state of the run's own (the leader rule, :mod:`pybai.stopping.leader`), advanced by
  the strategy before each decision (:meth:`~pybai.stopping.base.Threshold.advance`);
* gives its compiled form (:meth:`StoppingRule.compiled`, a
  :class:`~pybai.stopping.compiled.CompiledRule` with one row per delta): a compiled run plays one
  trajectory for every delta of a rule whose sampling does not read delta, each delta stopping where
  its own run would.

A strategy holds the rule of its run as ``stopping_rule_`` (one delta: the problem's) and its test
as ``threshold_``.
"""

from __future__ import annotations

from typing import Any, Sequence

from pybai._validation import fail
from pybai.stopping.base import Decision, Threshold
from pybai.stopping.compiled import CompiledRule, compile_rule

__all__ = ["StoppingRule"]


class StoppingRule:
    """The stopping rule of a run at one delta or several (see the module docstring).

    Parameters
    ----------
    thresholds : sequence of Threshold
        One test per delta, all of one kind, from the largest delta down.
    """

    def __init__(self, thresholds: Sequence[Threshold]):
        tests = tuple(thresholds)
        if not tests or not all(isinstance(th, Threshold) for th in tests):
            raise fail("thresholds", "StoppingRule", "a non-empty sequence of Threshold objects", thresholds)
        if len({type(th) for th in tests}) > 1:
            raise fail("thresholds", "StoppingRule", "tests of one kind (one per delta)",
                       [type(th).__name__ for th in tests])
        self.thresholds = tests

    @classmethod
    def of(cls, problem: Any, kind: Any, deltas: Sequence[float]) -> "StoppingRule":
        """The rule ``problem`` builds for the threshold ``kind`` at each of ``deltas`` (largest first)."""
        return cls([problem.threshold(kind, delta) for delta in deltas])

    @property
    def threshold(self) -> Threshold:
        """The test at the first delta (a run's only one)."""
        return self.thresholds[0]

    @property
    def deltas(self) -> tuple[float, ...]:
        return tuple(th.delta for th in self.thresholds)

    @property
    def count_dependent(self) -> bool:
        """Whether the rule tests each piece with its own counts (not only the statistic against a level)."""
        return self.thresholds[0].count_dependent

    @property
    def proven(self) -> bool:
        """Whether a stop is proven delta-correct (under the conditions of the test's docstring)."""
        return self.thresholds[0].proven

    def decide(self, problem: Any, model: Any, t: int, index: int = 0) -> Decision:
        """The decision after ``t`` samples at delta number ``index`` (default the first)."""
        return self.thresholds[index].decide(problem, model, t)

    def compiled(self) -> CompiledRule | None:
        """The rule as a compiled loop reads it, one row per delta, or None when it has no compiled form."""
        return compile_rule(self.thresholds)

    def load_state(self, compiled: CompiledRule) -> None:
        """Give each test with a state of the run's own (:attr:`~pybai.stopping.base.Threshold.stateful`, the
        leader rule) the state its row of ``compiled`` (from :meth:`compiled`) reached in a compiled run."""
        for threshold, state in zip(self.thresholds, compiled.state):
            if threshold.stateful:
                threshold.load_state(state)

    def continue_from(self, other: "StoppingRule") -> None:
        """Each test takes over the run's own state of ``other``'s test at the same delta (the rule this one replaces
        when the answer tolerance changes: :meth:`~pybai.stopping.base.Threshold.continue_from`)."""
        for new, old in zip(self.thresholds, other.thresholds):
            if new.stateful and new.delta == old.delta:
                new.continue_from(old)

    def __repr__(self) -> str:
        return f"StoppingRule({list(self.thresholds)!r})"
