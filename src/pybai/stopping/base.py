r"""Base classes of the stopping tests: the decision, the union-bound parameters, the log-log shape.

A GLR stopping rule stops at the first time its statistic exceeds the threshold.  Every
threshold answers :meth:`Threshold.at` (its value after ``t`` samples on the data of a model)
and, when it depends on ``t`` only, ``threshold(t)``; every one decides with
:meth:`Threshold.decide` (the problem's statistic against that value).  A *count-dependent*
test (:class:`PieceThreshold`) instead tests each piece of the alternative to the empirical
answer with its own counts: the problem says what its pieces are (:meth:`Problem.pieces
<pybai.problems.base.Problem.pieces>`, e.g. :class:`PairPieces`), the test computes the smallest
margin over them.  Where each family's thresholds live: :mod:`pybai.stopping.thresholds`; the
rule of a run, at one delta or several: :mod:`pybai.stopping.rule`.
"""

from __future__ import annotations

import abc
import math
from typing import Any, ClassVar, NamedTuple

import numpy as np

from pybai._validation import check_positive_int, check_probability, fail

__all__ = ["Threshold", "PieceThreshold", "Decision", "PairPieces", "UnionBoundThreshold", "LogLogThreshold",
           "check_delta_share"]


class Decision(NamedTuple):
    """What a stopping test decided after ``t`` samples.

    Attributes
    ----------
    statistic : float
        The problem's GLR statistic (what a run reports).
    stop : bool
        Whether the rule stops now.
    """

    statistic: float
    stop: bool


class PairPieces(NamedTuple):
    """The pieces of the alternative to the empirical answer made of two arms.

    One piece {lambda : lambda_i <= c lambda_j - e} per pair (i in ``top``, j in ``bottom``), with
    ``shift`` = (c, e): (1, 0) the plain pieces {lambda_j >= lambda_i}, another shift the pieces of an
    answer tolerance epsilon (:meth:`~pybai.models.families.Family.epsilon_shift`).  Best-arm
    identification: the empirical best arm against every other; top-k: the top set against the rest.

    Attributes
    ----------
    top, bottom : ndarray of int64
    shift : tuple of float
    variances : ndarray
        The family's known variances (read by the Gaussian mixtures).
    """

    top: np.ndarray
    bottom: np.ndarray
    shift: tuple[float, float]
    variances: np.ndarray


