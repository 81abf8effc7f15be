"""Base class of the stopping thresholds (:mod:`pybai.stopping.thresholds`)."""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from pybai._validation import check_probability

__all__ = ["Threshold"]


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
    """

    name: str = "threshold"
    proven: bool = False

    def __init__(self, delta: float):
        self.delta = check_probability(delta, "delta", type(self).__name__)

    @abc.abstractmethod
    def __call__(self, t: float) -> float:
        """Return ``beta(t, delta)`` for a sample count ``t >= 1``."""

    @abc.abstractmethod
    def values(self, t: Any) -> np.ndarray:
        """Vectorised ``beta(t, delta)`` for an array of sample counts (all ``>= 1``)."""

    def _params(self) -> dict:
        return {"delta": self.delta}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._params() == other._params()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._params().items())))
