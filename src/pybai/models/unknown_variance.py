"""Gaussian sources whose variances are unknown (and may differ): means and variances per source.

:class:`MeansAndVariances` keeps, per source, the count N, the sum of the rewards (so
that ``estimate`` is ``sums / counts`` exactly as :class:`~pybai.models.EmpiricalMeans`
computes it) and the sum of squared deviations S = sum_i (X_i - mean)^2, updated in a
numerically stable way:

* one reward: Welford's recurrence (Welford 1962) on a running centre c,
  ``c' = c + (x - c) / n``, ``S' = S + (x - c) (x - c')``;
* a batch: per source, the batch's own count, mean (two-pass, with one correction step) and
  squared deviations about that mean, merged by the pairwise update of Chan, Golub & LeVeque
  (1983), ``S = S_a + S_b + delta^2 n_a n_b / n``, ``c = c_a + delta n_b / n``.

Neither ever forms a sum of squares of raw rewards, so rewards of 1e8 + noise keep their
variance to about machine precision (a sum-of-squares formula loses it all).

**Repeated rewards.**  Each source also keeps its distinct rewards, up to :data:`TIE_VALUES` of
them (:mod:`pybai.models._distinct`: 1 kB per source).  A Gaussian law never repeats a value (ties
have probability 0), so repeated rewards are evidence that the model does not fit (a value the
arm returns with positive probability, a coarse scale, a constant arm).  A source's variance
estimate *rests on ties* (:attr:`MeansAndVariances.tied`) when fewer than half of its rewards are
distinct values, d < N / 2, while it has shown at most ``TIE_VALUES`` distinct values: the proven
stopping rule (:mod:`pybai.stopping.unknown_variance`) does not count such a source's evidence,
and the first such source raises a :class:`~pybai.exceptions.RewardModelWarning` once.  A run of
equal rewards (sample variance 0), a two-point or a five-point law are tied after a few samples;
measurements rounded to a small fraction of their spread repeat now and then but keep d >= N / 2,
and a source that has shown more than ``TIE_VALUES`` distinct values counts whatever its ties.

Examples
--------
>>> import numpy as np
>>> m = MeansAndVariances(3)
>>> m.update(np.array([0, 0, 2]), np.array([1.0, 3.0, -1.0]))
>>> m.estimate.tolist()
[2.0, nan, -1.0]
>>> m.variances.tolist()      # source 2 has one sample: no variance yet
[1.0, nan, nan]
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
from numba import njit

from pybai.exceptions import InvalidParameterError, RewardModelWarning
from pybai.models._distinct import OVERFLOWED, check_store, store_update
from pybai.models.base import Model

__all__ = ["MeansAndVariances", "TIE_VALUES", "TIE_WARNING"]

#: distinct rewards kept per source to detect ties (beyond them a source counts whatever its ties)
TIE_VALUES = 64

#: the warning of the first source whose rewards repeat (one text, so that Python shows it once per process)
TIE_WARNING = ("rewards repeat exactly under reward_model \"gaussian-unknown-variance\": Gaussian rewards never "
               "repeat, so the model does not fit them, and the proven stopping rule will not stop on an arm "
               "fewer than half of whose rewards are distinct values (while it has shown at most "
               f"{TIE_VALUES} of them). Rewards in a known range fit reward_model = \"bounded\" with "
               "reward_range = [low, high]")


@njit(cache=True)
def _tied(n_values, value_counts):
    """:attr:`MeansAndVariances.tied` in one compiled call (the stopping rule reads it at its checks): per source
    n_values >= 0 and 2 n_values < the rewards in its store (integer counts: the sums are exact in any order)."""
    out = np.empty(n_values.shape[0], dtype=np.bool_)
    for s in range(n_values.shape[0]):
        total = 0.0
        for i in range(value_counts.shape[1]):
            total += value_counts[s, i]
        out[s] = n_values[s] >= 0 and 2 * n_values[s] < total
    return out


class MeansAndVariances(Model):
    """Independent Gaussian sources with unknown variances: per-source means and MLE variances.

    Attributes
    ----------
    counts, sums, estimate : ndarray of shape (n_sources,)
        As in :class:`~pybai.models.base.Model` (``estimate`` is NaN with no sample).
    sq_devs : ndarray of shape (n_sources,)
        Sum of squared deviations of each source's rewards about their mean (0 below 2 samples).
    centres : ndarray of shape (n_sources,)
        The running mean of the stable recurrences, equal to ``sums / counts`` up to rounding
        (closer to the exact mean at large offsets: it accumulates no sum); saved in the state
        so that a restored run continues bit-identically.  ``estimate`` stays ``sums / counts``,
        bit-identical to :class:`~pybai.models.EmpiricalMeans` on the same rewards.
    values, value_counts : ndarray of shape (n_sources, TIE_VALUES)
        Each source's distinct rewards (the first ``n_values`` entries) and how often each came.
    n_values : ndarray of int of shape (n_sources,)
        Number of distinct rewards stored; -1 once a source had more than :data:`TIE_VALUES`.
    """

    state_attrs: tuple[str, ...] = ("counts", "sums", "estimate", "sq_devs", "centres", "noise", "values", "value_counts",
                   "n_values")
    estimate_is_mean = True  # checked on a restored state

    #: smallest variance handed to the kernels, relative to 1 + mean^2 (identical rewards give S = 0)
    NOISE_FLOOR = 1e-12

    def __init__(self, n_sources: int):
        super().__init__(n_sources)
        self.sq_devs = np.zeros(n_sources)
        self.centres = np.zeros(n_sources)
        #: the variances the learner's costs use, updated in place: S / N, at least
        #: NOISE_FLOOR (1 + mean^2) so that a source whose rewards were all equal keeps finite costs;
        #: NaN below two samples
        self.noise = np.full(n_sources, np.nan)
        self.values = np.zeros((n_sources, TIE_VALUES))
        self.value_counts = np.zeros((n_sources, TIE_VALUES))
        self.n_values = np.zeros(n_sources, dtype=np.int64)
        self._warned = False

    # ------------------------------------------------------------------ statistics
    @property
    def tied(self) -> np.ndarray:
        """Per source: fewer than half of its rewards are distinct values, while it has shown at most
        :data:`TIE_VALUES` of them (its variance estimate rests on ties; module docstring).

        The stopping rule does not count the evidence of such a source.
        """
        return _tied(self.n_values, self.value_counts)

    def _record(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """Add the rewards to the stores of distinct values; warn when a source first rests on ties."""
        if store_update(sources, rewards, self.values, self.value_counts, self.n_values) and not self._warned \
                and self.tied.any():
            self._warned = True
            warnings.warn(RewardModelWarning(TIE_WARNING + "."), stacklevel=4)

    @property
    def variances(self) -> np.ndarray:
        """sigma_hat^2 = S / N per source (maximum likelihood); NaN below two samples."""
        out = np.full(self.counts.shape[0], np.nan)
        two = self.counts >= 2.0
        out[two] = self.sq_devs[two] / self.counts[two]
        return out

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        sources = np.asarray(sources, dtype=np.int64)
        rewards = np.asarray(rewards, dtype=float)
        if sources.shape[0]:
            self._record(sources, rewards)
        if sources.shape[0] == 1:
            s = sources[0]
            x = rewards[0]
            n = self.counts[s] + 1.0
            total = self.sums[s] + x
            delta = x - self.centres[s]
            centre = self.centres[s] + delta / n
            self.sq_devs[s] += delta * (x - centre)
            self.centres[s] = centre
            self.counts[s] = n
            self.sums[s] = total
            self.estimate[s] = total / n
            self._set_noise(sources)
            return
        if sources.shape[0] == 0:
            return
        size = self.counts.shape[0]
        n_b = np.bincount(sources, minlength=size).astype(float)
        touched = np.flatnonzero(n_b)
        nb = n_b[touched]
        # the batch's own mean: a first pass, then one correction (two-pass accuracy)
        mean_b = np.bincount(sources, weights=rewards, minlength=size)[touched] / nb
        full = np.zeros(size)
        full[touched] = mean_b
        dev = rewards - full[sources]
        mean_b = mean_b + np.bincount(sources, weights=dev, minlength=size)[touched] / nb
        full[touched] = mean_b
        dev = rewards - full[sources]
        s_b = np.bincount(sources, weights=dev * dev, minlength=size)[touched]
        # pairwise merge (Chan, Golub & LeVeque) with the running statistics
        na = self.counts[touched]
        n = na + nb
        delta = mean_b - self.centres[touched]
        self.centres[touched] = self.centres[touched] + delta * (nb / n)
        self.sq_devs[touched] = self.sq_devs[touched] + s_b + delta * delta * (na * (nb / n))
        np.add.at(self.counts, sources, 1.0)
        np.add.at(self.sums, sources, rewards)
        self.estimate[touched] = self.sums[touched] / self.counts[touched]
        self._set_noise(touched)

    def _set_noise(self, idx) -> None:
        n = self.counts[idx]
        two = n >= 2.0
        var = np.where(two, self.sq_devs[idx] / np.maximum(n, 1.0), np.nan)
        floor = self.NOISE_FLOOR * (1.0 + np.square(self.sums[idx] / np.maximum(n, 1.0)))
        self.noise[idx] = np.where(two, np.maximum(var, floor), np.nan)

    def _refresh(self) -> None:
        seen = self.counts > 0
        self.estimate[:] = np.nan
        self.estimate[seen] = self.sums[seen] / self.counts[seen]
        self._set_noise(np.arange(self.counts.shape[0]))

    def set_statistics(self, counts, sums, sq_devs=None) -> "MeansAndVariances":
        """Replace the statistics in place (counts, sums and the sums of squared deviations).

        Counts and sums alone do not determine a variance, so ``sq_devs`` is required: a
        caller that only knows counts and sums is refused rather than given variances of 0.
        The distinct rewards are not known from these statistics: every store is marked
        overflowed (no tie known; :meth:`scaled_into` copies the stores of its source).
        """
        if sq_devs is None:
            raise InvalidParameterError(
                "The 'sq_devs' parameter of MeansAndVariances.set_statistics is required "
                "(counts and sums do not determine the variances).")
        self.counts[:] = counts
        self.sums[:] = sums
        self.sq_devs[:] = sq_devs
        self.values[...] = 0.0  # the rewards themselves are not given: no tie is known
        self.value_counts[...] = 0.0
        self.n_values[...] = OVERFLOWED
        seen = self.counts > 0
        self.centres[:] = 0.0
        self.centres[seen] = self.sums[seen] / self.counts[seen]
        self._refresh()
        return self

    def scaled_into(self, fresh: Model, factor: float) -> Model:
        """As :meth:`Model.scaled_into`, the squared deviations scaled too (same variances), the ties kept."""
        out = cast(MeansAndVariances, fresh).set_statistics(self.counts * factor, self.sums * factor,
                                                            self.sq_devs * factor)
        out.values[...] = self.values
        out.value_counts[...] = self.value_counts
        out.n_values[...] = self.n_values
        return out

    @classmethod
    def from_statistics(cls, counts, sums, sq_devs) -> "MeansAndVariances":
        """A model holding these statistics (see :meth:`set_statistics`)."""
        counts = np.asarray(counts, dtype=float)
        return cls(counts.shape[0]).set_statistics(counts, sums, sq_devs)

    def check_state(self) -> str | None:
        problem = super().check_state()
        if problem is not None:
            return problem
        if not (np.isfinite(self.sq_devs).all() and np.isfinite(self.centres).all()):
            return "sq_devs and centres: expected finite numbers"
        if (self.sq_devs < 0).any():
            return "sq_devs: expected non-negative numbers"
        if (self.sq_devs[self.counts < 2] != 0).any():
            return "sq_devs: expected 0 for a source with fewer than two samples"
        return check_store(self.values, self.value_counts, self.n_values, self.counts, self.sums)
