"""Gaussian arms x subpopulations: the hidden truth of the BAICS problem."""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_choice, check_noise_scale, check_weights, fail
from pybai.environments.base import Environment
from pybai.models.families import Gaussian
from pybai.problems.feasible.cells import SAMPLING_MODELS
from pybai.problems.feasible.problem import check_constrained, check_floor

__all__ = ["SubpopulationGaussianEnvironment"]


class SubpopulationGaussianEnvironment(Environment):
    """K arms x L subpopulations with rewards N(means[k, l], sigma[k, l]^2).

    Sources are the cells (k, l), flattened row-major: ``source = k * L + l``.

    Parameters
    ----------
    means : array-like of shape (K, L)
        Mean reward of each arm in each subpopulation (the hidden truth).
    weights : array-like of shape (L,)
        Importance q of each subpopulation (> 0); also the arrival probabilities
        (normalised) in the ``"arm"`` sampling model.
    constrained : sequence of int, optional
        0-based indices of the constrained subpopulations (default: all).
    floor : float or array-like, default 0.0
        One floor for every constrained subpopulation, or one per constrained subpopulation
        (in the order of ``constrained``).
    sigma : float or array-like of shape (K, L), default 1.0
        Known noise standard deviation(s).
    sampling : {"pair", "arm"}, default "pair"
        ``"pair"``: a request is a cell.  ``"arm"``: a request is an arm, and
        :meth:`respond` draws the subpopulation l ~ q of each request.
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> import numpy as np
    >>> env = SubpopulationGaussianEnvironment([[0.0, 1.0], [1.0, -1.0]], [0.5, 0.5], sampling="arm")
    >>> sources, rewards = env.respond(np.array([1, 1, 1]), np.random.default_rng(0))
    >>> bool(np.all(sources // 2 == 1))
    True
    """

    kind = "subpopulation-gaussian"

    def __init__(self, means, weights, constrained=None, floor=0.0, sigma=1.0, sampling="pair", *, labels=None):
        owner = type(self).__name__
        self.means = check_array(means, "means", owner, ndim=2)
        K, L = self.means.shape
        q = check_array(weights, "weights", owner, shape=(L,), low=0.0, strict_low=True)
        self.weights = check_weights(q, "weights", owner)
        self.constrained = check_constrained(constrained, L, owner)
        self.floor = check_floor(floor, self.constrained, L, owner)
        sig = check_array(sigma, "sigma", owner, low=0.0, strict_low=True)
        if sig.ndim == 0:
            sig = np.full((K, L), float(sig))
        if sig.shape != (K, L):
            raise fail("sigma", owner, f"a number or a {K} x {L} matrix", f"shape {sig.shape}")
        self.sigma = check_noise_scale(sig, self.means, "sigma", owner)
        self.sampling = check_choice(sampling, SAMPLING_MODELS, "sampling", owner)
        if K == 1 and not self.constrained:
            raise fail("means", owner, "at least 2 arms (rows) when no subpopulation is constrained", K)
        self._flat_means = self.means.ravel()
        self._flat_sigma = self.sigma.ravel()
        self._cum_q = np.cumsum(self.weights)
        self._cum_q[-1] = 1.0
        self._set_labels(labels, K)

    @property
    def shape(self) -> tuple[int, int]:
        return self.means.shape

    @property
    def source_means(self) -> np.ndarray:
        return self._flat_means

    def family(self) -> Gaussian:
        return Gaussian(self._flat_sigma, n_sources=self._flat_means.size)

    def _sample(self, sources, rng):
        sources = np.asarray(sources)
        return self._flat_means[sources] + self._flat_sigma[sources] * rng.standard_normal(sources.shape[0])

    def draw_subpopulations(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent subpopulations drawn with probabilities q."""
        return np.searchsorted(self._cum_q, rng.random(n), side="right")

    def respond(self, requests, rng):
        """Answer ``requests``: cells (``"pair"``) or arms whose subpopulation arrives at random.

        In the ``"arm"`` model each request k is answered from cell (k, l) with l ~ q
        (drawn first, then the rewards, both with ``rng``); the observed cells are returned.
        """
        requests = np.asarray(requests)
        if self.sampling == "pair":
            return requests, self._sample(requests, rng)
        L = self.means.shape[1]
        sources = requests * L + self.draw_subpopulations(requests.shape[0], rng)
        return sources, self._sample(sources, rng)

    def structure(self) -> dict:
        """The :class:`~pybai.problems.feasible.problem.FeasibleArmProblem` keyword arguments."""
        K, L = self.means.shape
        return self._with_labels({
            "n_arms": K,
            "n_subpopulations": L,
            "weights": self.weights.copy(),
            "constrained": list(self.constrained),
            "floor": np.array([self.floor[l] for l in self.constrained]),
            "family": self.family(),
            "sampling": self.sampling,
        })
