"""The request space of linear problems: arms with known features (:class:`DesignSpace`)."""

from __future__ import annotations

import numpy as np

from pybai.problems.requests import RequestSpace

__all__ = ["DesignSpace"]


class DesignSpace(RequestSpace):
    """Arms with known features: the initial phase is a spanning set, the design can be forced.

    Parameters
    ----------
    features : ndarray of shape (K, d)
    representatives : ndarray of int
        The lowest index of each group of identical rows (the distinct arms).
    """

    explorations = ("arms", "design", "none")
    default_exploration = "design"
    default_start = False

    def __init__(self, features: np.ndarray, representatives: np.ndarray):
        super().__init__(features.shape[0])
        self.features = features
        self._reps = representatives
        self._spanning: np.ndarray | None = None  # the pivoted-QR spanning set, computed once (it depends on the features only)

    def initial_requests(self, n_init: int) -> np.ndarray:
        """d linearly independent arms (pivoted QR), each ``n_init`` times, round robin.

        After them the design matrix is invertible, so every estimate is defined.
        """
        if self._spanning is None:
            from scipy.linalg import qr

            _, _, piv = qr(self.features[self._reps].T, pivoting=True, mode="economic")
            self._spanning = np.sort(self._reps[piv[: self.features.shape[1]]]).astype(np.intp)
        return np.tile(self._spanning, n_init)

    def design(self):
        """``(features, spanning set)``: what the forced exploration of the design reads."""
        return self.features, self.initial_requests(1)
