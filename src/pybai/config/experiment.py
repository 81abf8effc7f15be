"""The experiment file (TOML): a truth, a problem and the strategies to compare."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pybai._validation import REPLICATION_LIMIT, read_user_text
from pybai.config.environments import build_environment
from pybai.config.keys import Table, config_message, strategy_message
from pybai.config.problems import build_problem
from pybai.environments.base import Environment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems.base import Problem
from pybai.strategies.base import Strategy
from pybai.strategies.registry import make_strategy

__all__ = ["Experiment", "load_experiment", "load_sweep", "parse_experiment", "parse_sweep", "read_document"]


@dataclass
class Experiment:
    """A validated experiment.

    Attributes
    ----------
    name : str
    replications : int
    seed : int
    problem : Problem
        What every strategy knows.
    environment : Environment
        The hidden truth.
    strategies : list of (label, Strategy)
    source : dict
        The parsed file, for the record.
    grid : dict
        For a point of a sweep, the values its ``[grid]`` set (dotted path -> value); else empty.
    compiled : bool
        Whether replications may run in a strategy's compiled loop (``simulate_run``) where it
        offers one: identical outcomes, faster; False forces the ask/tell loop (the reference).
    share_trajectories : bool
        The file's ``share_trajectories`` key: points of a ``[grid]`` that differ only in
        ``problem.delta`` share their seeds and, where a strategy allows it, their trajectories.
    seed_point : int or None
        With ``share_trajectories``: the grid point whose seeds this point uses (the first of its group).
    delta_group : tuple of int
        With ``share_trajectories``: the points of this point's group (itself included), on the first one only.
    """

    name: str
    replications: int
    seed: int
    problem: Problem
    environment: Environment
    strategies: list[tuple[str, Strategy]]
    source: dict[str, Any] = field(default_factory=dict, repr=False)
    grid: dict[str, Any] = field(default_factory=dict)
    compiled: bool = True
    share_trajectories: bool = False
    seed_point: int | None = None
    delta_group: tuple[int, ...] = ()


def read_document(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of an experiment file; raises :class:`ConfigError` for an unreadable file."""
    text = read_user_text(path, "an experiment file (TOML)", ConfigError)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}).") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays / inline tables
        raise ConfigError(f"{path}: values nested more than {MAX_NESTING} deep.") from None
    depth = _nesting_depth(document)
    if depth > MAX_NESTING:
        raise ConfigError(f"{path}: values nested {depth} deep, more than the limit of {MAX_NESTING}.")
    return document


#: The deepest nesting of tables and arrays an experiment or session file may have (the shipped
#: files need at most 7); deeper values are refused when the file is read, before anything recurses on them.
MAX_NESTING = 32


def _nesting_depth(value) -> int:
    """How deep tables and arrays nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        children: Any
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            return deepest  # enough to refuse; the rest is not walked
        stack.extend((child, depth) for child in children)
    return deepest


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file; raises :class:`ConfigError` naming the key.

    A file with a ``[grid]`` is a sweep: read it with :func:`load_sweep`.
    """
    data = read_document(path)
    if "grid" in data:
        raise ConfigError(f"{path}: has a [grid] (a sweep of several experiments); use load_sweep.")
    return parse_experiment(data, default_name=Path(path).stem)


def load_sweep(path: str | Path, *, need_strategies: bool = True) -> list[Experiment]:
    """Every experiment of a file: one per point of its ``[grid]`` (one when it has none).

    Each point's ``name`` is the file's name with the point's label in brackets, e.g.
    ``figure4[d=5]``, and its ``grid`` attribute holds the values set.  ``need_strategies``:
    see :func:`parse_experiment`.
    """
    return parse_sweep(read_document(path), default_name=Path(path).stem, need_strategies=need_strategies)


def parse_sweep(data: dict[str, Any], default_name: str = "experiment", *,
                need_strategies: bool = True) -> list[Experiment]:
    """Every experiment of a parsed document (see :func:`load_sweep`)."""
    from pybai.config.grid import expand_grid

    experiments = []
    for point in expand_grid(data):
        try:
            experiment = parse_experiment(point.document, default_name=default_name, need_strategies=need_strategies)
        except ConfigError as exc:
            if not point.values:
                raise
            raise ConfigError(f"grid point {point.label}: {exc}") from None
        if point.values:
            experiment.name = f"{experiment.name}[{point.label}]"
            experiment.grid = dict(point.values)
        experiments.append(experiment)
    _group_deltas(experiments)
    return experiments


def _group_deltas(experiments: list[Experiment]) -> None:
    """With ``share_trajectories``: points equal but for ``problem.delta`` share the first one's seeds."""
    groups: dict[str, list[int]] = {}
    for p, experiment in enumerate(experiments):
        if experiment.share_trajectories and "problem.delta" in experiment.grid:
            rest = {k: v for k, v in experiment.grid.items() if k != "problem.delta"}
            groups.setdefault(repr(sorted(rest.items())), []).append(p)
    for points in groups.values():
        for p in points:
            experiments[p].seed_point = points[0]
        experiments[points[0]].delta_group = tuple(points)


def parse_experiment(data: dict[str, Any], default_name: str = "experiment", *,
                     need_strategies: bool = True) -> Experiment:
    """Validate a parsed experiment document.

    With ``need_strategies=False`` (what only reads the problem and its truth, e.g. ``pybai
    complexity``) the ``[[strategy]]`` tables may be left out; those given are still checked.
    """
    top = Table(data, "")
    name = top.str("name", default_name)
    replications = top.int("replications", 100, minimum=1, maximum=REPLICATION_LIMIT)
    seed = top.int("seed", 0, minimum=0)
    compiled = top.raw("compiled", True)
    share = top.raw("share_trajectories", False)
    for key, value in (("compiled", compiled), ("share_trajectories", share)):
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: expected true or false, got {value!r}.")
    # required tables: table() raises when they are missing, so neither is None
    environment = build_environment(cast(Table, top.table("environment")))
    problem = build_problem(cast(Table, top.table("problem")), environment)
    entries = top.raw("strategy") if need_strategies else top.raw("strategy", [])
    if not isinstance(entries, list) or (need_strategies and not entries):
        raise ConfigError("strategy: expected at least one [[strategy]] table.")
    strategies: list[tuple[str, Strategy]] = []
    labels: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"strategy[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a table.")
        params = dict(entry)
        if "name" not in params:
            raise ConfigError(f"{where}.name: missing required key.")
        sname = params.pop("name")
        label = params.pop("label", sname)
        if not isinstance(sname, str) or not isinstance(label, str):
            raise ConfigError(f"{where}.name: expected a string, got {sname!r}.")
        if label in labels:
            raise ConfigError(f"{where}.label: duplicate strategy label \"{label}\" (add a distinct 'label').")
        labels.add(label)
        try:
            strategy = make_strategy(sname, params, where=where).validate(problem)
        except InvalidParameterError as exc:
            raise ConfigError(strategy_message(where, str(exc))) from None
        strategies.append((label, strategy))
    reproduce = top.raw("reproduce", None)  # presentation for `pybai reproduce` / `pybai report`
    if reproduce is not None and not isinstance(reproduce, dict):
        raise ConfigError(f"reproduce: expected a table, got {reproduce!r}.")
    top.finish()
    return Experiment(name, replications, seed, problem, environment, strategies, data, compiled=compiled,
                      share_trajectories=share)
