"""Arms whose reward is the mean of ``trials`` Bernoulli observations (section 5.3 of Jun et al. 2016)."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_positive_int
from pybai.environments.base import Environment
from pybai.models.binomial import Binomial

__all__ = ["BinomialEnvironment"]


class BinomialEnvironment(Environment):
    """Arms with rewards Binomial(trials, means[a]) / trials, in [0, 1].

    One pull observes ``trials`` independent Bernoulli(means[a]) indicators and returns their
    mean (the Twitter experiment of Jun, Jamieson, Nowak & Zhu 2016: a user followed in one
    5-minute interval of each of 24 hours, ``trials = 24``).  The draws are vectorised: one
    ``Generator.binomial`` call per request.

    Parameters
    ----------
    means : array-like of shape (K,), values in [0, 1]
    trials : int >= 1, default 1
        Bernoulli observations per reward (1: Bernoulli rewards, as ``kind = "bernoulli"``,
        though drawn differently).
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> import numpy as np
    >>> env = BinomialEnvironment([0.5, 0.1], trials=24)
    >>> r = env.sample(np.array([0, 0, 1]), np.random.default_rng(0))
    >>> bool(np.all(np.abs(r * 24 - np.round(r * 24)) < 1e-12)), env.reward_variances.round(4).tolist()
    (True, [0.0104, 0.0038])
    """

    kind = "binomial"

    def __init__(self, means, trials: int = 1, *, labels=None):
        self.means = check_array(means, "means", "BinomialEnvironment", ndim=1, low=0.0, high=1.0, min_size=2)
        self.trials = check_positive_int(trials, "trials", "BinomialEnvironment")
        self._set_labels(labels, self.means.size)

    @property
    def source_means(self):
        return self.means

    @property
    def reward_variances(self) -> np.ndarray:
        """The variance of each arm's rewards, p (1 - p) / trials."""
        return self.means * (1.0 - self.means) / self.trials

    def family(self):
        """:class:`~pybai.models.binomial.Binomial` with the environment's ``trials``."""
        return Binomial(n_sources=self.means.size, trials=self.trials)

    def _sample(self, sources, rng):
        return rng.binomial(self.trials, self.means[sources]) / self.trials