class Threshold(abc.ABC):
    r"""Abstract stopping threshold :math:`t \mapsto \beta(t, \delta)`.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.

    Attributes
    ----------
    name : str
        Short identifier of the threshold kind.
    delta : float
        Risk level.
    proven : bool
        Whether the threshold is proven delta-correct (under the conditions
        stated in the subclass docstring).
    stateful : bool
        Whether the rule keeps a state of the run's own (``state_``, :mod:`pybai.stopping.leader`): a
        strategy's check (:meth:`run_check`) then advances it after each observation, before deciding, and
        the strategy saves the state.
    """

    name: str = "threshold"
    proven: bool = False
    #: whether the test reads each piece's own counts (:class:`PieceThreshold`), not only ``t``
    count_dependent: ClassVar[bool] = False
    #: whether the test keeps a state of the run's own (``state_``, :mod:`pybai.stopping.leader`)
    stateful: ClassVar[bool] = False

    def __init__(self, delta: float):
        self.delta = check_probability(delta, "delta", type(self).__name__)

    @abc.abstractmethod
    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1``."""

    @abc.abstractmethod
    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)`` for an array of sample counts (all ``>= 1``)."""

    def advance(self, model: Any, variances: Any) -> None:
        """Update the run's own state after an observation (a threshold without state has nothing to do)."""

    def load_state(self, state: Any) -> None:
        """Take the state a compiled run reached (a threshold without state has none to take)."""

    def continue_from(self, other: "Threshold") -> None:
        """Take over the run's own state of ``other``, the test this one replaces when the problem's answer
        tolerance changes (:meth:`Strategy.retarget <pybai.strategies.base.Strategy.retarget>`), as far as it stays
        valid (a threshold without state has none to take)."""

    def check_state(self, counts: Any) -> str | None:
        """Why the run's own state cannot be the one reached at these ``counts`` (a restored state), or None
        (a threshold without state has nothing to check)."""
        return None

    def process_id(self) -> str | None:
        """What decided the rejections the run's own state remembers (the e-process and its level), saved with the
        state so that a restore under another rule can tell; None for a threshold without state."""
        return None

    def forget_rejections(self, state: Any) -> Any:
        """``state`` without its remembered rejections: what a restore keeps when the saved state's rejections were
        decided by another process (:meth:`process_id`; a threshold without state has none)."""
        return state

    def run_check(self, problem: Any, model: Any, t: int) -> Decision:
        """The run's own check after an observation (what a strategy's stopping rule runs): a test with a
        state of the run's own (:attr:`stateful`) advances it on ``model`` (:meth:`advance`), then
        :meth:`decide`.  A test may do both in one step (the leader rule: one compiled call)."""
        if self.stateful:
            self.advance(model, problem.family.variances)
        return self.decide(problem, model, t)

    def at(self, t: float, model: Any = None, delta_share: float = 1.0) -> float:
        """The threshold after ``t`` samples on the data of ``model``: what a stopping rule compares with.

        Default: ``threshold(t)`` (the model is not read).  A threshold that depends on the data
        (the linear self-normalised one reads the design matrix) overrides it.

        Parameters
        ----------
        t : float
            Number of samples, ``>= 1``.
        model : Model, optional
            The model whose statistic is tested (unused by thresholds that depend on ``t`` only).
        delta_share : float, default 1.0
            Share of ``delta`` spent on this test, in ``(0, 1]``, when a rule splits ``delta`` between
            several uses of a data-dependent bound (XY-adaptive: one per phase).  A threshold that
            depends on ``t`` only holds at all times at once, so it needs no share and ignores it.

        Returns
        -------
        float
        """
        if delta_share != 1.0 or isinstance(delta_share, bool):
            check_delta_share(delta_share, type(self).__name__)
        return self(t)

    def decide(self, problem: Any, model: Any, t: int) -> Decision:
        """The GLR stopping rule after ``t`` samples: ``problem``'s statistic > :meth:`at` ``(t, model)``.

        The statistic is :meth:`~pybai.problems.base.Problem.statistic_against` (the statistic, or a
        cheap upper bound when it shows the rule cannot stop at this level).
        """
        level = self.at(t, model)
        z = problem.statistic_against(model, level, t)
        return Decision(z, z > level)

    def evidence(self, problem: Any, model: Any, t: int) -> tuple[float, float]:
        """``(statistic, level)`` of what decides the stop now, in numbers a reader compares: :meth:`decide`
        stops exactly when ``statistic >= level`` (what a session's status, dashboard and report show).

        A test of ``t`` alone: the GLR statistic and :meth:`at` ``(t, model)``.  A count-dependent test
        (:class:`PieceThreshold`): ``(level + margin, level)``, ``margin`` its smallest margin over the
        problem's pieces (the first failing one, in the order the test visits them, while it does not
        stop), not a t-only level the test never compares with.  The statistic is moved by at most a
        rounding error (1e-9 relative) where it would disagree with the decision; it may be ``-inf`` (a
        pair not yet ranked, a source without samples).
        """
        stop = bool(self.decide(problem, model, t).stop)
        statistic, level = self._evidence(problem, model, t)
        if stop != (statistic >= level) and abs(statistic - level) <= 1e-9 * max(1.0, abs(level)):
            statistic = level if stop else math.nextafter(level, -math.inf)  # the rounding of one sum
        return statistic, level

    def _evidence(self, problem: Any, model: Any, t: int) -> tuple[float, float]:
        """The statistic and level of :meth:`evidence` before the rounding check."""
        return float(problem.statistic(model)), float(self.at(t, model))

    def compiled_form(self) -> np.ndarray | None:
        """The threshold as numbers a compiled loop evaluates exactly as :meth:`__call__`, or None.

        None (the default): the threshold is evaluated in Python only.  The log-log shape returns
        ``[const, coef, shift, scale, value at t <= scale]``
        (:func:`pybai.stopping.compiled.threshold_value` evaluates it).
        """
        return None

    def compiled_pieces(self) -> Any:
        """What a compiled loop passes to the margin kernel of a count-dependent test, or None (the default).

        The per-pair mixture rules return a :class:`~pybai.stopping.compiled.PairForm`; a test with
        none is decided in Python only (:func:`pybai.stopping.compiled.compile_rule`).
        """
        return None

    def _params(self) -> dict:
        return {"delta": self.delta}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._params() == other._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._params().items())))


