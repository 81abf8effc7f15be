"""What the learner knows: the goal, the regime and the public structure of a problem.

A :class:`Problem` never holds the hidden truth.  It gives the math of its goal:

* ``new_model()``: the model that turns samples into estimates (default: empirical means);
* ``answer(means)``: the correct answer for source means ``means``;
* ``glr(counts, means)`` / ``statistic(model)``: the GLR statistic of the empirical answer;
* ``oracle(means)``: the characteristic time T*(mu) and the optimal weights w*(mu);
* ``threshold(kind, delta)``: its stopping threshold (each family gives its proven one), and
  ``pieces(model)``: the pieces of the alternative a count-dependent threshold tests;
* ``request_space()``: what a learner can ask for, and the initial phase;
* ``complexity(truth)``: the report of ``pybai complexity``.

Strategies call these methods and never branch on the goal: a new goal is a new subclass.
"""

from __future__ import annotations

import copy

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from pybai._validation import BATCH_SIZE_LIMIT, SAMPLE_LIMIT, check_array, check_positive_int, check_probability, fail
from pybai.models import _kl
from pybai.models._shifted import transport_costs, transport_split
from pybai.models.base import Model
from pybai.models.families import Family
from pybai.naming import check_labels
from pybai.problems.requests import RequestSpace
from pybai.problems.tolerance import regret_exceeds
from pybai.stopping.base import Threshold
from pybai.stopping.leader import refuse_leader
from pybai.stopping.thresholds import make_threshold

__all__ = ["FixedConfidence", "FixedBudget", "BatchSpec", "Problem", "lower_bound_factor"]


def lower_bound_factor(delta: float) -> float:
    """kl(delta, 1 - delta): the lower bound on E[samples] is T*(mu) times this (GK16, Theorem 1)."""
    return float(_kl.kl(_kl.BERNOULLI, delta, 1.0 - delta, 1.0))


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
        check_positive_int(self.max_samples, "max_samples", "FixedConfidence", maximum=SAMPLE_LIMIT)


@dataclass(frozen=True)
class FixedBudget:
    """Fixed-budget regime: spend ``budget`` samples (or batches), then recommend."""

    budget: int
    kind: ClassVar[str] = "fixed-budget"

    def __post_init__(self):
        check_positive_int(self.budget, "budget", "FixedBudget", maximum=SAMPLE_LIMIT)


