"""Read-only views of a strategy's arrays: what callers get, so that writing cannot corrupt the state."""

from __future__ import annotations

import numpy as np

__all__ = ["read_only_view", "StateArray"]


def read_only_view(array):
    """A view of ``array`` that cannot be written (anything that is not an array is returned as is)."""
    if not isinstance(array, np.ndarray):
        return array
    view = array.view()
    view.setflags(write=False)
    return view


class StateArray:
    """A rule's state array as a public attribute (``survivors_``, ``weights_``, ...).

    Callers get a read-only view, so that writing into it cannot corrupt the rule's state
    unnoticed; the rule itself reads and writes the array under the private name ``_<name>``.
    Assigning the public name (e.g. :meth:`Strategy.set_state <pybai.strategies.base.Strategy.set_state>`) stores the value.
    """

    def __set_name__(self, owner, name: str) -> None:
        self.name, self.private = name, "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        try:
            return read_only_view(obj.__dict__[self.private])
        except KeyError:
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}") from None

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.private] = value
