"""The model layer: the learner's sufficient statistics and the estimate they give.

A :class:`Model` holds, per source, the number of samples and the sum of rewards (sufficient
for every family of pybai: independent means, linear least squares, correlated Gaussian
posteriors) and turns them into the per-source estimate that a problem's ``answer``, ``glr``
and ``oracle`` use.  Strategies never compute means themselves: they read
``model.estimate`` (and any extra attribute a model offers, such as a posterior covariance).

A problem chooses its model (:meth:`pybai.problems.base.Problem.new_model`); the default is
:class:`EmpiricalMeans`.  A model's state is its statistics: :meth:`Model.from_statistics`
rebuilds it exactly, which is what serialisation and session replay use.

Examples
--------
>>> import numpy as np
>>> m = EmpiricalMeans(3)
>>> m.update(np.array([0, 0, 2]), np.array([1.0, 3.0, -1.0]))
>>> m.estimate.tolist()  # source 1 has no sample: its mean is unknown, not 0
[2.0, nan, -1.0]
"""

from __future__ import annotations

import numpy as np

from pybai._validation import check_memory, check_positive_int

__all__ = ["Model", "EmpiricalMeans"]


class Model:
    """Base model: per-source ``counts`` and ``sums``, and an ``estimate`` computed from them.

    Subclasses implement :meth:`_refresh` (recompute derived quantities from the statistics)
    and may override :meth:`update` with an incremental version.

    Parameters
    ----------
    n_sources : int
        Number of sources.

    Attributes
    ----------
    counts : ndarray of shape (n_sources,)
        Samples per source (float, for the numba kernels).
    sums : ndarray of shape (n_sources,)
        Sum of the rewards of each source.
    estimate : ndarray of shape (n_sources,)
        Per-source mean estimate; NaN where the model cannot identify it yet.
    """

    #: attributes saved in a strategy's state (arrays are restored in place)
    state_attrs: tuple[str, ...] = ("counts", "sums", "estimate")

    def __init__(self, n_sources: int):
        n_sources = check_positive_int(n_sources, "n_sources", type(self).__name__)
        check_memory(48 * n_sources, "n_sources", type(self).__name__, "the per-source statistics (48 bytes each)",
                     n_sources)
        self.counts = np.zeros(n_sources)
        self.sums = np.zeros(n_sources)
        self.estimate = np.full(n_sources, np.nan)

    @property
    def n_sources(self) -> int:
        return self.counts.shape[0]

    #: whether ``estimate`` is ``sums / counts`` (NaN for a source without samples), checked on a restored state
    estimate_is_mean: bool = False

    def check_state(self) -> str | None:
        """What is inconsistent in a restored state (``"attribute: expected ..."``), or ``None``."""
        if not (np.isfinite(self.counts).all() and np.isfinite(self.sums).all()):
            return "counts and sums: expected finite numbers"
        if (self.counts < 0).any() or (self.counts != np.floor(self.counts)).any():
            return "counts: expected non-negative whole numbers"
        if self.estimate_is_mean:
            seen = self.counts > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                means = self.sums[seen] / self.counts[seen]
            if not (np.array_equal(self.estimate[seen], means) and np.isnan(self.estimate[~seen]).all()):
                return "estimate: expected sums / counts (the mean of each source's rewards; none without samples)"
        return None

    @property
    def total(self) -> int:
        """Number of samples recorded."""
        return int(self.counts.sum())

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """Record ``rewards`` observed for ``sources`` (int array, repeats allowed)."""
        np.add.at(self.counts, sources, 1.0)
        np.add.at(self.sums, sources, rewards)
        self._refresh()

    def _refresh(self) -> None:
        """Recompute ``estimate`` (and any derived quantity) from ``counts`` and ``sums``."""
        raise NotImplementedError

    def variance_factors(self) -> np.ndarray:
        """Per source, the variance of its estimated mean per unit noise variance: 1/N (N at least 1).

        What optimistic rules widen their gains by; models that share information across
        sources (least squares) override it.
        """
        return 1.0 / np.maximum(self.counts, 1.0)

    def scaled_into(self, fresh: "Model", factor: float) -> "Model":
        """``fresh`` (a new model of the same kind) given these statistics with every count scaled by
        ``factor`` and the same estimates (what the stopping rule would see later if nothing changed)."""
        return fresh.set_statistics(self.counts * factor, self.sums * factor)

    def set_statistics(self, counts, sums) -> "Model":
        """Replace the statistics (in place: arrays keep their identity) and refresh."""
        self.counts[:] = counts
        self.sums[:] = sums
        self._refresh()
        return self


class EmpiricalMeans(Model):
    """Independent sources: the estimate of a source is the mean of its rewards (NaN if none).

    The single-sample update costs a few scalar operations (the hot path of sequential
    strategies).
    """

    estimate_is_mean = True

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        if sources.shape[0] == 1:
            s = sources[0]
            c = self.counts[s] + 1.0
            total = self.sums[s] + rewards[0]
            self.counts[s] = c
            self.sums[s] = total
            self.estimate[s] = total / c
            return
        np.add.at(self.counts, sources, 1.0)
        np.add.at(self.sums, sources, rewards)
        # each touched source's mean, written once per occurrence (repeats write the same value): O(batch),
        # where np.unique(sources) first cost a hash or a sort of the batch (a 60,000-pull batch: most of the update)
        self.estimate[sources] = self.sums[sources] / self.counts[sources]

    def _refresh(self) -> None:
        seen = self.counts > 0
        self.estimate[:] = np.nan
        self.estimate[seen] = self.sums[seen] / self.counts[seen]
