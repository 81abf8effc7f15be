"""Top-two sampling for the best arm under guardrail metrics (goal ``"best-arm-guardrails"``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pybai.strategies.registry import register
from pybai.strategies.top_two import TopTwo

if TYPE_CHECKING:
    from pybai.problems.guardrails.problem import GuardrailProblem

__all__ = ["GuardrailTopTwo"]


@register
class GuardrailTopTwo(TopTwo):
    """Top-two sampling on guardrail metrics: the leader and challenger of the guardrail rule's alternative.

    The top-two rule of :class:`~pybai.strategies.TopTwo` (same parameters, same leader tracking, same
    information-directed selection), with the candidates given by the problem
    (:meth:`~pybai.problems.guardrails.problem.GuardrailProblem.top_two`): at the empirical answer h, the
    *challenger item* of the alternative is the one of smallest cost (the largest GLR among its single-metric
    tests, plus ``ln N`` of its arm with ``challenger="tci"``), and its deciding test names the arms:

    * an arm's mean against an absolute bound (h's break test, another arm's keep test): that arm is sampled;
    * two arms' objectives (h against a challenger b) or an arm against the control (a relative guardrail):
      the hub (h, or the control) is the leader and the other arm the challenger, the leader taken with
      proportion ``beta`` (tracked per leader), or with ``beta="ids"`` its share of the test's cost,
      (sigma_hub^2 / N_hub) / (sum over the test's sources of sigma^2 / N).

    The rule stops with the problem's rule (the ``delta-correct`` one holds for any sampling rule), so it is
    as correct as Track-and-Stop; its sampling is a heuristic built on the top-two principle of Jourdan et
    al. (2022) and its general form of Qin & You: no sample-complexity guarantee is proven for this
    goal, where a test's cost is a maximum over single-metric tests (measured against Track-and-Stop and
    the two-stage baseline in docs/guardrails.md).

    Parameters
    ----------
    beta : float in (0, 1) or "ids", default 0.5
    challenger : {"tci", "tc"}, default "tci"
    selection : {"tracking", "random"}, default "tracking"
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
    n_init : int, default 1

    References
    ----------
    M. Jourdan, R. Degenne, D. Baudry, R. de Heide, E. Kaufmann. Top two algorithms revisited.
    NeurIPS 2022.  C. Qin, W. You. Dual-directed algorithm design for efficient pure exploration.
    Operations Research, 2025.  T. Cai, K. Kandasamy. Constrained best arm identification with tests for
    feasibility. AAAI 2026.
    """

    name = "top-two-guardrails"
    goals = ("best-arm-guardrails",)
    requires = frozenset()  # the problem's tests only (its sources are not independent: metrics of one observation)
    problem_: GuardrailProblem  # for the type checker: goal best-arm-guardrails only

    def _compiled_ok(self) -> bool:
        """No compiled step: the candidates come from the problem's tests."""
        return False

    def _candidates(self, tci: bool) -> tuple[int, int]:
        leader, challenger, self._share = self.problem_.top_two(self.counts_, self.means_, tci)
        return leader, challenger

    def _ids_beta(self, leader: int, challenger: int) -> float:
        """IDS: the leader's share of the deciding test's cost (computed with the candidates)."""
        return self._share
