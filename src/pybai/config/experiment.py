"""The experiment file (TOML): a truth, a problem and the strategies to compare."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybai.config.environments import build_environment
from pybai.config.keys import Table
from pybai.config.problems import build_problem
from pybai.environments.base import Environment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems.base import Problem
from pybai.strategies.base import Strategy
from pybai.strategies.registry import make_strategy

__all__ = ["Experiment", "load_experiment", "parse_experiment"]


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
    """

    name: str
    replications: int
    seed: int
    problem: Problem
    environment: Environment
    strategies: list[tuple[str, Strategy]]
    source: dict[str, Any] = field(default_factory=dict, repr=False)


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file; raises :class:`ConfigError` naming the key."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file.") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror}).") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}).") from None
    return parse_experiment(data, default_name=path.stem)


def parse_experiment(data: dict[str, Any], default_name: str = "experiment") -> Experiment:
    """Validate a parsed experiment document."""
    top = Table(data, "")
    name = top.str("name", default_name)
    replications = top.int("replications", 100, minimum=1)
    seed = top.int("seed", 0, minimum=0)
    environment = build_environment(top.table("environment"))
    problem = build_problem(top.table("problem"), environment)
    entries = top.raw("strategy")
    if not isinstance(entries, list) or not entries:
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
        except ConfigError:
            raise
        except InvalidParameterError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        strategies.append((label, strategy))
    top.finish()
    return Experiment(name, replications, seed, problem, environment, strategies, data)
