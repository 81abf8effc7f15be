"""Correlated Gaussian arms: the truth is a mean vector under a Gaussian prior N(m0, eta^2 G).

The environment of Hoffman, Shahriari and de Freitas (2014): rewards ``N(mu_k, sigma^2)`` with
known noise, and a learner who knows the prior ``N(prior_mean, eta^2 G)`` over the mean vector
(``G`` a covariance over the arms, given directly or by a kernel over points) but never the
truth ``mu``.  The truth is either fixed (``means``), drawn from the prior in every replication
(``draw = "prior"``), or one row of a table of truths (``truths``; e.g. one held-out day of data
per run, as in section 6.1 of the paper).
"""

from __future__ import annotations

import copy

import numpy as np

from pybai._validation import check_array, check_noise_scale, check_positive_float, fail
from pybai.environments.base import Environment
from pybai.models.families import Gaussian
from pybai.models.kernels import check_prior_mean, check_covariance, feature_matrix, kernel_covariance

__all__ = ["CorrelatedGaussianEnvironment"]

_OWNER = "CorrelatedGaussianEnvironment"


class CorrelatedGaussianEnvironment(Environment):
    """Gaussian arms whose means are correlated through a known prior.

    Parameters
    ----------
    means : array-like of shape (K,), optional
        The truth.  Omit it with ``draw = "prior"`` or ``truths``.
    covariance : array-like of shape (K, K), optional
        Prior correlation structure G (positive semi-definite; see
        :func:`pybai.models.kernels.check_covariance`).  Exactly one of ``covariance`` and
        ``kernel``.
    kernel : mapping, optional
        ``{"name": "rbf", "lengthscale": 1.0, "points": [...]}`` (see
        :func:`pybai.models.kernels.kernel_covariance`).
    sigma : float > 0, default 1.0
        Noise standard deviation of every reward (known to the learner).
    eta : float > 0, default 1.0
        Prior scale: the prior covariance of the means is ``eta^2 G``.
    prior_mean : float or array-like of shape (K,), default 0.0
    draw : {"prior"}, optional
        ``"prior"``: :meth:`realize` draws a new truth from ``N(prior_mean, eta^2 G)``.
    truths : array-like of shape (M, K), optional
        Candidate truths: :meth:`realize` picks one row (row ``replication % M`` when a
        replication index is given, else a row drawn uniformly with the generator).
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> import numpy as np
    >>> env = CorrelatedGaussianEnvironment(kernel={"name": "rbf", "points": [0, 1, 2]}, draw="prior")
    >>> truth = env.realize(np.random.default_rng(0))
    >>> truth.source_means.shape
    (3,)
    """

    kind = "correlated-gaussian"

    def __init__(self, means=None, *, covariance=None, kernel=None, sigma=1.0, eta=1.0, prior_mean=0.0,
                 draw=None, truths=None, labels=None):
        if (covariance is None) == (kernel is None):
            raise fail("covariance", _OWNER, "given, or else 'kernel' (exactly one of the two)",
                       "both" if covariance is not None else None)
        if means is not None:
            n_hint = np.asarray(means, dtype=object).reshape(-1).shape[0]
        else:
            n_hint = None
        if kernel is not None:
            self.covariance = check_covariance(kernel_covariance(kernel, n_hint, owner=_OWNER), "kernel", _OWNER)
        else:
            self.covariance = check_covariance(covariance, "covariance", _OWNER)
        n = self.covariance.shape[0]
        self.sigma = check_positive_float(sigma, "sigma", _OWNER)
        self.eta = check_positive_float(eta, "eta", _OWNER)
        self.prior_mean = check_prior_mean(prior_mean, n, _OWNER)
        if draw is not None and draw != "prior":
            raise fail("draw", _OWNER, "'prior' (a new truth from the prior in each replication)", draw)
        given = [k for k, v in (("means", means), ("draw", draw), ("truths", truths)) if v is not None]
        if len(given) != 1:
            raise fail("means", _OWNER, "given (K numbers), or else draw = 'prior' or 'truths' (exactly one)",
                       ", ".join(given) or None)
        self.draw = draw
        self.means = None if means is None else check_array(means, "means", _OWNER, shape=(n,))
        self.truths = None if truths is None else check_array(truths, "truths", _OWNER, shape=(None, n))
        check_noise_scale(self.sigma, self.means, "sigma", _OWNER)
        self._features: np.ndarray | None = None
        self._set_labels(labels, n)

    # ------------------------------------------------------------------ truth
    @property
    def n_sources(self) -> int:
        return int(self.covariance.shape[0])

    @property
    def source_means(self) -> np.ndarray:
        if self.means is None:
            raise fail("means", _OWNER, "realised first (call realize(rng): the truth is drawn per replication)",
                       None)
        return self.means

    def realize(self, rng: np.random.Generator, replication: int | None = None) -> "CorrelatedGaussianEnvironment":
        """The truth of one replication: self when ``means`` is fixed, else a copy with drawn means.

        ``draw = "prior"``: ``means = prior_mean + eta X z`` with ``X X^T = G`` and z standard
        normal (drawn with ``rng``).  ``truths``: row ``replication % M``, or a uniform row.
        """
        if self.means is not None:
            return self
        if self.truths is not None:
            row = int(rng.integers(self.truths.shape[0])) if replication is None else replication % self.truths.shape[0]
            means = self.truths[row].copy()
        else:
            if self._features is None:
                self._features = feature_matrix(self.covariance, owner=_OWNER)
            means = self.prior_mean + self.eta * (self._features @ rng.standard_normal(self._features.shape[1]))
        out = copy.copy(self)
        out.means, out.draw, out.truths = means, None, None
        return out

    # --------------------------------------------------------------- learner
    def family(self) -> Gaussian:
        return Gaussian(self.sigma, n_sources=self.n_sources)

    def structure(self) -> dict:
        """What the learner knows: the prior (covariance G, eta, prior mean) and the noise sigma."""
        return self._with_labels({
            "n_arms": self.n_sources,
            "family": self.family(),
            "covariance": self.covariance,
            "sigma": self.sigma,
            "eta": self.eta,
            "prior_mean": self.prior_mean,
        })

    def _sample(self, sources, rng):
        means = self.source_means
        return means[sources] + self.sigma * rng.standard_normal(len(sources))
