"""Guardrail metrics whose variance is unknown: the learner's model and the problem's family.

A metric with ``reward_model = "gaussian-unknown-variance"`` has Gaussian rewards whose variance is
unknown and may differ per arm.  The learner keeps, per (arm, metric) source, the count, the mean and
the sum of squared deviations (:class:`MetricMeansAndVariances`, the statistics of
:class:`~pybai.models.unknown_variance.MeansAndVariances`, with the range checks of the other
metrics); the stopping rule tests such a metric with the invariant t-test factors
(:mod:`pybai.stopping.guardrails_unknown`).  The characteristic time and the sampling rules read the
plug-in variance S / N of each such source (as the single-metric unknown-variance Gaussian does,
:meth:`pybai.models.families.GaussianUnknownVariance.for_model`) and, for ``pybai complexity``, the
truth's variances (:meth:`MetricFamily.for_truth`).

Problems without such a metric keep their Gaussian family and :class:`~pybai.problems.guardrails.space.MetricMeans`:
nothing here runs for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import ClassVar

import numpy as np
from numba import njit
from scipy.special import stdtrit

from pybai.exceptions import InvalidParameterError, RequestError
from pybai.models._kl import GAUSSIAN
from pybai.models._distinct import OVERFLOWED
from pybai.models.families import UNKNOWN_VARIANCE_REWARD_LIMIT, Family
from pybai.models.unknown_variance import TIE_VALUES, MeansAndVariances
from pybai.naming import arm_name

__all__ = ["MetricMeansAndVariances", "MetricFamily"]


class MetricMeansAndVariances(MeansAndVariances):
    """Means and sums of squared deviations of the (arm, metric) sources, refusing a reward outside its metric's range.

    The statistics of :class:`~pybai.models.unknown_variance.MeansAndVariances` for every source (the
    estimate is ``sums / counts``, as for :class:`~pybai.problems.guardrails.space.MetricMeans`); ties
    (repeated rewards) are tracked, warned about and reported only for the sources of a metric whose
    variance is unknown (a Bernoulli metric repeats its rewards by nature).

    Parameters
    ----------
    n_sources : int
    low, high : ndarray of shape (n_sources,)
        The support of each source's rewards.
    names : sequence of str
        The name of each source's metric (for the message).
    unknown : ndarray of bool of shape (n_sources,)
        The sources of a metric whose variance is unknown.
    known : ndarray of shape (n_sources,)
        The known variance (or sub-Gaussian proxy) of the other sources (NaN for the unknown ones).

    Attributes
    ----------
    plug_in : ndarray of shape (n_sources,)
        The variance the learner uses per source, updated in place: ``known`` where it is known, the
        estimate ``noise`` (S / N, floored) of :class:`MeansAndVariances` where it is not (NaN below two samples).
    """

    state_attrs = MeansAndVariances.state_attrs + ("plug_in",)

    def __init__(self, n_sources: int, low: np.ndarray, high: np.ndarray, names, unknown: np.ndarray,
                 known: np.ndarray):
        self._unknown = np.asarray(unknown, dtype=np.bool_)
        self._known = np.asarray(known, dtype=float)
        self.plug_in = np.where(self._unknown, np.nan, self._known)
        super().__init__(n_sources)
        self.n_values[~self._unknown] = OVERFLOWED  # no store of distinct rewards where the variance is known
        self._low, self._high, self._names = low, high, tuple(names)

    @property
    def unknown(self) -> np.ndarray:
        """Per source: whether its metric's variance is unknown."""
        return self._unknown

    @property
    def tied(self) -> np.ndarray:
        """:attr:`MeansAndVariances.tied <pybai.models.unknown_variance.MeansAndVariances.tied>`, for the sources of
        a metric whose variance is unknown only (False elsewhere)."""
        return super().tied & self._unknown

    def _record(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        keep = self._unknown[sources]
        if keep.any():
            super()._record(sources[keep], rewards[keep])

    def _set_noise(self, idx) -> None:
        super()._set_noise(idx)
        self.plug_in[idx] = np.where(self._unknown[idx], self.noise[idx], self._known[idx])

    def update(self, sources: np.ndarray, rewards: np.ndarray) -> None:
        """Add the rewards one at a time, in order (Welford's recurrence of
        :class:`~pybai.models.unknown_variance.MeansAndVariances` for one reward), in one compiled call, after checking
        every reward against its metric's range (nothing recorded when one is outside); then the ties of the
        sources of unknown variance."""
        sources = np.asarray(sources, dtype=np.int64)
        rewards = np.asarray(rewards, dtype=float)
        i = _checked_welford(self.counts, self.sums, self.estimate, self.sq_devs, self.centres, self.noise,
                             self.plug_in, self._unknown, self._known, sources, rewards, self._low, self._high,
                             self.NOISE_FLOOR)
        if i >= 0:
            s = int(sources[i])
            name = self._names[s] if self._names else str(s)
            raise RequestError(f"The 'rewards' parameter of tell must lie in the range of their metric: "
                               f"metric '{name}' takes rewards in [{self._low[s]:g}, {self._high[s]:g}]. "
                               f"Got {float(rewards[i])!r}.")
        if sources.shape[0]:
            self._record(sources, rewards)


@njit(cache=True)
def _checked_welford(counts, sums, est, sq_devs, centres, noise, plug_in, unknown, known, sources, rewards, low, high,
                     floor):
    """The first reward outside its source's [low, high] (nothing changed), or -1 after adding every reward in order:
    count, sum, mean = sum / count, Welford's update of the centre and the squared deviations, and the source's
    ``noise`` (S / N floored at ``floor`` (1 + mean^2), NaN below two rewards) and ``plug_in`` variance."""
    n_rewards = sources.shape[0]
    for i in range(n_rewards):
        s = sources[i]
        if not (rewards[i] >= low[s] and rewards[i] <= high[s]):
            return i
    for i in range(n_rewards):
        s = sources[i]
        x = rewards[i]
        n = counts[s] + 1.0
        total = sums[s] + x
        delta = x - centres[s]
        centre = centres[s] + delta / n
        sq_devs[s] += delta * (x - centre)
        centres[s] = centre
        counts[s] = n
        sums[s] = total
        est[s] = total / n
        if n >= 2.0:
            mean = total / n
            noise[s] = max(sq_devs[s] / n, floor * (1.0 + mean * mean))
        else:
            noise[s] = math.nan
        plug_in[s] = noise[s] if unknown[s] else known[s]
    return -1


@dataclass(frozen=True, eq=False)
class MetricFamily(Family):
    """The sources of a guardrail problem with at least one metric of unknown variance.

    Gaussian-like sources (the guardrail statistics are Gaussian costs) whose variances are known for
    some metrics (``known``) and estimated for the others (``unknown``): :meth:`for_model` reads the
    learner's plug-in variances in place, :meth:`for_truth` the environment's.  Every source needs two
    samples first (a variance needs two).

    Parameters
    ----------
    known : ndarray of shape (n_sources,)
        The known variance (or sub-Gaussian proxy) per source, NaN where it is unknown.
    unknown : ndarray of bool of shape (n_sources,)
    low, high : ndarray of shape (n_sources,)
        Each source's support (its metric's).
    names : tuple of str
        The metrics' names, in order (for the reports).
    estimated : ndarray, optional
        The variances in use (the learner's plug-in ones, or the truth's); None: unbound.
    """

    known: np.ndarray = field(default_factory=lambda: np.ones(1))
    unknown: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.bool_))
    low: np.ndarray = field(default_factory=lambda: np.full(1, -np.inf))
    high: np.ndarray = field(default_factory=lambda: np.full(1, np.inf))
    names: tuple = ()
    estimated: np.ndarray | None = field(default=None, repr=False)

    provides: ClassVar[frozenset[str]] = frozenset()
    min_samples: ClassVar[int] = 2
    epsilon_modes: ClassVar[tuple[str, ...]] = ("additive",)

    def __post_init__(self):
        object.__setattr__(self, "name", "gaussian")
        object.__setattr__(self, "code", GAUSSIAN)

    @property
    def size(self) -> int:
        return int(self.known.shape[0])

    @property
    def variances(self) -> np.ndarray:
        """The variances in use: the learner's plug-in ones (:meth:`for_model`) or the truth's (:meth:`for_truth`);
        unbound, the known ones with NaN where unknown."""
        return self.known if self.estimated is None else self.estimated

    @property
    def sub_gaussian_scale(self) -> float:
        raise InvalidParameterError("a guardrail metric under reward_model 'gaussian-unknown-variance' has no known "
                                    "noise scale; rules that need one refuse it.")

    def for_model(self, model) -> "MetricFamily":
        plug_in = getattr(model, "plug_in", None)
        if plug_in is None:
            return self
        return MetricFamily(self.known, self.unknown, self.low, self.high, self.names, plug_in)

    def for_truth(self, environment) -> "MetricFamily":
        truth = np.asarray(environment.family().variances, dtype=float)
        if truth.shape != self.known.shape:
            raise InvalidParameterError(f"the environment has {truth.size} (arm, metric) sources, the problem "
                                        f"{self.known.size}.")
        return MetricFamily(self.known, self.unknown, self.low, self.high, self.names,
                            np.where(self.unknown, truth, self.known))

    def additive_epsilon_limit(self) -> float | None:
        """Twice the safe reward range (:meth:`check_rewards`): beyond, every arm is epsilon-good."""
        return 2.0 * UNKNOWN_VARIANCE_REWARD_LIMIT

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        ok = bool((np.abs(rewards) <= UNKNOWN_VARIANCE_REWARD_LIMIT).all())
        return None if ok else f"finite numbers with |reward| <= {UNKNOWN_VARIANCE_REWARD_LIMIT:g}"

    def sample_sd(self, model) -> np.ndarray:
        """sqrt(S / (N - 1)) for the sources of unknown variance (NaN below two samples), NaN for the others."""
        n = np.asarray(model.counts, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.where(n >= 2.0, np.sqrt(model.sq_devs / np.maximum(n - 1.0, 1.0)), np.nan)
        return np.where(self.unknown, sd, np.nan)

    def interval(self, model, level: float):
        """Per source: Student's t interval mean +- t_{N-1} sd / sqrt(N) where the variance is unknown (NaN below two
        samples), mean +- z sigma / sqrt(N) with the known sigma or sub-Gaussian proxy elsewhere; clipped to the
        metric's range."""
        n = np.asarray(model.counts, dtype=float)
        mean = np.asarray(model.estimate, dtype=float)
        quantile = stdtrit(np.maximum(n - 1.0, 1.0), (1.0 + level) / 2.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_half = np.where(n >= 2.0, quantile * self.sample_sd(model) / np.sqrt(n), np.nan)
            z_half = np.where(n > 0, NormalDist().inv_cdf((1.0 + level) / 2.0) * np.sqrt(self.known) / np.sqrt(n), np.nan)
        half = np.where(self.unknown, t_half, z_half)
        return np.clip(mean - half, self.low, self.high), np.clip(mean + half, self.low, self.high)

    def misfit(self, model, labels=None) -> str | None:
        """The (arm, metric) sources of unknown variance whose rewards repeat (``model.tied``), which the rule
        does not count, and the reward model that fits."""
        tied = getattr(model, "tied", None)
        if tied is None or not tied.any():
            return None
        M = len(self.names)
        shown = [f"{arm_name(s // M, labels)} on {self.names[s % M]}" for s in np.flatnonzero(tied)[:10].tolist()]
        more = ", ..." if int(tied.sum()) > 10 else ""
        return (f"{', '.join(shown)}{more} repeated rewards (fewer than half of them are distinct values): Gaussian "
                f"rewards never repeat, so reward_model \"gaussian-unknown-variance\" does not fit there, and the "
                f"proven rule does not count that evidence while it lasts (or until more than {TIE_VALUES} distinct "
                f"values are shown); rewards in a known range fit reward_model = \"bounded\" with reward_range")

    def to_dict(self) -> dict:
        return {"name": "guardrail-metrics", "unknown_variance": self.unknown.tolist()}

