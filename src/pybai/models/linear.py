r"""Least-squares model of linear bandits: arms x_a in R^d, mean reward x_a^T theta.

Sufficient statistics are the per-arm counts N_a and reward sums S_a:
:math:`A = \sum_a N_a x_a x_a^\top` (the design matrix), :math:`b = \sum_a S_a x_a`, and the
least-squares estimate is :math:`\hat\theta = A^{-1} b` (Soare et al. 2014, section 2).

While A is singular (fewer samples than needed to span R^d) :math:`\hat\theta` is the
minimum-norm least-squares solution :math:`A^+ b` (what ``numpy.linalg.lstsq`` returns on the
stacked observations).  Only arms in the span of the sampled arms have an identified mean
(x^T theta is the same for every least-squares solution exactly when x lies in the range of
A); the others get ``estimate = NaN``, as the model layer requires (never a silent guess).

Once A is invertible, A^-1 is maintained by rank-one (Sherman-Morrison) updates, O(d^2) per
sample, and recomputed from the statistics every ``refresh_every`` updates so rounding errors
cannot accumulate.

Examples
--------
>>> import numpy as np
>>> m = LeastSquares(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
>>> m.update(np.array([0, 0]), np.array([1.0, 3.0]))
>>> m.estimate.tolist()   # arm 1 is outside the span of what was sampled
[2.0, nan, nan]
>>> m.update(np.array([1]), np.array([-1.0]))
>>> m.theta.tolist(), m.estimate.tolist()
([2.0, -1.0], [2.0, -1.0, 1.0])
"""

from __future__ import annotations

import math

import numpy as np

from pybai._validation import check_array, check_positive_int, fail

from pybai.models.base import Model

__all__ = ["LeastSquares"]

#: Relative eigenvalue under which A counts as singular.
SINGULAR_RTOL = 1e-10


def _finite_or_nan(value: float) -> float:
    """``value``, or NaN (unknown) when it left the float range."""
    return value if abs(value) < math.inf else math.nan


