"""Per-arm sums and sums of squares of the rewards as told (the users' units), for rules with plug-in variances.

The practitioners' baselines (``mixture-sprt``, ``thompson-pbest``) estimate each arm's variance
from the rewards themselves, whatever the family: the maximum-likelihood variance
S2 / N - (S / N)^2, which for 0/1 rewards is p_hat (1 - p_hat).  The mixin keeps the two sums in
the rule's state; the compiled loops update the same arrays with :func:`add_reward`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai.strategies._views import StateArray

__all__ = ["RewardMoments", "add_reward", "plugin_variance"]


@njit(cache=True)
def add_reward(reward_sums, square_sums, a, r):
    """Add reward ``r`` of arm ``a`` to its sum and its sum of squares."""
    reward_sums[a] += r
    square_sums[a] += r * r


@njit(cache=True)
def plugin_variance(count, reward_sum, square_sum):
    """The maximum-likelihood variance of an arm's rewards, S2 / N - (S / N)^2 (0 without samples, never negative)."""
    if count <= 0.0:
        return 0.0
    mean = reward_sum / count
    return max(square_sum / count - mean * mean, 0.0)


class RewardMoments:
    """Mixin of a :class:`~pybai.strategies.base.Strategy`: ``reward_sums_`` and ``square_sums_`` per arm.

    A rule calls :meth:`_init_moments` in its ``_initialize`` and lists ``"reward_sums_"`` and
    ``"square_sums_"`` in its ``_state_attrs``; :meth:`_observe` adds every told reward.
    """

    reward_sums_ = StateArray()
    square_sums_ = StateArray()

    def _init_moments(self, n: int) -> None:
        self._reward_sums_ = np.zeros(n)
        self._square_sums_ = np.zeros(n)

    def _observe(self, sources, rewards) -> None:
        for a, r in zip(sources.tolist(), rewards.tolist()):
            add_reward(self._reward_sums_, self._square_sums_, a, r)
