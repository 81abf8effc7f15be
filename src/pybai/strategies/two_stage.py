"""The two-stage baseline of guardrail problems: certify every arm's guardrails, then the best survivor.

What experimentation practice does today without a joint method: first sample every arm until
each guardrail of each arm is decided (kept or broken), then compare the objective of the arms
that keep every guardrail.  It stops with the problem's rule (the ``delta-correct`` one stays
delta-correct for any sampling and any later stopping time), and only once every arm is decided:
the first stage is always completed, as in the procedure it stands for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pybai.strategies.base import Strategy
from pybai.strategies.registry import register

__all__ = ["TwoStage"]


@register
class TwoStage(Strategy):
    """Certify the guardrails of every arm (round robin on the undecided ones), then round robin on
    the survivors until the problem's stopping rule certifies the best one.

    Stage 1 samples the least-sampled arm whose guardrails are not all decided (and the control,
    when relative guardrails are undecided, as often); an arm is decided when one of its guardrails
    is certified broken or all are certified kept, by the tests of the problem's rule at its level
    (:meth:`~pybai.problems.guardrails.problem.GuardrailProblem.guardrail_status`).  Stage 2 samples
    the least-sampled arm that keeps every guardrail.  An arm whose mean sits exactly on a bound is
    never decided, so the baseline then runs to ``max_samples`` (censored), where the problem's rule
    alone may stop (it needs no decision on an arm it beats on the objective).

    Parameters
    ----------
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    """

    name = "two-stage"
    goals = ("best-arm-guardrails",)
    regimes = ("fixed-confidence",)
    requires = frozenset()  # the problem's tests only (its sources are not independent: metrics of one observation)
    stops_on_statistics = False  # its own _should_stop: the problem's rule, only once every arm is decided

    def __init__(self, *, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)

    def _status(self) -> np.ndarray:
        """Each arm's guardrail state (+1 kept, -1 broken, 0 undecided), computed once per observation count
        (the stop check after a tell and the next ask read the same one)."""
        cached = getattr(self, "_status_cache", None)  # (t, model, states): the model held, so never a reused id
        if cached is None or cached[0] != self.t_ or cached[1] is not self.model_:
            problem: Any = self.problem_  # a GuardrailProblem (goals)
            cached = self._status_cache = (self.t_, self.model_,
                                           problem.guardrail_status(self.model_, self.threshold_, self.t_))
        return cached[2]

    def _select(self):
        status = self._status()
        counts = self.requests_.counts(self.counts_)
        undecided = status == 0
        if undecided.any():
            pool = undecided.copy()
            if self.problem_.has_relative:
                pool[self.problem_.control] = True
        elif (status > 0).any():
            pool = status > 0
        else:
            pool = np.ones(status.shape, dtype=bool)
        return int(np.argmin(np.where(pool, counts, np.inf)))

    def _should_stop(self) -> bool:
        if (self._status() == 0).any():
            self.statistic_ = self.problem_.statistic(self.model_)
            return False
        return super()._should_stop()
