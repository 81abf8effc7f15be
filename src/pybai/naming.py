"""Arm names: the one numbering of pybai and the optional labels of ``[environment] labels``.

Arms are numbered from **0** everywhere (result documents, tables, figures, session files,
answer CSVs, the Python API).  An experiment or session file may name its arms
(``labels = ["control", "new-checkout"]``, one per arm); a name is then shown with its number,
``"new-checkout (arm 1)"``, and an answer CSV may give the label instead of the index.

This module is the only place that turns an index (or a set of indices) into its display name
and a label back into its index; tables, statuses, reports and exports all call it.

Examples
--------
>>> labels = check_labels(["control", "new-checkout", "two-step"], 3)
>>> arm_name(1), arm_name(1, labels), answer_name([0, 2], labels)
('arm 1', 'new-checkout (arm 1)', 'control (arm 0), two-step (arm 2)')
>>> arm_index("two-step", labels), arm_index("0", labels)
(2, 0)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pybai._validation import fail

__all__ = ["check_labels", "arm_name", "arm_names", "answer_name", "arm_index", "source_name", "check_session_name",
           "is_session_name"]

#: text that reads as an index: a label may not look like one (an answer's source would be ambiguous)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def check_labels(labels: Any, n_arms: int, name: str = "labels", owner: str = "") -> tuple[str, ...] | None:
    """``labels`` as a tuple of ``n_arms`` distinct names, or None when not given.

    A label is a non-empty string without surrounding spaces or control characters, and not an
    integer written as text ("3" would be read as arm 3 in an answer CSV).

    >>> check_labels(["a", "b"], 2), check_labels(None, 2)
    (('a', 'b'), None)
    >>> check_labels(["a", "a"], 2)
    Traceback (most recent call last):
    ...
    pybai.exceptions.InvalidParameterError: The 'labels' parameter must be distinct names (label "a" is given twice). Got ['a', 'a'].
    """
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)):
        raise fail(name, owner, f"a list of {n_arms} strings (one per arm)", labels)
    values = list(labels)
    if len(values) != n_arms:
        raise fail(name, owner, f"one label per arm ({n_arms} labels, {len(values)} given)", values)
    seen: set[str] = set()
    for value in values:
        if not isinstance(value, str):
            raise fail(name, owner, f"a list of {n_arms} strings (label {value!r} is not a string)", values)
        if not value.strip() or value != value.strip() or any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise fail(name, owner, "non-empty names without surrounding spaces or control characters "
                       f"(label {value!r})", values)
        if _INTEGER.fullmatch(value):
            raise fail(name, owner, f"names that are not integers (label \"{value}\" would read as an arm index)",
                       values)
        if value in seen:
            raise fail(name, owner, f"distinct names (label \"{value}\" is given twice)", values)
        seen.add(value)
    return tuple(values)


def arm_name(index: int, labels: Sequence[str] | None = None) -> str:
    """``"arm 3"``, or ``"new-checkout (arm 3)"`` when the arms have labels."""
    index = int(index)
    if labels is not None and 0 <= index < len(labels):
        return f"{labels[index]} (arm {index})"
    return f"arm {index}"


def arm_names(n_arms: int, labels: Sequence[str] | None = None) -> list[str]:
    """Short names of ``n_arms`` arms for axes and legends: the labels, else ``"arm 0"``, ``"arm 1"``, ...

    >>> arm_names(2), arm_names(2, ["a", "b"])
    (['arm 0', 'arm 1'], ['a', 'b'])
    """
    if labels is not None and len(labels) == n_arms:
        return [str(v) for v in labels]
    return [f"arm {a}" for a in range(int(n_arms))]


def answer_name(answer: Any, labels: Sequence[str] | None = None) -> str:
    """An answer in words: ``"arm 2"``, ``"arms 0, 3"`` (a set), ``"no feasible arm (-1)"``.

    With labels every arm is named: ``"control (arm 0), b (arm 3)"``.

    >>> answer_name(2), answer_name([0, 3]), answer_name(-1), answer_name(np.int64(1), ["x", "y"])
    ('arm 2', 'arms 0, 3', 'no feasible arm (-1)', 'y (arm 1)')
    """
    if np.ndim(answer):
        arms = [int(a) for a in np.asarray(answer).ravel()]
        if labels is not None:
            return ", ".join(arm_name(a, labels) for a in arms)
        return "arms " + ", ".join(str(a) for a in arms)
    if int(answer) == -1:
        return "no feasible arm (-1)"
    return arm_name(int(answer), labels)


def source_name(source: int, labels: Sequence[str] | None = None, n_subpopulations: int | None = None) -> str:
    """A source (an arm, or an arm x subpopulation cell ``arm * L + subpopulation``) in words.

    >>> source_name(5, n_subpopulations=3), source_name(1, ["a", "b"])
    ('arm 1 / subpopulation 2', 'b (arm 1)')
    """
    if n_subpopulations:
        arm, sub = divmod(int(source), int(n_subpopulations))
        return f"{arm_name(arm, labels)} / subpopulation {sub}"
    return arm_name(int(source), labels)


def arm_index(text: str, labels: Sequence[str] | None, n_arms: int | None = None, *, exact: bool = False) -> int:
    """The arm that ``text`` names: its label, or its index written as an integer.

    Raises :class:`ValueError` (with one line naming ``text``) when it is neither; the caller
    adds where it was read.  ``n_arms`` (default: the number of labels) bounds an index.
    Surrounding spaces are ignored (a CSV cell), unless ``exact`` (a value given through the
    API or HTTP: ``"control "`` then names no arm, labels never end in a space).
    """
    if exact and str(text) != str(text).strip():
        shown = f"labels: {_listed(labels)}" if labels is not None else "the arms have no labels"
        raise ValueError(f"unknown label {text!r}: surrounding spaces ({shown})")
    text = str(text).strip()
    if _INTEGER.fullmatch(text):
        index = int(text)
        count = n_arms if n_arms is not None else (len(labels) if labels is not None else None)
        if count is not None and not 0 <= index < count:
            raise ValueError(f"arm {index} is not in [0, {count - 1}]")
        return index
    if labels is not None:
        for i, label in enumerate(labels):
            if label == text:
                return i
        raise ValueError(f"unknown label {text!r} (labels: {_listed(labels)})")
    raise ValueError(f"{text!r} is not an arm index (the arms have no labels)")


def _listed(labels: Sequence[str], most: int = 8) -> str:
    shown = ", ".join(f'"{v}"' for v in labels[:most])
    return shown + (f", ... ({len(labels)} in all)" if len(labels) > most else "")


def is_session_name(name: Any) -> bool:
    """Whether ``name`` may name a new session: a non-empty string that is a path segment of its own
    (so ``/sessions/NAME`` reaches it over HTTP): no ``/`` or ``\\``, not ``.`` or ``..``, no
    surrounding spaces and no control characters."""
    return (isinstance(name, str) and name.strip() == name and name not in ("", ".", "..")
            and not any(c in "/\\" or ord(c) < 32 or ord(c) == 127 for c in name))


def check_session_name(name: Any, owner: str = "") -> str:
    """``name`` when :func:`is_session_name` accepts it, else one line naming the parameter.

    >>> check_session_name("checkout-2024")
    'checkout-2024'
    >>> check_session_name("a/b")
    Traceback (most recent call last):
    ...
    pybai.exceptions.InvalidParameterError: The 'name' parameter must be a session name: not empty, '.' or '..', without '/', '\\', surrounding spaces or control characters (it is a part of the session's address, /sessions/NAME). Got 'a/b'.
    """
    if not is_session_name(name):
        raise fail("name", owner, "a session name: not empty, '.' or '..', without '/', '\\', surrounding spaces or "
                   "control characters (it is a part of the session's address, /sessions/NAME)", name)
    return name
