"""Track-and-Stop (Garivier & Kaufmann 2016): track the oracle weights of the empirical means."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_choice, check_positive_float, fail
from pybai.strategies.base import Strategy
from pybai.strategies.design_exploration import DesignExploration
from pybai.strategies.registry import register
from pybai.strategies.tracking import c_tracking_step, d_tracking_step, geometric_chunk, tracking_chunk
from pybai.strategies.uniform import SUBPOPULATION_MODES

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

    On a linear problem the forced exploration is, by default, that of the *design*
    (``exploration="design"``, Jedra & Proutiere 2020, section 3): a spanning set of d arms is
    pulled round robin whenever lambda_min(sum_s x_s x_s^T) < lambda_min(sum_{A_0} x x^T) sqrt(t/d),
    and otherwise the weights are tracked without projection (C: cumulative, D: direct); see
    :mod:`pybai.strategies.design_exploration`.  ``exploration="arms"`` keeps the per-arm
    forcing above (every arm about sqrt(t) times, which the linear oracle weights do not need).

    It tracks the problem's :meth:`~pybai.problems.base.Problem.relaxed_weights`: the oracle
    weights, or, on a problem with side constraints, the weights of its constraint-blind
    version.  On goal ``"best-feasible-arm"`` this is the paper's T-a-S baseline (Wu, Zheng &
    Zhu, section 5: the best-arm oracle on the arm qualities, spread over subpopulations in
    proportion to q), stopped by the same constraint-aware GLR rule as ``tas-cs``.

    Parameters
    ----------
    tracking : {"C", "D"}, default "C"
    threshold : {"heuristic", "delta-correct"}, default "heuristic"
    n_init : int, default 1
    subpopulation : {"random", "tracked"}, default "random"
        Best-feasible-arm in the ``"pair"`` sampling model only: ``"random"`` (the paper's)
        tracks the arm weights, then draws the subpopulation l ~ q with the strategy's rng;
        ``"tracked"`` tracks the weights of every cell.  Ignored otherwise.
    check_growth : float, default 0
        0: the rule above, one sample at a time.  g > 0: the *lazy* variant (Jedra & Proutiere
        2020, lazy updates of the allocation): the oracle is solved and the stopping rule
        checked only at the geometric times t_{k+1} = ceil((1 + g) t_k); in between the rule
        asks the whole stretch at once, tracking the same weights (one request of many
        samples).  For problems whose oracle is an optimisation (linear bandits) and runs of
        1e5+ samples.  Not with subpopulations drawn at random (``subpopulation="random"`` on
        an "arm"-level problem).
    exploration : {"auto", "arms", "design"}, default "auto"
        The forced exploration: per arm (GK16, above) or of the design matrix (linear problems
        only).  ``"auto"``: ``"design"`` on linear problems, ``"arms"`` otherwise.
    oracle_growth : float, default 0
        With ``check_growth > 0``: 0 solves the oracle at every check; g > 0 solves it again only
        once t has grown by a factor 1 + g since the last solve and tracks the last weights in
        between (lazy updates, Jedra & Proutiere 2020, whose analysis allows updates at a
        sparse set of times).

    References
    ----------
    A. Garivier and E. Kaufmann. Optimal best arm identification with fixed confidence. COLT 2016.
    Y. Jedra and A. Proutiere. Optimal best-arm identification in linear bandits. NeurIPS 2020.
    """

    name = "tas"
    #: runs on linear problems through the problem's methods (GLR, oracle, best response)
    linear_capable = True
    goals = ("best-arm", "best-feasible-arm")
    _state_attrs = ("cumulative_", "_hint", "lazy_weights_", "lazy_until_", "forced_next_")

    def __init__(self, *, tracking: str = "C", threshold: str = "heuristic", n_init: int = 1,
                 subpopulation: str = "random", check_growth: float = 0.0, oracle_growth: float = 0.0,
                 exploration: str = "auto"):
        super().__init__(threshold=threshold, n_init=n_init)
        self.exploration = exploration
        self.oracle_growth = oracle_growth
        self.tracking = tracking
        self.subpopulation = subpopulation
        self.check_growth = check_growth

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_choice(self.tracking, ("C", "D"), "tracking", owner)
        check_choice(self.subpopulation, SUBPOPULATION_MODES, "subpopulation", owner)
        check_positive_float(self.check_growth, "check_growth", owner, allow_zero=True)
        if self.check_growth > 1.0:
            raise fail("check_growth", owner, "a float in [0, 1]", self.check_growth)
        check_positive_float(self.oracle_growth, "oracle_growth", owner, allow_zero=True)
        if self.oracle_growth > 1e9:  # t (1 + g) must stay an integer sample count
            raise fail("oracle_growth", owner, "a float in [0, 1e9]", self.oracle_growth)
        check_choice(self.exploration, ("auto", "arms", "design"), "exploration", owner)
        if self.exploration == "design" and problem is not None and not getattr(problem, "linear", False):
            raise fail("exploration", owner, '"auto" or "arms" (the design exploration needs a linear problem)',
                       self.exploration)

    def _initialize(self):
        # "random": track the arms and draw the subpopulation; "tracked": track every request
        self._arms = self.problem_.arm_level() if self.subpopulation == "random" else None
        n = self.problem_.n_requests if self._arms is None else self._arms.n_arms
        self.cumulative_ = np.zeros(n)
        self._hint = self.problem_.oracle_hint()
        self.lazy_weights_ = None
        self.lazy_until_ = 0
        self.forced_next_ = 0
        linear = getattr(self.problem_, "linear", False)
        design = self.exploration == "design" or (self.exploration == "auto" and linear)
        self._design = DesignExploration(self.problem_) if design else None

    def _target_weights(self) -> np.ndarray:
        """Hook: the proportions to track, per request (here the problem's relaxed weights)."""
        return self.problem_.request_weights(self.problem_.relaxed_weights(self.means_, self._hint))

    def _select(self):
        lazy = self.check_growth > 0 and self.oracle_growth > 0 and self.lazy_weights_ is not None
        w = self.lazy_weights_ if lazy and self.t_ < self.lazy_until_ else self._target_weights()
        if self._design is not None:  # linear: forced exploration of the design, unprojected tracking
            if self.check_growth > 0 and self.oracle_growth > 0:
                if self.lazy_weights_ is None or self.t_ >= self.lazy_until_:
                    self.lazy_weights_ = w
                    self.lazy_until_ = int(np.ceil(self.t_ * (1.0 + self.oracle_growth)))
                w = self.lazy_weights_
            size = geometric_chunk(self.t_, self.check_growth)
            out, self.forced_next_ = self._design.chunk(self.cumulative_, self.counts_, w, self.t_, size,
                                                        self.model_.design_matrix, self.forced_next_,
                                                        self.tracking == "C")
            return out if self.check_growth > 0 else int(out[0])
        if self.check_growth > 0 and self._arms is None:  # lazy: one target for the whole stretch
            if self.oracle_growth > 0:
                if self.lazy_weights_ is None or self.t_ >= self.lazy_until_:
                    self.lazy_weights_ = w
                    self.lazy_until_ = int(np.ceil(self.t_ * (1.0 + self.oracle_growth)))
                w = self.lazy_weights_
            out = np.empty(geometric_chunk(self.t_, self.check_growth), dtype=np.intp)
            counts = self.problem_.request_counts(self.counts_)
            tracking_chunk(self.cumulative_, counts, w, float(self.t_), out, self.tracking == "C")
            return out
        if self._arms is not None:  # track the arms, the subpopulation arrives at random
            w = self._arms.arm_weights(w)
            counts = self._arms.arm_counts(self.counts_)
            if self.tracking == "C":
                arm = c_tracking_step(self.cumulative_, counts, w, float(self.t_))
            else:
                arm = d_tracking_step(counts, w, float(self.t_))
            return self._arms.random_cell(arm, self.rng_)
        counts = self.problem_.request_counts(self.counts_)
        if self.tracking == "C":
            return c_tracking_step(self.cumulative_, counts, w, float(self.t_))
        return d_tracking_step(counts, w, float(self.t_))
