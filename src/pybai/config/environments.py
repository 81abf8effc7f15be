"""Environment builders, one per ``environment.kind`` of the contract."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pybai.config.keys import Table
from pybai.environments import BernoulliEnvironment, Environment, GaussianEnvironment
from pybai.exceptions import ConfigError

__all__ = ["ENVIRONMENT_BUILDERS", "build_environment", "register_environment"]


def _sigma(table: Table, size: int) -> np.ndarray:
    sigma = table.array("sigma", 1.0, low=0.0, strict_low=True)
    sigma = np.asarray(sigma, dtype=float)
    if sigma.ndim == 0:
        return np.full(size, float(sigma))
    if sigma.shape != (size,):
        raise ConfigError(f"{table.key('sigma')}: expected a number or a list of {size} numbers, got shape {sigma.shape}.")
    return sigma


def _gaussian(table: Table) -> Environment:
    means = table.array("means", ndim=1, min_size=2)
    return GaussianEnvironment(means, _sigma(table, means.size))


def _bernoulli(table: Table) -> Environment:
    means = table.array("means", ndim=1, min_size=2, low=0.0, high=1.0)
    return BernoulliEnvironment(means)


ENVIRONMENT_BUILDERS: dict[str, Callable[[Table], Environment]] = {
    "gaussian": _gaussian,
    "bernoulli": _bernoulli,
}


def register_environment(kind: str, builder: Callable[[Table], Environment]) -> None:
    """Add a builder for ``environment.kind = kind``."""
    ENVIRONMENT_BUILDERS[kind] = builder


def build_environment(table: Table) -> Environment:
    """Build the environment described by the ``[environment]`` table."""
    kind = table.str("kind", choices=sorted(ENVIRONMENT_BUILDERS))
    env = ENVIRONMENT_BUILDERS[kind](table)
    table.finish()
    return env
