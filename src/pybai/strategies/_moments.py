"""Per-arm sums of squared rewards (the learner's units), for rules with plug-in variances.

``mixture-sprt`` estimates each arm's variance from the rewards themselves, whatever the family:
the maximum-likelihood variance S2 / N - mean^2 (p_hat (1 - p_hat) for 0/1 rewards), with N, the
mean and the sum S from the model and S2 kept by the rule.  Rewards are taken in the learner's
units (:meth:`~pybai.models.families.Family.learner_means`: bounded rewards rescaled to [0, 1], the
others as told), the units of the model's sums.  The compiled loops update the same array with
:func:`add_square`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai.strategies._views import StateArray

__all__ = ["SquareSums", "add_square", "plugin_variance"]


@njit(cache=True)
def add_square(square_sums, a, y):
    """Add the square of reward ``y`` (learner's units) of arm ``a``."""
    square_sums[a] += y * y


@njit(cache=True)
def plugin_variance(count, reward_sum, square_sum):
    """The maximum-likelihood variance of an arm's rewards, S2 / N - (S / N)^2 (0 without samples, never negative)."""
    if count <= 0.0:
        return 0.0
    mean = reward_sum / count
    return max(square_sum / count - mean * mean, 0.0)


class SquareSums:
    """Mixin of a :class:`~pybai.strategies.base.Strategy`: ``square_sums_`` per arm, in the learner's units.

    A rule calls :meth:`_init_squares` in its ``_initialize`` and lists ``"square_sums_"`` in its
    ``_state_attrs``; :meth:`_observe` adds every told reward's square.
    """

    square_sums_ = StateArray()

    def _init_squares(self, n: int) -> None:
        self._square_sums_ = np.zeros(n)

    def _observe(self, sources, rewards) -> None:
        learner = self.problem_.family.learner_means(rewards)  # type: ignore[attr-defined]
        for a, y in zip(sources.tolist(), learner.tolist()):
            add_square(self._square_sums_, a, y)
