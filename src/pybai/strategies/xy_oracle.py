"""XY-oracle (Soare, Lazaric & Munos 2014, Eq. 5): the oracle allocation with theta known -- a reference."""

from __future__ import annotations

from pybai.exceptions import InvalidParameterError
from pybai.strategies._linear import StaticDesignRule
from pybai.strategies.registry import register

__all__ = ["XYOracle"]


@register
class XYOracle(StaticDesignRule):
    r"""**A reference point, not a real strategy**: it is given the true theta.

    Samples the oracle design of Eq. (5), :math:`\lambda^* = \arg\min_\lambda \max_{y \in Y^*}
    \|y\|^2_{\Lambda_\lambda^{-1}} / \Delta^2(y)` with :math:`Y^* = \{x^* - x\}` and the true gaps
    (the optimal weights w*(theta) of :meth:`~pybai.problems.linear.LinearBestArmProblem.oracle`),
    rounded by the efficient rounding of appendix C, and stops by the same empirical GLR rule
    (Eq. 11) as the other allocations: it measures what the best static allocation costs when
    the gaps are known.  It reads ``problem.reference_theta`` (set in simulations only) and
    refuses problems without it (e.g. a real session).

    Parameters
    ----------
    allocation : {"rounding"}, default "rounding"
    check_growth : float, default 0.01
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"}, default "heuristic"
    n_init : int, default 1
    """

    name = "xy-oracle"
    reference = True
    #: shown by reports and docs beside the strategy's results
    reference_note = "knows theta (Eq. 5 oracle allocation): a reference point, not a real strategy"

    def _check_params(self, problem):
        super()._check_params(problem)
        if self.allocation != "rounding":
            raise InvalidParameterError(
                f"The 'allocation' parameter of XYOracle must be \"rounding\" (the oracle design). Got {self.allocation!r}.")
        if problem is not None and getattr(problem, "reference_theta", None) is None:
            raise InvalidParameterError(
                "XYOracle ('xy-oracle') is a reference that needs the true theta (problem.reference_theta, "
                "known in simulations of a 'linear-gaussian' environment only)."
            )

    def _design(self):
        problem = self.problem_
        return problem.oracle(problem.features @ problem.reference_theta)[1]