class PieceThreshold(Threshold):
    """A count-dependent test: every piece of the alternative tested with its own counts.

    Subclasses set :attr:`level` and :attr:`min_statistic` and compute :meth:`margin`; called with
    ``t`` only (``threshold(t)``), they answer a t-only threshold (for callers that know only t, e.g.
    LUCB's confidence level, and for problems that do not split their alternative into pieces).

    Attributes
    ----------
    level : float
        ln(m / delta) of the union bound over the ``m`` pieces.
    min_statistic : float
        No piece passes while the GLR statistic is at most this value (a proven filter).
    """

    count_dependent = True
    level: float
    min_statistic: float

    def decide(self, problem: Any, model: Any, t: int) -> Decision:
        """Stop when every piece of :meth:`Problem.pieces <pybai.problems.base.Problem.pieces>` passes its test.

        The GLR statistic is computed first (the filter :attr:`min_statistic`); a problem without
        pieces (or whose estimate does not define them yet) is decided on the t-only threshold.
        """
        z = problem.statistic(model)
        if not z > self.min_statistic:  # the smallest piece's GLR is z: some piece fails
            return Decision(z, False)
        pieces = problem.pieces(model)
        if pieces is None:
            return Decision(z, z > self.at(t, model))
        return Decision(z, self.margin(pieces, model) > 0.0)

    def _evidence(self, problem: Any, model: Any, t: int) -> tuple[float, float]:
        """The deciding piece's ``level + margin`` and the level (read after the margin: a heuristic level
        follows ``t``); a problem without pieces now: as a test of ``t`` alone."""
        pieces = problem.pieces(model)
        if pieces is None:
            return super()._evidence(problem, model, t)
        margin = float(self.margin(pieces, model))
        level = float(self.level)
        return level + margin, level

    @abc.abstractmethod
    def margin(self, pieces: Any, model: Any) -> float:
        """The smallest margin over ``pieces`` on ``model``'s statistics; the rule stops when it is > 0."""


def check_delta_share(delta_share: Any, owner: str) -> float:
    """``delta_share`` as a float in (0, 1], else the error naming it."""
    if isinstance(delta_share, bool) or not isinstance(delta_share, (int, float, np.integer, np.floating)) or not (
            0.0 < delta_share <= 1.0):
        raise fail("delta_share", owner, "a number in (0, 1]", delta_share)
    return float(delta_share)


class UnionBoundThreshold(Threshold):
    """A threshold from a union bound over ``n_alternatives`` pieces of the alternative, each
    involving at most ``n_terms`` sources: checks and keeps both counts.

    Parameters
    ----------
    delta : float
        Risk level in ``(0, 1)``.
    n_alternatives : int
        Number ``m >= 1`` of pieces in the union bound.
    n_terms : int, default 2
        Number ``n >= 1`` of sources in a piece.
    """

    def __init__(self, delta: float, n_alternatives: int, n_terms: int = 2):
        super().__init__(delta)
        owner = type(self).__name__
        self.n_alternatives = check_positive_int(n_alternatives, "n_alternatives", owner)
        self.n_terms = check_positive_int(n_terms, "n_terms", owner)

    def _params(self) -> dict:
        return {"delta": self.delta, "n_alternatives": self.n_alternatives, "n_terms": self.n_terms}


class LogLogThreshold(Threshold):
    r"""Threshold of the form ``const + coef * ln(shift + ln(max(t / scale, 1)))``.

    The shape of the heuristic threshold and of the Kaufmann & Koolen (2021) ones.  Subclasses
    set ``_const``, ``_coef``, ``_shift`` and ``_scale`` in their constructor (:meth:`_finish`);
    evaluation is then constant-free arithmetic.
    """

    _const: float
    _coef: float
    _shift: float
    _scale: float
    _at_one: float  # value when t / scale <= 1

    def _finish(self, const: float, coef: float, shift: float, scale: float) -> None:
        self._const = float(const)
        self._coef = float(coef)
        self._shift = float(shift)
        self._scale = float(scale)
        self._at_one = self._const + self._coef * math.log(self._shift)

    def compiled_form(self) -> np.ndarray:
        """``[const, coef, shift, scale, value at t <= scale]`` (see :meth:`Threshold.compiled_form`)."""
        return np.array([self._const, self._coef, self._shift, self._scale, self._at_one])

    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1`` (int or float).

        Parameters
        ----------
        t : float
            Total number of samples, ``t >= 1``.

        Returns
        -------
        float
        """
        if not t >= 1:  # also rejects NaN
            raise fail("t", type(self).__name__, "a sample count >= 1", t)
        u = t / self._scale
        if u <= 1.0:
            return self._at_one
        return self._const + self._coef * math.log(self._shift + math.log(u))

    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)``.

        Parameters
        ----------
        t : array_like
            Sample counts, all ``>= 1``.

        Returns
        -------
        numpy.ndarray
            Array of the same shape as ``t`` (float64).
        """
        arr = np.asarray(t, dtype=float)
        if not np.all(arr >= 1.0):
            raise fail("t", type(self).__name__, "sample counts >= 1", t)
        u = np.maximum(arr / self._scale, 1.0)
        return self._const + self._coef * np.log(self._shift + np.log(u))
