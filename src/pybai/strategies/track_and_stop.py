"""Track-and-Stop (Garivier & Kaufmann 2016): track the oracle weights of the empirical means."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from pybai._validation import check_choice, check_positive_float, fail
from pybai.strategies._compiled import CompiledRun
from pybai.strategies._driver import TAS, rule_state
from pybai.strategies._steps import tas_step
from pybai.strategies.base import Strategy
from pybai.strategies.registry import register
from pybai.strategies.tracking import Tracker, c_tracking_step, d_tracking_step, resolve_exploration
from pybai.strategies.uniform import SUBPOPULATION_MODES

__all__ = ["TrackAndStop"]


@register
class TrackAndStop(CompiledRun, Strategy):
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

    It tracks the problem's :meth:`~pybai.problems.base.Problem.tracking_weights`: the oracle
    weights, or, on a problem with side constraints, the weights of its constraint-blind
    version (:meth:`~pybai.problems.base.Problem.relaxed_weights`).  With several correct answers
    (epsilon-best-arm identification) it is *Sticky Track-and-Stop* (Degenne & Koolen 2019,
    section 4): among the answers that the confidence region around the estimate does not exclude,
    the first in a fixed order is kept and its own oracle weights are tracked
    (:meth:`pybai.problems.best_arm.BestArmProblem.tracking_weights`), which is what their
    asymptotic optimality for multiple correct answers needs (plain Track-and-Stop may oscillate
    between answers whose oracle weights differ).  On goal ``"best-feasible-arm"`` this is the paper's T-a-S baseline (Wu, Zheng &
    Zhu, section 5: the best-arm oracle on the arm qualities, spread over subpopulations in
    proportion to q), stopped by the same constraint-aware GLR rule as ``tas-cs``.

    Parameters
    ----------
    tracking : {"C", "D"}, default "C"
    threshold : {"heuristic", "delta-correct"} or None, default None (unset: see Strategy)
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
    oracle_growth : float or None, default None
        g > 0: lazy updates of the target (Jedra & Proutiere 2020, whose analysis allows updates
        at a sparse set of times): the oracle is solved again only once t has grown by the factor
        1 + g since the last solve, and the last weights are tracked in between (with or without
        ``check_growth``; the stopping rule is still checked at every sample when
        ``check_growth = 0``).  0: solved at every step (with ``check_growth > 0``: at every
        check).  None (default): the problem's :attr:`~pybai.problems.base.Problem.tracking_oracle_growth`
        with ``oracle="fast"`` or ``"certified"`` (0 on best-arm problems, whose oracles are closed
        forms; 0.25 on linear problems, whose oracle is an optimisation),
        0 with ``oracle="exact"``.  What the lazy schedule keeps: the weights tracked at t are
        w*(mu_hat(t_k)) for a t_k >= t/(1 + g) - 1, so they converge to w*(mu) whenever the per-step
        plug-in weights do, which is all that the asymptotic optimality of Track-and-Stop uses
        (GK16, Thm. 14); see :meth:`pybai.strategies.tracking.Tracker.select`.
    oracle : {"fast", "certified", "exact"}, default "fast"
        ``"exact"``: the problem's reference oracle solver, at every step unless
        ``oracle_growth`` says otherwise.  ``"certified"``: the
        problem's fast solver of the same oracle where it has one (linear problems: the same
        certified solve with compiled barrier steps, equal up to rounding) and the default lazy
        schedule above.  ``"fast"``: as ``"certified"``, and on problems with an approximate oracle
        (linear problems) weights certified eps_t-optimal for the estimate, eps_t -> 0
        (:meth:`pybai.problems.linear.LinearBestArmProblem.tracking_weights`): the oracle is
        re-checked cheaply and solved again only when the stored weights lose their certificate.
        On best-arm problems the three give identical runs.

    References
    ----------
    A. Garivier and E. Kaufmann. Optimal best arm identification with fixed confidence. COLT 2016.
    Y. Jedra and A. Proutiere. Optimal best-arm identification in linear bandits. NeurIPS 2020.
    R. Degenne and W. M. Koolen. Pure exploration with multiple correct answers. NeurIPS 2019.
    """

    name = "tas"
    requires = frozenset()  # the problem's oracle, GLR and best response only: linear problems too
    goals: ClassVar[tuple[str, ...]] = ("best-arm", "best-feasible-arm", "best-arm-guardrails")
    _state_attrs: ClassVar[tuple[str, ...]] = ("tracker_.cumulative_", "_hint", "tracker_.lazy_weights_", "tracker_.lazy_until_",
                    "tracker_.forced_next_")
    _nonnegative_attrs: ClassVar[tuple[str, ...]] = ("tracker_.cumulative_",)

    def __init__(self, *, tracking: str = "C", threshold: str | None = None, n_init: int = 1,
                 subpopulation: str = "random", check_growth: float = 0.0, oracle_growth: float | None = None,
                 exploration: str = "auto", oracle: str = "fast"):
        super().__init__(threshold=threshold, n_init=n_init)
        self.oracle = oracle
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
        check_choice(self.oracle, self._oracles, "oracle", owner)
        if self.oracle_growth is not None:
            check_positive_float(self.oracle_growth, "oracle_growth", owner, allow_zero=True)
            if self.oracle_growth > 1e9:  # t (1 + g) must stay an integer sample count
                raise fail("oracle_growth", owner, "a float in [0, 1e9] or None", self.oracle_growth)
        check_choice(self.exploration, ("auto", "arms", "design"), "exploration", owner)
        if problem is not None:
            resolve_exploration(self.exploration, problem.request_space(), owner)

    _oracles: ClassVar[tuple[str, ...]] = ("fast", "certified", "exact")

    def _default_oracle_growth(self) -> float:
        """``oracle_growth`` when None: the problem's lazy schedule for the fast oracle, else 0."""
        return self.problem_.tracking_oracle_growth if self.oracle in ("fast", "certified") else 0.0

    def _initialize(self):
        self._hint = self.problem_.tracking_hint(self.oracle)
        growth = self.oracle_growth if self.oracle_growth is not None else self._default_oracle_growth()
        self.tracker_ = Tracker(self.requests_, rule=self.tracking,
                                exploration=resolve_exploration(self.exploration, self.requests_, type(self).__name__),
                                random_cells=self.subpopulation == "random", check_growth=self.check_growth,
                                oracle_growth=growth)

    def _target_weights(self) -> np.ndarray:
        """Hook: the proportions to track, per request (the problem's tracking weights: its relaxed
        oracle weights, or with several correct answers the sticky choice of Degenne & Koolen 2019)."""
        return self.requests_.weights(self.problem_.tracking_weights(self.counts_, self.means_, self.t_, self._hint))

    def _compiled_ok(self) -> bool:
        """The step plays the problem's tracking weights at every sample with the per-arm forced exploration."""
        return (type(self)._target_weights is TrackAndStop._target_weights and not self.check_growth > 0
                and self.tracker_.design is None and not self.tracker_.lazy)

    def _rule_state(self):
        return rule_state(TAS, self.problem_.n_sources, c_tracking=self.tracking == "C", hint=self._hint,
                          cumulative=self.tracker_._cumulative_)

    def _select(self):
        g = self._step_goal()
        if g is not None:  # the compiled step (the same function the compiled run calls)
            return tas_step(g.kind, g.code, self.counts_, self.means_, g.var, float(self.t_), g.c, g.e, self._hint,
                            self.tracker_._cumulative_, self.tracking == "C")
        return self.tracker_.select(self._target_weights, self.counts_, self.t_, self.model_, self.rng_)
