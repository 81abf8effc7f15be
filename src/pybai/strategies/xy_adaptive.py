"""XY-adaptive (Soare, Lazaric & Munos 2014, Fig. 3): phases of XY designs on the surviving arms."""

from __future__ import annotations

from typing import cast

import numpy as np

from pybai._validation import check_choice, check_probability
from pybai.design.transductive import pair_directions, xy_design
from pybai.models.linear import LeastSquares
from pybai.problems.base import FixedConfidence
from pybai.strategies._linear import LinearRule, rounded_requests
from pybai.strategies.registry import register
from pybai.strategies.base import StateArray

__all__ = ["PHASE_RULES", "XYAdaptive"]

#: the two readings of the phase length: Eq. (18) of the text (the default) and Fig. 3's loop
PHASE_RULES = ("eq18", "fig3")


@register
class XYAdaptive(LinearRule):
    r"""XY-adaptive allocation: static XY designs within phases, arms discarded between phases.

    Phase j (Fig. 3, with the section-6 initialisation):

    1. starts with one pull of each of d linearly independent arms (the canonical arms on the
       paper's instance), giving :math:`A_0`; phase 1 uses the initial phase of the run;
    2. samples the XY design :math:`\lambda^j` of the directions :math:`\hat Y_j` between the
       surviving arms (Eq. 17), rounded by the efficient rounding of appendix C, for the
       smallest number of samples that meets the phase rule below -- found by bisection, since
       the rounded counts grow with n.  A phase lasts at least d(d+1)+1 samples (the proof of
       Theorem 3 forces it);
    3. fits least squares on the phase's own samples only, and keeps the surviving arms that no
       arm of X dominates (Lemma 4 / Eq. 16).  Fig. 3 writes :math:`\hat X_{j+1} = X` before the
       test, i.e. re-admits arms discarded earlier; with phase-only estimates a short phase
       (31 samples on e_2 in section 6) then cannot re-discard them and the next phase reverts to
       the all-pairs design (measured: runs of 1e7 samples).  We follow the text of section 5
       ("removing from X all the dominated arms", a discarded arm being proven sub-optimal by
       Lemma 4) and the proof of Theorem 3 (Y_j only loses directions): discarded arms stay out;
    4. stops when one arm (up to duplicates) survives and recommends it.

    **The phase rule** (``phase_rule``).  Write :math:`u_j = \max_{y \in \hat Y_j}
    \|y\|^2_{A^{-1}}` for the uncertainty of the phase's design matrix A (its :math:`A_0` and
    its rounded design) and :math:`t_j` for the phase's number of samples.

    * ``"eq18"`` (default): the phase ends at the smallest n with :math:`u_j \le \alpha\,
      u_{j-1}`.  This is Eq. (18), :math:`\rho^j(\lambda_{x^j_n})/n \le \alpha
      \rho^{j-1}(\lambda^{j-1})/n_{j-1}`, where :math:`\rho^j(\lambda) = \max_y
      \|y\|^2_{\Lambda_\lambda^{-1}}` is defined on the *normalised* design
      :math:`\Lambda_\lambda` (section 5, Eq. 27), so that :math:`\rho^j(\lambda_{x_n})/n =
      u_j`.  The sentence after Eq. (18) says the same in words ("an uncertainty over all the
      directions of interest which is a fraction alpha of the performance obtained in the
      previous iteration"), and the proof of Theorem 3 uses it in this form
      (:math:`\rho^j_{n_j}/n_j \le \alpha \rho^{j-1}_{n_{j-1}}/n_{j-1}`, appendix): the
      paper's text supports this reading, hence the default;
    * ``"fig3"``: Fig. 3's loop read literally.  There :math:`\rho^j` is assigned
      :math:`\max_y y^\top A_t^{-1} y` (already the uncertainty :math:`u_j`) and the loop runs
      while :math:`\rho^j/t \ge \alpha \rho^{j-1}/n_{j-1}`, i.e. the phase ends once
      :math:`u_j / t_j < \alpha\, u_{j-1}/t_{j-1}` -- a second division by the phase length.
      Since :math:`u_j \approx \rho^j(\lambda)/t_j`, phases then grow by about
      :math:`1/\sqrt{\alpha}` instead of :math:`1/\alpha` and the first phase is much shorter.

    Both start from :math:`\rho_0 / n_0 = 1/(d(d+1)+1)`, the values of Fig. 3 (:math:`\rho_0 =
    1`, :math:`n_0 = d(d+1)+1`; the text gives no other).  Measured on section 6's instance
    and on the Figure 4 / appendix E reproductions in docs/linear.md.

    The whole phase is one request (its allocation is fixed before it starts), so the
    discarding test runs exactly at the end of each phase.  The confidence width of Eq. (16) is
    the threshold on the GLR scale: the t-indexed kinds at the total number of samples;
    ``"delta-correct"`` on the phase's design matrix with delta / (j (j + 1)) for phase j
    (a union bound over phases).

    Parameters
    ----------
    alpha : float in (0, 1), default 0.1
        Shrinking factor of the phase lengths (Eq. 18).
    phase_rule : {"eq18", "fig3"}, default "eq18"
        When a phase ends: Eq. (18) of the text, or Fig. 3's loop read literally (above).
    threshold : {"heuristic", "delta-correct", "kk21", "soare-prop1"} or None, default None (unset: see Strategy)
    n_init : int, default 1
        Rounds of the spanning set at the start of phase 1 (later phases pull it once).
    check_growth : float, default 0.01
        Unused (the checks are at phase ends); kept for the common interface.
    """

    # state arrays: the rule writes the private ones, callers get read-only views
    active_ = StateArray()
    phase_counts_ = StateArray()
    phase_sums_ = StateArray()
    target_ = StateArray()

    name = "xy-adaptive"
    stops_on_statistics = False  # its own stopping rule (_should_stop)
    _state_attrs = ("phase_", "active_", "target_", "phase_counts_", "phase_sums_", "phase_open_", "survivor_",
                    "next_target_")

    def __init__(self, *, alpha: float = 0.1, check_growth: float = 0.01, threshold: str | None = None,
                 n_init: int = 1, phase_rule: str = "eq18"):
        super().__init__(check_growth=check_growth, threshold=threshold, n_init=n_init)
        self.alpha = alpha
        self.phase_rule = phase_rule

    def _check_params(self, problem):
        super()._check_params(problem)
        check_probability(self.alpha, "alpha", type(self).__name__)
        check_choice(self.phase_rule, PHASE_RULES, "phase_rule", type(self).__name__)

    def _initialize(self):
        problem = self.problem_
        k, d = problem.features.shape
        self.phase_ = 1
        self._active_ = np.zeros(k, dtype=bool)
        self._active_[problem.survivors(np.zeros(k, dtype=bool))] = True
        self._target_ = 1.0 / (d * (d + 1) + 1)  # rho_0 / n_0 of Fig. 3 (either phase rule)
        self._phase_counts_ = np.zeros(k)
        self._phase_sums_ = np.zeros(k)
        self.phase_open_ = False
        self.survivor_ = -1
        self.next_target_ = self._target_
        self._spanning = np.unique(self.requests_.initial_requests(1))

    # ------------------------------------------------------------------ phases
    def _phase_length(self, weights: np.ndarray, base_matrix: np.ndarray, directions: np.ndarray,
                      goal: float, minimum: int, per_sample_offset: int | None = None) -> int:
        """Smallest n >= minimum with max_y ||y||^2 of (A_0 + rounded design of n samples)^-1 <= goal.

        With ``per_sample_offset = s`` (Fig. 3's reading) the value is divided by the phase's
        number of samples, s + n (s: the pulls of A_0).
        """
        x = self.problem_.features

        def value(n):
            counts = rounded_requests_counts(weights, n)
            a = base_matrix + x.T @ (counts[:, None] * x)
            inv = np.linalg.inv(0.5 * (a + a.T))
            u = float(((directions @ inv) * directions).sum(axis=1).max())
            return u if per_sample_offset is None else u / (per_sample_offset + n)

        cap = max(cast(FixedConfidence, self.problem_.regime).max_samples, minimum)
        lo, hi = minimum, minimum
        while value(hi) > goal and hi < cap:  # doubling: O(log n) evaluations
            lo, hi = hi, min(2 * hi, cap)
        if hi == minimum or value(hi) > goal:
            return hi
        while hi - lo > 1:  # value(lo) > goal >= value(hi)
            mid = (lo + hi) // 2
            if value(mid) > goal:
                lo = mid
            else:
                hi = mid
        return hi

    def _select(self):
        problem = self.problem_
        x = problem.features
        d = x.shape[1]
        active = np.flatnonzero(self._active_)
        directions = pair_directions(x, active)
        weights = xy_design(x, directions).weights
        first = self.phase_ == 1
        spanning = self._spanning
        base = x[spanning].T @ x[spanning] * (self.n_init if first else 1)
        start = 0 if first else spanning.size
        minimum = max(int(np.count_nonzero(weights > 0)), d * (d + 1) + 1 - (self.n_init if first else 1) * spanning.size, 1)
        base_pulls = (self.n_init if first else 1) * spanning.size
        offset = base_pulls if self.phase_rule == "fig3" else None
        n = self._phase_length(weights, base, directions, self.alpha * self._target_, minimum, offset)
        design = rounded_requests(weights, 0, n)
        inv = np.linalg.inv(base + x.T @ (np.bincount(design, minlength=x.shape[0])[:, None] * x))
        uncertainty = float(((directions @ inv) * directions).sum(axis=1).max())
        self.next_target_ = uncertainty if offset is None else uncertainty / (offset + n)
        self.phase_open_ = True
        return design if start == 0 else np.concatenate([spanning.astype(np.intp), design])

    def _observe(self, sources, rewards):
        np.add.at(self._phase_counts_, sources, 1.0)
        np.add.at(self._phase_sums_, sources, rewards)

    def _should_stop(self):
        if not self.phase_open_ or self._pending is not None:
            return False
        self.phase_open_ = False
        problem = self.problem_
        fit = LeastSquares.from_statistics(problem.features, self._phase_counts_, self._phase_sums_)
        level = self.threshold_.at(max(self.t_, 1), fit, delta_share=1.0 / (self.phase_ * (self.phase_ + 1)))
        strength = problem.domination(fit.estimate, fit.inverse_design)
        dominated = (strength > level) | ~self._active_  # discarded arms stay out (see the class docstring)
        alive = problem.survivors(dominated)
        if alive.size == 0:  # every surviving arm dominated, only by arms discarded earlier: discard none
            alive = problem.survivors(~self._active_)
        # statistic: the weakest evidence of this phase against the arms that were still in it,
        # other than the best (> level once they are all discarded)
        was_active = problem.survivors(~self._active_)
        best = was_active[np.argmin(strength[was_active])]
        rest = was_active[was_active != best]
        self.statistic_ = float(strength[rest].min()) if rest.size else 0.0
        if alive.size == 1 and not self._model_fits():  # the data contradict the linear model: no arm is out
            alive = was_active
        self._active_[:] = False
        self._active_[alive] = True
        self._target_ = self.next_target_
        self.phase_ += 1
        self._phase_counts_[:] = 0.0
        self._phase_sums_[:] = 0.0
        if alive.size == 1:
            self.survivor_ = int(alive[0])
            return True
        return False



def rounded_requests_counts(weights: np.ndarray, n: int) -> np.ndarray:
    """Efficient-rounding counts of ``weights`` for n samples (float, for the design matrix)."""
    from pybai.design.rounding import efficient_rounding

    return efficient_rounding(weights, n).astype(float)
