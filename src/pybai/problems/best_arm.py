"""Standard best-arm identification: find argmax_a mu_a."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_positive_int
from pybai.models.families import Family
from pybai.problems._best_arm_kernels import (
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

    Examples
    --------
    >>> from pybai import BestArmProblem, Gaussian, FixedConfidence
    >>> p = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    >>> t_star, w = p.oracle([1.0, 0.5, 0.0])
    >>> round(t_star, 3), w.round(3).tolist()
    (34.285, [0.469, 0.464, 0.067])
    """

    goal = "best-arm"

    def __init__(self, n_arms: int, family: Family, regime, batch: BatchSpec | None = None):
        super().__init__(family, regime, batch)
        self.n_arms = check_positive_int(n_arms, "n_arms", "BestArmProblem", minimum=2)

    @property
    def n_sources(self) -> int:
        return self.n_arms

    def answer(self, means) -> int:
        return int(np.argmax(means))

    def answer_mask(self, means) -> np.ndarray:
        """True at the best arm (the first of equal maxima), False elsewhere."""
        mask = np.zeros(self.n_arms, dtype=np.bool_)
        mask[int(np.argmax(means))] = True
        return mask

    def glr(self, counts, means) -> float:
        z, _ = glr_best_arm(self.family.code, counts, means, self.family.variances)
        return z

    def oracle(self, means, hint: np.ndarray | None = None):
        """T*(mu) and w*(mu) (Garivier & Kaufmann 2016, Theorem 5), exact to ~1e-12.

        ``hint``: optional float array of length K + 1, updated in place, that warm-starts
        the solver from a previous call on nearby means (what Track-and-Stop does).
        """
        means = np.asarray(means, dtype=float)
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
        means = np.asarray(means, dtype=float)
        return int(np.sum(means == means.max())) == 1

    def simple_regret(self, answer, means) -> float:
        means = np.asarray(means, dtype=float)
        return float(means.max() - means[int(answer)])
