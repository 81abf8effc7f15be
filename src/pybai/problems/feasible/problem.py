"""Best arm identification with fairness constraints on subpopulations (BAICS).

The learner faces K arms x L subpopulations.  A *source* is a cell (arm k, subpopulation l),
flattened row-major: ``source = k * L + l``, ``source_shape = (K, L)``.  The quality of arm
k is ``mu_k = sum_l q_l mu[k, l]`` (q normalised to sum 1) and arm k is *feasible* iff
``mu[k, l] >= floor_l`` for every constrained subpopulation l.  The answer is the feasible
arm of largest quality, or ``-1`` when no arm is feasible (the paper's k* = 0).

The exact math (answer, GLR statistic, oracle, subgradient step) lives in
:mod:`pybai.problems.feasible.oracle`; this module wraps it in the
:class:`~pybai.problems.base.Problem` API.

Reference: Y. Wu, Z. Zheng, T. Zhu, "Best Arm Identification with Fairness Constraints on
Subpopulations" (sections 2-4).
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_choice, check_positive_int, check_weights, fail
from pybai.models._feasible_pieces import answer_kernel
from pybai.models._kl import GAUSSIAN
from pybai.models.families import Family
from pybai.problems.best_arm._kernels import oracle_best_arm_warm
from pybai.problems.feasible._qp import alt_supergradient, glr_kernel, is_degenerate
from pybai.problems.feasible.cells import SAMPLING_MODELS, CellSpace
from pybai.problems.base import BatchSpec, Problem
from pybai.problems.feasible.oracle import feasible_oracle, feasible_subgradient_step
from pybai.stopping.feasible import FeasibleMixtureThreshold, FeasiblePieces

__all__ = ["BERNOULLI_VARIANCE", "FeasibleArmProblem"]

#: Variance proxy used for Bernoulli cells: rewards in [0, 1] are 1/2-sub-Gaussian (Hoeffding).
BERNOULLI_VARIANCE = 0.25


class FeasibleArmProblem(Problem):
    """Identify the best feasible arm (goal ``"best-feasible-arm"``).

    Parameters
    ----------
    n_arms : int
        Number of arms K >= 1 (K >= 2 unless some subpopulation is constrained).
    n_subpopulations : int
        Number of subpopulations L >= 1.
    weights : array-like of shape (L,)
        Importance q of each subpopulation, all > 0 (only q / sum(q) is used).
    constrained : sequence of int or None
        0-based indices of the constrained subpopulations (no repeats); ``None``: all.
        An empty list means no constraint (plain best-arm identification on qualities).
    floor : float or array-like
        A number (the same floor for every constrained subpopulation) or one floor per
        constrained subpopulation, in the order of ``constrained``.
    family : Family
        :class:`~pybai.models.Gaussian` with ``n_sources = K * L`` (known sd per cell), or
        :class:`~pybai.models.Bernoulli` (see *Bernoulli rewards* below).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    sampling : {"pair", "arm"}, default "pair"
        ``"pair"``: the learner picks the cell, requests are sources.  ``"arm"``: the learner
        picks the arm and the subpopulation arrives with probability q; requests are arms
        (``n_requests = K``) and the oracle is restricted to ``w[k, l] = v_k q_l``.
    labels : list of str, optional
        One distinct name per arm, shown wherever the arm is (:mod:`pybai.naming`); no effect on the math.

    Notes
    -----
    **Instances outside the paper's set S.**  When the answer is a feasible arm with a
    constrained mean exactly on its floor, or another feasible arm has exactly the same
    quality, no finite number of samples certifies the answer: :meth:`oracle` returns
    ``(inf, uniform weights)`` at once, :meth:`glr` returns 0 (a GLR strategy then never
    stops by itself and is censored at ``max_samples``), and :meth:`answer` returns the
    lowest-index arm among the tied ones (a mean on its floor counts as feasible).
    Nothing iterates without a bound.

    **Bernoulli rewards** (conversion rates) are handled by a Gaussian approximation with a
    known variance per cell.  With ``family = Bernoulli(...)`` every cell gets the variance
    proxy 1/4: a reward in [0, 1] is 1/2-sub-Gaussian (Hoeffding's lemma), so the Gaussian
    deviation inequalities behind the GLR test keep holding and the ``delta-correct``
    rule stays valid (its normal mixtures are supermartingales for rewards in [0, 1]).  It over-estimates the variance p(1 - p) of rates far from 1/2,
    so it is conservative; a user who knows the rates roughly (say near p0) may instead pass
    ``Gaussian(sqrt(p0 (1 - p0)))``: tighter, but only an approximation (not proven).  A
    plug-in p_hat(1 - p_hat) is *not* used: it would make the variances random and data
    dependent, which breaks the known-variance GLR and its threshold.

    **Stopping.**  ``threshold = "delta-correct"`` is a count-dependent rule: every piece of the
    alternative passes a normal-mixture test read at its cells' counts, with a union bound over
    the :attr:`n_wrong_answers` possible wrong answers (:meth:`threshold`,
    :mod:`pybai.stopping.feasible`).  The t-only threshold it replaces (still what
    ``threshold(t)`` answers) uses :attr:`n_alternatives` and :attr:`n_terms`.

    Examples
    --------
    >>> from pybai import FixedConfidence, Gaussian
    >>> from pybai.problems.feasible.problem import FeasibleArmProblem
    >>> mu = [[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]]
    >>> p = FeasibleArmProblem(3, 3, [0.2, 0.3, 0.5], None, 0.0, Gaussian(1.0, n_sources=9),
    ...                        FixedConfidence(0.1))
    >>> p.answer(mu), round(p.oracle(mu)[0], 1)
    (0, 190.9)
    """

    goal = "best-feasible-arm"

    def __init__(self, n_arms, n_subpopulations, weights, constrained=None, floor=0.0,
                 family: Family | None = None, regime=None, batch: BatchSpec | None = None,
                 sampling: str = "pair", *, labels=None):
        super().__init__(family, regime, batch)  # type: ignore[arg-type]  # None: Problem takes the default family
        owner = type(self).__name__
        K = check_positive_int(n_arms, "n_arms", owner)
        L = check_positive_int(n_subpopulations, "n_subpopulations", owner)
        self.n_arms, self.n_subpopulations = K, L
        self._set_labels(labels, K)
        self.grid_shape = (K, L)  # source_shape, read on the hot path
        self.sampling = check_choice(sampling, SAMPLING_MODELS, "sampling", owner)
        q = check_array(weights, "weights", owner, shape=(L,), low=0.0, strict_low=True)
        self.weights = check_weights(q, "weights", owner)
        self.constrained = check_constrained(constrained, L, owner)
        self.cmask = np.zeros(L, dtype=np.bool_)
        self.cmask[list(self.constrained)] = True
        self.floor = check_floor(floor, self.constrained, L, owner)
        if K == 1 and not self.constrained:
            raise fail("n_arms", owner, "an int >= 2 when no subpopulation is constrained", K)
        if family is None or getattr(family, "name", None) not in ("gaussian", "bernoulli"):
            raise fail("family", owner, "a Gaussian or Bernoulli family", family)
        if len(family.variances) != K * L:
            raise fail("family", owner, f"a family over n_arms * n_subpopulations = {K * L} sources",
                       f"{len(family.variances)} sources")
        var = family.variances if family.name == "gaussian" else np.full(K * L, BERNOULLI_VARIANCE)
        self.variances = np.asarray(var, dtype=float).reshape(K, L).copy()
        # per-arm variance of the stratified quality estimate when cells get q-proportional samples
        self._quality_var = self.variances @ self.weights

    # --- structure -------------------------------------------------------
    @property
    def n_sources(self) -> int:
        return self.n_arms * self.n_subpopulations

    def _make_request_space(self) -> CellSpace:
        """Cells of the K x L grid: the learner picks a cell ("pair") or an arm ("arm")."""
        return CellSpace(self.n_arms, self.n_subpopulations, self.weights, self.sampling)

    def alt_gradient(self, means, w, out=None):
        """Nature's best response at allocation ``w``: ``(value, d(mu, lambda*) per source)``.

        value = inf over Alt(mu) of sum_s w_s d(mu_s, lambda_s) (zero weights are replaced by
        1e-12 so that the infimum is attained) and the divergences of the minimising piece
        (:func:`~pybai.problems.feasible._qp.alt_supergradient`).
        """
        mu = self._matrix(means)
        if mu.flags.writeable:  # read-only as the strategies' estimates are: one compiled signature (precompiled)
            mu = mu.view()
            mu.flags.writeable = False
        w = np.asarray(w, dtype=float).reshape(self.grid_shape)
        weff = np.where(w > 0, w, 1e-12)
        grad = np.zeros(self.grid_shape)
        a = int(answer_kernel(mu, self.weights, self.floor, self.cmask))
        value = alt_supergradient(mu, self.variances, self.weights, self.floor, self.cmask, weff, a, grad)
        if out is None:
            return float(value), grad.ravel()
        out[:] = grad.ravel()
        return float(value), out

    @property
    def n_alternatives(self) -> int:
        """Pieces of the union bound behind the ``delta-correct`` threshold: K ``|M|`` + K.

        Let a* be the true answer and a_hat != a* the empirical one.  The truth mu lies in
        Alt(mu_hat) and in one of these pieces, each defined by the cells S it constrains
        (replacing mu_hat by mu on S alone already changes the answer, so the GLR is at most
        sum_{S} N d(mu_hat, mu), the quantity the deviation inequality controls):

        * a_hat violates the floor of one constrained cell (a_hat, l): ``|S|`` = 1, at most K ``|M|``
          such cells (``|M|`` = number of constrained subpopulations);
        * a_hat is feasible, a* >= 0 is feasible and better: S = rows a_hat and a*,
          ``|S|`` = 2L, K - 1 pieces (one per a_hat);
        * a_hat = -1 while a* >= 0 is feasible: S = constrained cells of a*, ``|S|`` <= ``|M|``,
          one piece.

        So K ``|M|`` + K pieces is a (conservative) count for any truth.
        """
        return self.n_arms * len(self.constrained) + self.n_arms

    @property
    def n_terms(self) -> int:
        """Cells per piece for the ``delta-correct`` threshold: 2L (the largest piece).

        The pieces have 1, 2L or ``|M|`` <= L cells (see :attr:`n_alternatives`); the threshold
        n C(ln(m/delta)/n) + 2n ln(4 + ln(t/n)) increases with n, so the largest size, 2L,
        is valid for every piece (conservative for the single-cell feasibility pieces).
        This is the order L ln ln t + ln(K/delta) of the paper's section 4.2.
        """
        return 2 * self.n_subpopulations

    @property
    def n_wrong_answers(self) -> int:
        """``m`` of the count-dependent ``delta-correct`` rule: K (K - 1 with no constrained
        subpopulation, when -1 is never an answer).  See :mod:`pybai.stopping.feasible`."""
        return self.n_arms if self.constrained else self.n_arms - 1

    def threshold(self, kind: str, delta: float):
        """``"delta-correct"``: the per-piece normal-mixture rule with effective counts.

        :class:`~pybai.stopping.feasible.FeasibleMixtureThreshold` with m =
        :attr:`n_wrong_answers`; called with ``t`` only it answers the t-only threshold of
        :class:`~pybai.problems.base.Problem` (Kaufmann & Koolen 2021 with m = :attr:`n_alternatives`,
        n = :attr:`n_terms`).  Other kinds: as for every problem.
        """
        base = super().threshold(kind, delta)
        if isinstance(kind, str) and kind.strip().lower() == "delta-correct":
            return FeasibleMixtureThreshold(delta, self.n_wrong_answers, base)
        return base

    def pieces(self, model) -> FeasiblePieces:
        """The cells the pieces of Alt(a_hat) are made of (:class:`~pybai.stopping.feasible.FeasiblePieces`)."""
        return FeasiblePieces(self._matrix(model.counts, "counts"), self._matrix(model.estimate), self.weights,
                              self.floor, self.cmask, self.variances)

    # --- the math of the goal -------------------------------------------
    def _matrix(self, means, name="means") -> np.ndarray:
        if type(means) is np.ndarray and means.dtype == np.float64 and means.size == self.n_sources:
            return means.reshape(self.grid_shape)  # fast path (every step of a strategy)
        mu = np.asarray(means, dtype=float)
        if mu.size != self.n_sources:
            raise fail(name, type(self).__name__, f"{self.n_sources} values (K x L = "
                       f"{self.n_arms} x {self.n_subpopulations})", f"shape {mu.shape}")
        return mu.reshape(self.grid_shape)

    def qualities(self, means) -> np.ndarray:
        """Quality ``q @ mu[k]`` of every arm (q normalised)."""
        return self._matrix(means) @ self.weights

    def feasible(self, means) -> np.ndarray:
        """Boolean array: arm k is feasible under ``means`` (a mean on its floor is feasible)."""
        mu = self._matrix(means)
        return np.all((mu >= self.floor[None, :]) | ~self.cmask[None, :], axis=1)

    def answer(self, means) -> int:
        """The feasible arm of largest quality (lowest index on exact ties), -1 if none."""
        return int(answer_kernel(self._matrix(means), self.weights, self.floor, self.cmask))

    def answer_is_unique(self, means) -> bool:
        """False on the degenerate instances of the class notes (a tie in quality between feasible
        arms at the top, or the answer's constrained mean exactly on its floor)."""
        mu = self._matrix(self.check_means(means))
        return not bool(is_degenerate(mu, self.weights, self.floor, self.cmask, self.answer(mu)))

    def is_correct(self, answer, means) -> bool:
        """Whether ``answer`` is a feasible arm of largest quality among the feasible arms (any of
        several tied ones counts), or -1 when no arm is feasible (a mean on its floor is feasible)."""
        mu = self._matrix(self.check_means(means))
        answer = int(answer)
        feasible = self.feasible(mu)
        if not feasible.any():
            return answer == -1
        if not 0 <= answer < self.n_arms or not feasible[answer]:
            return False
        qual = mu @ self.weights
        return bool(qual[answer] == qual[feasible].max())

    def glr(self, counts, means) -> float:
        """GLR statistic of the empirical answer (the paper's Z(t), Eq. (10)), exact."""
        return float(glr_kernel(self._matrix(counts, "counts"), self._matrix(means), self.weights,
                                self.floor, self.cmask, self.variances))

    def oracle(self, means, hint: dict | None = None):
        """T*(mu) and w*(mu) flattened over sources (Theorem 3.2, solved exactly).

        In the ``"arm"`` sampling model the weights are ``v_k q_l`` (the best arm
        allocation when subpopulations arrive with probability q).  Degenerate instances
        return ``(inf, uniform)``.  Every call is a cold start from uniform weights (exact to
        ~1e-10): on empirical-mean trajectories of Track-and-Stop the interior-point warm start
        of :func:`~pybai.problems.feasible.oracle.feasible_oracle` returned clearly suboptimal
        weights in about 0.6% of the calls (docs/baics.md), so ``hint`` is not used here.
        """
        mu = self._matrix(means)
        t_star, w = feasible_oracle(mu, self.weights, self.cmask, self.floor, self.variances,
                                    sampling=self.sampling)
        return float(t_star), w.ravel()

    def oracle_hint(self, exact: bool = True) -> np.ndarray:
        """Warm-start state of :meth:`relaxed_weights` (the best-arm oracle on qualities)."""
        return np.zeros(self.n_arms + 1)

    def relaxed_weights(self, means, hint: np.ndarray | None = None) -> np.ndarray:
        """Track-and-Stop weights that ignore the constraints, flattened over sources.

        The Gaussian best-arm oracle (Garivier & Kaufmann 2016) on the qualities
        mu_k = q . mu[k], with the variance of the stratified quality estimate when arm k's
        samples are spread over subpopulations in proportion to q,
        sigma_k^2 = sum_l q_l sigma^2[k, l]; the arm weights v are then spread as
        ``w[k, l] = v_k q_l``.  This is the paper's T-a-S baseline (section 5).
        """
        qual = self.qualities(means)
        state = hint if hint is not None else np.zeros(self.n_arms + 1)
        _, v = oracle_best_arm_warm(GAUSSIAN, qual, self._quality_var, state)
        return (v[:, None] * self.weights).ravel()

    def subgradient_step(self, w, means, step: float = 1.0) -> np.ndarray:
        """One projected supergradient ascent step on F_mu (the paper's section 4.1).

        See :func:`~pybai.problems.feasible.oracle.feasible_subgradient_step`; in the ``"arm"``
        model the step is taken on the arm weights v and the result is ``v_k q_l``.
        """
        w = np.asarray(w, dtype=float).reshape(self.grid_shape)
        out = feasible_subgradient_step(w, self._matrix(means), self.weights, self.cmask, self.floor,
                                        self.variances, step, sampling=self.sampling)
        return out.ravel()

    def simple_regret(self, answer, means) -> float:
        """Quality of the true best feasible arm minus quality of ``answer``.

        Defined when ``answer`` is a truly feasible arm (>= 0, because the true best is
        then feasible too) and 0 when both are ``-1``.  When ``answer`` is ``-1`` while a
        feasible arm exists, or an arm that violates a constraint, there is no quality
        comparison to make (the error is a constraint failure, counted by the correct rate):
        the regret is NaN, which the summaries skip (``mean_simple_regret`` then averages
        over the runs whose recommendation is feasible).
        """
        mu = self._matrix(means)
        truth = self.answer(mu)
        answer = int(answer)
        if answer == truth:
            return 0.0
        if answer < 0 or not self.feasible(mu)[answer]:
            return float("nan")
        qual = mu @ self.weights
        return float(qual[truth] - qual[answer])

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(
            n_arms=self.n_arms,
            n_subpopulations=self.n_subpopulations,
            weights=self.weights.tolist(),
            constrained=list(self.constrained),
            floor=[float(self.floor[l]) for l in self.constrained],
            sampling=self.sampling,
        )
        return out


def check_constrained(constrained, L, owner) -> tuple[int, ...]:
    """The constrained subpopulations (distinct indices in [0, L - 1]; None: all of them), checked."""
    if constrained is None:
        return tuple(range(L))
    expected = f"a list of distinct 0-based subpopulation indices in [0, {L - 1}]"
    try:
        values = np.asarray(constrained)
    except (ValueError, TypeError):  # ragged nesting
        raise fail("constrained", owner, expected, constrained) from None
    if values.ndim != 1 or (values.size and values.dtype.kind not in "iu"):
        raise fail("constrained", owner, expected, constrained)
    out = tuple(int(v) for v in values)
    if any(not 0 <= v < L for v in out) or len(set(out)) != len(out):
        raise fail("constrained", owner, expected, list(out))
    return out


def check_floor(floor, constrained, L, owner, name="floor") -> np.ndarray:
    """The floor of every subpopulation (0 where unconstrained) from a number or one per constrained one."""
    f = check_array(floor, name, owner, min_size=0 if not constrained else 1)
    full = np.zeros(L)
    if f.ndim == 0:
        full[list(constrained)] = float(f)
        return full
    if f.shape != (len(constrained),):
        raise fail(name, owner, f"a number or a list of {len(constrained)} numbers "
                   "(one per constrained subpopulation)", f"shape {f.shape}")
    full[list(constrained)] = f
    return full
