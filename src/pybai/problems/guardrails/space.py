"""Requests of a guardrail problem: the learner picks an arm, the observation carries every metric.

Sources are the (arm, metric) pairs, flattened ``k * M + m`` (``source_shape = (K, M)``); a
request is an arm, answered by one observation: the M sources of that arm, in metric order.
A sample is an observation (not a metric reading): the strategy counts one per request answered.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pybai.exceptions import RequestError
from pybai.models.base import EmpiricalMeans
from pybai.problems.requests import RequestSpace

__all__ = ["MetricSpace", "MetricMeans"]


class MetricSpace(RequestSpace):
    """Arms as requests over a K x M grid of (arm, metric) sources.

    Parameters
    ----------
    n_arms, n_metrics : int
    names : sequence of str
        The metrics' names (for the message of an incomplete observation).
    binary : sequence of bool, optional
        Per metric, whether its rewards are 0 or 1 (a Bernoulli metric).
    """

    identity = False

    def __init__(self, n_arms: int, n_metrics: int, names=(), binary=None):
        super().__init__(n_arms * n_metrics)
        self.n_arms, self.n_metrics = n_arms, n_metrics
        self._binary = np.tile(np.zeros(n_metrics, dtype=np.bool_) if binary is None else
                               np.asarray(binary, dtype=np.bool_), n_arms)
        self.observation_size = n_metrics  # an observation reads every metric of its arm
        self.names = tuple(names)
        self.observation_names = self.names

    @property
    def n_requests(self) -> int:
        return self.n_arms

    @property
    def source_shape(self) -> tuple[int, int]:
        return (self.n_arms, self.n_metrics)

    def counts(self, counts):
        """Observations per arm: the count of its objective (every observation carries every metric)."""
        return np.asarray(counts, dtype=float).reshape(self.source_shape)[:, 0]

    def weights(self, weights):
        return np.asarray(weights, dtype=float).reshape(self.source_shape).sum(axis=1)

    def expand(self, weights):
        return np.repeat(np.asarray(weights, dtype=float), self.n_metrics) / self.n_metrics

    def gains(self, gains):
        """One request observes every metric of its arm: the sum of its sources' gains."""
        return np.asarray(gains, dtype=float).reshape(self.source_shape).sum(axis=1)

    def request_of(self, sources):
        """The arm of each source."""
        return np.asarray(sources) // self.n_metrics

    def answered(self, sources: np.ndarray) -> np.ndarray:
        """The arms answered by ``sources``: complete observations, each the M sources of one arm in order.

        Raises :class:`~pybai.exceptions.RequestError` naming the metric missing from an observation.
        """
        M = self.n_metrics
        src = np.asarray(sources)
        if M == 1:
            return src
        if src.shape[0] == M:  # one observation (the usual answer): its arm's sources in order
            first = int(src[0])
            if first % M == 0 and src.tolist() == list(range(first, first + M)):
                return src[:1] // M
        ok = src.shape[0] % M == 0
        if ok:
            rows = src.reshape(-1, M)
            ok = bool(np.all(rows % M == np.arange(M)) and np.all(rows // M == (rows[:, :1] // M)))
        if not ok:
            if src.shape[0] % M:
                seen = np.bincount(src % M, minlength=M)
                m = int(np.argmin(seen))
                what = f"metric '{self.names[m] if m < len(self.names) else m}' is missing"
            else:
                what = "the metrics are not in the arm's order"
            raise RequestError(f"the answer is not complete observations: {what} (an observation gives every metric "
                               f"of its arm, in order); got sources {src.tolist()[:12]}.")
        return rows[:, 0] // M


    def check_rewards(self, sources: np.ndarray, rewards: np.ndarray) -> str | None:
        """A Bernoulli metric's reward that is not 0 or 1, in words (None when every reward is fine)."""
        i = _first_not_binary(self._binary, sources, rewards)
        if i < 0:
            return None
        name = self.names[int(sources[i]) % self.n_metrics] if self.names else str(int(sources[i]) % self.n_metrics)
        return (f"The 'rewards' parameter of tell must be 0 or 1 for a Bernoulli metric: metric '{name}' takes "
                f"rewards 0 or 1. Got {float(rewards[i])!r}.")


class MetricMeans(EmpiricalMeans):
    """Empirical means of the (arm, metric) sources that refuse a reward outside its metric's range.

    (A Bernoulli metric's rewards, 0 or 1, are checked on the answers told, by
    :meth:`MetricSpace.check_rewards`: the model also takes the believer's updates at the current
    means, which are fractions.)

    Parameters
    ----------
    n_sources : int
    low, high : ndarray of shape (n_sources,)
        The support of each source's rewards (``-inf``/``inf`` for Gaussian metrics).
    names : sequence of str
        The name of each source's metric (for the message).
    """

    def __init__(self, n_sources: int, low: np.ndarray, high: np.ndarray, names=()):
        super().__init__(n_sources)
        self._low, self._high, self._names = low, high, tuple(names)

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """:meth:`EmpiricalMeans.update <pybai.models.base.EmpiricalMeans.update>` (the same sums, in the same
        order), after checking every reward against its metric's range (nothing recorded when one is outside)."""
        i = _checked_update(self.counts, self.sums, self.estimate, np.asarray(sources),
                            np.asarray(rewards, dtype=float), self._low, self._high)
        if i >= 0:
            s = int(sources[i])
            name = self._names[s] if self._names else str(s)
            raise RequestError(f"The 'rewards' parameter of tell must lie in the range of their metric: "
                               f"metric '{name}' takes rewards in [{self._low[s]:g}, {self._high[s]:g}]. "
                               f"Got {float(rewards[i])!r}.")


@njit(cache=True)
def _first_not_binary(binary, sources, rewards):
    """The first reward of a binary source that is not 0 or 1, or -1."""
    for i in range(sources.shape[0]):
        r = rewards[i]
        if binary[sources[i]] and r != 0.0 and r != 1.0:
            return i
    return -1


@njit(cache=True)
def _checked_update(counts, sums, est, sources, rewards, low, high):
    """The first reward outside its source's [low, high] (nothing changed), or -1 after adding every reward to its
    source's count and sum in order (as ``np.add.at``) and setting the mean of each source touched."""
    n = sources.shape[0]
    for i in range(n):
        s = sources[i]
        if not (rewards[i] >= low[s] and rewards[i] <= high[s]):
            return i
    for i in range(n):
        s = sources[i]
        counts[s] += 1.0
        sums[s] += rewards[i]
    for i in range(n):
        s = sources[i]
        est[s] = sums[s] / counts[s]
    return -1
