"""Bounded rewards: any law on [low, high], the reward model ``"bounded"``.

The learner rescales every reward to (x - low) / (high - low) in [0, 1]
(:class:`~pybai.models.betting.BettingModel`): ``model.estimate``, the oracle's means and every
kernel work in those units, and :meth:`Bounded.to_user` converts means and intervals back (what
results and session status show).  Two statistics:

* ``"sub-bernoulli"``: the Bernoulli KL of the rescaled means (kernel code
  :data:`~pybai.models._kl.BERNOULLI`) in the GLR, the oracle and every sampling rule.  Every law on
  [0, 1] is "sub-Bernoulli": E exp(eta X) <= 1 - m + m e^eta for X in [0, 1] of mean m (convexity),
  so each Bernoulli likelihood-ratio, mixture and tilted martingale stays a supermartingale and the
  proven rules of rewards in [0, 1] hold for it: for plain best arm the leader rule ``"leader-settled"``
  (:mod:`pybai.stopping.leader`, its ``"delta-correct"``: :attr:`Bounded.leader_family`), otherwise the
  tilted per-pair rule (:mod:`pybai.stopping.tilt`).  Loose when the rewards vary little (its variance
  proxy is m (1 - m)).
* ``"kl-inf"`` (default): the empirical-likelihood divergence KL_inf (Honda & Takemura 2010;
  :mod:`pybai.models.kl_inf`) decides stopping, through the betting martingales of
  :mod:`pybai.models.betting` whose log-wealth is about N KL_inf (:mod:`pybai.stopping.betting`,
  proven).  The sampling rules (oracle weights of ``tas``, ``top-two``, ``lucb``, ``game``) use the
  second-order form of KL_inf, (mu - l)^2 / (2 sigma^2), with each arm's empirical variance
  (kernel code :data:`~pybai.models._kl.GAUSSIAN` on the learner's variances): the local
  expansion of KL_inf at the mean, exact as the gaps shrink, cheap (a step costs what a Gaussian
  one does).  Every source needs two samples before its variance exists.

Examples
--------
>>> import numpy as np
>>> fam = Bounded(3, low=0.0, high=10.0, statistic="sub-bernoulli")
>>> fam.check_rewards(np.array([3.0, 11.0]))
'numbers in [0, 10] (reward_range of reward_model "bounded")'
>>> fam.to_user(np.array([0.5, 0.25])).tolist()
[5.0, 2.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np

from pybai._validation import SIGMA_ABSOLUTE_RANGE, SIGMA_RELATIVE_RANGE, check_choice, check_positive_int, fail
from pybai.exceptions import InvalidParameterError
from pybai.models import _kl
from pybai.models.base import Model
from pybai.models.betting import DEFAULT_LEVELS, DEFAULT_MAX_VALUES, BettingModel
from pybai.models.families import Family

__all__ = ["Bounded", "BOUNDED_STATISTICS"]

BOUNDED_STATISTICS = ("kl-inf", "sub-bernoulli")


@dataclass(frozen=True, eq=False)
class Bounded(Family):
    """Rewards anywhere in [low, high], with the ``"kl-inf"`` or ``"sub-bernoulli"`` statistic.

    Parameters
    ----------
    n_sources : int
    low, high : float
        The reward range, low < high (finite).
    statistic : {"kl-inf", "sub-bernoulli"}, default "kl-inf"
    levels : int, default 401
        Levels of the betting grid of the KL_inf stopping rule (:mod:`pybai.models.betting`).
    max_values : int, default 64
        Distinct rewards per source kept exactly for the KL_inf stopping rule, which then tests every
        level instead of the grid's (0: the grid alone; :mod:`pybai.models.betting`).
    """

    n_sources: int = 1
    low: float = 0.0
    high: float = 1.0
    statistic: str = "kl-inf"
    levels: int = DEFAULT_LEVELS
    estimated: np.ndarray | None = field(default=None, repr=False)
    max_values: int = DEFAULT_MAX_VALUES

    provides: ClassVar[frozenset[str]] = frozenset({"known-noise"})
    #: additive epsilon (rescaled by the range: :meth:`learner_gap`); a relative epsilon is relative to
    #: the best mean in the user's units, which the rescaled means do not keep unless low = 0: refused
    epsilon_modes: ClassVar[tuple[str, ...]] = ("additive",)

    def __post_init__(self):
        owner = "Bounded"
        check_positive_int(self.n_sources, "n_sources", owner)
        for key in ("low", "high"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(value)):
                raise fail(key, owner, "a finite number", value)
        if not float(self.low) < float(self.high):
            raise InvalidParameterError(f"The reward range of Bounded must have low < high. "
                                        f"Got [{self.low}, {self.high}].")
        # rewards are rescaled by the width and variances by its square: both must stay finite and resolvable
        width, scale = float(self.high) - float(self.low), max(abs(float(self.low)), abs(float(self.high)))
        (w_low, w_high), relative = SIGMA_ABSOLUTE_RANGE, SIGMA_RELATIVE_RANGE[0]
        if not (w_low <= width <= w_high and width >= relative * scale):
            raise fail("reward_range", owner, f"[low, high] with a width high - low in [{w_low:g}, {w_high:g}] and at "
                       f"least {relative:g} times max(|low|, |high|) (numerically safe range; rescale the rewards)",
                       [float(self.low), float(self.high)])
        check_choice(self.statistic, BOUNDED_STATISTICS, "statistic", owner)
        check_positive_int(self.levels, "levels", owner, minimum=3, maximum=100_000)
        check_positive_int(self.max_values, "max_values", owner, minimum=0, maximum=100_000)
        object.__setattr__(self, "low", float(self.low))
        object.__setattr__(self, "high", float(self.high))
        object.__setattr__(self, "name", f"bounded-{self.statistic}")
        object.__setattr__(self, "code", _kl.GAUSSIAN if self.statistic == "kl-inf" else _kl.BERNOULLI)

    @property
    def min_samples(self) -> int:  # type: ignore[override]
        """Two for ``"kl-inf"`` (the sampling rules need a variance), one for ``"sub-bernoulli"``."""
        return 2 if self.statistic == "kl-inf" else 1

    @property
    def size(self) -> int:
        return int(self.n_sources)

    @property
    def leader_family(self) -> str | None:
        """``"bernoulli"`` with ``"sub-bernoulli"``: the leader rules of rewards in [0, 1] (tilted half-normal
        mixtures, proven for any law on [0, 1]) on the rescaled rewards, the ``"delta-correct"`` rule of plain best
        arm; None with ``"kl-inf"`` (no leader form of the betting rule: docs/thresholds.md, "Bounded rewards")."""
        return "bernoulli" if self.statistic == "sub-bernoulli" else None

    @property
    def support(self) -> tuple[float, float]:
        """The interval the rewards lie in: ``(low, high)``."""
        return (self.low, self.high)

    @property
    def variances(self) -> np.ndarray:
        """Per source, what the kernels read: ones (sub-Bernoulli), the rescaled variances (KL-inf).

        KL-inf variances are estimated by the learner (:meth:`for_model`) or come from the truth
        (:meth:`for_truth`); unbound they are unknown: one clear error.
        """
        if self.statistic == "sub-bernoulli":
            return np.ones(self.n_sources)
        if self.estimated is None:
            raise InvalidParameterError("The variances of a Bounded 'kl-inf' family are unknown: the learner "
                                        "estimates them (family.for_model(model)); the truth's come from the "
                                        "environment (family.for_truth(environment)).")
        return self.estimated

    @property
    def sub_gaussian_scale(self) -> float:
        """1/2 in the rescaled units (Hoeffding's lemma)."""
        return 0.5

    def new_model(self, n_sources: int) -> Model:
        # the betting tables serve the KL_inf stopping rule only
        return BettingModel(n_sources, self.low, self.high, self.levels if self.statistic == "kl-inf" else 0,
                            max_values=self.max_values)

    def for_model(self, model: Model) -> "Family":
        if self.statistic == "sub-bernoulli":
            return self
        return Bounded(self.n_sources, self.low, self.high, self.statistic, self.levels, cast(Any, model).noise,
                       self.max_values)

    def for_truth(self, environment) -> "Family":
        """The family on the truth's rescaled variances (``environment.reward_variances``)."""
        lo, hi = getattr(environment.family(), "support", (-math.inf, math.inf))
        if lo < self.low or hi > self.high:
            raise InvalidParameterError(f"reward_model 'bounded' on [{self.low:g}, {self.high:g}] needs rewards in "
                                        f"that range; the environment's lie in [{lo:g}, {hi:g}].")
        if self.statistic == "sub-bernoulli":
            return self
        var = getattr(environment, "reward_variances", None)
        if var is None:
            raise InvalidParameterError("reward_model 'bounded' (kl-inf): the environment does not give the "
                                        "variances of its rewards.")
        var = np.maximum(np.asarray(var, dtype=float) / self.width**2, 1e-12)
        return Bounded(self.n_sources, self.low, self.high, self.statistic, self.levels, var, self.max_values)

    @property
    def width(self) -> float:
        return self.high - self.low

    def learner_means(self, means) -> np.ndarray:
        """Means in the user's units -> the learner's rescaled units, (m - low) / (high - low)."""
        return (np.asarray(means, dtype=float) - self.low) / self.width

    def additive_epsilon_limit(self) -> float | None:
        """The width of the reward range (the epsilon-GLR of the rescaled means needs epsilon / width < 1)."""
        return self.width

    def learner_gap(self, gap: float) -> float:
        """A difference of means in the user's units in the rescaled ones: gap / (high - low)."""
        return float(gap) / self.width

    def to_user(self, values) -> np.ndarray:
        """Rescaled means (or interval ends) -> the user's units, low + (high - low) v."""
        return self.low + self.width * np.asarray(values, dtype=float)

    def user_sd(self, model: Model) -> np.ndarray:
        """Each source's standard deviation of rewards, in the user's units (NaN below two samples)."""
        n = np.maximum(model.counts, 1.0)
        mean = model.sums / n
        var = np.maximum(cast(Any, model).sq_sums / n - mean**2, 0.0)
        return np.where(model.counts >= 2, self.width * np.sqrt(var), np.nan)

    def sample_sd(self, model: Model) -> np.ndarray:
        """The per-source standard deviation in the user's units (session status)."""
        return self.user_sd(model)

    def interval(self, model: Model, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Per source, a ``level`` (= 1 - alpha) interval for the mean, in the user's units (what status shows).

        ``"kl-inf"``: read from the betting tables, valid at every sample count at once (a confidence
        sequence): the levels l with ln M^+(l) >= ln(2/alpha) (mean above l) or ln M^-(l) >= ln(2/alpha)
        (mean below l) are excluded, and by monotonicity so is everything beyond them.
        ``"sub-bernoulli"``: the Chernoff bounds N kl(mean, q) <= ln(2/alpha) of the rescaled mean (valid
        at a fixed sample count, not uniformly over time).  No sample: the whole range.
        """
        alpha = 1.0 - level
        level = math.log(2.0 / alpha)
        n = model.counts
        lo = np.zeros(n.shape[0])
        hi = np.ones(n.shape[0])
        for a in np.flatnonzero(n > 0):
            if self.statistic == "kl-inf" and cast(Any, model).grid.shape[0]:
                up = np.flatnonzero(cast(Any, model).ln_up[a] >= level)
                down = np.flatnonzero(cast(Any, model).ln_down[a] >= level)
                lo[a] = cast(Any, model).grid[up.max()] if up.size else 0.0
                hi[a] = cast(Any, model).grid[down.min()] if down.size else 1.0
            else:
                lo[a] = _kl.lower_bound(_kl.BERNOULLI, model.estimate[a], n[a], 1.0, level)
                hi[a] = _kl.upper_bound(_kl.BERNOULLI, model.estimate[a], n[a], 1.0, level)
        return self.to_user(lo), self.to_user(hi)

    def confidence_bounds(self, model: Model, means: np.ndarray, level: float, lower: np.ndarray) -> np.ndarray:
        """LUCB's bounds (rescaled units): with ``"kl-inf"``, read from the betting tables.

        The lower bound of a source is the largest grid level l with ln M^+(l) >= ``level`` (its
        up-bets reject "mean <= l"), 0 when there is none; the upper bound the smallest l with
        ln M^-(l) >= ``level``, 1 when there is none: the same statistic the stopping rule tests, so
        an arm stays a candidate for sampling until the betting evidence, not its Gaussian second-order
        approximation, separates it (with the approximation, an arm far below the best looked settled
        and LUCB stopped sampling it while the stopping rule still waited for it).  ``"sub-bernoulli"``:
        the Bernoulli KL bounds of the default.
        """
        grid = cast(Any, model).grid if self.statistic == "kl-inf" else None
        if grid is None or not grid.shape[0]:
            return super().confidence_bounds(model, means, level, lower)
        ln_up = cast(Any, model).ln_up
        ln_down = cast(Any, model).ln_down
        out = np.empty(means.shape[0])
        for a in range(means.shape[0]):
            if model.counts[a] <= 0:
                out[a] = 0.0 if lower[a] else 1.0
            elif lower[a]:
                hit = np.flatnonzero(ln_up[a] >= level)
                out[a] = grid[hit[-1]] if hit.size else 0.0
            else:
                hit = np.flatnonzero(ln_down[a] >= level)
                out[a] = grid[hit[0]] if hit.size else 1.0
        return out

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        if rewards.shape[0] == 1:
            ok = self.low <= rewards[0] <= self.high  # False for nan
        else:
            ok = bool(((rewards >= self.low) & (rewards <= self.high)).all())
        return None if ok else f"numbers in [{self.low:g}, {self.high:g}] (reward_range of reward_model \"bounded\")"

    def reward_model_keys(self) -> dict:
        return {"reward_model": "bounded", "reward_range": [self.low, self.high], "statistic": self.statistic}

    def to_dict(self) -> dict:
        out = {"name": "bounded", "low": self.low, "high": self.high, "statistic": self.statistic,
               "levels": self.levels}
        if self.max_values != DEFAULT_MAX_VALUES:  # the default is left out: descriptions saved before it stay equal
            out["max_values"] = self.max_values
        return out
