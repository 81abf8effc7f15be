"""Gaussian linear bandits: arm a gives x_a^T theta + N(0, sigma^2).

Documented behaviour on degenerate inputs (tested):

* features that do not span R^d (rank < d): refused, naming ``features`` (theta is then not
  identifiable and the best arm may not be either);
* duplicate arms (identical rows): accepted; they share their mean and count as one arm for
  identification (the answer is the lowest index of the group, see :mod:`pybai.problems.linear`);
* ties: an instance where two arms with *different* features share the largest mean
x^T theta (within 1e-12 relative) has no unique best arm; it is refused with
:class:`~pybai.exceptions.DegenerateInstanceError`.  Identical rows tied at the top are one arm
(see :mod:`pybai.problems.linear`) and are accepted.
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_array, check_positive_float, fail
from pybai.environments.base import Environment
from pybai.exceptions import DegenerateInstanceError
from pybai.models.families import Gaussian

__all__ = ["LinearGaussianEnvironment"]

#: Relative tolerance under which two means count as tied.
TIE_RTOL = 1e-12


class LinearGaussianEnvironment(Environment):
    """Arms with rewards N(x_a^T theta, sigma^2).

    Parameters
    ----------
    features : array-like (K, d)
        Arm features, K >= 2.
    theta : array-like (d,)
        Hidden parameter.
    sigma : float, default 1.0
        Noise standard deviation (> 0).
    labels : list of str, optional
        One distinct name per arm (:mod:`pybai.naming`).

    Examples
    --------
    >>> import numpy as np
    >>> env = LinearGaussianEnvironment(np.eye(2), [1.0, 0.5])
    >>> env.source_means.tolist(), sorted(env.structure())
    ([1.0, 0.5], ['features', 'sigma'])
    """

    kind = "linear-gaussian"

    def __init__(self, features, theta, sigma=1.0, *, labels=None):
        owner = "LinearGaussianEnvironment"
        self.features = check_array(features, "features", owner, ndim=2)
        k, d = self.features.shape
        if k < 2:
            raise fail("features", owner, "a matrix with at least 2 rows (one per arm)", features)
        theta = check_array(theta, "theta", owner, ndim=1)
        if theta.size != d:
            raise fail("theta", owner, f"of length {d} (the number of columns of 'features')", f"length {theta.size}")
        rank = int(np.linalg.matrix_rank(self.features))
        if rank < d:
            raise fail("features", owner, f"a matrix of full column rank {d} (the arms must span R^{d}; their rank is {rank})",
                       f"a {k} x {d} matrix")
        self.theta = theta
        self.sigma = check_positive_float(sigma, "sigma", owner)
        self.means = self.features @ theta
        self._set_labels(labels, k)
        top = int(np.argmax(self.means))
        scale = max(np.abs(self.means).max(), 1e-300)
        near = np.flatnonzero(self.means >= self.means[top] - TIE_RTOL * scale)
        distinct = [a for a in near if not np.array_equal(self.features[a], self.features[top])]
        if distinct:
            raise DegenerateInstanceError(
                f"The 'theta' parameter of {owner} gives arms {top} and {distinct[0]} (different features) "
                f"the same largest mean {self.means[top]:.6g}: the best arm is not unique."
            )

    @property
    def source_means(self) -> np.ndarray:
        return self.means

    def family(self) -> Gaussian:
        return Gaussian(self.sigma, n_sources=self.means.size)

    def _sample(self, sources, rng):
        return self.means[sources] + self.sigma * rng.standard_normal(len(sources))

    def structure(self) -> dict:
        """Keyword arguments of :class:`~pybai.problems.linear.LinearBestArmProblem`.

        What a learner knows: ``features`` and ``sigma`` (never theta: a reference strategy that
        needs the truth is told it by the simulation, :meth:`Strategy.reveal_truth`).
        """
        return self._with_labels({"features": self.features, "sigma": self.sigma})
