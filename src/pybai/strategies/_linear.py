r"""Shared mechanics of the linear-bandit rules of Soare, Lazaric & Munos (2014).

Every rule here samples by *designs*: proportions over the arms that do not depend on the
rewards of the current stretch (a static allocation, a phase of XY-adaptive, the stretch
between two updates of the active set).  So a stretch of samples can be asked at once, as
one request of many samples, and the statistics updated by per-arm counts and sums -- no
per-sample Python work.  The stopping rule is evaluated when a request is answered:

* static rules check at geometric times :math:`t_{k+1} = \max(t_k + 1, \lceil (1 + g) t_k \rceil)`
  (``check_growth = g``, default 0.01; ``0`` checks after every sample, the paper's loop).
  Checking at a subset of times keeps every threshold valid at all times valid, and delays the
  stop by at most a factor 1 + g;
* XY-adaptive checks at the end of each phase, which is exactly the paper's rule.

Designs become integer counts by the efficient rounding of appendix C (Pukelsheim ch. 12):
a stretch of m samples after n asks ``efficient_rounding(w, n + m)`` minus the counts so far
(:func:`~pybai.design.rounding.rounded_increment`, repaired to stay non-negative).

Thresholds: every rule accepts the problem's kinds (``"heuristic"``, ``"delta-correct"``,
``"kk21"``) plus ``"soare-prop1"``, the paper's Prop. 1 width (Eq. 11 on the GLR scale).  The
rules never build or inspect a threshold: they compare with ``threshold.at(t, model)``
(:meth:`pybai.stopping.base.Threshold.at`), which the self-normalised threshold evaluates on the
model's design matrix, with a share of delta when a rule splits it (XY-adaptive: one per phase).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from pybai._validation import check_positive_float, fail
from pybai.design.rounding import efficient_rounding, rounded_increment
from pybai.stopping.thresholds import KINDS
from pybai.strategies.base import StateArray, Strategy
from pybai.strategies.tracking import geometric_chunk

if TYPE_CHECKING:
    from pybai.models.linear import LeastSquares
    from pybai.problems.linear import LinearBestArmProblem

__all__ = ["LinearRule", "StaticDesignRule", "rounded_requests"]


def rounded_requests(weights: np.ndarray, done: int, total: int) -> np.ndarray:
    """Requests of the efficient rounding of ``weights`` for ``total`` samples, from scratch (done = 0)."""
    if done != 0:
        raise ValueError("rounded_requests builds a whole allocation; use rounded_increment for a stretch")
    return np.repeat(np.arange(weights.size, dtype=np.intp), efficient_rounding(weights, total))


class LinearRule(Strategy):
    """Base of the rules that need a linear problem (known arm features).

    Parameters
    ----------
    check_growth : float, default 0.01
        Geometric spacing of the stopping checks (0: after every sample).
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"} or None, default None (unset: see Strategy)
    n_init : int, default 1
        Rounds of the initial spanning set (d linearly independent arms).
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    weights_ = StateArray()

    goals = ("best-arm",)
    regimes = ("fixed-confidence",)
    threshold_kinds = KINDS + ("soare-prop1",)
    #: known arm features (linear problems only)
    requires = frozenset({"features"})
    #: asks many samples in one request (designs do not depend on the rewards of a stretch)
    asks_chunks = True
    single_request = ("it follows its design in stretches, each answered before the next is chosen "
                      "(ask for larger stretches with check_growth instead)")
    #: elimination rules (XY-adaptive, fully adaptive, RAGE) set this to the last arm standing
    survivor_: int = -1
    # for the type checker: started only on problems that provide "features" (linear, fixed confidence)
    problem_: LinearBestArmProblem
    model_: LeastSquares

    def __init__(self, *, check_growth: float = 0.01, threshold: str | None = None, n_init: int = 1):
        super().__init__(threshold=threshold, n_init=n_init)
        self.check_growth = check_growth

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.check_growth, "check_growth", owner, allow_zero=True)
        if self.check_growth > 1.0:
            raise fail("check_growth", owner, "a float in [0, 1]", self.check_growth)

    def _chunk(self) -> int:
        return geometric_chunk(self.t_, self.check_growth)

    def _model_fits(self) -> bool:
        """Whether the data seen so far fit the linear model (:meth:`LinearBestArmProblem.misfit
        <pybai.problems.linear.LinearBestArmProblem.misfit>` is None): an elimination rule's last elimination stands
        only then (the GLR rule reads the same test through the problem's statistic)."""
        return self.problem_.misfit(self.model_) is None

    def _recommend(self):
        """The last arm standing when an elimination rule has one, else the empirical best."""
        if self.survivor_ >= 0:
            return self.survivor_
        return super()._recommend()


