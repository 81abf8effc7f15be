"""Reward families: what the learner knows about the law of each source.

A family names the KL divergence that the numba kernels of :mod:`pybai.models._kl` compute
(by its integer ``code``), the known variances, the sub-Gaussian scale of the rewards (the
noise level of the fixed-budget confidence widths) and the support of the rewards.  Gaussian
sources have a known variance (one per source); Bernoulli sources have means in [0, 1] and
rewards in {0, 1}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np
from scipy.special import stdtrit  # Student's t quantile (scipy.stats.t.ppf calls it; scipy.stats costs ~1 s to import)

from pybai._validation import check_array, check_choice, check_memory, check_noise_scale, check_positive_int, fail
from pybai.exceptions import InvalidParameterError
from pybai.models import _kl
from pybai.models.base import EmpiricalMeans, Model
from pybai.models.unknown_variance import TIE_VALUES, MeansAndVariances
from pybai.naming import arm_name

#: Gaussian rewards further than this many noise standard deviations from 0 are refused by
#: :meth:`Gaussian.check_rewards` (squared differences over sigma^2 stay far from overflow).
REWARD_SCALE_LIMIT = 1e100

__all__ = ["Family", "Gaussian", "Bernoulli", "GaussianUnknownVariance"]


@dataclass(frozen=True, eq=False)
class Family:
    """Base reward family.

    Attributes
    ----------
    name : str
        ``"gaussian"`` or ``"bernoulli"``.
    code : int
        Integer code understood by the numba kernels of :mod:`pybai.models._kl`.
    variances : ndarray of shape (n_sources,)
        Known variance of each source (ones for Bernoulli, unused by its KL).
    """

    name: str = field(init=False, default="")
    code: int = field(init=False, default=-1)
    #: capabilities the family adds to its problems' ``provides``: ``"known-noise"`` (a known
    #: sub-Gaussian scale, which confidence-width rules such as UCB-E, UGapE and BatchRacing need)
    provides: ClassVar[frozenset[str]] = frozenset({"known-noise"})
    #: samples every source needs before the learner's statistics exist (the initial phase asks them)
    min_samples: ClassVar[int] = 1
    #: the epsilon modes of epsilon-best-arm identification its costs and thresholds support
    epsilon_modes: ClassVar[tuple[str, ...]] = ("additive", "relative")
    #: True when the learner's model is the empirical means of the rewards as observed and the
    #: kernels need only ``code`` and ``variances`` (nothing estimated besides the means, no
    #: rescaling): whole runs may then be played by compiled kernels (Problem.run_kernels)
    raw_rewards: ClassVar[bool] = False

    @property
    def variances(self) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def size(self) -> int:
        """Number of sources the family describes."""
        return len(self.variances)

    def new_model(self, n_sources: int) -> Model:
        """The learner's model of ``n_sources`` sources of this family (default: empirical means)."""
        return EmpiricalMeans(n_sources)

    def for_model(self, model: Model) -> "Family":
        """The family as the learner sees it at ``model``'s state (default: itself, nothing to estimate).

        A family whose kernels need quantities the learner estimates (the variances of the
        unknown-variance Gaussian) returns a view that reads them from the model, in place.
        """
        return self

    def reward_model_keys(self) -> dict:
        """The ``[problem]`` keys that name this family as a reward model (none for the environment's own)."""
        return {}

    def misfit(self, model: Model, labels=None) -> str | None:
        """What in the learner's data contradicts this family, in one sentence naming the arms, or None.

        Default: nothing (None).  The unknown-variance Gaussian names the arms that repeated a
        reward, which it does not count as evidence, and the reward model that fits.
        """
        return None

    def interval(self, model: Model, level: float):
        """Per-source marginal interval ``(low, high)`` at ``level`` when the family has its own, else None
        (then :func:`pybai.session.intervals.confidence_intervals` uses the model's or the known variance's)."""
        return None

    def sample_sd(self, model: Model):
        """Per-source standard deviation the learner estimated (None when the family knows it or has none)."""
        return None

    def confidence_bounds(self, model: Model, means: np.ndarray, level: float, lower: np.ndarray) -> np.ndarray:
        """Per source, its lower confidence bound where ``lower`` is True, else its upper one (LUCB's bounds).

        Default: the KL bounds of the family's kernel, min/max{q : N d(mean, q) <= level}
        (:func:`pybai.models._kl.lower_bound`, :func:`~pybai.models._kl.upper_bound`).  A family whose
        kernel is only an approximation of its statistic (bounded rewards with KL_inf) overrides it
        with bounds read from the statistic itself.
        """
        return _kl.kernel_bounds(self.code, model.counts, means, self.variances, float(level), lower)

    @property
    def leader_family(self) -> str | None:
        """The family whose leader rules (kinds ``"leader"``, ``"leader-scales"``, ``"leader-settled"``,
        :mod:`pybai.stopping.leader`) are proven for these rewards, or None (the plain best-arm problem then maps
        ``"delta-correct"`` to a per-pair rule and refuses the leader kinds).

        Default: ``"gaussian"`` (known variances) and ``"bernoulli"`` for themselves, None otherwise; bounded
        rewards with the sub-Bernoulli statistic answer ``"bernoulli"`` (rewards rescaled to [0, 1]).
        """
        return self.name if self.name in ("gaussian", "bernoulli") else None

    @property
    def support(self) -> tuple[float, float]:
        """The interval the rewards lie in (default: the real line)."""
        return (-math.inf, math.inf)

    def learner_means(self, means) -> np.ndarray:
        """Means in the user's units as the learner's statistics hold them (default: unchanged).

        A family whose learner works in other units (bounded rewards rescaled to [0, 1]) converts
        the truth's means before they reach the oracle.
        """
        return np.asarray(means, dtype=float)

    def to_user(self, values) -> np.ndarray:
        """The learner's means (or interval ends) in the user's units (default: an unchanged copy)."""
        return np.array(values, dtype=float)

    def learner_gap(self, gap: float) -> float:
        """A difference of means in the user's units (an additive epsilon) in the learner's units (default: itself)."""
        return float(gap)

    def additive_epsilon_limit(self) -> float | None:
        """The additive epsilon at and above which the family's epsilon-GLR has no meaning (None: none)."""
        return None

    def check_additive_epsilon(self, epsilon: float, owner: str) -> None:
        """Refuse, naming ``owner``'s ``epsilon``, an additive epsilon at or above :meth:`additive_epsilon_limit`."""
        limit = self.additive_epsilon_limit()
        if limit is not None and not epsilon < limit:
            raise fail("epsilon", owner, f"a float in (0, {limit:g}) for {self.name} rewards (below the width of the "
                       "numerically safe reward range: every arm would be epsilon-good)", epsilon)

    def epsilon_shift(self, epsilon: float, epsilon_mode: str, owner: str) -> tuple[float, float]:
        """``(c, e)`` of the shifted pieces {lambda_a <= c lambda_b - e} of a positive ``epsilon`` in fixed confidence.

        ``(1 - epsilon, 0)`` for a relative epsilon (which must be < 1), ``(1, e)`` with ``e`` the
        additive epsilon in the learner's units (:meth:`learner_gap`).  Refuses, naming ``owner``'s
        parameter, a family with no epsilon-GLR or a mode it does not offer (:attr:`epsilon_modes`).
        """
        if not self.epsilon_modes:
            raise fail("epsilon", owner, f"None in fixed confidence for {self.name} rewards (no epsilon-GLR yet)",
                       epsilon)
        if epsilon_mode not in self.epsilon_modes:
            raise fail("epsilon_mode", owner, f"one of {', '.join(self.epsilon_modes)} for {self.name} rewards",
                       epsilon_mode)
        if epsilon_mode == "relative":
            if not epsilon < 1.0:
                raise fail("epsilon", owner, 'a float in (0, 1) with epsilon_mode = "relative"', epsilon)
            return (1.0 - epsilon, 0.0)
        self.check_additive_epsilon(epsilon, owner)
        low, high = self.support
        if not epsilon < high - low:  # every arm would be epsilon-good: nothing to identify
            raise fail("epsilon", owner, f"a float in (0, {high - low:g}): the rewards lie in [{low:g}, {high:g}], and "
                       f"with epsilon >= {high - low:g} every arm is epsilon-good", epsilon)
        return (1.0, self.learner_gap(epsilon))  # in the learner's units

    def for_truth(self, environment) -> "Family":
        """The family with the hidden truth's parameters, for the characteristic time of ``environment``.

        Default: itself (the family already holds every parameter the oracle needs).
        """
        return self

    @property
    def sub_gaussian_scale(self) -> float:  # pragma: no cover - overridden
        """Scale s such that every source's reward X satisfies ``E exp(l (X - mu)) <= exp(l^2 s^2 / 2)``.

        The noise level of the rules on independent arms that need one (UCB-E and UGapEb widths,
        BatchRacing's bounds): the largest noise standard deviation for Gaussian rewards, 1/2
        for rewards in [0, 1] (Hoeffding's lemma).
        """
        raise NotImplementedError

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        """What is wrong with ``rewards`` (float array) for this family (``None`` when they are fine)."""
        ok = math.isfinite(rewards[0]) if rewards.shape[0] == 1 else bool(np.isfinite(rewards).all())
        return None if ok else "finite numbers"

    def to_dict(self) -> dict:
        """JSON-serialisable description."""
        raise NotImplementedError