class LeastSquares(Model):
    """Ordinary least squares on known arm features.

    Parameters
    ----------
    features : array-like (K, d)
        Arm feature vectors (one row per source).
    refresh_every : int, default 1000
        Recompute A^-1 exactly after this many rank-one updates.

    Attributes
    ----------
    counts, sums : ndarray (K,)
        Samples and reward sums per arm.
    sq_devs : ndarray (K,)
        Per arm, the sum of squared deviations of its rewards about their mean (what the test of
        the model's fit reads, :mod:`pybai.problems.linear.fit`); NaN for an arm whose rewards are
        not known one by one (statistics set from counts and sums).
    design_matrix : ndarray (d, d)
        A = sum_a N_a x_a x_a^T.
    theta : ndarray (d,)
        Least-squares estimate (minimum-norm while A is singular).
    estimate : ndarray (K,)
        x_a^T theta; NaN for arms outside the span of the sampled arms.
    """

    #: the statistics plus the incrementally updated arrays, so a restored model continues
    #: bit-identically (A^-1 after rank-one steps differs in the last bits from a fresh inverse)
    state_attrs = ("counts", "sums", "estimate", "sq_devs", "design_matrix", "theta", "_b", "_inverse",
                   "_since_refresh")
    #: the arm whose GLR term was the smallest at the last full evaluation of the statistic: the
    #: stopping rule of :class:`~pybai.problems.linear.LinearBestArmProblem` checks it first (a
    #: hint for speed, not state: any value gives the same decisions)
    screen_arm = -1

    def __init__(self, features, refresh_every: int = 1000):
        self.features = check_array(features, "features", "LeastSquares", ndim=2)
        self.refresh_every = check_positive_int(refresh_every, "refresh_every", "LeastSquares")
        k, d = self.features.shape
        self.counts = np.zeros(k)
        self.sums = np.zeros(k)
        self.estimate = np.full(k, np.nan)
        self.sq_devs = np.zeros(k)
        self.design_matrix = np.zeros((d, d))
        self.theta = np.zeros(d)
        self._b = np.zeros(d)
        self._inverse: np.ndarray | None = None
        self._since_refresh = 0
        self._feature_norms = np.sqrt(np.add.reduce(self.features * self.features, axis=1))  # for _solve

    @classmethod
    def from_statistics(cls, features, counts, sums, **kwargs) -> "LeastSquares":
        """Rebuild the model from per-arm counts and reward sums."""
        model = cls(features, **kwargs)
        return model.set_statistics(counts, sums)

    def check_state(self) -> str | None:
        problem = super().check_state()
        if problem:
            return problem
        if not all(np.isfinite(a).all() for a in (self.design_matrix, self.theta, self._b)):
            return "design_matrix, theta and _b: expected finite numbers"
        devs = self.sq_devs
        if (devs < 0).any() or np.isinf(devs).any() or ((self.counts <= 1) & (devs != 0) & ~np.isnan(devs)).any():
            return "sq_devs: expected sums of squared deviations (>= 0, 0 below two samples, NaN where unknown)"
        d = self.n_features
        inv = self._inverse
        if inv is not None and not (isinstance(inv, np.ndarray) and inv.shape == (d, d) and np.isfinite(inv).all()):
            return f"_inverse: expected none or a finite {d} x {d} array"
        return None

    @property
    def inverse_design(self) -> np.ndarray | None:
        """A^-1 once A is invertible, else ``None`` (do not modify)."""
        return self._inverse

    @property
    def n_features(self) -> int:
        return self.features.shape[1]

    def variance_factors(self) -> np.ndarray:
        """Per arm, the variance of x_a^T theta_hat per unit noise variance: ||x_a||^2_{A^-1}."""
        x, inv = self.features, self.inverse_design
        inv = np.linalg.pinv(self.design_matrix) if inv is None else inv
        return np.einsum("ij,jk,ik->i", x, inv, x)

    def set_statistics(self, counts, sums) -> "LeastSquares":
        """Replace the statistics (in place) and recompute everything."""
        k = self.features.shape[0]
        counts = check_array(counts, "counts", "LeastSquares", shape=(k,), low=0.0)
        sums = check_array(sums, "sums", "LeastSquares", shape=(k,))
        self.counts[:] = counts
        self.sums[:] = sums
        self.sq_devs[:] = np.where(self.counts > 1, np.nan, 0.0)  # the rewards one by one are not known
        self._refresh()
        return self

    def update(self, sources, rewards) -> None:
        """Record ``rewards`` (float array) observed on arms ``sources`` (int array, repeats allowed)."""
        sources = np.asarray(sources, dtype=np.intp).reshape(-1)
        rewards = np.asarray(rewards, dtype=float).reshape(-1)
        if sources.shape != rewards.shape:
            raise fail("rewards", "LeastSquares.update", f"{sources.size} values (one per source)", rewards)
        if sources.size == 0:
            return
        k = self.features.shape[0]
        if sources.size == 1:
            a = sources[0]
            n = self.counts[a]
            if n > 0.0:  # Welford: the new reward's deviation from the old mean, n / (n + 1) of its square
                dev = rewards[0] - self.sums[a] / n
                self.sq_devs[a] = _finite_or_nan(self.sq_devs[a] + dev * dev * (n / (n + 1.0)))
            self.counts[a] += 1.0
            self.sums[a] += rewards[0]
            x = self.features[a]
            self.design_matrix += x[:, None] * x[None, :]  # np.outer's own product, without its wrapper
            self._b += rewards[0] * x
            if self._inverse is not None:
                u = self._inverse @ x
                self._inverse -= (u[:, None] * u[None, :]) / (1.0 + x @ u)
                self._since_refresh += 1
                if self._since_refresh >= self.refresh_every:
                    self._refresh()
                    return
        elif sources.size > 4 * k:
            # a long chunk: per-arm counts and sums first (O(size + K d^2), not O(size d^2))
            n = np.bincount(sources, minlength=k).astype(float)
            s = np.bincount(sources, weights=rewards, minlength=k)
            self._add_deviations(sources, rewards, n, s)
            self.counts += n
            self.sums += s
            self.design_matrix += self.features.T @ (n[:, None] * self.features)
            self._b += self.features.T @ s
            self._inverse = None  # invert afresh (d^3, cheaper than |chunk| rank-one steps)
        else:
            self._add_deviations(sources, rewards, np.bincount(sources, minlength=k).astype(float),
                                 np.bincount(sources, weights=rewards, minlength=k))
            np.add.at(self.counts, sources, 1.0)
            np.add.at(self.sums, sources, rewards)
            xs = self.features[sources]
            self.design_matrix += xs.T @ xs
            self._b += xs.T @ rewards
            self._inverse = None
        if self._inverse is None:
            self._invert()
        self._solve()

    def _add_deviations(self, sources: np.ndarray, rewards: np.ndarray, n_b: np.ndarray, s_b: np.ndarray) -> None:
        """Add a chunk's squared deviations to :attr:`sq_devs` (before its counts and sums are added).

        Per arm, the chunk's own squared deviations about its mean (two passes), merged with the
        arm's by the pairwise update of Chan, Golub & LeVeque (1983):
        ``S = S_a + S_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b)``.
        """
        touched = np.flatnonzero(n_b)
        nb = n_b[touched]
        mean_b = np.zeros(n_b.shape[0])
        mean_b[touched] = s_b[touched] / nb
        dev = rewards - mean_b[sources]
        mean_b[touched] += np.bincount(sources, weights=dev, minlength=n_b.shape[0])[touched] / nb  # correction
        dev = rewards - mean_b[sources]
        own = np.bincount(sources, weights=dev * dev, minlength=n_b.shape[0])[touched]
        na = self.counts[touched]
        old = np.divide(self.sums[touched], na, out=np.zeros(touched.shape[0]), where=na > 0)
        gap = mean_b[touched] - old
        with np.errstate(over="ignore", invalid="ignore"):
            merged = self.sq_devs[touched] + own + gap * gap * (na * nb / (na + nb))
        self.sq_devs[touched] = np.where(np.isfinite(merged), merged, np.nan)  # beyond the float range: unknown

    def _refresh(self) -> None:
        x = self.features
        self.design_matrix = x.T @ (self.counts[:, None] * x)
        self._b = x.T @ self.sums
        self._inverse = None
        self._invert()
        self._solve()

    def _invert(self) -> None:
        a = 0.5 * (self.design_matrix + self.design_matrix.T)
        vals = np.linalg.eigvalsh(a)
        self._since_refresh = 0
        if vals[-1] > 0 and vals[0] > SINGULAR_RTOL * vals[-1]:
            self._inverse = np.linalg.inv(a)
        else:
            self._inverse = None

    def _solve(self) -> None:
        if self._inverse is not None:
            self.theta = self._inverse @ self._b
            np.matmul(self.features, self.theta, out=self.estimate)
            return
        # singular A: minimum-norm solution A^+ b; identified arms are those in range(A)
        vals, vecs = np.linalg.eigh(0.5 * (self.design_matrix + self.design_matrix.T))
        keep = vals > SINGULAR_RTOL * max(vals[-1], 0.0) if vals[-1] > 0 else np.zeros(vals.size, bool)
        rng = vecs[:, keep]
        self.theta = rng @ ((rng.T @ self._b) / vals[keep])
        est = self.features @ self.theta
        outside = self.features @ vecs[:, ~keep]
        # row norms with np.linalg.norm's own arithmetic (sqrt of add.reduce of squares), without its copies
        unidentified = np.sqrt(np.add.reduce(outside * outside, axis=1)) > 1e-9 * np.maximum(self._feature_norms, 1e-300)
        est[unidentified] = np.nan
        self.estimate[:] = est