class StaticDesignRule(LinearRule):
    """A fixed design tracked by efficient rounding, stopped by the GLR rule (Eq. 11) at check times.

    Subclasses give the design (:meth:`_design`).  ``allocation = "greedy"`` replaces the
    rounded design by the incremental rule of Fig. 2 / Eq. (22) (one argmin per sample).
    """

    _state_attrs = ("weights_", "rule_counts_")
    rule_counts_ = StateArray()  # read-only to callers (see StateArray)
    #: targets of the greedy rule: "arms" (G) or "pairs" (XY)
    _greedy_targets: ClassVar[str] = "arms"

    def __init__(self, *, allocation: str = "rounding", check_growth: float = 0.01, threshold: str | None = None,
                 n_init: int = 1):
        super().__init__(check_growth=check_growth, threshold=threshold, n_init=n_init)
        self.allocation = allocation

    def _check_params(self, problem):
        super()._check_params(problem)
        from pybai._validation import check_choice

        check_choice(self.allocation, ("rounding", "greedy"), "allocation", type(self).__name__)

    def _design(self) -> np.ndarray:
        """Hook: the design (proportions over the arms)."""
        raise NotImplementedError

    def _initialize(self):
        self._weights_ = np.asarray(self._design(), dtype=float)
        self._rule_counts_ = np.zeros(self._weights_.size, dtype=np.int64)  # the rule's samples (after the start)

    def _select(self):
        size = self._chunk()
        if self.allocation == "greedy":
            return self._greedy(size)
        add = rounded_increment(self._weights_, self._rule_counts_, size)
        self._rule_counts_ += add
        return np.repeat(np.arange(add.size, dtype=np.intp), add)

    def _greedy(self, size: int) -> np.ndarray:
        from pybai.design.greedy import greedy_arm
        from pybai.design.transductive import pair_directions

        x = self.problem_.features
        targets = None if self._greedy_targets == "arms" else pair_directions(x)
        inv = np.array(self.model_.inverse_design, dtype=float)
        out = np.empty(size, dtype=np.intp)
        for i in range(size):
            a, _ = greedy_arm(x, inv, targets)
            u = inv @ x[a]
            inv -= np.outer(u, u) / (1.0 + x[a] @ u)
            out[i] = a
        np.add.at(self._rule_counts_, out, 1)
        return out


def regularized_fit(model, regularization: float):
    """(theta_eta, inverse) of the regularised least squares (A + eta I)^-1 b of Prop. 2."""
    x = model.features
    a = model.design_matrix + regularization * np.eye(x.shape[1])
    inv = np.linalg.inv(0.5 * (a + a.T))
    theta = inv @ (x.T @ model.sums)
    return theta, inv


def prop2_width(sigma: float, d: int, t: int, max_norm2: float, regularization: float, delta: float,
                theta_norm: float) -> float:
    r"""Width of Prop. 2: :math:`\sigma\sqrt{d\log((1 + tL^2/\eta)/\delta)} + \eta^{1/2} S`."""
    return sigma * math.sqrt(d * math.log((1.0 + t * max_norm2 / regularization) / delta)) + math.sqrt(
        regularization) * theta_norm