def check_n_sources(n_sources, owner: str) -> None:
    """Refuse, naming ``owner``'s parameter, a source count that is not a positive int or does not fit in memory."""
    n = check_positive_int(n_sources, "n_sources", owner)
    check_memory(8 * n, "n_sources", owner, "the per-source variances (8 bytes each)", n_sources)


@dataclass(frozen=True, eq=False)
class Gaussian(Family):
    """Gaussian rewards with known standard deviation per source.

    Parameters
    ----------
    sigma : float or array-like of shape (n_sources,)
        Noise standard deviation(s), > 0.
    n_sources : int
        Number of sources (used to broadcast a scalar ``sigma``).
    """

    sigma: np.ndarray | float = 1.0
    n_sources: int = 1
    raw_rewards: ClassVar[bool] = True
    if TYPE_CHECKING:  # set in __post_init__, not dataclass fields
        _var: np.ndarray = field(init=False)
        _reward_bound: float = field(init=False)

    def __post_init__(self):
        check_n_sources(self.n_sources, "Gaussian")
        sig = check_noise_scale(check_array(self.sigma, "sigma", "Gaussian", low=0.0, strict_low=True), None,
                                "sigma", "Gaussian")
        if sig.ndim == 0 or sig.size == 1:
            sig = np.full(self.n_sources, float(sig.reshape(-1)[0]))
        elif sig.size != self.n_sources:
            check_array(sig, "sigma", "Gaussian", shape=(self.n_sources,))  # raises
        object.__setattr__(self, "sigma", sig.reshape(-1).astype(float))
        object.__setattr__(self, "name", "gaussian")
        object.__setattr__(self, "code", _kl.GAUSSIAN)
        object.__setattr__(self, "_var", self.sigma**2)
        object.__setattr__(self, "_reward_bound", REWARD_SCALE_LIMIT * float(self.sigma.max()))

    @property
    def variances(self) -> np.ndarray:
        return self._var

    @property
    def sub_gaussian_scale(self) -> float:
        """The largest noise standard deviation, ``max_k sigma_k``."""
        return float(np.sqrt(np.max(self._var)))

    def additive_epsilon_limit(self) -> float | None:
        """Twice the safe reward range (:meth:`check_rewards`): means that far apart are beyond it, every arm is
        epsilon-good, and epsilon^2 / sigma^2 in the GLR would overflow (an epsilon of 1e300 made NaN)."""
        return 2.0 * self._reward_bound

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        """Finite and within :data:`REWARD_SCALE_LIMIT` noise standard deviations of 0.

        Beyond that, squares of mean differences over sigma^2 in the GLR statistic overflow
        (a reward of 1e308 made Track-and-Stop stop after 3 samples): a typo, not data.
        """
        bound = self._reward_bound
        if rewards.shape[0] == 1:
            ok = abs(rewards[0]) <= bound  # False for nan
        else:
            ok = bool((np.abs(rewards) <= bound).all())
        return None if ok else f"finite numbers within {REWARD_SCALE_LIMIT:g} noise standard deviations of 0 " \
                                f"(numerically safe range: |reward| <= {bound:g})"

    def to_dict(self) -> dict:
        return {"name": "gaussian", "sigma": np.asarray(self.sigma).tolist()}


