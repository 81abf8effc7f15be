"""Gaussian posterior over correlated arm means (Hoffman, Shahriari and de Freitas 2014, section 4).

Model (Eq. 3): a reward of arm k is ``N(mu_k, sigma^2)`` with known noise ``sigma`` and

    mu = m0 + X theta,    theta ~ N(0, eta^2 I_d),    X = V D^(1/2),  G = V D V^T,

so the prior over the means is ``N(m0, eta^2 G)``.  After samples with per-arm counts ``N`` and
reward sums ``S`` the posterior of theta is ``N(theta_hat, Sigma_hat)`` with (Eqs. 4-5)

    Sigma_hat^{-1} = sigma^{-2} X^T diag(N) X + eta^{-2} I,
    theta_hat      = sigma^{-2} Sigma_hat X^T (S - N m0),

and the arm means are jointly Gaussian with mean ``m0 + X theta_hat`` and covariance
``X Sigma_hat X^T``.  (The paper writes Eqs. 4-5 with a zero prior mean; a prior mean m0 just
shifts every reward by ``m0[a]``.)

Numerics
--------
The posterior covariance of the means is kept in square-root form ``P = R R^T`` with R of
shape (K, d), d = rank of G.  One sample of arm a is a rank-one Kalman update in Potter's
square-root form: with ``f = R[a]``, ``h = R f = P[:, a]``, ``alpha = 1 / (|f|^2 + sigma^2)``
and ``gamma = 1 / (1 + sqrt(alpha sigma^2))``,

    mean += alpha h (y - mean[a]),      R -= alpha gamma h f^T,

which costs O(K d) (one fused numba pass, :mod:`._posterior_kernels`) and keeps P = R R^T
positive semi-definite by construction (no inverse is
propagated).  Every ``refresh_every`` samples (and whenever a batch is larger than d) the state
is rebuilt exactly from the sufficient statistics (counts, sums) by a Cholesky factorisation of
the d x d precision of Eq. 4, O(K d^2), which bounds any accumulated rounding.

Examples
--------
>>> import numpy as np
>>> post = GaussianPosterior(np.eye(2), sigma=1.0, eta=1.0)
>>> post.update(np.array([0]), np.array([2.0]))
>>> post.estimate.round(6).tolist(), post.std.round(6).tolist()
([1.0, 0.0], [0.707107, 1.0])
"""

from __future__ import annotations

import math

import numpy as np
import copy

from scipy.linalg import cho_solve, solve_triangular

from pybai._validation import check_array, check_positive_float, check_positive_int, fail
from pybai.models._posterior_kernels import potter_update
from pybai.models.base import Model
from pybai.models.kernels import check_prior_mean, check_covariance, feature_matrix

__all__ = ["GaussianPosterior"]

_OWNER = "GaussianPosterior"


