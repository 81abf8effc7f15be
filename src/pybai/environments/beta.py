"""Arms with Beta-distributed rewards on [0, 1] (a bounded simulated truth)."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, fail
from pybai.environments.base import Environment
from pybai.models.bounded import Bounded

__all__ = ["BetaEnvironment"]


class BetaEnvironment(Environment):
    """Arms with rewards Beta(a_k, b_k), given by their means and standard deviations.

    With mean m and standard deviation s (s^2 < m (1 - m)), a + b = m (1 - m) / s^2 - 1,
    a = m (a + b), b = (1 - m)(a + b).

    Parameters
    ----------
    means : array-like of shape (K,), values in (0, 1)
    sd : float or array-like of shape (K,), > 0
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> env = BetaEnvironment([0.5, 0.4], 0.05)
    >>> env.a.round(2).tolist(), env.b.round(2).tolist()
    ([49.5, 38.0], [49.5, 57.0])
    """

    kind = "beta"

    def __init__(self, means, sd=0.1, *, labels=None):
        owner = "BetaEnvironment"
        self.means = check_array(means, "means", owner, ndim=1, low=0.0, high=1.0, min_size=2)
        if ((self.means <= 0.0) | (self.means >= 1.0)).any():
            raise fail("means", owner, "numbers strictly between 0 and 1", self.means.tolist())
        sd = check_array(sd, "sd", owner, low=0.0, strict_low=True)
        if sd.ndim == 0:
            sd = np.full(self.means.shape, float(sd))
        if sd.shape != self.means.shape:
            raise fail("sd", owner, f"a number or a list of {self.means.size} numbers", f"shape {sd.shape}")
        cap = self.means * (1.0 - self.means)
        bad = np.flatnonzero(sd**2 >= cap)
        if bad.size:
            k = int(bad[0])
            raise fail("sd", owner, f"sd^2 < mean (1 - mean) for every arm (arm {k}: mean {self.means[k]:g} "
                       f"allows sd < {np.sqrt(cap[k]):.6g})", float(sd[k]))
        self.sd = sd
        total = cap / sd**2 - 1.0
        self.a = self.means * total
        self.b = (1.0 - self.means) * total
        self._set_labels(labels, self.means.size)

    @property
    def source_means(self):
        return self.means

    @property
    def reward_variances(self) -> np.ndarray:
        """The variance of each arm's rewards, sd^2."""
        return self.sd**2

    def family(self):
        """Bounded rewards on [0, 1] with the KL_inf statistic (a reward_model may choose another)."""
        return Bounded(self.means.size, 0.0, 1.0, "kl-inf")

    def _sample(self, sources, rng):
        return rng.beta(self.a[sources], self.b[sources])
