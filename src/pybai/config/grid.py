"""Sweeps: an experiment file's ``[grid]`` table expands into one experiment per grid point.

Syntax (a table of the experiment file, docs/engine.md)::

    [grid]
    "environment.d" = [2, 3, 4, 5]                       # one dotted key, a non-empty list of values
    "problem.batch.size,problem.batch.max_repeats" = [[16, 4], [64, 16]]   # keys varied together

Every key of ``[grid]`` is one axis: a dotted path into the file (rooted at ``problem``,
``environment`` or ``replications``), or several comma-separated paths whose values are given
together as lists of the same length.  The grid is the Cartesian product of the axes, in the
order they are written (the last axis varies fastest).  Each point is the file with those
values set (tables on the path are created when missing), validated like any experiment file,
so a key the problem or environment does not know is refused naming it.

Examples
--------
>>> doc = {"name": "x", "problem": {"delta": 0.1}, "environment": {"kind": "gaussian"},
...        "grid": {"problem.delta": [0.1, 0.01], "environment.sigma,replications": [[1.0, 10], [2.0, 20]]}}
>>> [(p.label, p.document["problem"]["delta"], p.document["replications"]) for p in expand_grid(doc)]
[('delta=0.1,sigma=1.0,replications=10', 0.1, 10), ('delta=0.1,sigma=2.0,replications=20', 0.1, 20), ('delta=0.01,sigma=1.0,replications=10', 0.01, 10), ('delta=0.01,sigma=2.0,replications=20', 0.01, 20)]
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from pybai.exceptions import ConfigError

__all__ = ["GridPoint", "expand_grid", "GRID_ROOTS"]

#: first segments a grid path may start with
GRID_ROOTS = ("problem", "environment", "replications")


@dataclass
class GridPoint:
    """One point of a sweep: the values set (dotted path -> value) and the resulting document."""

    values: dict[str, Any]
    document: dict[str, Any] = field(repr=False)

    @property
    def label(self) -> str:
        """Short label ``key=value,...`` with the last segment of each path."""
        return ",".join(f"{path.rsplit('.', 1)[-1]}={value}" for path, value in self.values.items())


def _paths(axis: str) -> list[str]:
    paths = [p.strip() for p in axis.split(",")]
    for path in paths:
        parts = path.split(".")
        if not path or any(not part for part in parts):
            raise ConfigError(f'grid."{axis}": expected dotted keys like "environment.d", got "{path}".')
        if parts[0] not in GRID_ROOTS:
            roots = ", ".join(GRID_ROOTS)
            raise ConfigError(f'grid."{axis}": a grid key must start with one of {roots}, got "{path}".')
    if len(set(paths)) != len(paths):
        raise ConfigError(f'grid."{axis}": a key is repeated.')
    return paths


def _set(document: dict, path: str, value: Any) -> None:
    parts = path.split(".")
    node = document
    for depth, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"grid: {'.'.join(parts[: depth + 1])} is not a table, cannot set {path}.")
        node = child
    node[parts[-1]] = copy.deepcopy(value)


def expand_grid(data: dict[str, Any]) -> list[GridPoint]:
    """The grid points of a parsed experiment file (one point with no values when it has no grid).

    Raises
    ------
    ConfigError
        For an empty grid, an empty or non-list axis, a path outside ``GRID_ROOTS``, a key set
        by two axes, or a joint axis whose entries do not have one value per key.
    """
    if "grid" not in data:
        return [GridPoint({}, data)]
    grid = data["grid"]
    if not isinstance(grid, dict) or not grid:
        raise ConfigError("grid: expected a table with at least one key (a dotted path and a list of values).")
    base = {key: value for key, value in data.items() if key != "grid"}
    axes: list[list[dict[str, Any]]] = []
    seen: set[str] = set()
    for axis, values in grid.items():
        paths = _paths(axis)
        if seen.intersection(paths):
            raise ConfigError(f'grid."{axis}": {", ".join(sorted(seen.intersection(paths)))} is set by two grid keys.')
        seen.update(paths)
        if not isinstance(values, list) or not values:
            raise ConfigError(f'grid."{axis}": expected a non-empty list of values, got {values!r}.')
        settings = []
        for value in values:
            if len(paths) == 1:
                settings.append({paths[0]: value})
                continue
            if not isinstance(value, list) or len(value) != len(paths):
                raise ConfigError(
                    f'grid."{axis}": expected lists of {len(paths)} values (one per key), got {value!r}.'
                )
            settings.append(dict(zip(paths, value)))
        axes.append(settings)
    points = []
    for combo in itertools.product(*axes):
        values = {}  # a grid point: dotted path -> value
        for setting in combo:
            values.update(setting)
        document = copy.deepcopy(base)
        for path, value in values.items():
            _set(document, path, value)
        points.append(GridPoint(values, document))
    return points