class GaussianPosterior(Model):
    """Posterior of correlated Gaussian arm means under the prior N(prior_mean, eta^2 covariance).

    A :class:`pybai.models.base.Model` (``counts``, ``sums``, ``estimate``, ``update``,
    ``set_statistics``, ``from_statistics``) that adds ``covariance``, ``std``, ``root``,
    ``features``, :meth:`kappa` and :meth:`sample`.  Its saved state (``state_attrs``) holds the
    incremental square-root factor and the refresh counter as well as the statistics, so a
    restored posterior continues bit for bit (a rebuild from (counts, sums) alone would differ
    in the last bits from the Potter updates).

    Parameters
    ----------
    covariance : array-like of shape (K, K)
        The prior correlation structure G (validated by
        :func:`pybai.models.kernels.check_covariance`).
    sigma : float > 0
        Known noise standard deviation of every reward.
    eta : float > 0, default 1.0
        Prior scale: the prior covariance of the means is ``eta^2 G``.
    prior_mean : float or array-like of shape (K,), default 0.0
        Prior mean of the arm means.
    refresh_every : int, optional
        Rebuild the state exactly from (counts, sums) after this many rank-one updates.
        Default ``max(10 * d, 100)`` (amortised cost O(K d) per sample, like an update).

    Attributes
    ----------
    counts, sums : ndarray of shape (K,)
        Samples and reward sums per arm (the state).
    estimate : ndarray of shape (K,)
        Posterior mean of every arm mean (defined from the start: the prior mean).
    features : ndarray of shape (K, d)
        ``X = V D^(1/2)`` (``X X^T = G``).
    """

    #: everything needed to continue exactly after a restore (arrays are restored in place)
    state_attrs = ("counts", "sums", "estimate", "_root", "_variance", "_since_refresh")

    def __init__(self, covariance, sigma, eta=1.0, prior_mean=0.0, *, refresh_every=None):
        self.prior_covariance = check_covariance(covariance, "covariance", _OWNER)
        n = self.prior_covariance.shape[0]
        self.sigma = check_positive_float(sigma, "sigma", _OWNER)
        self.eta = check_positive_float(eta, "eta", _OWNER)
        self.prior_mean = check_prior_mean(prior_mean, n, _OWNER)
        self.features = feature_matrix(self.prior_covariance, name="covariance", owner=_OWNER)
        d = self.features.shape[1]
        if refresh_every is None:
            refresh_every = max(10 * d, 100)
        self.refresh_every = check_positive_int(refresh_every, "refresh_every", _OWNER)
        self._reset()

    def _reset(self) -> None:
        """No data: the prior (``P = R R^T = eta^2 X X^T = eta^2 G``)."""
        n = self.features.shape[0]
        self.counts = np.zeros(n)
        self.sums = np.zeros(n)
        self.estimate = self.prior_mean.copy()
        self._root = np.ascontiguousarray(self.eta * self.features)
        self._variance = np.einsum("kd,kd->k", self._root, self._root)
        self._since_refresh = 0
        self._cov_cache: np.ndarray | None = None

    def prior_copy(self) -> "GaussianPosterior":
        """A new posterior with the same prior and no data (no re-validation, no eigendecomposition)."""
        out = copy.copy(self)
        out._reset()
        return out

    # ------------------------------------------------------------------ state
    @property
    def n_sources(self) -> int:
        return self.counts.shape[0]

    @property
    def total(self) -> int:
        """Number of samples recorded."""
        return int(self.counts.sum())

    @classmethod
    def from_statistics(cls, covariance, sigma, counts, sums, *, eta=1.0, prior_mean=0.0, refresh_every=None):
        """Rebuild the posterior exactly from per-arm ``counts`` and reward ``sums``."""
        model = cls(covariance, sigma, eta, prior_mean, refresh_every=refresh_every)
        return model.set_statistics(counts, sums)

    def set_statistics(self, counts, sums) -> "GaussianPosterior":
        """Replace the statistics (in place: arrays keep their identity) and refresh exactly."""
        n = self.n_sources
        c = check_array(counts, "counts", _OWNER, shape=(n,), low=0.0)
        s = check_array(sums, "sums", _OWNER, shape=(n,))
        self.counts[:] = c
        self.sums[:] = s
        self._refresh()
        return self

    def _refresh(self) -> None:
        """Exact posterior from (counts, sums): Eqs. (4)-(5) by a Cholesky factorisation."""
        X = self.features
        d = X.shape[1]
        w = self.counts / self.sigma**2
        precision = (X.T * w) @ X  # sigma^-2 X^T diag(N) X
        precision[np.diag_indices(d)] += 1.0 / self.eta**2  # + eta^-2 I          (Eq. 4)
        upper = np.linalg.cholesky(precision).T  # precision = U^T U
        rhs = X.T @ ((self.sums - self.counts * self.prior_mean) / self.sigma**2)
        theta = cho_solve((upper, False), rhs)  # (Eq. 5)
        self.estimate[:] = self.prior_mean + X @ theta
        # Sigma_hat = U^-1 U^-T, so R = X U^-1 gives R R^T = X Sigma_hat X^T.
        self._root = np.ascontiguousarray(solve_triangular(upper, X.T, trans="T", lower=False).T)
        self._variance = np.einsum("kd,kd->k", self._root, self._root)
        self._since_refresh = 0
        self._cov_cache = None

    # ----------------------------------------------------------------- update
    def update(self, sources, rewards) -> None:
        """Record ``rewards`` observed for ``sources`` (int array, repeats allowed)."""
        src = np.asarray(sources, dtype=np.intp).reshape(-1)
        rew = np.asarray(rewards, dtype=float).reshape(-1)
        if src.shape != rew.shape:
            raise fail("rewards", _OWNER, f"one reward per source ({src.size})", f"{rew.size} rewards")
        n = self.n_sources
        if src.size == 1:  # the hot path of sequential strategies: scalar checks only
            a, y = int(src[0]), float(rew[0])
            if not 0 <= a < n:
                raise fail("sources", _OWNER, f"arm indices in [0, {n})", src)
            if not math.isfinite(y):
                raise fail("rewards", _OWNER, "finite numbers", rew)
            self.counts[a] += 1.0
            self.sums[a] += y
        else:
            if src.size and (src.min() < 0 or src.max() >= n):
                raise fail("sources", _OWNER, f"arm indices in [0, {n})", src)
            if not np.all(np.isfinite(rew)):
                raise fail("rewards", _OWNER, "finite numbers", rew)
            np.add.at(self.counts, src, 1.0)
            np.add.at(self.sums, src, rew)
        self._cov_cache = None
        if src.size > self.features.shape[1] or self._since_refresh + src.size >= self.refresh_every:
            self._refresh()
            return
        noise_var = self.sigma**2
        for a, y in zip(src.tolist(), rew.tolist()):
            potter_update(self._root, self.estimate, self._variance, a, y, noise_var)
        self._since_refresh += src.size

    @property
    def _since_refresh(self) -> int:
        """Rank-one updates since the last exact rebuild (part of the saved state)."""
        return self._updates

    @_since_refresh.setter
    def _since_refresh(self, value) -> None:
        # set on every reset, rebuild and state restore: the covariance cache is stale then
        self._updates = int(value)
        self._cov_cache = None

    # ----------------------------------------------------------------- output
    @property
    def root(self) -> np.ndarray:
        """Square root R (K x d) of the posterior covariance of the means: ``covariance = R R^T``."""
        return self._root

    @property
    def variance(self) -> np.ndarray:
        """Posterior variance of every arm mean, ``x_k^T Sigma_hat x_k`` (squared row norms of R; a copy)."""
        return self._variance.copy()

    @property
    def std(self) -> np.ndarray:
        """Posterior standard deviation of every arm mean (sqrt of the covariance diagonal)."""
        return np.sqrt(self._variance)

    @property
    def covariance(self) -> np.ndarray:
        """Posterior covariance of the arm means, ``X Sigma_hat X^T`` (K x K; cached, O(K^2 d))."""
        if self._cov_cache is None:
            self._cov_cache = self._root @ self._root.T
        return self._cov_cache

    def sample(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        """Joint draw(s) of the arm means from the posterior (O(K d) per draw).

        Returns shape (K,) when ``size`` is None, else (size, K).
        """
        d = self._root.shape[1]
        if size is None:
            return self.estimate + self._root @ rng.standard_normal(d)
        z = rng.standard_normal((size, d))
        return self.estimate + z @ self._root.T

    def kappa(self) -> float:
        """``kappa = sum_k ||x_k||^-2 = sum_k 1 / G_kk`` (below Eq. 9 of the paper)."""
        return float(np.sum(1.0 / np.diag(self.prior_covariance)))