@dataclass(frozen=True, eq=False)
class Bernoulli(Family):
    """Bernoulli rewards (means in [0, 1])."""

    n_sources: int = 1
    raw_rewards: ClassVar[bool] = True
    if TYPE_CHECKING:  # set in __post_init__, not a dataclass field
        _var: np.ndarray = field(init=False)

    def __post_init__(self):
        check_n_sources(self.n_sources, "Bernoulli")
        object.__setattr__(self, "name", "bernoulli")
        object.__setattr__(self, "code", _kl.BERNOULLI)
        object.__setattr__(self, "_var", np.ones(self.n_sources))

    @property
    def variances(self) -> np.ndarray:
        return self._var

    @property
    def sub_gaussian_scale(self) -> float:
        """1/2: rewards in [0, 1] are 1/2-sub-Gaussian (Hoeffding's lemma)."""
        return 0.5

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        if rewards.shape[0] == 1:
            ok = rewards[0] == 0.0 or rewards[0] == 1.0
        else:
            ok = bool(((rewards == 0.0) | (rewards == 1.0)).all())
        return None if ok else "0 or 1 (Bernoulli rewards)"

    @property
    def support(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def to_dict(self) -> dict:
        return {"name": "bernoulli"}


#: |reward| limit of :class:`GaussianUnknownVariance` (no noise scale is known to scale it by)
UNKNOWN_VARIANCE_REWARD_LIMIT = 1e100

UNKNOWN_VARIANCE_STATISTICS = ("glr", "ev-glr")


@dataclass(frozen=True, eq=False)
class GaussianUnknownVariance(Family):
    """Gaussian rewards whose variances are unknown and may differ per source.

    The learner estimates each source's mean and variance (maximum likelihood, S / N) with
    :class:`~pybai.models.unknown_variance.MeansAndVariances`; every source needs two samples
    first.  Its statistics are those of Jourdan, Degenne & Kaufmann (ALT 2023):

    * ``statistic="glr"`` (default): the transportation cost of the unknown-variance Gaussian,
      d(mu, lambda) = (1/2) ln(1 + (mu - lambda)^2 / sigma^2) (kernel code
      :data:`~pybai.models._kl.GAUSSIAN_UV`), in the GLR, the oracle and every sampling rule;
    * ``statistic="ev-glr"``: the known-variance Gaussian costs with the empirical variances
      plugged in (the "EV" wrappers).

    The proven ``delta-correct`` stopping rule is the same for both
    (:mod:`pybai.stopping.unknown_variance`); ``heuristic`` compares the chosen statistic with
    ln((1 + ln t) / delta).

    Parameters
    ----------
    n_sources : int
    statistic : {"glr", "ev-glr"}, default "glr"
    """

    n_sources: int = 1
    statistic: str = "glr"
    estimated: np.ndarray | None = field(default=None, repr=False)

    provides: ClassVar[frozenset[str]] = frozenset()
    min_samples: ClassVar[int] = 2
    #: a location family: an additive epsilon shifts a mean; a relative one would need its own costs
    epsilon_modes: ClassVar[tuple[str, ...]] = ("additive",)

    def __post_init__(self):
        check_n_sources(self.n_sources, "GaussianUnknownVariance")
        check_choice(self.statistic, UNKNOWN_VARIANCE_STATISTICS, "statistic", "GaussianUnknownVariance")
        object.__setattr__(self, "name", "gaussian-unknown-variance")
        object.__setattr__(self, "code", _kl.GAUSSIAN_UV if self.statistic == "glr" else _kl.GAUSSIAN)

    @property
    def size(self) -> int:
        return int(self.n_sources)

    @property
    def variances(self) -> np.ndarray:
        """The variances the statistics use: the learner's estimates (or the truth's, for the oracle).

        Unbound (no model, no truth) they are unknown: one clear error.
        """
        if self.estimated is None:
            raise InvalidParameterError("The variances of a GaussianUnknownVariance family are unknown: the learner "
                                        "estimates them (family.for_model(model)); the truth's come from the "
                                        "environment (family.for_truth(environment)).")
        return self.estimated

    @property
    def sub_gaussian_scale(self) -> float:
        raise InvalidParameterError("rewards under reward_model 'gaussian-unknown-variance' have no known noise "
                                    "scale; rules that need one (ucbe, ugap, batch-racing) refuse this model.")

    def new_model(self, n_sources: int) -> Model:
        return MeansAndVariances(n_sources)

    def for_model(self, model: Model) -> "Family":
        return GaussianUnknownVariance(self.n_sources, self.statistic, cast(MeansAndVariances, model).noise)

    def for_truth(self, environment) -> "Family":
        truth = environment.family()
        if truth.name != "gaussian":
            raise InvalidParameterError(f"reward_model 'gaussian-unknown-variance' needs Gaussian rewards; the "
                                        f"environment's are '{truth.name}'.")
        return GaussianUnknownVariance(self.n_sources, self.statistic, np.asarray(truth.variances, dtype=float))

    def additive_epsilon_limit(self) -> float | None:
        """Twice the safe reward range (:meth:`check_rewards`): beyond, every arm is epsilon-good."""
        return 2.0 * UNKNOWN_VARIANCE_REWARD_LIMIT

    def check_rewards(self, rewards: np.ndarray) -> str | None:
        if rewards.shape[0] == 1:
            ok = abs(rewards[0]) <= UNKNOWN_VARIANCE_REWARD_LIMIT  # False for nan
        else:
            ok = bool((np.abs(rewards) <= UNKNOWN_VARIANCE_REWARD_LIMIT).all())
        return None if ok else f"finite numbers with |reward| <= {UNKNOWN_VARIANCE_REWARD_LIMIT:g}"

    def reward_model_keys(self) -> dict:
        return {"reward_model": "gaussian-unknown-variance", "statistic": self.statistic}

    def misfit(self, model: Model, labels=None) -> str | None:
        """The arms whose variance estimate rests on ties (``model.tied``), which the proven rule does not count."""
        tied = getattr(model, "tied", None)
        if tied is None or not tied.any():
            return None
        arms = np.flatnonzero(tied)
        shown = ", ".join(arm_name(a, labels) for a in arms[:10]) + (", ..." if arms.size > 10 else "")
        one = arms.size == 1
        return (f"{shown} repeated {'its' if one else 'their'} rewards (fewer than half of them are distinct "
                f"values): Gaussian rewards never repeat, so reward_model \"gaussian-unknown-variance\" does not "
                f"fit, and the proven rule does not stop on {'this arm' if one else 'these arms'} while that lasts "
                f"(or until {'it has' if one else 'each has'} shown more than {TIE_VALUES} distinct values); "
                f"rewards in a known range fit reward_model = \"bounded\" with reward_range = [low, high]")

    def sample_sd(self, model: Model) -> np.ndarray:
        """The unbiased sample standard deviation sqrt(S / (N - 1)); NaN below two samples."""
        n = np.asarray(model.counts, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            sq_devs = cast(MeansAndVariances, model).sq_devs
            return np.where(n >= 2.0, np.sqrt(sq_devs / np.maximum(n - 1.0, 1.0)), np.nan)

    def interval(self, model: Model, level: float):
        """Student's t interval mean +- t_{N-1} sd / sqrt(N) (exact for Gaussian rewards); NaN below two samples."""
        n = np.asarray(model.counts, dtype=float)
        quantile = stdtrit(np.maximum(n - 1.0, 1.0), (1.0 + level) / 2.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            half = np.where(n >= 2.0, quantile * self.sample_sd(model) / np.sqrt(n), np.nan)
        mean = np.asarray(model.estimate, dtype=float)
        return mean - half, mean + half

    def to_dict(self) -> dict:
        return {"name": "gaussian-unknown-variance", "statistic": self.statistic}
