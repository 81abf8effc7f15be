"""Reading TOML tables with errors that name the key (``environment.means: ...``)."""

from __future__ import annotations

import builtins  # annotations inside Table: its methods str/int/float shadow the built-in names
import difflib
import functools
import inspect
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from pybai._validation import INT64_MAX, INT64_MIN, check_array, is_finite_number, show_value
from pybai.exceptions import ConfigError, InvalidParameterError

__all__ = ["Table", "closest", "UnknownKeyError", "config_message", "parameters_of"]

_MISSING = object()


@functools.cache
def parameters_of(cls) -> Mapping[str, inspect.Parameter]:
    """``inspect.signature(cls).parameters``, worked out once per class (each file read asks several times)."""
    return inspect.signature(cls).parameters


class UnknownKeyError(ConfigError):
    """A key that nobody read (:meth:`Table.finish`); ``key`` is its name, ``where`` its full dotted name."""

    def __init__(self, message: str, key: str, where: str):
        super().__init__(message)
        self.key, self.where = key, where


class Table:
    """A TOML table under a dotted prefix; every accessor records the keys it read."""

    def __init__(self, data: Any, prefix: str):
        if not isinstance(data, dict):
            raise ConfigError(f"{prefix or 'experiment file'}: expected a table, got {type(data).__name__}.")
        self.data = data
        self.prefix = prefix
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def has(self, name: str) -> bool:
        return name in self.data

    def raw(self, name: str, default: Any = _MISSING) -> Any:
        self.used.add(name)
        if name not in self.data:
            if default is _MISSING:
                raise ConfigError(f"{self.key(name)}: missing required key.")
            return default
        return self.data[name]

    def str(self, name: str, default: Any = _MISSING, choices=None) -> str:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            raise ConfigError(f"{self.key(name)}: expected a string, got {show_value(value)}.")
        if choices is not None and value not in choices:
            listed = ", ".join(f'"{c}"' for c in choices)
            raise ConfigError(f'{self.key(name)}: expected one of {listed}, got "{value}".')
        return value

    def int(self, name: builtins.str, default: Any = _MISSING, minimum: int | None = None, maximum: int | None = None) -> int:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return value
        given = value  # shown as written (1e+30, not its 31-digit integer)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{self.key(name)}: expected an integer, got {show_value(given)}.")
        if minimum is not None and value < minimum:
            raise ConfigError(f"{self.key(name)}: expected an integer >= {minimum}, got {show_value(given)}.")
        if maximum is not None and value > maximum:
            raise ConfigError(f"{self.key(name)}: expected an integer <= {maximum:.0e}, got {show_value(given)}.")
        if not INT64_MIN <= value <= INT64_MAX:  # stored (SQL BIGINT) or handed to numpy: 64 bits
            raise ConfigError(f"{self.key(name)}: expected an integer of at most 64 bits (|n| < 2^63), "
                              f"got {show_value(given)}.")
        return value

    def float(self, name: builtins.str, default: Any = _MISSING, *, low=None, high=None, open_low=False, open_high=False) -> float:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not is_finite_number(value):
            raise ConfigError(f"{self.key(name)}: expected a finite number, got {show_value(value)}.")
        bad_low = low is not None and (value <= low if open_low else value < low)
        bad_high = high is not None and (value >= high if open_high else value > high)
        if bad_low or bad_high:
            lo = "(" if open_low else "["
            hi = ")" if open_high else "]"
            raise ConfigError(
                f"{self.key(name)}: expected a number in {lo}{'-inf' if low is None else format(low, 'g')}, "
                f"{'inf' if high is None else format(high, 'g')}{hi}, got {value}."
            )
        return float(value)

    def array(self, name: builtins.str, default: Any = _MISSING, **checks) -> np.ndarray:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return value
        try:
            return check_array(value, self.key(name), "", **checks)
        except InvalidParameterError as exc:
            raise ConfigError(config_message(self.prefix, str(exc))) from None

    def table(self, name: builtins.str, default: Any = _MISSING) -> "Table | None":
        if default is _MISSING and name not in self.data:
            raise ConfigError(f"{self.key(name)}: missing required table [{self.key(name)}].")
        value = self.raw(name, default)
        if value is None and default is None:
            return None
        return Table(value, self.key(name))

    def construct(self, cls, keys, *, finish: bool = True, also_valid=(), **fixed):
        """``cls(**{key: value for the keys present}, **fixed)``.

        With ``finish`` (default), keys of the table that nobody read are refused first (the
        closest of ``keys`` and ``also_valid`` is suggested).  The
        constructor validates; its :class:`InvalidParameterError` becomes a
        :class:`ConfigError` naming the key of this table.
        """
        kwargs = {key: self.raw(key) for key in keys if self.has(key)}
        if finish:
            self.finish(tuple(keys) + tuple(also_valid))
        for name, param in parameters_of(cls).items():
            if name in keys and param.default is param.empty and name not in kwargs and name not in fixed:
                raise ConfigError(f"{self.key(name)}: missing required key.")
        try:
            return cls(**kwargs, **fixed)
        except InvalidParameterError as exc:
            raise ConfigError(config_message(self.prefix, str(exc))) from None

    def finish(self, valid=()) -> None:
        """Raise on keys nobody read (typos), naming the closest valid key.

        ``valid``: further keys this table accepts (beside those read), for the suggestion.
        """
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise UnknownKeyError(f"{self.key(extra[0])}: unknown key{closest(extra[0], set(self.used) | set(valid))}.",
                                  str(extra[0]), self.key(extra[0]))


def closest(name: str, valid) -> str:
    """``" (did you mean 'delta'?)"`` for the valid key closest to ``name``, else ``""``."""
    match = difflib.get_close_matches(str(name), sorted(map(str, valid)), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


_PARAMETER_MESSAGE = re.compile(r"^The '([^']+)' parameter(?: of [\w.]+)? must be (.*?)\. Got (.*)\.$", re.S)


def strategy_message(where: str, message: str) -> str:
    """One prefix: ``strategy[0].threshold: expected ..., got ...`` (never ``strategy[0]: strategy[0]...``)."""
    if message.startswith(where + ".") or message.startswith(where + ":"):
        return message
    return config_message(where, message)


def config_message(prefix: str, message: str) -> str:
    """"The 'means' parameter [of X] must be E. Got V." -> "<prefix>.means: expected E, got V."

    A name that already carries the prefix (``check_array`` called with the dotted key) is kept.
    """
    if prefix and message.startswith((prefix + ".", prefix + ":")):
        return message  # already names its key (a builder's own ConfigError)
    match = _PARAMETER_MESSAGE.match(message)
    if not match:
        return f"{prefix}: {message}" if prefix else message
    name, expected, got = match.groups()
    key = name if not prefix or name.startswith(prefix + ".") else f"{prefix}.{name}"
    return f"{key}: expected {expected}, got {got}."
