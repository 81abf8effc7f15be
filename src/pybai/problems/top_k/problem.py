"""Top-k identification: find the k arms with the largest means.

Answer convention: the sorted array of the k arm indices with the largest means; ties are
broken towards the lowest indices (an instance with mu_(k) == mu_(k+1) has no unique answer:
its GLR statistic is 0 and its characteristic time is infinite).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from pybai._validation import check_choice, check_positive_float, check_positive_int, fail
from pybai.models.families import Family
from pybai.problems.top_k._kernels import top_k_alt_gradient, top_k_statistic
from pybai.problems.top_k._oracle import TopKOracleResult, top_bottom, top_k_oracle
from pybai.problems.base import BatchSpec, Problem
from pybai.problems.run_kernels import TOP_K, RunKernels
from pybai.stopping.base import PairPieces
from pybai.stopping.topk_leader import BernoulliTopKLeaderThreshold, GaussianTopKLeaderThreshold
from pybai.problems.tolerance import check_relative_reference, epsilon_good_mask

__all__ = ["TopKProblem"]


class TopKProblem(Problem):
    r"""Identify the set of the k arms with the largest means.

    Parameters
    ----------
    n_arms : int
        Number of arms n >= 2.
    k : int
        Size of the answer, 1 <= k < n.
    family : Family
        Reward family (:class:`~pybai.models.Gaussian` or :class:`~pybai.models.Bernoulli`).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
        (b, r)-batch pulls; ``max_repeats`` must not exceed ``size``.
    epsilon : float, optional
        Fixed confidence only (> 0): *epsilon-top-k* identification, the (epsilon, m)-optimal
        subsets of Kalyanakrishnan, Tewari, Auer & Stone (2012): a set S of k arms is correct when
        every arm of S has ``mu_i >= mu_(k) - epsilon`` (``mu_(k)`` the k-th largest mean), or
        ``mu_i >= (1 - epsilon) mu_(k)`` in the relative mode; ties and near-ties at the boundary
        then stop.  The stopping rule is the conservative pairwise GLR (docs/epsilon.md,
        "epsilon-top-k"); ``is_correct`` counts epsilon-correct sets and ``answer_metrics`` adds
        exact identification.
    epsilon_mode : {"additive", "relative"}, default "additive"
        With ``epsilon``: "relative" reads epsilon as a fraction of mu_(k) (epsilon in (0, 1);
        positive rewards).
    labels : list of str, optional
        One distinct name per arm, shown wherever the arm is (:mod:`pybai.naming`); no effect on the math.

    Notes
    -----
    The alternative to "the top-k set is S" is the union over pairs (i in S, j not in S) of
    {lambda : lambda_j >= lambda_i}: ``n_alternatives`` = k (n - k) pieces, each changing
    ``n_terms`` = 2 arms.  With k = 1 everything reduces to best-arm identification.  With
    an answer tolerance the pieces are {lambda_i <= c lambda_j - e} (:attr:`shift`), same count.

    Examples
    --------
    >>> from pybai import FixedConfidence, Gaussian
    >>> p = TopKProblem(4, 2, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    >>> p.answer([0.1, 0.9, 0.5, 0.7]).tolist()
    [1, 3]
    >>> t_star, w = p.oracle([1.0, 0.8, 0.2, 0.0])
    >>> round(t_star, 2), w.round(3).tolist()
    (30.92, [0.141, 0.359, 0.359, 0.141])
    """

    goal = "top-k"
    #: ``"exact-identification"``: the goal is the exact set (dropped with epsilon), what rules that
    #: certify the exact set by their own rule (``batch-racing``) require
    provides = frozenset({"independent-arms", "answer-mask", "exact-identification"})

    def __init__(self, n_arms: int, k: int, family: Family, regime, batch: BatchSpec | None = None, *, epsilon=None,
                 epsilon_mode: str = "additive", labels=None):
        super().__init__(family, regime, batch)
        owner = type(self).__name__
        self.n_arms = check_positive_int(n_arms, "n_arms", owner, minimum=2)
        self.k = check_positive_int(k, "k", owner)
        if self.k >= self.n_arms:
            raise fail("k", owner, f"an int in [1, n_arms - 1] = [1, {self.n_arms - 1}]", k)
        if batch is not None and batch.max_repeats > batch.size:
            raise fail("max_repeats", owner, f"an int in [1, size] = [1, {batch.size}] (r <= b)", batch.max_repeats)
        self._check_family_size()
        self._set_labels(labels, self.n_arms)
        self._set_epsilon(epsilon, epsilon_mode)

    # --- epsilon-top-k identification ------------------------------------
    def _set_epsilon(self, epsilon, epsilon_mode: str) -> None:
        owner = type(self).__name__
        check_choice(epsilon_mode, ("additive", "relative"), "epsilon_mode", owner)
        #: the answer tolerance and how it reads: "additive" or "relative"; None without
        self.epsilon, self.epsilon_mode = None, None
        self.shift = (1.0, 0.0)
        self.provides = type(self).provides | self.family.provides
        if epsilon is None:
            if epsilon_mode != "additive":
                raise fail("epsilon_mode", owner, '"additive" unless epsilon is given', epsilon_mode)
            return
        if self.regime.kind != "fixed-confidence":
            raise fail("epsilon", owner, "None with a fixed budget (epsilon-top-k is a fixed-confidence goal)",
                       epsilon)
        if self.batch is not None:
            raise fail("epsilon", owner, "None with batches (batch-racing certifies exact top-k by its own rule)",
                       epsilon)
        epsilon = check_positive_float(epsilon, "epsilon", owner)
        self.shift = self.family.epsilon_shift(epsilon, epsilon_mode, owner)
        self.epsilon, self.epsilon_mode = epsilon, epsilon_mode
        self.provides = self.provides - {"exact-identification"}

    def with_epsilon(self, epsilon: float, epsilon_mode: str = "additive") -> "TopKProblem":
        """The same problem with the answer tolerance ``epsilon`` (epsilon-top-k identification, fixed confidence).

        What a running session is given by :meth:`pybai.session.Session.set_epsilon`; checked as
        by the constructor.
        """
        if epsilon is None:
            raise fail("epsilon", type(self).__name__, "a float > 0", epsilon)
        new = copy.copy(self)
        new._set_epsilon(epsilon, epsilon_mode)
        return new

    def epsilon_good(self, means) -> np.ndarray:
        """Mask of the arms that may belong to an epsilon-correct set: mu_i >= c mu_(k) - e.

        (The k-th largest mean ``mu_(k)``; with no epsilon, mu_i >= mu_(k).)  Decided with the tolerance of
        :func:`pybai.problems.tolerance.epsilon_good_mask` (a relative epsilon needs mu_(k) >= 0).  ``means`` in the
        learner's units (:meth:`~pybai.models.families.Family.learner_means`).
        """
        means = self.check_means(means)
        c, e = self.shift
        kth = np.sort(means)[::-1][self.k - 1]
        if self.epsilon_mode == "relative":
            check_relative_reference(kth, self.epsilon, type(self).__name__, "k-th largest mean")
        return epsilon_good_mask(means, kth, c, e)

    def check_truth(self, means) -> None:
        """Refuse a relative epsilon on a truth whose k-th largest mean is negative (:mod:`pybai.problems.tolerance`)."""
        if self.epsilon_mode == "relative":
            learner = self.family.learner_means(self._means(self.check_means(means)))
            check_relative_reference(np.sort(learner)[::-1][self.k - 1], self.epsilon, type(self).__name__,
                                     "k-th largest mean")

    def correctness_note(self) -> str | None:
        """With an answer tolerance: ``correct_rate`` counts epsilon-correct sets."""
        if self.epsilon is None:
            return None
        rule = (f"mu_i >= mu_(k) - {self.epsilon:g}" if self.epsilon_mode == "additive"
                else f"mu_i >= (1 - {self.epsilon:g}) mu_(k)")
        return f"epsilon-correct ({self.epsilon_mode} epsilon = {self.epsilon:g}: every returned arm has {rule})"

    @property
    def n_sources(self) -> int:
        return self.n_arms

    @property
    def n_alternatives(self) -> int:
        return self.k * (self.n_arms - self.k)

    @property
    def n_terms(self) -> int:
        return 2

    def threshold(self, kind: str, delta: float):
        """``"delta-correct"``: the per-pair mixture rule (:mod:`pybai.stopping.pair_mixture`), m = k (n - k).

        On a wrong stop some i in the empirical top set is outside the true one and some j of
        the true top set is outside the empirical one, with mu_j > mu_i: the truth lies in the
        piece {lambda_j >= lambda_i}, and the union bound runs over the k (n - k) ordered pairs
        (i outside the true top set, j inside it).

        ``"topk-leader"`` (no epsilon; the families with a leader form,
        :attr:`~pybai.models.families.Family.leader_family`: Gaussian arms with known variances, Bernoulli arms,
        bounded rewards with the sub-Bernoulli statistic): one test per k-set on a common separating level, without the union over pairs (:mod:`pybai.stopping.topk_leader`).
        """
        name = kind.strip().lower() if isinstance(kind, str) else kind
        if name == "topk-leader":
            leader = self.family.leader_family
            if self.epsilon is not None or leader is None:
                raise fail("threshold", type(self).__name__, "a kind this problem supports ('topk-leader' is for "
                           "top-k identification without epsilon of Gaussian arms with known variances, Bernoulli arms "
                           "or bounded rewards with statistic 'sub-bernoulli')", kind)
            cls = GaussianTopKLeaderThreshold if leader == "gaussian" else BernoulliTopKLeaderThreshold
            return cls(delta, self.n_arms, self.k)
        return self._pair_threshold(kind, delta)

    def pieces(self, model) -> PairPieces | None:
        """Every arm of the empirical top set against every other arm, shifted by :attr:`shift`
        (None while a mean is not identified)."""
        means = self._means(model.estimate)
        if np.isnan(means).any():
            return None
        top, bot, _ = top_bottom(means, self.k)
        return PairPieces(top, bot, self.shift, self.family.variances)

    # --- the math of the goal -------------------------------------------
    def _means(self, means) -> np.ndarray:
        if type(means) is np.ndarray and means.dtype == np.float64 and means.shape == (self.n_arms,):
            return means
        raw = np.asarray(means)
        if raw.dtype.kind not in "biuf":  # strings are not means
            raise fail("means", type(self).__name__, "numbers", means)
        means = raw.astype(float)  # NaN allowed: an unidentified mean (glr then returns 0)
        if means.shape != (self.n_arms,):
            raise fail("means", type(self).__name__, f"of shape ({self.n_arms},)", f"shape {means.shape}")
        return means

    def answer(self, means) -> np.ndarray:
        """Sorted indices of the k largest means (ties: lowest indices)."""
        top, _, _ = top_bottom(self._means(means), self.k)
        return np.sort(top)

    def answer_mask(self, means) -> np.ndarray:
        """True at the k arms of :meth:`answer`, False elsewhere."""
        top, _, _ = top_bottom(self._means(means), self.k)
        mask = np.zeros(self.n_arms, dtype=np.bool_)
        mask[top] = True
        return mask

    def is_correct(self, answer, means) -> bool:
        """Whether ``answer`` is a set of k arms whose means are all >= every other mean
        (with a tie between the k-th and (k+1)-th means, every such set counts).

        With an answer tolerance: whether every arm of ``answer`` is within epsilon of mu_(k) (:meth:`epsilon_good`;
        at epsilon -> 0 this accepts sets that end in a tie for the k-th place but skip a larger mean, so
        exact identification is its own test).
        """
        if self.epsilon is None:
            return self._exact_correct(answer, means)
        got = self._answer_arms(answer)
        if got is None:
            return False
        return bool(self.epsilon_good(self.family.learner_means(self._means(means)))[got].all())

    def _answer_arms(self, answer):
        got = np.unique(np.asarray(answer, dtype=np.int64).ravel())
        if got.shape != (self.k,) or got.min() < 0 or got.max() >= self.n_arms:
            return None
        return got

    def _exact_correct(self, answer, means) -> bool:
        means = self._means(means)
        got = self._answer_arms(answer)
        if got is None:
            return False
        rest = np.ones(self.n_arms, dtype=bool)
        rest[got] = False
        return bool(means[got].min() >= means[rest].max())

    def answer_is_unique(self, means) -> bool:
        """Whether a run can certify an answer: the top set lies outside every piece of :attr:`shift`
        (no tie at the boundary; with an answer tolerance, any means)."""
        means = self._means(means)
        c, e = self.shift
        top, bot, _ = top_bottom(means, self.k)
        return bool(means[top].min() > c * means[bot].max() - e)

    def false_negative_rate(self, answer, means) -> float:
        """Fraction of the true top-k missing from ``answer`` (section 5.2 of Jun et al. 2016)."""
        missing = np.setdiff1d(self.answer(means), np.asarray(answer, dtype=np.int64))
        return missing.size / self.k

    def answer_metrics(self, answer, means) -> dict:
        """False-negative rate (section 5.2 of Jun et al. 2016), gain of ``answer`` and of the true top-k (5.3)."""
        out = {"false_negative": self.false_negative_rate(answer, means), "gain": self.gain(answer, means),
               "oracle_gain": self.gain(self.answer(means), means)}
        if self.epsilon is not None:  # exact identification besides epsilon-correctness
            out["exact_correct"] = self._exact_correct(answer, means)
        return out

    def gain(self, answer, means) -> float:
        """sum_{i in answer} mu_i: the "gain" of section 5.3 of Jun et al. (2016)."""
        return float(self._means(means)[np.asarray(answer, dtype=np.int64)].sum())

    def simple_regret(self, answer, means) -> float:
        """Sum of the k largest means minus the sum of the means of ``answer`` (>= 0).

        The gap in "gain" of section 5.3 (the gain of a set J is sum_{i in J} mu_i).
        """
        means = self._means(means)
        arms = np.unique(np.asarray(answer, dtype=np.int64))
        if arms.size != self.k or arms.min() < 0 or arms.max() >= self.n_arms:
            raise fail("answer", f"{type(self).__name__}.simple_regret", f"{self.k} distinct arm indices", answer)
        best = np.sort(means)[::-1][: self.k].sum()
        return float(best - means[arms].sum())

    def glr(self, counts, means) -> float:
        """GLR statistic of the empirical top-k set against the pieces of :attr:`shift`.

        min over (i in empirical top, j outside) of the cost of the piece {lambda_i <= c lambda_j - e}
        (plain pieces: inf_m N_i d(mu_i, m) + N_j d(mu_j, m)); 0 when some mean is not identified
        (NaN), or with the plain pieces when the empirical k-th and (k+1)-th means tie
        (:func:`~pybai.problems.top_k._kernels.top_k_statistic`).
        """
        means = self._means(means)
        c, e = self.shift
        return float(top_k_statistic(self.family.code, np.asarray(counts, dtype=float), means, self.family.variances,
                                     self.k, c, e))

    def run_kernels(self) -> RunKernels | None:
        """The compiled pieces of whole runs (sequential pulls, raw rewards: Gaussian, Bernoulli), else None.

        The GLR statistic, answer mask and best response of :mod:`pybai.problems.top_k._kernels`
        (:func:`~pybai.problems.top_k._kernels.top_k_statistic` and its neighbours), which give what
        :meth:`glr`, :meth:`answer_mask` and :meth:`alt_gradient` give; with batches, None.
        """
        if self.batch is not None or not self.family.raw_rewards:
            return None
        return RunKernels(TOP_K, self.family.code, self.family.variances, self.k, self.shift)

    def alt_gradient(self, means, w, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """Nature's best response at allocation ``w``: ``(value, divergences per arm)``.

        value = min over pairs (i top, j bottom) of the cost of the piece {lambda_i <= c lambda_j - e}
        at weights ``w``; the divergences at the minimising pair's minimiser (zeros elsewhere) are a
        supergradient in ``w``.  (0, zeros) when the top-k set of ``means`` is not unique and the
        pieces are plain.
        """
        means = self._means(means)
        out = np.empty(self.n_arms) if out is None else out
        c, e = self.shift
        value = top_k_alt_gradient(self.family.code, np.asarray(w, dtype=float), means, self.family.variances, out,
                                   self.k, c, e)
        return float(value), out

    def oracle(self, means, hint=None) -> tuple[float, np.ndarray]:
        """T*(mu) and w*(mu) for top-k (see :mod:`pybai.problems.top_k._oracle`).

        Solved by an interior-point method with a duality certificate (relative gap < 1e-8
        on typical instances; :meth:`oracle_result` gives both bounds).  ``hint`` is accepted
        for interface compatibility and ignored (no warm start).  With epsilon: the same program
        on the shifted pieces of the top-k set of ``means`` (ties by index), the characteristic
        time of the conservative pairwise rule, an upper bound on that of epsilon-top-k.
        """
        res = self.oracle_result(means)
        return res.t_star, res.weights

    def oracle_result(self, means, rtol: float = 1e-8) -> TopKOracleResult:
        """The oracle with its certificate: ``t_star`` (attained by ``weights``) and ``lower``."""
        means = self._means(means)
        return top_k_oracle(self.family.code, means, self.family.variances, self.k, rtol, self.shift)

    def batch_bounds(self, means) -> dict:
        """Theorem 1 of Jun et al. (2016) for the problem's (b, r) and delta.

        ``{"batch_complexity_bound": M_{b,r}, "theory_speedup": M_{1,1} / M_{b,r}}`` with the
        sub-Gaussian scale 1/2 for Bernoulli rewards, 1/(2 sqrt(trials)) for binomial ones and the
        largest sigma for Gaussian ones.
        """
        from pybai.batch.theory import batch_complexity_bound, theory_speedup

        if self.batch is None or self.delta is None:
            raise fail("batch", type(self).__name__, "a BatchSpec with a FixedConfidence regime", self.batch)
        means = self._means(means)
        sigma = (self.family.sub_gaussian_scale if self.family.name in ("bernoulli", "binomial")
                 else float(np.sqrt(self.family.variances.max())))
        args = (means, self.k, self.delta, self.batch.size, self.batch.max_repeats, sigma)
        return {"batch_complexity_bound": batch_complexity_bound(*args), "theory_speedup": theory_speedup(*args)}

    def complexity(self, truth) -> dict:
        """The ``pybai complexity`` report; with a batch in fixed confidence, Theorem 1's keys too."""
        out = super().complexity(truth)
        if self.batch is not None and self.delta is not None:
            out.update(self.batch_bounds(truth))
        if self.epsilon is not None:
            truth = self.check_means(truth)
            exact = top_k_oracle(self.family.code, truth, self.family.variances, self.k).t_star
            out.update(epsilon=self.epsilon, epsilon_mode=self.epsilon_mode,
                       epsilon_good_arms=[int(i) for i in np.flatnonzero(self.epsilon_good(truth))],
                       oracle_answer=out["answer"],
                       exact_characteristic_time=round(float(exact), 6) if math.isfinite(exact) else None)
        return out

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["k"] = self.k
        if self.epsilon is not None:
            out["epsilon"] = self.epsilon
            out["epsilon_mode"] = self.epsilon_mode
        return out
