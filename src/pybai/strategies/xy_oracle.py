"""XY-oracle (Soare, Lazaric & Munos 2014, Eq. 5): the oracle allocation with theta known -- a reference."""

from __future__ import annotations

import numpy as np

from pybai.exceptions import InvalidParameterError, SessionStateError
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
    the gaps are known.  The simulation tells it the truth after :meth:`start`
    (:meth:`reveal_truth`, as for every ``reference`` rule); it cannot run in a session.

    Parameters
    ----------
    allocation : {"rounding"}, default "rounding"
    check_growth : float, default 0.01
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"} or None, default None (unset: see Strategy)
    n_init : int, default 1
    """

    name = "xy-oracle"
    reference = True
    reference_note = "knows theta (Eq. 5 oracle allocation): a reference point, not a real strategy"

    def _check_params(self, problem):
        super()._check_params(problem)
        if self.allocation != "rounding":
            raise InvalidParameterError(
                f"The 'allocation' parameter of XYOracle must be \"rounding\" (the oracle design). Got {self.allocation!r}.")

    def _initialize(self):
        self._weights_ = None  # the oracle design, once the truth is revealed
        self._rule_counts_ = np.zeros(self.problem_.n_sources, dtype=np.int64)

    def reveal_truth(self, means) -> None:
        """Take the true arm means X theta: the design is the oracle's w*(theta)."""
        means = self.problem_.check_means(means, "means")
        self._weights_ = np.asarray(self.problem_.oracle(means)[1], dtype=float)

    def _select(self):
        if self._weights_ is None:
            raise SessionStateError(
                "XYOracle ('xy-oracle') is a reference that needs the true theta, told by the simulation "
                "(reveal_truth): it runs in simulations of a 'linear-gaussian' environment only.")
        return super()._select()
