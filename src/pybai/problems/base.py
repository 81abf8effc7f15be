"""What the learner knows: the goal, the regime and the public structure of a problem.

A :class:`Problem` never holds the hidden truth.  It gives the math of its goal:

* ``answer(means)``: the correct answer for source means ``means``;
* ``glr(counts, means)``: the GLR statistic of the empirical answer (fixed confidence);
* ``oracle(means)``: the characteristic time T*(mu) and the optimal weights w*(mu).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pybai._validation import check_positive_int, check_probability
from pybai.models.families import Family

__all__ = ["FixedConfidence", "FixedBudget", "BatchSpec", "Problem", "bernoulli_kl_scalar"]


def bernoulli_kl_scalar(p: float, q: float) -> float:
    """kl(p, q) for Bernoulli laws; ``kl(delta, 1 - delta)`` is the lower-bound factor."""
    import math

    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


@dataclass(frozen=True)
class FixedConfidence:
    """Fixed-confidence regime: stop as soon as the answer is right with probability >= 1 - delta.

    Parameters
    ----------
    delta : float
        Risk in (0, 1).
    max_samples : int
        A run still going at this many samples stops and counts as censored.
    """

    delta: float
    max_samples: int = 1_000_000
    kind: ClassVar[str] = "fixed-confidence"

    def __post_init__(self):
        check_probability(self.delta, "delta", "FixedConfidence")
        check_positive_int(self.max_samples, "max_samples", "FixedConfidence")


@dataclass(frozen=True)
class FixedBudget:
    """Fixed-budget regime: spend ``budget`` samples (or batches), then recommend."""

    budget: int
    kind: ClassVar[str] = "fixed-budget"

    def __post_init__(self):
        check_positive_int(self.budget, "budget", "FixedBudget")


@dataclass(frozen=True)
class BatchSpec:
    """(b, r)-batch pulls: ``size`` samples per batch, at most ``max_repeats`` of one source."""

    size: int
    max_repeats: int

    def __post_init__(self):
        check_positive_int(self.size, "size", "BatchSpec")
        check_positive_int(self.max_repeats, "max_repeats", "BatchSpec")


class Problem(ABC):
    """Base class of identification problems.

    Subclasses set ``goal`` and implement :meth:`answer`, :meth:`glr`, :meth:`oracle`.

    Attributes
    ----------
    family : Family
        Reward family of the sources (Gaussian with known variances, Bernoulli).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec or None
    n_sources : int
        Number of sources a learner can sample.
    source_shape : tuple of int
        Shape in which per-source quantities are reported (``(K,)`` or ``(K, L)``).
    """

    goal: ClassVar[str] = ""

    def __init__(self, family: Family, regime, batch: BatchSpec | None = None):
        if not isinstance(regime, (FixedConfidence, FixedBudget)):
            raise TypeError("regime must be a FixedConfidence or FixedBudget instance")
        self.family = family
        self.regime = regime
        self.batch = batch

    # --- structure -------------------------------------------------------
    @property
    @abstractmethod
    def n_sources(self) -> int: ...

    @property
    def source_shape(self) -> tuple[int, ...]:
        return (self.n_sources,)

    @property
    def n_requests(self) -> int:
        """Number of distinct requests a learner can make.

        Usually a request is a source.  When the learner only chooses part of a source
        (the arm, while the subpopulation arrives at random), requests are coarser than
        sources and the environment answers with the source it actually observed.
        """
        return self.n_sources

    def request_counts(self, counts: np.ndarray) -> np.ndarray:
        """Samples per request, from samples per source (identity when requests are sources)."""
        return counts

    def request_weights(self, weights: np.ndarray) -> np.ndarray:
        """Target proportions per request, from proportions per source."""
        return weights

    def expand_request_weights(self, weights: np.ndarray) -> np.ndarray:
        """Proportions per source induced by proportions per request (inverse of the above)."""
        return weights

    def request_gains(self, gains: np.ndarray) -> np.ndarray:
        """Gain of one more request, from per-sample gains per source (expected over sources)."""
        return gains

    @property
    def delta(self) -> float | None:
        return self.regime.delta if isinstance(self.regime, FixedConfidence) else None

    @property
    def n_alternatives(self) -> int:
        """Number of pieces of the alternative set (union bound of delta-correct thresholds)."""
        return max(self.n_sources - 1, 1)

    @property
    def n_terms(self) -> int:
        """Number of sources whose law changes in the closest alternative of one piece."""
        return 2

    # --- the math of the goal -------------------------------------------
    @abstractmethod
    def answer(self, means: np.ndarray) -> Any:
        """Correct answer for source means ``means``."""

    @abstractmethod
    def glr(self, counts: np.ndarray, means: np.ndarray) -> float:
        """GLR statistic of the empirical answer (inf over the alternative of sum N d)."""

    @abstractmethod
    def oracle(self, means: np.ndarray, hint: Any = None) -> tuple[float, np.ndarray]:
        """Characteristic time T*(mu) and optimal weights w*(mu) (summing to 1).

        ``hint`` is an optional warm-start state from :meth:`oracle_hint`, updated in place.
        """

    def alt_gradient(self, means: np.ndarray, w: np.ndarray, out: np.ndarray | None = None):
        """Nature's best response to allocation ``w``: ``(value, divergences per source)``.

        value = inf over the alternative of sum_s w_s d(mu_s, lambda_s); the divergences
        d(mu_s, lambda*_s) of a minimiser form a supergradient of w -> value.  Needed by
        game-based sampling rules; problems that do not provide it raise.
        """
        raise NotImplementedError(f"{type(self).__name__} does not provide alt_gradient")

    def oracle_hint(self) -> Any:
        """A fresh warm-start state for :meth:`oracle` (``None``: no warm start)."""
        return None

    def is_correct(self, answer: Any, means: np.ndarray) -> bool:
        return bool(np.all(np.asarray(answer) == np.asarray(self.answer(means))))

    def simple_regret(self, answer: Any, means: np.ndarray) -> float:
        """Quality of the true answer minus quality of ``answer`` (0 when correct)."""
        return 0.0 if self.is_correct(answer, means) else float("nan")

    def false_negative_rate(self, answer: Any, means: np.ndarray) -> float | None:
        """Top-k only: fraction of the true answer missing from ``answer``."""
        return None

    def to_dict(self) -> dict:
        """JSON-serialisable description of the problem."""
        regime = {"kind": self.regime.kind, **{k: v for k, v in vars(self.regime).items()}}
        return {
            "goal": self.goal,
            "n_sources": self.n_sources,
            "family": self.family.to_dict(),
            "regime": regime,
            "batch": None if self.batch is None else vars(self.batch).copy(),
        }
