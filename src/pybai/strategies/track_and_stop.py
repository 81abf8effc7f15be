"""Track-and-Stop (Garivier & Kaufmann 2016): track the oracle weights of the empirical means."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_choice
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register
from pybai.strategies.tracking import c_tracking_step, d_tracking_step

__all__ = ["TrackAndStop"]


@register
class TrackAndStop(Strategy):
    """Track-and-Stop: sample to track w*(mu_hat(t)), stop with the GLR (Chernoff) rule.

    At each step the oracle weights w*(mu_hat) of the problem are computed exactly
    (:meth:`pybai.problems.base.Problem.oracle`) and tracked:

    * ``tracking="C"`` (default): cumulative tracking of the eps_t-projected weights,
      eps_t = (K^2 + t)^(-1/2)/2 (GK16, Eq. (14));
    * ``tracking="D"``: direct tracking with forced exploration of sources with
      N_a < sqrt(t) - K/2 (GK16, Eq. (13)); the variant of GK16's Table 2.

    Parameters
    ----------
    tracking : {"C", "D"}, default "C"
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1

    References
    ----------
    A. Garivier and E. Kaufmann. Optimal best arm identification with fixed confidence. COLT 2016.
    """

    name = "tas"
    goals = ("best-arm",)

    def __init__(self, *, tracking: str = "C", threshold: str = "heuristic", n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.tracking = tracking

    def _check_params(self, problem):
        super()._check_params(problem)
        check_choice(self.tracking, ("C", "D"), "tracking", type(self).__name__)

    def _initialize(self):
        self.cumulative_ = np.zeros(self.problem_.n_requests)
        self._hint = self.problem_.oracle_hint()

    def _target_weights(self) -> np.ndarray:
        """Hook: the proportions to track, per request (default: the problem's oracle)."""
        _, w = self.problem_.oracle(self.means_, self._hint)
        return self.problem_.request_weights(w)

    def _select(self):
        w = self._target_weights()
        counts = self.problem_.request_counts(self.counts_)
        if self.tracking == "C":
            return c_tracking_step(self.cumulative_, counts, w, float(self.t_))
        return d_tracking_step(counts, w, float(self.t_))
