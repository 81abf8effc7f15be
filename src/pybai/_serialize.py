"""JSON-safe encoding of strategy and model state (exact round trips).

Arrays become ``{"__array__": dtype, "shape": [...], "data": [...]}`` with non-finite floats
written as the strings ``"inf"``, ``"-inf"`` and ``"nan"``; Python floats round-trip exactly
through JSON (``repr`` is the shortest exact form).  Dicts with string keys, lists, tuples
(as lists), ints, floats, bools, strings and ``None`` pass through.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["encode", "decode"]

_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _float(x: float):
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def encode(obj: Any) -> Any:
    """A JSON-safe version of ``obj`` (see the module docstring)."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":
            data = obj.ravel().tolist()
            if not np.isfinite(obj).all():  # the strings of the non-finite values (checked at once: states are large)
                data = [_float(v) for v in data]
        elif obj.dtype.kind in "iub":
            data = obj.ravel().tolist()
        else:
            raise TypeError(f"cannot encode arrays of dtype {obj.dtype}")
        return {"__array__": obj.dtype.str, "shape": list(obj.shape), "data": data}
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _float(float(obj))
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        return {str(k): encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [encode(v) for v in obj]
    raise TypeError(f"cannot encode {type(obj).__name__}")


def decode(obj: Any) -> Any:
    """Inverse of :func:`encode`."""
    if isinstance(obj, dict):
        if "__array__" in obj:
            dtype = np.dtype(obj["__array__"])
            if dtype.kind not in "fiub":  # what encode writes; anything else is not a saved array
                raise ValueError(f"arrays of dtype {obj['__array__']!r} are not encoded by pybai")
            data = obj["data"]
            if dtype.kind == "f":
                data = [_NONFINITE[v] if isinstance(v, str) else v for v in data]
            return np.array(data, dtype=dtype).reshape(obj["shape"])
        return {k: decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if isinstance(obj, str) and obj in _NONFINITE:
        return _NONFINITE[obj]
    return obj
