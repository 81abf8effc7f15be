"""Standard best-arm identification: find argmax_a mu_a."""

from __future__ import annotations

import copy
import math
from typing import cast

import numpy as np

from pybai._validation import check_choice, check_positive_float, check_positive_int, fail
from pybai.models.families import Family
from pybai.problems.best_arm import _answers
from pybai.problems.best_arm._kernels import alt_gradient_best_arm, glr_best_arm, oracle_best_arm
from pybai.problems.base import BatchSpec, Problem
from pybai.problems.run_kernels import BEST_ARM, RunKernels
from pybai.stopping.base import PairPieces
from pybai.problems.tolerance import check_relative_reference, epsilon_good_mask
from pybai.stopping.leader import LEADER_KINDS, LeaderThreshold
from pybai.stopping.thresholds import make_threshold

__all__ = ["BestArmProblem"]


class BestArmProblem(Problem):
    """Identify the arm with the largest mean.

    Parameters
    ----------
    n_arms : int
        Number of arms K >= 2.
    family : Family
        Reward family (:class:`~pybai.models.Gaussian` or :class:`~pybai.models.Bernoulli`).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    epsilon : float, optional
        *Fixed budget*: (>= 0) the :attr:`~pybai.problems.base.Problem.error_tolerance` of the
        reported probability of error ``Pr(mu* - mu_recommended > epsilon)``
        (:meth:`error_probability_epsilon`), and the default epsilon of the gap rules (``bayes-gap``,
        ``ugap``).  It does not change what counts as the answer (``correct_rate`` is exact
        identification).
        *Fixed confidence*: (> 0) the answer tolerance of epsilon-best-arm identification: a run may
        stop on any *epsilon-good* arm (``mu_a >= mu* - epsilon``, or ``mu_a >= (1 - epsilon) mu*`` in
        the relative mode), so ties and near-ties at the top stop; the pieces of the alternative are
        shifted (:attr:`shift`), ``is_correct`` counts epsilon-good answers and ``answer_metrics`` adds
        the exact identification (docs/epsilon.md).
    epsilon_mode : {"additive", "relative"}, default "additive"
        Fixed confidence with ``epsilon``: "relative" reads epsilon as a fraction of the best mean
        (epsilon in (0, 1); meant for positive rewards), with the pieces
        {lambda_a <= (1 - epsilon) lambda_b} of the multiplicative reading of Garivier &
        Kaufmann (2021).
    labels : list of str, optional
        One distinct name per arm, shown wherever the arm is (:mod:`pybai.naming`); no effect on the math.

    Examples
    --------
    >>> from pybai import BestArmProblem, Gaussian, FixedConfidence
    >>> p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    >>> t_star, w = p.oracle([1.0, 0.5, 0.0])
    >>> round(t_star, 3), w.round(3).tolist()
    (34.285, [0.469, 0.464, 0.067])
    """

    goal = "best-arm"
    provides = frozenset({"independent-arms", "answer-mask"})

    def __init__(self, n_arms: int, family: Family, regime, batch: BatchSpec | None = None, *, epsilon=None,
                 epsilon_mode: str = "additive", labels=None):
        super().__init__(family, regime, batch)
        self.n_arms = check_positive_int(n_arms, "n_arms", "BestArmProblem", minimum=2)
        self._check_family_size()
        self._set_labels(labels, self.n_arms)
        self._set_epsilon(epsilon, epsilon_mode)

    def _set_epsilon(self, epsilon, epsilon_mode: str) -> None:
        family, regime = self.family, self.regime
        owner = type(self).__name__
        check_choice(epsilon_mode, ("additive", "relative"), "epsilon_mode", owner)
        #: the answer tolerance (fixed confidence) and how it reads: "additive" or "relative"; None without
        self.epsilon, self.epsilon_mode = None, None
        self.shift = (1.0, 0.0)
        if epsilon is None:
            if epsilon_mode != "additive":
                raise fail("epsilon_mode", owner, '"additive" unless epsilon is given', epsilon_mode)
            return
        if regime.kind == "fixed-budget":
            if epsilon_mode != "additive":
                raise fail("epsilon_mode", owner, '"additive" with a fixed budget (the tolerance of the '
                           "fixed-budget probability of error)", epsilon_mode)
            self.error_tolerance = check_positive_float(epsilon, "epsilon", owner, allow_zero=True)
            return
        epsilon = check_positive_float(epsilon, "epsilon", owner)
        self.shift = family.epsilon_shift(epsilon, epsilon_mode, owner)
        self.epsilon, self.epsilon_mode = epsilon, epsilon_mode

    def with_epsilon(self, epsilon: float, epsilon_mode: str = "additive") -> "BestArmProblem":
        """The same problem with the answer tolerance ``epsilon`` (epsilon-best-arm identification, fixed confidence).

        What a running session is given by :meth:`pybai.session.Session.set_epsilon`; the
        arguments are checked as by the constructor (one clear error naming the parameter).
        """
        if self.regime.kind != "fixed-confidence" or epsilon is None:
            raise fail("epsilon", type(self).__name__, "a float > 0 (fixed confidence; with a fixed budget it is set "
                       "at creation)", epsilon)
        new = copy.copy(self)
        new._set_epsilon(epsilon, epsilon_mode)
        return new

    def epsilon_good(self, means) -> np.ndarray:
        """Boolean mask of the arms outside every piece: mu_a >= c max mu - e (the best arms at (1, 0)).

        mu_a >= c mu* - e decided with the tolerance of :func:`pybai.problems.tolerance.epsilon_good_mask`
        (a relative epsilon needs mu* >= 0).  ``means`` in the learner's units (:meth:`~pybai.models.families.Family.learner_means`; the
        user's for every family but bounded rewards, which the learner rescales to [0, 1]).
        """
        means = self.check_means(means)
        c, e = self.shift
        if self.epsilon_mode == "relative":
            check_relative_reference(means.max(), self.epsilon, type(self).__name__)
        return epsilon_good_mask(means, means.max(), c, e)

    def check_truth(self, means) -> None:
        """Refuse a relative epsilon on a truth whose best mean is negative (:mod:`pybai.problems.tolerance`)."""
        if self.epsilon_mode == "relative":
            learner = self.family.learner_means(self.check_means(means))
            check_relative_reference(learner.max(), self.epsilon, type(self).__name__)

    @property
    def n_sources(self) -> int:
        return self.n_arms

    def answer(self, means) -> int:
        """The arm of largest mean (lowest index among tied best arms)."""
        return int(np.argmax(self.check_means(means)))

    def answer_mask(self, means) -> np.ndarray:
        """True at the best arm (the first of equal maxima), False elsewhere."""
        mask = np.zeros(self.n_arms, dtype=np.bool_)
        mask[int(np.argmax(means))] = True
        return mask

    def glr(self, counts, means) -> float:
        """The GLR statistic of the empirical best arm against the pieces of :attr:`shift`
        (:func:`~pybai.problems.best_arm._kernels.glr_best_arm`)."""
        c, e = self.shift
        return glr_best_arm(self.family.code, counts, means, self.family.variances, c, e)[0]

    def pieces(self, model) -> PairPieces:
        """The empirical best arm a_hat (first of tied maxima) against every other arm, shifted by :attr:`shift`.

        The arrays of arms are read-only and made once per a_hat (a stopping check reads them after every sample).
        """
        best = int(model.estimate.argmax())
        arms: dict[int, tuple[np.ndarray, np.ndarray]] | None = self.__dict__.get("_pair_arms")
        if arms is None:
            arms = {}
            self._pair_arms = arms
        pair = arms.get(best)
        if pair is None:
            top = np.array([best])
            others = np.concatenate((np.arange(best), np.arange(best + 1, self.n_arms)))
            top.setflags(write=False)
            others.setflags(write=False)
            pair = arms[best] = (top, others)
        return PairPieces(pair[0], pair[1], self.shift, self.family.variances)

    def threshold(self, kind: str, delta: float):
        """``"delta-correct"``: on the families with a leader form
        (:attr:`~pybai.models.families.Family.leader_family`: Gaussian arms with known variances, Bernoulli arms,
        bounded rewards with the sub-Bernoulli statistic), the rule ``"leader-settled"``: one test per hypothesis
        "arm j is the best", without the union over pairs, with the scale-pair prior and leader processes that start
        once the leader has settled (:mod:`pybai.stopping.leader`; ``"leader-scales"`` starts them at once,
        ``"leader"`` also keeps one common scale per term).  With an answer tolerance the leader kinds test the
        epsilon hypotheses {lambda in H_j : lambda_a_hat <= c lambda_j - e} (:attr:`shift`, given to the rule by
        :meth:`~pybai.stopping.leader.LeaderThreshold.set_shift`; docs/thresholds.md, "epsilon-best-arm
        identification with the leader rules").
        Otherwise (other families, or the kinds named) the per-pair rules (:mod:`pybai.stopping.pair_mixture`,
        :mod:`pybai.stopping.tilt`), m = K - 1: the pieces of the alternative to "a_hat is best" are
        {lambda_b >= lambda_a_hat}, b != a_hat; on a wrong stop the truth lies in the piece b = a*, so the union
        bound runs over the K - 1 pairs (a, a*), a != a*.  With an answer tolerance the pieces are
        {lambda_a_hat <= c lambda_b - e} (:attr:`shift`) and the same K - 1 pairs serve (a* the first best arm;
        docs/thresholds.md, "epsilon-best-arm identification").
        """
        name = kind.strip().lower() if isinstance(kind, str) else kind
        leader = self.family.leader_family
        if name == "delta-correct" and leader is not None:
            name = "leader-settled"
        if name in LEADER_KINDS:
            if leader is None:
                raise fail("threshold", type(self).__name__, f"a kind with a proven form for {self.family.name} "
                           "rewards (the leader kinds: Gaussian rewards with known variances, Bernoulli rewards, "
                           "reward_model 'bounded' with statistic 'sub-bernoulli')", kind)
            threshold = make_threshold(name, delta, n_alternatives=self.n_alternatives, n_terms=self.n_terms,
                                       family=leader)
            return cast(LeaderThreshold, threshold).set_shift(self.shift)
        return self._pair_threshold(kind, delta)

    def oracle(self, means, hint: np.ndarray | None = None):
        """T*(mu) and w*(mu) for the pieces of :attr:`shift`, exact to ~1e-12.

        Plain pieces: Garivier & Kaufmann (2016, Theorem 5); ``hint`` (optional float array of length
        K + 1, updated in place) warm-starts the solver from a previous call on nearby means (what
        Track-and-Stop does).  With an answer tolerance: T*_eps(mu) and w*_eps(mu), the best over the
        epsilon-good answers (:meth:`oracle_epsilon`; the hint is not used).
        """
        means = self.check_means(means)
        c, e = self.shift
        return _answers.oracle_shifted(self.family.code, means, self.family.variances, c, e,
                                       self.oracle_hint() if hint is None else hint)

    def run_kernels(self) -> RunKernels | None:
        """The compiled pieces of whole runs (sequential pulls, raw rewards: Gaussian, Bernoulli), else None."""
        if self.batch is not None or not self.family.raw_rewards:
            return None
        return RunKernels(BEST_ARM, self.family.code, self.family.variances, 1, self.shift)

    def alt_gradient(self, means, w, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """Nature's best response at allocation ``w``: its value and divergences per source.

        Returns ``(value, g)`` with value = inf over the alternative of sum_a w_a d(mu_a, lambda_a)
        and g_a = d(mu_a, lambda*_a) for the minimiser (a supergradient in ``w``).
        """
        out = np.empty(self.n_arms) if out is None else out
        c, e = self.shift
        value = alt_gradient_best_arm(self.family.code, np.asarray(w, float), np.asarray(means, float),
                                      self.family.variances, c, e, out)
        return value, out

    def relaxed_weights(self, means, hint=None) -> np.ndarray:
        """The oracle weights (no side constraints to drop); called at every step of Track-and-Stop."""
        c, e = self.shift
        return _answers.oracle_shifted(self.family.code, np.asarray(means, dtype=float), self.family.variances, c, e,
                                       self.oracle_hint() if hint is None else hint)[1]

    def oracle_hint(self, exact: bool = True) -> np.ndarray:
        """A fresh warm-start buffer for :meth:`oracle`."""
        return np.zeros(self.n_arms + 1)

    def answer_is_unique(self, means) -> bool:
        """Whether a run can certify an answer: some arm lies outside every piece of :attr:`shift`
        (a unique best arm; with an answer tolerance, any means)."""
        means = self.check_means(means)
        c, e = self.shift
        best = int(np.argmax(means))
        rest = np.delete(means, best)
        return bool(means[best] > c * rest.max() - e)

    def is_correct(self, answer, means) -> bool:
        """Whether arm ``answer`` has the largest mean (any of several tied best arms counts).

        With an answer tolerance: whether it is epsilon-good (:meth:`epsilon_good`).
        """
        means = self.check_means(means)
        a = int(answer)
        if not 0 <= a < self.n_arms:
            return False
        return bool(self.epsilon_good(self.family.learner_means(means))[a])

    def answer_metrics(self, answer, means) -> dict:
        """With an answer tolerance: ``{"exact_correct": answer is a best arm}``; else none."""
        if self.epsilon is None or answer is None:
            return {}
        means = self.check_means(means)
        a = int(answer)
        return {"exact_correct": bool(0 <= a < self.n_arms and means[a] == means.max())}

    def to_dict(self) -> dict:
        out = super().to_dict()
        tolerance = self.epsilon if self.epsilon is not None else self.error_tolerance
        if tolerance is not None:
            out["epsilon"] = tolerance
        if self.epsilon is not None:
            out["epsilon_mode"] = self.epsilon_mode
        return out

    # --- several correct answers (an answer tolerance) ---------------------
    def correctness_note(self) -> str | None:
        """With an answer tolerance: ``correct_rate`` counts epsilon-good answers."""
        if self.epsilon is None:
            return None
        rule = (f"mu_a >= mu* - {self.epsilon:g}" if self.epsilon_mode == "additive"
                else f"mu_a >= (1 - {self.epsilon:g}) mu*")
        return f"epsilon-correct ({self.epsilon_mode} epsilon = {self.epsilon:g}: {rule})"

    def oracle_epsilon(self, means) -> tuple[float, np.ndarray, int]:
        """``(T*_eps, w*_eps, a)``: the characteristic time over the answers outside every piece of :attr:`shift`.

        T*_eps(mu)^-1 = max over epsilon-good answers a of max_w min_{b != a}
        inf_{lambda_a <= c lambda_b - e} sum_s w_s d(mu_s, lambda_s) (Degenne & Koolen 2019,
        the lower bound with several correct answers; Garivier & Kaufmann 2021 for
        epsilon-best-arm identification), each inner problem solved exactly as in Garivier &
        Kaufmann (2016, Theorem 5) (:mod:`pybai.problems.best_arm._answers`).  ``a`` is the answer
        that attains the max (-1 when T*_eps is infinite).
        """
        means = np.asarray(means, dtype=float)
        t_star, w, a = _answers.oracle_eps(self.family.code, means, self.family.variances, *self.shift)
        return float(t_star), w, int(a)

    def oracle_for_answer(self, means, answer: int) -> tuple[float, np.ndarray]:
        """``(T_a, w_a)``: 1 / max_w min_b inf over the alternative to ``answer`` (inf if it is not epsilon-good)."""
        means = np.asarray(means, dtype=float)
        return _answers.oracle_answer(self.family.code, means, self.family.variances, int(answer), *self.shift)

    def tracking_weights(self, counts, means, t: int, hint=None) -> np.ndarray:
        """The oracle weights of the estimate; with an answer tolerance, Sticky Track-and-Stop
        (Degenne & Koolen 2019, section 4).

        The candidate answers at time t are the arms a whose hypothesis "a is a best arm" the
        confidence region {lambda : sum_s N_s d(mu_hat_s, lambda_s) <= ln t} does not exclude
        (:func:`~pybai.problems.best_arm._answers.best_cost`); the first in index order is tracked
        with its own oracle weights w_a(mu_hat).  When that arm is not epsilon-good at mu_hat (its
        weights are undefined) the weights of the best answer at mu_hat are tracked
        (:func:`~pybai.problems.best_arm._answers.tracking_weights`).
        """
        c, e = self.shift
        return _answers.tracking_weights(self.family.code, np.asarray(counts, dtype=float),
                                         np.asarray(means, dtype=float), self.family.variances, float(t), c, e,
                                         self.oracle_hint() if hint is None else hint)

    def complexity(self, truth) -> dict:
        """The report of ``pybai complexity``; with an answer tolerance T*_eps, w*_eps and the epsilon keys.

        ``characteristic_time`` and ``optimal_weights`` are then T*_eps(mu) and w*_eps(mu),
        ``lower_bound`` T*_eps kl(delta, 1 - delta) (Degenne & Koolen 2019's lower bound), and it adds
        ``epsilon``, ``epsilon_mode``, ``epsilon_good_arms``, ``oracle_answer`` (the answer attaining
        T*_eps) and ``exact_characteristic_time`` (T* of exact identification; null on a tie).
        """
        out = super().complexity(truth)
        if self.epsilon is None:
            return out
        truth = self.check_means(truth)
        _, _, a = self.oracle_epsilon(truth)
        exact = oracle_best_arm(self.family.code, truth, self.family.variances)[0]
        out.update(epsilon=self.epsilon, epsilon_mode=self.epsilon_mode,
                   epsilon_good_arms=[int(i) for i in np.flatnonzero(self.epsilon_good(truth))],
                   oracle_answer=a, exact_characteristic_time=round(float(exact), 6) if math.isfinite(exact) else None)
        return out

    def simple_regret(self, answer, means) -> float:
        if isinstance(answer, bool) or not (isinstance(answer, (int, np.integer)) and 0 <= answer < self.n_arms):
            raise fail("answer", f"{type(self).__name__}.simple_regret", f"an arm index in [0, {self.n_arms})", answer)
        means = np.asarray(means, dtype=float)
        return float(means.max() - means[int(answer)])
