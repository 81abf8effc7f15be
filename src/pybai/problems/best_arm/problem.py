"""Standard best-arm identification: find argmax_a mu_a."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_float, check_positive_int, fail
from pybai.models.families import Family
from pybai.problems.best_arm._kernels import (
    alt_gradient_best_arm,
    glr_best_arm,
    oracle_best_arm,
    oracle_best_arm_warm,
)
from pybai.problems.base import BatchSpec, Problem

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
    epsilon : float >= 0, optional
        Fixed budget only: the tolerance of the reported probability of error
        ``Pr(mu* - mu_recommended > epsilon)`` (:meth:`error_probability_epsilon`), and the
        default epsilon of the gap rules (``bayes-gap``, ``ugap``).  It does not change what
        counts as the answer (``correct_rate`` is exact identification).

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

    def __init__(self, n_arms: int, family: Family, regime, batch: BatchSpec | None = None, *, epsilon=None):
        super().__init__(family, regime, batch)
        self.n_arms = check_positive_int(n_arms, "n_arms", "BestArmProblem", minimum=2)
        self._check_family_size()
        if epsilon is not None:
            if regime.kind != "fixed-budget":
                raise fail("epsilon", type(self).__name__, "given only with a fixed budget (the tolerance of "
                           "the fixed-budget probability of error)", epsilon)
            self.epsilon = check_positive_float(epsilon, "epsilon", type(self).__name__, allow_zero=True)

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
        z, _ = glr_best_arm(self.family.code, counts, means, self.family.variances)
        return z

    def threshold(self, kind: str, delta: float):
        """``"delta-correct"``: the per-pair mixture rule (:mod:`pybai.stopping.pair_mixture`), m = K - 1.

        The pieces of the alternative to "a_hat is best" are {lambda_b >= lambda_a_hat}, b != a_hat;
        on a wrong stop the truth lies in the piece b = a*, so the union bound runs over the
        K - 1 pairs (a, a*), a != a*.
        """
        return self._pair_threshold(kind, delta)

    def stopping_decision(self, model, threshold, t):
        """Stop when every pair (a_hat, b) passes its count-dependent test (else GLR > threshold(t))."""
        if not getattr(threshold, "count_dependent", False):
            return super().stopping_decision(model, threshold, t)
        best = int(np.argmax(model.estimate))
        others = np.concatenate((np.arange(best), np.arange(best + 1, self.n_arms)))
        return self._pair_stopping(model, threshold, t, np.array([best]), others)

    def oracle(self, means, hint: np.ndarray | None = None):
        """T*(mu) and w*(mu) (Garivier & Kaufmann 2016, Theorem 5), exact to ~1e-12.

        ``hint``: optional float array of length K + 1, updated in place, that warm-starts
        the solver from a previous call on nearby means (what Track-and-Stop does).
        """
        means = self.check_means(means)
        if hint is None:
            return oracle_best_arm(self.family.code, means, self.family.variances)
        return oracle_best_arm_warm(self.family.code, means, self.family.variances, hint)

    def alt_gradient(self, means, w, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """Nature's best response at allocation ``w``: its value and divergences per source.

        Returns ``(value, g)`` with value = inf over the alternative of sum_a w_a d(mu_a, lambda_a)
        and g_a = d(mu_a, lambda*_a) for the minimiser (a supergradient in ``w``).
        """
        out = np.empty(self.n_arms) if out is None else out
        value = alt_gradient_best_arm(self.family.code, np.asarray(w, float), np.asarray(means, float),
                                      self.family.variances, out)
        return value, out

    def relaxed_weights(self, means, hint=None) -> np.ndarray:
        """The oracle weights (no side constraints to drop); called at every step of Track-and-Stop."""
        if hint is None:
            return oracle_best_arm(self.family.code, np.asarray(means, dtype=float), self.family.variances)[1]
        return oracle_best_arm_warm(self.family.code, means, self.family.variances, hint)[1]

    def oracle_hint(self) -> np.ndarray:
        """A fresh warm-start buffer for :meth:`oracle`."""
        return np.zeros(self.n_arms + 1)

    def answer_is_unique(self, means) -> bool:
        means = self.check_means(means)
        return int(np.sum(means == means.max())) == 1

    def is_correct(self, answer, means) -> bool:
        """Whether arm ``answer`` has the largest mean (any of several tied best arms counts)."""
        means = self.check_means(means)
        a = int(answer)
        return 0 <= a < self.n_arms and bool(means[a] == means.max())

    def to_dict(self) -> dict:
        out = super().to_dict()
        if self.epsilon is not None:
            out["epsilon"] = self.epsilon
        return out

    def simple_regret(self, answer, means) -> float:
        if isinstance(answer, bool) or not (isinstance(answer, (int, np.integer)) and 0 <= answer < self.n_arms):
            raise fail("answer", f"{type(self).__name__}.simple_regret", f"an arm index in [0, {self.n_arms})", answer)
        means = np.asarray(means, dtype=float)
        return float(means.max() - means[int(answer)])
