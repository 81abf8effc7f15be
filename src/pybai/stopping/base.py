r"""Base class of the stopping thresholds, the union-bound parameters and the log-log shape of the t-only ones.

A GLR stopping rule stops at the first time its statistic exceeds the threshold.  Every
threshold answers :meth:`Threshold.at` (its value after ``t`` samples on the data of a model:
the one method the stopping rules call) and, when it depends on ``t`` only, ``threshold(t)``.
Where each family's thresholds live: :mod:`pybai.stopping.thresholds`.
"""

from __future__ import annotations

import abc
import math
from typing import Any

import numpy as np

from pybai._validation import check_positive_int, check_probability, fail

__all__ = ["Threshold", "UnionBoundThreshold", "LogLogThreshold", "check_delta_share"]


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
        strategy then calls :meth:`advance` after each observation, before deciding, and saves the state.
    """

    name: str = "threshold"
    proven: bool = False
    stateful: bool = False

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

    def compiled_form(self) -> np.ndarray | None:
        """The threshold as numbers a compiled loop evaluates exactly as :meth:`__call__`, or None.

        None (the default): the threshold is evaluated in Python only.  The log-log shape returns
        ``[const, coef, shift, scale, value at t <= scale]``
        (:func:`pybai.stopping.compiled.threshold_value` evaluates it).
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
