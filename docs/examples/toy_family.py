"""A toy family added in one file: identify the *worst* of K Gaussian arms (docs/design.md).

Everything a family brings is here, and nothing in pybai changes: the problem (its math:
answer, GLR, oracle, best response), its config registration (``goal = "worst-arm"`` in an
experiment file), a strategy registered by name, and an instance for the common checks
(``pybai.testing.register_instance``; docs/design.md runs ``pybai.testing``'s checks on it).

The math is that of the best arm on mirrored means: for Gaussian arms of known variance,
d(mu, lambda) = (mu - lambda)^2 / (2 sigma^2) is unchanged when both means change sign, so the
worst arm of mu is the best arm of -mu with the same T*, w* and GLR.
"""

from __future__ import annotations

import numpy as np

from pybai import BestArmProblem, GaussianEnvironment, Problem, TrackAndStop
from pybai.strategies.registry import register
from pybai.config.problems import register_goal
from pybai.models.families import Gaussian


class WorstArmProblem(Problem):
    """Identify the arm with the smallest mean among K Gaussian arms of known variance.

    Parameters
    ----------
    n_arms : int
    family : Gaussian
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    """

    goal = "worst-arm"
    provides = frozenset({"independent-arms", "answer-mask"})

    def __init__(self, n_arms, family, regime, batch=None):
        super().__init__(family, regime, batch)
        if not isinstance(family, Gaussian):
            raise ValueError("WorstArmProblem: the mirror argument needs Gaussian arms")
        self._best = BestArmProblem(n_arms, family, regime, batch)  # the math on -mu
        self.n_arms = n_arms

    @property
    def n_sources(self) -> int:
        return self.n_arms

    def answer(self, means) -> int:
        return int(np.argmin(self.check_means(means)))

    def answer_mask(self, means) -> np.ndarray:
        return self._best.answer_mask(-np.asarray(means, dtype=float))

    def glr(self, counts, means) -> float:
        return self._best.glr(counts, -np.asarray(means, dtype=float))

    def oracle(self, means, hint=None):
        return self._best.oracle(-self.check_means(means), hint)

    def oracle_hint(self, exact=True):
        return self._best.oracle_hint(exact)

    def alt_gradient(self, means, w, out=None):
        return self._best.alt_gradient(-np.asarray(means, dtype=float), w, out)

    def is_correct(self, answer, means) -> bool:
        means = self.check_means(means)
        return 0 <= int(answer) < self.n_arms and bool(means[int(answer)] == means.min())


@register
class WorstArmTrackAndStop(TrackAndStop):
    """Track-and-Stop on the worst-arm goal: the tracking and stopping machinery is unchanged."""

    name = "tas-worst"
    goals = ("worst-arm",)


# experiment files: [problem] goal = "worst-arm" with [environment] kind = "gaussian"
register_goal("worst-arm", {"gaussian": WorstArmProblem})


def instance(regime, batch=None):
    """(environment, problem) for the common checks: the worst arm is arm 3."""
    env = GaussianEnvironment([1.0, 0.7, 0.6, 0.0])
    return env, WorstArmProblem(env.n_sources, env.family(), regime, batch)
