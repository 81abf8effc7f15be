"""Bounded simulated truths beyond Beta: uniform rewards on an interval and two-point rewards.

Both keep their rewards in [0, 1]; their family is :class:`~pybai.models.bounded.Bounded` on
[0, 1] (KL_inf statistic).  Two-point laws with points near 0 and 1 are the hardest for the
sub-Bernoulli bounds (a law on {0, 1} is the Bernoulli one they are built on).
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, fail
from pybai.environments.base import Environment
from pybai.models.bounded import Bounded

__all__ = ["UniformEnvironment", "TwoPointEnvironment"]


class _UnitInterval(Environment):
    def family(self):
        return Bounded(self.n_sources, 0.0, 1.0, "kl-inf")


class UniformEnvironment(_UnitInterval):
    """Arm k's rewards are uniform on [lows[k], highs[k]] within [0, 1].

    Examples
    --------
    >>> UniformEnvironment([0.0, 0.2], [1.0, 0.4]).source_means.tolist()
    [0.5, 0.30000000000000004]
    """

    kind = "uniform"

    def __init__(self, lows, highs):
        self.lows = check_array(lows, "lows", "UniformEnvironment", ndim=1, low=0.0, high=1.0, min_size=2)
        self.highs = check_array(highs, "highs", "UniformEnvironment", ndim=1, low=0.0, high=1.0,
                                 shape=self.lows.shape)
        if (self.highs < self.lows).any():
            raise fail("highs", "UniformEnvironment", "highs >= lows arm by arm", self.highs.tolist())

    @property
    def source_means(self):
        return 0.5 * (self.lows + self.highs)

    @property
    def reward_variances(self):
        return (self.highs - self.lows) ** 2 / 12.0

    def _sample(self, sources, rng):
        return self.lows[sources] + (self.highs[sources] - self.lows[sources]) * rng.random(len(sources))


class TwoPointEnvironment(_UnitInterval):
    """Arm k's reward is ``highs[k]`` with probability p_k, else ``lows[k]``, of mean ``means[k]``.

    Examples
    --------
    >>> env = TwoPointEnvironment([0.1, 0.0], [0.9, 1.0], [0.5, 0.3])
    >>> env.p.round(3).tolist()
    [0.5, 0.3]
    """

    kind = "two-point"

    def __init__(self, lows, highs, means):
        owner = "TwoPointEnvironment"
        self.lows = check_array(lows, "lows", owner, ndim=1, low=0.0, high=1.0, min_size=2)
        self.highs = check_array(highs, "highs", owner, ndim=1, low=0.0, high=1.0, shape=self.lows.shape)
        self.means = check_array(means, "means", owner, ndim=1, shape=self.lows.shape)
        if not ((self.lows < self.highs).all() and (self.lows <= self.means).all()
                and (self.means <= self.highs).all()):
            raise fail("means", owner, "lows < highs and means between them, arm by arm", self.means.tolist())
        self.p = (self.means - self.lows) / (self.highs - self.lows)

    @property
    def source_means(self):
        return self.means

    @property
    def reward_variances(self):
        return self.p * (1.0 - self.p) * (self.highs - self.lows) ** 2

    def _sample(self, sources, rng):
        up = rng.random(len(sources)) < self.p[sources]
        return np.where(up, self.highs[sources], self.lows[sources])
