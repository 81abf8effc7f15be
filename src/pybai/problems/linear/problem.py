r"""Best-arm identification in Gaussian linear bandits (Soare, Lazaric & Munos 2014).

Arms are known feature vectors :math:`x_a \in \mathbb{R}^d` (rows of ``features``); a sample of
arm a is :math:`x_a^\top\theta + \varepsilon`, :math:`\varepsilon \sim N(0, \sigma^2)`, with theta
hidden.  The problem's per-source ``means`` are :math:`X\theta` (the model layer,
:class:`~pybai.models.linear.LeastSquares`, gives :math:`X\hat\theta`).

Conventions (tested):

* ``answer(means)``: argmax; ties go to the lowest index; NaN means (arms the model cannot
  identify yet) are never chosen unless every mean is NaN.
* Duplicate arms (identical rows of ``features``) are allowed -- real data sets have them (the
  red-wine data has 240 repeated rows).  They always have the same mean, so they are one arm
  for identification: ``answer`` returns the lowest index of the best group, the GLR and the
  oracle ignore the copies of the answer, and the oracle puts its weights on the first row of
  each group (the copies are interchangeable).
* ``features`` must have K >= 2 rows, at least 2 distinct ones, and rank d (the arms span
  R^d); otherwise an error names ``features``.  (A rank-deficient design cannot identify theta;
  project the features on their span first if that is what is meant.)

Thresholds (:meth:`LinearBestArmProblem.threshold`): ``"heuristic"`` (ln((1 + ln t)/delta), the
default of every strategy), ``"delta-correct"`` (the self-normalised bound of Abbasi-Yadkori et
al. 2011, Theorem 1, on the design matrix: :mod:`pybai.stopping.linear`), ``"kk21"``
(Kaufmann & Koolen 2021 over the K per-arm deviations) and ``"soare-prop1"`` (the width of
Soare et al. Prop. 1, accepted by the paper's strategies).  None stops while the data contradict the model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pybai._validation import check_array, check_positive_float, check_probability, fail
from pybai.design.minimax import SMALL, DesignState, ExplicitDirections, cold_start, duality_gap, solve_minimax
from pybai.design.optimal import DesignResult
from pybai.models.families import Gaussian
from pybai.models.linear import LeastSquares
from pybai.problems.linear._game import linear_best_response
from pybai.problems.linear.fit import fit_test, misfit_sentence
from pybai.problems.linear._math import (ORACLE_RTOL, alternative_terms, domination_statistics, inverse_or_spectrum,
                                         tracking_tolerance)
from pybai.problems.linear.space import DesignSpace
from pybai.problems.base import BatchSpec, FixedConfidence, Problem
from pybai.stopping.base import Threshold
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.linear import LinearSelfNormalizedThreshold, SoareProp1Threshold
from pybai.stopping.thresholds import make_threshold

__all__ = ["LinearBestArmProblem", "LinearOracleHint"]

#: the largest ``||(x* - x) / gap||^2`` the oracle solves for; beyond it T* (about that times 2 sigma^2 over the
#: design's curvature) would overflow a float, and the oracle answers as for a tie (T* = inf, uniform weights)
_LARGEST_DIRECTION = 1e250

class LinearOracleHint(dict):
    """Warm start of :meth:`LinearBestArmProblem.oracle`, updated in place.

    A dict of arrays (so a strategy's state holding it is JSON-safe and restores exactly):
    ``best`` (answer of the last call; the working sets are reused only while it is unchanged),
    ``weights``, ``arms``, ``directions``, ``dual``, ``dual_directions`` (design, working sets and
    certificate of the last solve, see :class:`~pybai.design.minimax.DesignState`), ``compiled``
    (True: the restricted solves run in the compiled kernel, ``solve_minimax(..., compiled=True)``;
    False or absent: the reference numpy path), ``tolerance`` (None: every call solves to the
    certified gap 1e-6; a number eps: the *approximate* oracle of tracking rules, below, set per
    call by :meth:`LinearBestArmProblem.tracking_weights`), ``approximate`` (True: tracking
    rules set ``tolerance``).  The last result is kept in the attribute ``result`` (not part of
    the state).

    With a ``tolerance`` eps the oracle first re-checks the stored design on the new estimate: if
    the stored certificate (the dual weights over directions) still proves it eps-optimal -- its
    relative duality gap is at most eps -- it is returned without solving (one evaluation of all
    arms and directions); otherwise (or when the empirical answer changed) the design is solved
    again to the gap eps, certified by the barrier's dual weights.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key in ("best", "weights", "arms", "directions", "dual", "dual_directions", "tolerance"):
            self.setdefault(key, None)
        self.setdefault("compiled", False)
        self.setdefault("approximate", False)
        self.result = None


class LinearBestArmProblem(Problem):
    """Identify argmax_a x_a^T theta from samples x_a^T theta + N(0, sigma^2).

    Parameters
    ----------
    features : array-like (K, d)
        Known arm features; K >= 2, rank d.
    sigma : float
        Noise standard deviation (> 0, one for all arms).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    labels : list of str, optional
        One distinct name per arm, shown wherever the arm is (:mod:`pybai.naming`); no effect on the math.

    Examples
    --------
    >>> import numpy as np
    >>> from pybai.problems import FixedConfidence
    >>> p = LinearBestArmProblem(np.eye(2), 1.0, FixedConfidence(0.1))
    >>> t, w = p.oracle(np.array([1.0, 0.0]))       # two Gaussian arms, gap 1: T* = 8
    >>> round(t, 4), w.round(4).tolist()
    (8.0, [0.5, 0.5])
    """

    goal = "best-arm"
    provides = frozenset({"features"})

    def __init__(self, features, sigma, regime, batch: BatchSpec | None = None, *, labels=None):
        owner = "LinearBestArmProblem"
        x = check_array(features, "features", owner, ndim=2)
        k, d = x.shape
        if k < 2:
            raise fail("features", owner, "a matrix with at least 2 rows (one per arm)", features)
        rank = int(np.linalg.matrix_rank(x))
        if rank < d:
            raise fail("features", owner, f"a matrix of full column rank {d} (the arms must span R^{d}; their rank is {rank})",
                       features)
        self.sigma = check_positive_float(sigma, "sigma", owner)
        super().__init__(Gaussian(self.sigma, n_sources=k), regime, batch)
        self.features = x
        self._set_labels(labels, k)
        _, first, group = np.unique(x, axis=0, return_index=True, return_inverse=True)
        group = group.reshape(-1)
        self._rep_of = first[group]  # lowest index of each arm's group of identical rows
        self._reps = np.sort(first)
        if self._reps.size < 2:
            raise fail("features", owner, "at least 2 distinct rows", features)
        self._two_var = 2.0 * self.sigma**2

    # --- structure -------------------------------------------------------
    @property
    def n_sources(self) -> int:
        return self.features.shape[0]

    @property
    def n_features(self) -> int:
        return self.features.shape[1]

    @property
    def n_distinct(self) -> int:
        """Number of distinct arms (rows of ``features`` up to duplicates)."""
        return int(self._reps.size)

    @property
    def n_alternatives(self) -> int:
        r"""Pieces of the alternative for a union-bound threshold.

        The alternative is the union of the K' - 1 half-spaces {x^T lambda >= x_hat^T lambda}
        (K' distinct arms).  But every piece's GLR is at most
        :math:`\|\hat\theta - \theta\|^2_A / (2\sigma^2)
        \le \sum_a N_a (\hat\mu_a - \mu_a)^2 / (2\sigma^2)` (least squares is the A-projection of
        the per-arm empirical means), so one deviation bound over all sampled arms covers every
        piece at once: 1 piece of :attr:`n_terms` arms (the ``"kk21"`` threshold; ``"delta-correct"`` is the
        d-dimensional self-normalised bound instead).
        """
        return 1

    @property
    def n_terms(self) -> int:
        """Arms in the deviation bound of :attr:`n_alternatives`: every source (K)."""
        return self.n_sources

    # --- thresholds ---------------------------------------------------------
    def threshold(self, kind: str, delta: float) -> Threshold:
        """The GLR stopping threshold of kind ``kind`` (see the module docstring).

        ``"delta-correct"`` depends on the design matrix: evaluate it with ``threshold.at(t, model)``
        (what :meth:`~pybai.stopping.base.Threshold.decide` does).
        """
        if kind == "heuristic":
            return HeuristicThreshold(delta)
        if kind == "delta-correct":
            return LinearSelfNormalizedThreshold(delta, float(np.max(np.sum(self.features**2, axis=1))))
        if kind == "soare-prop1":
            return SoareProp1Threshold(delta, self.n_distinct)
        if kind == "kk21":  # one deviation bound over the K per-arm means covers every piece
            return make_threshold("kk21", delta, n_alternatives=1, n_terms=self.n_sources, family="gaussian")
        raise fail("threshold", "LinearBestArmProblem",
                   'one of "heuristic", "delta-correct", "kk21", "soare-prop1" (Gaussian linear arms)', kind)

    # --- model and initial phase ------------------------------------------
    def new_model(self) -> LeastSquares:
        """A fresh :class:`~pybai.models.linear.LeastSquares` on the features."""
        return LeastSquares(self.features)

    def _make_request_space(self) -> DesignSpace:
        """Arms with known features, started on d linearly independent ones (:class:`DesignSpace`)."""
        return DesignSpace(self.features, self._reps)

    # --- the math of the goal -------------------------------------------
    def answer(self, means) -> int:
        """Index of the largest mean; ties: lowest index (duplicates: first row of the group)."""
        means = np.asarray(means, dtype=float)
        best = int(np.argmax(means))  # the first largest mean, unless a mean is NaN (argmax returns a NaN)
        if means[best] == means[best]:
            return int(self._rep_of[best])
        if np.all(np.isnan(means)):
            return 0
        best = int(np.argmax(np.where(np.isnan(means), -np.inf, means)))
        return int(self._rep_of[best])

    def _terms(self, inv, spectrum, means):
        means = np.asarray(means, dtype=float)
        best = self.answer(means)
        gaps = means[best] - means
        same = self._rep_of == best
        terms, var, off = alternative_terms(self.features, best, gaps, same, inv, spectrum, self._two_var)
        return best, gaps, terms, var, off

    def glr(self, counts, means) -> float:
        r"""Exact GLR of the empirical answer: :math:`\min_{x} \Delta_x^2 / (2\sigma^2\|\hat x - x\|^2_{A^{-1}})`.

        A = sum_a N_a x_a x_a^T.  While A is singular, directions outside its range have
        infinite variance (term 0) and the others use the pseudo-inverse.  (With counts on the
        arms, a singular A always leaves some x_hat - x outside its range -- otherwise every arm
        would lie in the span of the sampled ones -- so the GLR is then 0, the limit of regular
        designs.)  O(K d^2).
        """
        counts = np.asarray(counts, dtype=float)
        a = self.features.T @ (counts[:, None] * self.features)
        inv, spectrum = inverse_or_spectrum(a)
        return float(self._terms(inv, spectrum, means)[2].min())

    def statistic(self, model) -> float:
        """GLR from a :class:`LeastSquares` model, reusing its A^-1 (no d x d inversion); 0 while :meth:`misfit` says why."""
        inv = getattr(model, "inverse_design", None)
        z = self.glr(model.counts, model.estimate) if inv is None else float(self._terms(inv, None, model.estimate)[2].min())
        return 0.0 if z > 0.0 and self.misfit(model) else z

    def misfit(self, model) -> str | None:
        """Why the data contradict the linear model at the problem's delta (:mod:`pybai.problems.linear.fit`), or None."""
        test = fit_test(self.features, model.counts, model.sums, getattr(model, "sq_devs", None), self.sigma, self.delta or 0.05)
        return misfit_sentence(test, self.labels)

    #: relative margin of the screen of :meth:`statistic_against` (far above the rounding of one term)
    SCREEN_MARGIN = 1e-9

    def statistic_against(self, model, level: float, t: int) -> float:
        r"""The GLR statistic against ``level``, screened by one arm: the same decisions for a fraction of the cost.

        The statistic is a minimum over arms, so the term of any one arm j bounds it from above:
        when the term of ``model.screen_arm`` (the argmin at the last full evaluation) is below
        ``level`` by the relative margin :attr:`SCREEN_MARGIN`, the rule cannot stop, whatever
        the other terms (O(d^2) instead of O(K d^2)), and that term is returned (an upper bound of
        the statistic).  Otherwise the full statistic is computed exactly as by :meth:`statistic`.
        No screen at t >= ``max_samples`` (a censored run records the exact statistic) nor with
        batches (censored by the number of batches).
        """
        inv = getattr(model, "inverse_design", None)
        limit = self.regime.max_samples if isinstance(self.regime, FixedConfidence) else 0
        if inv is None or self.batch is not None or t >= limit:
            return self.statistic(model)
        means = model.estimate
        j = getattr(model, "screen_arm", -1)
        if 0 <= j < self.n_sources:
            best = self.answer(means)
            gap = means[best] - means[j]
            if self._rep_of[j] != best and gap == gap:  # not a copy of the answer, not NaN
                y = self.features[best] - self.features[j]
                var = float(y @ inv @ y)
                term = gap * gap / (self._two_var * var) if gap > 0.0 and var > 0.0 else (0.0 if gap <= 0.0 else math.inf)
                if term < level * (1.0 - self.SCREEN_MARGIN):
                    return float(term)
        terms = self._terms(inv, None, means)[2]
        j = int(np.argmin(terms))
        try:
            model.screen_arm = j
        except AttributeError:  # a model type without the hint: no screen
            pass
        return 0.0 if terms.min() > level and self.misfit(model) else float(terms.min())  # stops only on a model that fits

    def alt_gradient(self, means, w, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        r"""Nature's best response to allocation ``w``: ``(value, d)``.

        value = :math:`\min_x \Delta_x^2 / (2\sigma^2 \|\hat x - x\|^2_{A(w)^{-1}})` (so that
        ``glr(t * w, means) == t * value``) and
        :math:`d_a = (x_a^\top(\theta - \lambda^*))^2 / (2\sigma^2)` for the closest alternative
        :math:`\lambda^*`, a supergradient of w -> value.
        """
        w = np.asarray(w, dtype=float)
        out = np.empty(self.n_sources) if out is None else out
        a = self.features.T @ (w[:, None] * self.features)
        inv, spectrum = inverse_or_spectrum(a)
        best, gaps, terms, var, off = self._terms(inv, spectrum, means)
        j = int(np.argmin(terms))
        value = float(terms[j])
        gap = 0.0 if np.isnan(gaps[j]) else float(gaps[j])
        if not np.isfinite(value) or gap <= 0.0:
            out[:] = 0.0
            return (0.0 if not np.isfinite(value) else value), out
        y = self.features[best] - self.features[j]
        if off[j]:  # move theta along the null space of A(w): free for the sampled arms
            vals, vecs, keep = spectrum
            u = vecs[:, ~keep] @ (vecs[:, ~keep].T @ y)
            scale = gap / float(u @ u)
        else:
            u = inv @ y if inv is not None else spectrum[1][:, spectrum[2]] @ (
                (spectrum[1][:, spectrum[2]].T @ y) / spectrum[0][spectrum[2]])
            scale = gap / float(var[j])
        out[:] = (scale * (self.features @ u)) ** 2 / self._two_var
        return value, out

    def best_response_kernel(self, means):
        """``(linear_best_response, data)`` at fixed ``means`` (:mod:`pybai.problems.linear._game`)."""
        means = np.asarray(means, dtype=float)
        best = self.answer(means)
        others = self._reps[self._rep_of[self._reps] != best]
        data = (self.features, np.ascontiguousarray(others, dtype=np.intp), means[best] - means, int(best),
                float(self._two_var))
        return linear_best_response, data

    def domination(self, means, inverse_design) -> np.ndarray:
        r"""Per arm, the strongest evidence that another arm beats it (Lemma 4 on the GLR scale).

        ``out[x] = max_{x'} Delta_hat(x', x)^2 / (2 sigma^2 ||x' - x||^2_{A^-1})`` over the arms x'
        with a larger estimate; arm x is discarded at level beta when ``out[x] > beta`` (the
        confidence width of Prop. 1 or 2 written as a threshold on this scale).
        """
        return domination_statistics(self.features, np.asarray(means, dtype=float), inverse_design, self._two_var)

    def survivors(self, dominated: np.ndarray) -> np.ndarray:
        """Distinct arms (first row of each group of duplicates) not flagged in ``dominated``."""
        return self._reps[~np.asarray(dominated, dtype=bool)[self._reps]]

    def _directions(self, means):
        means = np.asarray(means, dtype=float)
        best = self.answer(means)
        others = self._reps[self._reps != best]
        gaps = means[best] - means[others]
        return best, others, gaps

    def oracle_result(self, means, hint: LinearOracleHint | None = None) -> DesignResult:
        r"""T*(theta) with its certificate: ``value`` = T*, ``lower_bound`` <= true T*.

        :math:`1/T^* = \max_w \min_{x \ne x^*} \Delta_x^2 / (2\sigma^2 \|x^* - x\|^2_{A(w)^{-1}})`,
        i.e. :math:`T^* = 2\sigma^2 \min_w \max_{y \in Y^*} \|y\|^2_{A(w)^{-1}}` with
        :math:`Y^* = \{(x^* - x)/\Delta_x\}` -- a transductive design solved by
        :func:`~pybai.design.minimax.solve_minimax` to a certified relative gap of 1e-6.
        Ties (a distinct arm with the best mean) give T* = inf and uniform weights, and so do gaps so
        small against the features' differences (``||y||^2`` of :data:`_LARGEST_DIRECTION` or more, e.g.
        gaps of 1e-300) that T* is beyond floating point.
        """
        means = check_array(means, "means", "LinearBestArmProblem.oracle", shape=(self.n_sources,))
        best, others, gaps = self._directions(means)
        k = self.n_sources
        z, diff = self._oracle_rows(best, others) if not np.any(gaps <= 0.0) else (None, None)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            y = None if diff is None else diff / gaps[:, None]
            size = math.inf if y is None else float(np.max(np.sum(y * y, axis=1)))
        if not size < _LARGEST_DIRECTION:  # a tie, or gaps so small (1e-300) that T* overflows: T* = inf
            w = np.zeros(k)
            w[self._reps] = 1.0 / self._reps.size
            return DesignResult(weights=w, value=math.inf, lower_bound=math.inf, iterations=0)
        assert z is not None and y is not None  # a finite size means both were computed
        directions = ExplicitDirections(y)
        tol = hint.get("tolerance") if hint is not None else None
        if tol and hint is not None and hint.get("best") == best and hint.get("dual") is not None and hint.get("weights") is not None:
            value, lower = duality_gap(z, directions, np.asarray(hint["weights"], dtype=float), hint["dual_directions"],
                                       hint["dual"], compiled=bool(hint.get("compiled", False)))
            if value - lower <= tol * value:  # the stored design is still certified tol-optimal
                return self._design_result(np.asarray(hint["weights"], dtype=float), value, lower, 0, hint)
        state: Any = None  # a DesignState when there is a hint
        if hint is not None:  # a LinearOracleHint, or the plain dict a restored state holds
            if hint.get("best") != best:
                hint["directions"] = None  # directions are indexed by arm: new answer, new set
                hint["dual"] = hint["dual_directions"] = None
                hint["best"] = best
            state = DesignState()
            state.weights, state.arms, state.directions = hint.get("weights"), hint.get("arms"), hint.get("directions")
        if self.__dict__.get("_cold_start") is None:  # depends on the features only: computed once
            self._cold_start = cold_start(z)
        compiled = bool(hint is not None and hint.get("compiled", False))
        if tol:
            res = solve_minimax(z, directions, rtol=tol, state=state, compiled=compiled, start=self._cold_start,
                                linear_program=False, keep=1e-2)
        else:
            res = solve_minimax(z, directions, rtol=ORACLE_RTOL, state=state, compiled=compiled, start=self._cold_start)
        if hint is not None:
            hint["weights"], hint["arms"], hint["directions"] = state.weights, state.arms, state.directions
            if tol:
                hint["dual"], hint["dual_directions"] = state.dual, state.dual_directions
        return self._design_result(res.weights, res.value, res.lower_bound, res.iterations, hint)

    def _oracle_rows(self, best: int, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct arms' rows and the differences x* - x of the others (features and answer only): cached."""
        cache = self.__dict__.get("_rows_cache") or self.__dict__.setdefault(
            "_rows_cache", {"z": self.features[self._reps], "best": None, "diff": None})
        if cache["best"] != best:
            cache["best"], cache["diff"] = best, self.features[best] - self.features[others]
        return cache["z"], cache["diff"]

    def _design_result(self, weights, value, lower, iterations, hint) -> DesignResult:
        """The oracle's result on all arms from a design on the distinct arms (kept in ``hint.result``)."""
        w = np.zeros(self.n_sources)
        w[self._reps] = weights
        out = DesignResult(weights=w, value=self._two_var * value, lower_bound=self._two_var * lower, iterations=iterations)
        if isinstance(hint, LinearOracleHint):
            hint.result = out
        return out

    def tracking_weights(self, counts, means, t: int, hint: Any = None) -> np.ndarray:
        r"""The oracle weights a tracking rule follows at time t; approximate with an approximate hint.

        With a hint from ``oracle_hint(exact=False)`` the weights are certified
        :math:`\varepsilon_t`-optimal for the estimate, :math:`\varepsilon_t` =
        :func:`tracking_tolerance` (t) = min(0.1, 0.3 t^-1/2): their value F(w) = min over the
        alternative of sum_a w_a d(theta_hat, lambda) is at least (1 - eps_t) times the optimal
        1 / T*(theta_hat) (the duality gap of :func:`~pybai.design.minimax.duality_gap`).  Since
        eps_t -> 0 and F is continuous in (w, theta) where A(w) is invertible, every limit point of
        the tracked weights is an optimal allocation of theta whenever theta_hat -> theta: the
        convergence to the set of optimal weights that the asymptotic optimality of Track-and-Stop
        uses (Garivier & Kaufmann 2016, Thm. 14; Degenne & Koolen 2019, Thm. 7, for a set of optimal
        weights; Jedra & Proutiere 2020 for linear bandits).  At a fixed t, tracking eps-optimal
        weights costs at most a factor 1 / (1 - eps) in the rate at which the GLR grows.
        """
        if hint is not None and hint.get("approximate"):
            hint["tolerance"] = tracking_tolerance(t)
        return self.relaxed_weights(means, hint)

    def oracle(self, means, hint: LinearOracleHint | None = None):
        """Characteristic time T*(theta) and optimal weights w*(theta) (see :meth:`oracle_result`)."""
        res = self.oracle_result(means, hint)
        return res.value, res.weights

    def oracle_hint(self, exact: bool = True, approximate: bool = False) -> LinearOracleHint:
        """A fresh warm-start state for :meth:`oracle`.

        ``exact=False``: the fast form for tracking rules, the same certified solve (gap 1e-6)
        with its restricted barrier steps compiled (equal to the reference path up to rounding);
        with ``approximate=True`` also the approximate oracle of :meth:`tracking_weights` (a
        certified relative gap eps_t -> 0, re-solving only when the stored design loses its certificate).
        """
        return LinearOracleHint(compiled=not exact, approximate=approximate and not exact)

    def tracking_hint(self, oracle: str) -> LinearOracleHint:
        """Track-and-Stop's state: "fast" is the approximate oracle, "certified" the compiled solve."""
        return self.oracle_hint(exact=oracle == "exact", approximate=oracle == "fast")

    @property
    def tracking_oracle_growth(self) -> float:  # type: ignore[override]
        """Track-and-Stop's default ``oracle_growth``: 0.25, 0.5 above SMALL distinct arms (docs/linear.md)."""
        return 0.25 if self.n_distinct <= SMALL else 0.5

    def h_lb(self, means) -> float:
        r"""H_LB of Eq. (6): :math:`\min_\lambda \max_{y \in Y^*} \|y\|^2_{\Lambda_\lambda^{-1}} / \Delta^2(y)`.

        Equal to T* / (2 sigma^2) (the same optimisation); ``inf`` on ties.
        """
        return self.oracle_result(means).value / self._two_var

    def n_star(self, means, delta: float) -> float:
        r"""N* of Eq. (7): :math:`c^2 H_{LB} \log_n(K^2/\delta)` with :math:`c = 2\sigma\sqrt{2}`.

        The paper's :math:`\log_n(K^2/\delta)` abbreviates :math:`\log(c' n^2 K^2/\delta)`,
        :math:`c' = 6/\pi^2` (Prop. 1 and its footnote), so N* is read as the largest solution
        of :math:`N = c^2 H_{LB} \log(c' N^2 K^2 / \delta)` (the log evaluated at n = N*),
        found by fixed-point iteration from above.  K counts the distinct arms.
        """
        delta = check_probability(delta, "delta", "LinearBestArmProblem.n_star")
        h = self.h_lb(means)
        if not math.isfinite(h):
            return math.inf
        a = 8.0 * self.sigma**2 * h
        b = (6.0 / math.pi**2) * self.n_distinct**2 / delta

        def step(n):
            return a * math.log(b * n * n)

        n = max(a, 1.0)
        for _ in range(200):  # double until above the largest fixed point (f(n) < n there)
            if step(n) < n:
                break
            n *= 2.0
        for _ in range(500):
            new = step(n)
            if abs(new - n) <= 1e-12 * n:
                n = new
                break
            n = new
        return float(n)

    def complexity(self, truth) -> dict:
        """The ``pybai complexity`` report, plus ``h_lb`` (Eq. 6)."""
        report = super().complexity(truth)
        report["h_lb"] = round(float(self.h_lb(truth)), 6) if math.isfinite(self.h_lb(truth)) else None
        return report

    def simple_regret(self, answer, means) -> float:
        means = np.asarray(means, dtype=float)
        return float(means.max() - means[int(answer)])