@dataclass(frozen=True)
class BatchSpec:
    """(b, r)-batch pulls: ``size`` samples per batch, at most ``max_repeats`` of one source."""

    size: int
    max_repeats: int

    def __post_init__(self):
        check_positive_int(self.size, "size", "BatchSpec", maximum=BATCH_SIZE_LIMIT)  # held in memory
        check_positive_int(self.max_repeats, "max_repeats", "BatchSpec")
        if self.max_repeats > self.size:
            raise fail("max_repeats", "BatchSpec", f"an int <= size ({self.size})", self.max_repeats)


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
    labels : tuple of str or None
        The names of the arms (``labels=`` of the constructors, ``[environment] labels`` of a
        file), or None; presentation only (not part of :meth:`to_dict`).
    """

    goal: ClassVar[str] = ""
    #: what the problem offers to strategies (a strategy's ``requires`` must be a subset):
    #: ``"independent-arms"`` (sources have independent laws: per-source statistics are what a rule
    #: needs), ``"answer-mask"`` (the answer is a set of sources, :meth:`answer_mask`),
    #: ``"features"`` (arms with known features: linear bandits), ``"posterior"`` (the model is a
    #: posterior with ``std``, ``root`` and ``kappa``), ``"exact-identification"`` (no epsilon)
    provides: frozenset[str] = frozenset({"independent-arms"})
    #: Lazy oracle schedule of Track-and-Stop by default (its ``oracle_growth``): 0 solves the
    #: oracle at every step (closed forms, microseconds); a problem whose oracle is an
    #: optimisation sets g > 0 (solved again once t has grown by the factor 1 + g).
    tracking_oracle_growth: float = 0.0
    #: tolerance of the fixed-budget error metric ``Pr(simple regret > epsilon)`` (the ``epsilon`` of a
    #: fixed-budget problem); None: not reported
    error_tolerance: float | None = None
    #: the answer tolerance of fixed confidence (an answer within it is correct: the pieces of the
    #: alternative are shifted, :attr:`shift`) and how it reads ("additive" or "relative"); None without
    epsilon: float | None = None
    epsilon_mode: str | None = None
    #: the names of the arms, or None (:mod:`pybai.naming`)
    labels: tuple[str, ...] | None = None

    def __init__(self, family: Family, regime, batch: BatchSpec | None = None):
        if not isinstance(family, Family):
            raise fail("family", type(self).__name__, "a Family instance (e.g. Gaussian(1.0, n_sources=K))", family)
        if not isinstance(regime, (FixedConfidence, FixedBudget)):
            raise fail("regime", type(self).__name__, "a FixedConfidence or FixedBudget instance", regime)
        if batch is not None and not isinstance(batch, BatchSpec):
            raise fail("batch", type(self).__name__, "a BatchSpec or None", batch)
        if batch is not None and isinstance(regime, FixedBudget) and regime.budget * batch.size > SAMPLE_LIMIT:
            raise fail("budget", type(self).__name__, f"at most {SAMPLE_LIMIT:.0e} samples in all (budget x batch "
                       f"size = {regime.budget} x {batch.size})", regime.budget)
        if batch is not None and isinstance(regime, FixedConfidence) and batch.size > regime.max_samples:
            raise fail("size", "BatchSpec", f"an int <= max_samples ({regime.max_samples}): a batch larger than "
                       "the run's sample cap is never completed", batch.size)
        self.family = family
        self.regime = regime
        self.batch = batch
        #: the class's capabilities and the family's (e.g. ``"known-noise"``)
        self.provides = type(self).provides | family.provides

    def _set_labels(self, labels, n_arms: int) -> None:
        """Check and keep ``labels`` (one distinct name per arm, or None); constructors call it."""
        self.labels = check_labels(labels, n_arms, "labels", type(self).__name__)

    def _check_family_size(self) -> None:
        """Refuse a family built for another number of sources (subclasses call it once sized)."""
        n = self.family.size
        if n != self.n_sources:
            raise fail("family", type(self).__name__, f"a family of {self.n_sources} sources", f"{n} sources")

    # --- structure -------------------------------------------------------
    @property
    @abstractmethod
    def n_sources(self) -> int: ...

    @property
    def source_shape(self) -> tuple[int, ...]:
        """Shape in which per-source quantities are reported (the request space's)."""
        return self.request_space().source_shape

    @property
    def n_requests(self) -> int:
        """Number of distinct requests a learner can make (the request space's).

        Usually a request is a source.  When the learner only chooses part of a source
        (the arm, while the subpopulation arrives at random), requests are coarser than
        sources and the environment answers with the source it actually observed.
        """
        return self.request_space().n_requests

    def request_space(self) -> RequestSpace:
        """What a learner can ask for (:mod:`pybai.problems.requests`), built once.

        Default: a request is a source.  A family whose learner asks for something else
        (cells whose subpopulation arrives at random, arms of a linear design) overrides
        :meth:`_make_request_space`.
        """
        space = self.__dict__.get("_request_space")
        if space is None:
            space = self._make_request_space()
            self._request_space = space
        return space

    def _make_request_space(self) -> RequestSpace:
        return RequestSpace(self.n_sources)

    # --- model, regime, initial phase, threshold ------------------------
    def new_model(self) -> Model:
        """A fresh model of the sources: the family's (default :class:`~pybai.models.base.EmpiricalMeans`)."""
        return self.family.new_model(self.n_sources)

    def learner_view(self, model: Model) -> "Problem":
        """The problem as the learner sees it at ``model``'s state: itself, or a copy whose family
        reads what the learner estimates (:meth:`pybai.models.families.Family.for_model`)."""
        return self._with_family(self.family.for_model(model))

    def truth_view(self, environment) -> "Problem":
        """The problem with the hidden truth's family parameters (:meth:`~pybai.models.families.Family.for_truth`),
        for the characteristic time and the oracle weights on ``environment``."""
        return self._with_family(self.family.for_truth(environment))

    def _with_family(self, family: Family) -> "Problem":
        if family is self.family:
            return self
        view = copy.copy(self)
        view.family = family
        return view

    @property
    def budget_unit(self) -> str:
        """What budgets count: ``"batches"`` with a :class:`BatchSpec`, else ``"samples"``."""
        return "samples" if self.batch is None else "batches"

    def threshold(self, kind: str, delta: float) -> Threshold:
        """The stopping threshold of ``kind`` for this problem: by default the union bound over :attr:`n_alternatives`
        pieces of the alternative, each changing the laws of :attr:`n_terms` sources (:func:`~pybai.stopping.thresholds.make_threshold`)."""
        refuse_leader(kind, type(self).__name__)
        return make_threshold(kind, delta, n_alternatives=self.n_alternatives, n_terms=self.n_terms, family=self.family.name)

    def pieces(self, model: Model) -> Any:
        """The pieces of the alternative to the empirical answer at ``model``'s estimate, or None.

        What a count-dependent stopping test (:class:`~pybai.stopping.base.PieceThreshold`) tests one
        by one with their own counts: :class:`~pybai.stopping.base.PairPieces` for problems whose
        pieces are made of two arms (best arm, top-k), the family's own for others (best feasible
        arm).  None (the default): the problem is decided on a threshold of ``t`` only.
        """
        return None

    def statistic_against(self, model: Model, level: float, t: int) -> float:
        """The GLR statistic compared with ``level`` after ``t`` samples (default: :meth:`statistic`).

        A problem may return instead an upper bound of the statistic that is below ``level`` when a
        cheap one shows the stopping rule cannot stop (the linear family screens by one arm); the
        decision is the same.
        """
        return self.statistic(model)

    def _pair_threshold(self, kind: str, delta: float) -> Threshold:
        """``"delta-correct"``: normal mixtures per pair (Gaussian), tilted mixtures (:mod:`pybai.stopping.tilt`, Bernoulli)."""
        fam = self.family.name
        if isinstance(kind, str) and kind.strip().lower() == "delta-correct" and fam in ("gaussian", "bernoulli"):
            kind = "pair-mixture" if fam == "gaussian" else "pair-tilt"
        refuse_leader(kind, type(self).__name__)
        return make_threshold(kind, delta, n_alternatives=self.n_alternatives, n_terms=self.n_terms, family=fam)

    #: ``(c, e)``: the pieces of two arms are {lambda_i <= c lambda_j - e}; ``(1, 0)`` the plain pieces
    #: {lambda_j >= lambda_i}, another shift the pieces of an answer tolerance epsilon
    #: (:meth:`~pybai.models.families.Family.epsilon_shift`)
    shift: tuple[float, float] = (1.0, 0.0)

    def transport_costs(self, counts, means, leader: int) -> np.ndarray:
        """Per arm j, the cost W(leader, j) of the piece "j beats leader" (``inf`` at the leader).

        inf over {lambda_leader <= c lambda_j - e} of N_leader d(mu_leader, .) + N_j d(mu_j, .), with
        ``(c, e)`` = :attr:`shift`: the transportation costs of top-two challengers.
        """
        c, e = self.shift
        out = np.empty(len(means))
        transport_costs(self.family.code, np.asarray(counts, dtype=float), np.asarray(means, dtype=float),
                        self.family.variances, int(leader), c, e, out)
        return out

    def transport_split(self, counts, means, i: int, j: int) -> tuple[float, float]:
        """The two terms N_i d(mu_i, lambda_i), N_j d(mu_j, lambda_j) of W(i, j) at its minimiser."""
        c, e = self.shift
        return transport_split(self.family.code, np.asarray(counts, dtype=float), np.asarray(means, dtype=float),
                               self.family.variances, int(i), int(j), c, e)

    def separation(self, lower: float, upper: float) -> float:
        """How far a lower confidence bound of the answer is above an outsider's upper bound.

        Positive when the answer is certified against that outsider: ``lower + e - c upper`` with the
        :attr:`shift` (c, e) (``lower - upper``, LUCB's rule, with the plain pieces).
        """
        c, e = self.shift
        return lower + e - c * upper

    def tracking_weights(self, counts, means, t: int, hint: Any = None) -> np.ndarray:
        """The weights a tracking rule (Track-and-Stop) follows at time ``t``.

        Default: :meth:`relaxed_weights` of the estimate.  A problem with several correct answers
        overrides it with a sticky choice of the answer (Degenne & Koolen 2019).
        """
        return self.relaxed_weights(means, hint)

    def statistic(self, model: Model) -> float:
        """GLR statistic of the empirical answer under ``model`` (default: from counts and estimate)."""
        return self.glr(model.counts, model.estimate)

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

    def best_response_kernel(self, means: np.ndarray):
        """A compiled form of :meth:`alt_gradient` at fixed ``means``, or None (the default).

        ``(kernel, data)`` with ``value = kernel(data, w, out)`` writing the per-source gains
        in ``out``: game-based rules then play many rounds between two checks of the stopping
        rule in one compiled loop.  Problems without one are played with ``alt_gradient``.
        """
        return None

    def run_kernels(self):
        """The compiled pieces of a whole simulated run, or None (the default: ask/tell only).

        A :class:`~pybai.problems.run_kernels.RunKernels` when every sequential rule's step on this
        problem can be played by numba kernels that give exactly what the Python methods give
        (the GLR statistic, the oracle weights, the answer mask, the transportation costs):
        :mod:`pybai.strategies._compiled` then plays whole runs without returning to Python.
        """
        return None

    def answer_mask(self, means: np.ndarray) -> np.ndarray:
        """Boolean mask of the sources in the answer for ``means`` (for rules that compare the
        weakest member of the answer with the strongest outsider, such as LUCB); problems whose
        answer is a set of sources provide it."""
        raise NotImplementedError(f"{type(self).__name__} does not provide answer_mask")

    def oracle_hint(self, exact: bool = True) -> Any:
        """A fresh warm-start state for :meth:`oracle` (``None``: no warm start).

        ``exact=False``: the fast form a tracking rule may use (linear: the compiled solver), equal up to rounding.
        """
        return None

    def tracking_hint(self, oracle: str) -> Any:
        """Track-and-Stop's state for its ``oracle`` (overridden where "fast" is approximate)."""
        return self.oracle_hint(exact=oracle == "exact")

    def relaxed_weights(self, means: np.ndarray, hint: Any = None) -> np.ndarray:
        """Oracle weights with the problem's side constraints dropped (default: the oracle's).

        What a constraint-blind baseline tracks (e.g. plain Track-and-Stop on a problem with
        fairness constraints).
        """
        return self.oracle(means, hint)[1]

    def complexity(self, truth: np.ndarray) -> dict:
        """The report of ``pybai complexity``: answer, T*(mu), w*(mu), lower bound, delta.

        The lower bound on the expected samples of any delta-correct strategy is
        T*(mu) kl(delta, 1 - delta) (Garivier & Kaufmann 2016, Theorem 1).  Families add keys.
        """
        truth = self.check_means(truth)
        t_star, w = self.oracle(truth)
        delta = self.delta
        finite = math.isfinite(t_star)
        lower = t_star * lower_bound_factor(delta) if (delta is not None and finite) else None
        answer = self.answer(truth)
        return {
            "answer": int(answer) if np.ndim(answer) == 0 else [int(a) for a in answer],
            "characteristic_time": round(float(t_star), 6) if finite else None,
            "optimal_weights": np.round(np.asarray(w).reshape(self.source_shape), 8).tolist(),
            "lower_bound": None if lower is None else round(float(lower), 6),
            "delta": delta,
        }

    def closest_pair(self, model: Model) -> tuple[int, int] | None:
        """The two sources whose comparison is weakest now: (one in the answer, its closest rival).

        Default, for answers that are sets of independent arms (``"answer-mask"``): the pair (i in the
        empirical answer, j outside) of smallest transportation cost (in whichever direction separates
        them) inf_m N_i d(mu_i, m) + N_j d(mu_j, m), the piece that sets the GLR statistic; None for
        other problems or while a source has no estimate (what a near-tie report names).
        """
        means = model.estimate
        if not {"answer-mask", "independent-arms"} <= self.provides or np.isnan(means).any():
            return None
        inside = self.answer_mask(means)
        code, counts, var = self.family.code, model.counts, self.family.variances

        def cost(i, j):  # the transportation cost between the two, whichever looks larger
            hi, lo = (i, j) if means[i] >= means[j] else (j, i)
            return _kl.pair_cost(code, counts[hi], means[hi], var[hi], counts[lo], means[lo], var[lo])

        costs = [(cost(i, j), int(i), int(j)) for i in np.flatnonzero(inside) for j in np.flatnonzero(~inside)]
        return min(costs)[1:] if costs else None

    def answer_is_unique(self, means: np.ndarray) -> bool:
        """Whether ``means`` has a unique answer (else no strategy can certify one; default True)."""
        return True

    def check_truth(self, means: np.ndarray) -> None:
        """Refuse a truth on which correctness is not defined (default: none), before a run; e.g. a relative
        epsilon on a negative best mean (:mod:`pybai.problems.tolerance`)."""

    def is_correct(self, answer: Any, means: np.ndarray) -> bool:
        """Whether ``answer`` is *a* correct answer for ``means``.

        When the answer is not unique (:meth:`answer_is_unique`), every answer in the set of
        correct ones counts (e.g. any of several tied best arms); the default compares with
        :meth:`answer`, which is right for problems whose answer is always unique.
        """
        return bool(np.all(np.asarray(answer) == np.asarray(self.answer(means))))

    def check_means(self, means: Any, name: str = "means") -> np.ndarray:
        """``means`` as a finite float array with one value per source (user-facing entry points).

        Strings, NaN/inf and wrong lengths raise :class:`~pybai.exceptions.InvalidParameterError`.
        A float64 array of the right size passes without a copy (the strategies' hot path).
        """
        if type(means) is np.ndarray and means.dtype == np.float64 and means.size == self.n_sources:
            return means
        arr = check_array(means, name, type(self).__name__)
        if arr.size != self.n_sources:
            shape = "" if len(self.source_shape) == 1 else f" ({' x '.join(map(str, self.source_shape))})"
            raise fail(name, type(self).__name__, f"{self.n_sources} values{shape}", f"shape {arr.shape}")
        return arr

    def simple_regret(self, answer: Any, means: np.ndarray) -> float:
        """Quality of the true answer minus quality of ``answer`` (0 when correct)."""
        return 0.0 if self.is_correct(answer, means) else float("nan")

    def answer_metrics(self, answer: Any, means: np.ndarray) -> dict:
        """The goal's own per-run measures of ``answer`` beyond correctness and simple regret.

        Keys among ``"false_negative"``, ``"gain"`` and ``"oracle_gain"`` (the fields of a
        replication's outcome); the default has none.  Top-k reports all three.
        """
        return {}

    def correctness_note(self) -> str | None:
        """What ``correct_rate`` counts when it is not exact identification (None: exact, the default)."""
        return None

    def error_probability_epsilon(self, simple_regrets) -> float | None:
        """Fraction of runs whose simple regret exceeds :attr:`error_tolerance`; None when it is not set.

        The probability of error at tolerance epsilon of a fixed-budget recommendation
        (Hoffman, Shahriari and de Freitas 2014, section 3): a recommendation within epsilon of
        the best counts as correct (decided by :func:`pybai.problems.tolerance.regret_exceeds`).
        Runs without a regret (NaN) are left out.
        """
        if self.error_tolerance is None:
            return None
        regrets = np.asarray(simple_regrets, dtype=float)
        regrets = regrets[~np.isnan(regrets)]
        return float(np.mean(regret_exceeds(regrets, self.error_tolerance))) if regrets.size else None

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
