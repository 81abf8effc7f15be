"""What a session hands out and gives back: a :class:`Request` to sample, a :class:`Receipt` of a stored answer.

Also the checks of :meth:`pybai.session.Session.tell`'s arguments (one clear line each).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pybai._validation import check_int, check_int_array, real_values, show_value
from pybai.exceptions import InvalidParameterError

__all__ = ["Request", "Receipt", "checked_request_id", "answer_arrays"]


@dataclass(frozen=True)
class Request:
    """A numbered request: what to sample next.

    Attributes
    ----------
    id : int
        The number to give back with the answer (:meth:`Session.tell`).
    requests : ndarray of int
        What the strategy asks, one entry per sample: sources, or arms in the "arm"
        sampling model of subpopulation problems (the subpopulation then arrives).
    rows : list of dict
        The same as table rows (the CSV of ``pybai session ask``).
    """

    id: int
    requests: np.ndarray
    rows: list[dict] = field(repr=False)

    def __len__(self) -> int:
        return int(self.requests.shape[0])


@dataclass(frozen=True)
class Receipt:
    """What an accepted :meth:`Session.tell` stored."""

    request: int
    stored: int
    pending: int  # samples of the request still unanswered (asked again by the next ask)
    samples: int
    status: str

    @property
    def stopped(self) -> bool:
        return self.status != "running"


def checked_request_id(value, owner: str = "tell", name: str = "request_id") -> int:
    """A request number as given to tell or cancel: an int of at most 64 bits (:func:`~pybai._validation.check_int`)."""
    return check_int(value, name, owner)


def _nested(values) -> bool:
    """Whether ``values`` is a list or array of lists or arrays (``[[0]]``), not a flat list of numbers."""
    if isinstance(values, (list, tuple)):
        return any(isinstance(v, (list, tuple, np.ndarray)) for v in values)
    return isinstance(values, np.ndarray) and values.ndim > 1


def check_flat_rewards(rewards, owner: str = "tell", what: str = "one reward per source") -> None:
    """Refuse nested rewards (``[[0.5]]``), as nested sources are: a shape the answer does not mean."""
    if _nested(rewards):
        raise InvalidParameterError(f"The 'rewards' parameter of {owner} must be a flat list of numbers, {what}. "
                                    f"Got {show_value(rewards)}.")


def answer_arrays(sources, rewards) -> tuple[np.ndarray, np.ndarray]:
    """The sources (int array) and rewards (float array) of an answer, one reward per source, checked.

    ``sources`` is one source or a flat list of them: a nested list (``[[0]]``) is refused rather than
    flattened, since its shape would say something the answer does not mean.
    """
    if _nested(sources):
        raise InvalidParameterError(f"The 'sources' parameter of tell must be a flat list of source indices, one "
                                    f"per reward. Got {show_value(sources)}.")
    src = check_int_array(sources, "sources", "tell", expected="integer source indices") if np.size(sources) else \
        np.asarray(sources).reshape(-1)
    rew = real_values(rewards, "rewards", "tell")
    if src.size == 0 or src.size != rew.size:
        raise InvalidParameterError(
            f"The 'rewards' parameter of tell must be one reward per source ({src.size}). Got {rew.size} rewards.")
    return src.astype(np.intp), rew
