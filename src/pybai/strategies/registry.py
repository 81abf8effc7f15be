"""The registry of strategies by name (read by the CLI and the common checks).

A leaf of the strategies package: every strategy module imports :func:`register` from here, and
this module imports no strategy.  The table is full whenever anyone can look at it: importing any
module of ``pybai.strategies`` first runs the package's ``__init__``, which imports every strategy
module (each registers its class as it is defined).
"""

from __future__ import annotations

import difflib
from typing import Any

from pybai._validation import fail
from pybai.exceptions import InvalidParameterError

__all__ = ["register", "get_strategy_class", "make_strategy", "registered_names"]

_REGISTRY: dict[str, type[Any]] = {}


def register(cls: type[Any]) -> type[Any]:
    """Class decorator: register ``cls`` under its ``name`` attribute."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no registry name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"strategy name {cls.name!r} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def registered_names() -> list[str]:
    """Every registered strategy name, sorted."""
    return sorted(_REGISTRY)


def get_strategy_class(name: str) -> type[Any]:
    """The class registered under ``name``."""
    if name not in _REGISTRY:
        raise fail("name", "strategy", "one of " + ", ".join(sorted(_REGISTRY)), name, hint=_closest(name, _REGISTRY))
    return _REGISTRY[name]


def _closest(name: Any, valid) -> str:
    match = difflib.get_close_matches(str(name), sorted(valid), n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'?" if match else ""


def make_strategy(name: str, params: dict[str, Any] | None = None, where: str = "strategy", **kwargs):
    """Instantiate strategy ``name`` with parameters ``params`` and/or keywords; unknown keys raise.

    Examples
    --------
    >>> make_strategy("tas", tracking="D")
    TrackAndStop(tracking='D', threshold=None, n_init=1, subpopulation='random', check_growth=0.0, oracle_growth=None, exploration='auto', oracle='fast')
    """
    cls = get_strategy_class(name)
    params = {**(params or {}), **kwargs}
    allowed = cls._param_names()
    for key in params:
        if key not in allowed:
            hint = _closest(key, allowed)
            raise InvalidParameterError(
                f"{where}.{key}: unknown parameter of strategy '{name}'{f' ({hint})' if hint else ''}; "
                f"expected one of: {', '.join(allowed)}."
            )
    return cls(**params)
