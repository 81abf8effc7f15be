"""Parameter checks with one message template.

Every check raises :class:`~pybai.exceptions.InvalidParameterError` with the
message ``The '<name>' parameter of <owner> must be <expected>. Got <value>.``
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from pybai.exceptions import InvalidParameterError

__all__ = [
    "fail",
    "check_probability",
    "check_positive_int",
    "check_positive_float",
    "check_choice",
    "check_array",
]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def fail(name: str, owner: str, expected: str, value: Any) -> InvalidParameterError:
    """Build the error for parameter ``name`` of ``owner`` (raise the result)."""
    where = f" of {owner}" if owner else ""
    return InvalidParameterError(
        f"The '{name}' parameter{where} must be {expected}. Got {_show(value)}."
    )


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def check_probability(value: Any, name: str, owner: str = "") -> float:
    """Return ``value`` as a float in the open interval (0, 1)."""
    if not _is_real(value) or not 0.0 < float(value) < 1.0:
        raise fail(name, owner, "a number in (0, 1)", value)
    return float(value)


def check_positive_int(value: Any, name: str, owner: str = "", minimum: int = 1) -> int:
    """Return ``value`` as an int >= ``minimum``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise fail(name, owner, f"an int >= {minimum}", value)
    return int(value)


def check_positive_float(value: Any, name: str, owner: str = "", allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float > 0 (or >= 0 with ``allow_zero``)."""
    ok = _is_real(value) and math.isfinite(float(value))
    ok = ok and (float(value) >= 0.0 if allow_zero else float(value) > 0.0)
    if not ok:
        raise fail(name, owner, "a finite float >= 0" if allow_zero else "a finite float > 0", value)
    return float(value)


def check_choice(value: Any, choices: Sequence[str], name: str, owner: str = "") -> str:
    """Return ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise fail(name, owner, f"one of {listed}", value)
    return value


_KIND = {0: "a number", 1: "a list of numbers", 2: "a list of lists of numbers (a matrix)"}


def check_array(
    value: Any,
    name: str,
    owner: str = "",
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    low: float | None = None,
    high: float | None = None,
    strict_low: bool = False,
    min_size: int = 1,
) -> np.ndarray:
    """Return ``value`` as a finite float array with the requested shape and range.

    ``shape`` entries that are ``None`` are free.
    """
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "biuf":  # strings ("1.0") and ragged lists are not numbers
            raise TypeError
        arr = raw.astype(float)
    except (TypeError, ValueError):
        raise fail(name, owner, "numbers" if ndim is None else _KIND.get(ndim, "an array of numbers"), value) from None
    if ndim is not None and arr.ndim != ndim:
        raise fail(name, owner, _KIND.get(ndim, f"an array with {ndim} dimensions"), value)
    if shape is not None:
        want = tuple(shape)
        if arr.ndim != len(want) or any(w is not None and w != s for w, s in zip(want, arr.shape)):
            shown = "(" + ", ".join("*" if w is None else str(w) for w in want) + ")"
            raise fail(name, owner, f"of shape {shown}", f"shape {arr.shape}")
    if arr.size < min_size:
        raise fail(name, owner, f"non-empty (at least {min_size} values)", value)
    if not np.all(np.isfinite(arr)):
        raise fail(name, owner, "finite numbers", value)
    if low is not None:
        bad = arr <= low if strict_low else arr < low
        if np.any(bad):
            rel = ">" if strict_low else ">="
            raise fail(name, owner, f"all {rel} {low:g}", value)
    if high is not None and np.any(arr > high):
        raise fail(name, owner, f"all <= {high:g}", value)
    return arr
