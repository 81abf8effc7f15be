"""Fully adaptive XY allocation (Soare, Lazaric & Munos 2014, section 5): the active set updated every check."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, fail
from pybai.design.rounding import efficient_rounding
from pybai.design.transductive import pair_directions, xy_design
from pybai.strategies._linear import LinearRule, prop2_width, regularized_fit
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["XYFullyAdaptive"]


@register
class XYFullyAdaptive(LinearRule):
    r"""XY allocation on the directions between the arms not yet discarded, with the Prop. 2 bound.

    The variant the paper's section 6 compares against: the active set :math:`\hat X(t)` is
    recomputed from all samples (not phase by phase), so the allocation adapts to the rewards
    and the fixed-design bound of Prop. 1 no longer applies; Prop. 2 (Abbasi-Yadkori et al.
    2011, Thm. 2) does: with the regularised least squares :math:`\hat\theta^\eta` and
    :math:`\tilde A = \eta I + A`, arm x' dominates x when

    .. math:: \hat\Delta^\eta(x', x) > \|x' - x\|_{\tilde A^{-1}}
              \Big(\sigma\sqrt{d \log((1 + t L^2/\eta)/\delta)} + \eta^{1/2} S\Big),

    with S >= ||theta|| (``theta_norm``) and L = max ||x||.  It stops when one arm survives.
    Between updates it samples the XY design of the active directions, tracked by efficient
    rounding of the deficits of the cumulative counts.

    The active set is recomputed at every check time (``check_growth``: geometric checks, see
    :mod:`pybai.strategies._linear`; ``check_growth = 0`` recomputes it every round, as in the
    paper).  The bound of Prop. 2 holds uniformly in t, so checking at a subset of times keeps
    the rule correct; only the update of the allocation is delayed (by at most a factor
    1 + check_growth in t).  The confidence set is always Prop. 2's: ``threshold`` is validated
    for the common interface but not used.

    Parameters
    ----------
    theta_norm : float, default 1.0
        S, a known bound on ||theta|| (the bound is valid only if it holds; 2 on the paper's
        instance).
    regularization : float, default 1.0
        eta of the regularised least squares.
    check_growth : float, default 0.01
    threshold : str or None, default None (unset: see Strategy)
        Unused (see above).
    n_init : int, default 1
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    active_ = StateArray()

    name = "xy-fully-adaptive"
    stops_on_statistics = False  # its own stopping rule (_should_stop)
    proven_rule = "the Prop. 2 confidence set (valid when theta_norm bounds ||theta||)"
    _state_attrs = ("active_", "weights_", "survivor_")

    def __init__(self, *, theta_norm: float = 1.0, regularization: float = 1.0, check_growth: float = 0.01,
                 threshold: str | None = None, n_init: int = 1):
        super().__init__(check_growth=check_growth, threshold=threshold, n_init=n_init)
        self.theta_norm = theta_norm
        self.regularization = regularization

    def _check_params(self, problem):
        super()._check_params(problem)
        owner = type(self).__name__
        check_positive_float(self.theta_norm, "theta_norm", owner, allow_zero=True)
        check_positive_float(self.regularization, "regularization", owner)
        for name in ("theta_norm", "regularization"):  # the width sqrt(lambda) S + ... is squared
            if getattr(self, name) > 1e100:
                raise fail(name, owner, "a float <= 1e100 (numerically safe range)", getattr(self, name))

    def _initialize(self):
        problem = self.problem_
        k = problem.features.shape[0]
        self._active_ = np.zeros(k, dtype=bool)
        self._active_[problem.survivors(np.zeros(k, dtype=bool))] = True
        self._weights_ = self._active_design()
        self.survivor_ = -1
        self._max_norm2 = float(np.max(np.sum(problem.features**2, axis=1)))

    def _active_design(self) -> np.ndarray:
        x = self.problem_.features
        return xy_design(x, pair_directions(x, np.flatnonzero(self._active_))).weights

    def _select(self):
        size = self._chunk()
        deficit = np.maximum((self.t_ + size) * self._weights_ - self.counts_, 0.0)
        if deficit.sum() <= 0.0:
            deficit = self._weights_
        counts = efficient_rounding(deficit, size)
        return np.repeat(np.arange(counts.size, dtype=np.intp), counts)

    def _should_stop(self):
        problem = self.problem_
        theta, inv = regularized_fit(self.model_, self.regularization)
        width = prop2_width(problem.sigma, problem.n_features, self.t_, self._max_norm2, self.regularization,
                            problem.delta, self.theta_norm)
        level = width**2 / (2.0 * problem.sigma**2)  # Prop. 2 width on the GLR scale
        strength = problem.domination(problem.features @ theta, inv)
        alive = problem.survivors(strength > level)
        reps = problem.survivors(np.zeros(strength.size, dtype=bool))
        best = reps[np.argmin(strength[reps])]
        self.statistic_ = float(strength[reps[reps != best]].min()) / level  # > 1 once every other arm is out
        if alive.size == 1 and not self._model_fits():  # the data contradict the linear model: no arm is out
            return False
        if alive.size == 1:
            self.survivor_ = int(alive[0])
            return True
        if not np.array_equal(np.flatnonzero(self._active_), alive):
            self._active_[:] = False
            self._active_[alive] = True
            self._weights_ = self._active_design()
        return False
