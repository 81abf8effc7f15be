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


def _subpopulation_gaussian(table: Table) -> Environment:
    """``kind = "subpopulation-gaussian"``: means (K x L), weights, constrained, floor, sigma, sampling."""
    from pybai.environments.subpopulation import SubpopulationGaussianEnvironment

    means = table.array("means", ndim=2)
    n_arms, n_sub = means.shape
    weights = table.array("weights", shape=(n_sub,), low=0.0, strict_low=True)
    constrained = table.raw("constrained", None)
    if constrained is not None:
        ok = isinstance(constrained, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in constrained)
        if not ok or any(not 0 <= c < n_sub for c in constrained) or len(set(constrained)) != len(constrained):
            raise ConfigError(
                f"{table.key('constrained')}: expected a list of distinct 0-based subpopulation indices "
                f"in [0, {n_sub - 1}], got {constrained!r}."
            )
    n_con = n_sub if constrained is None else len(constrained)
    floor = table.array("floor", 0.0)
    if np.ndim(floor) not in (0, 1) or (np.ndim(floor) == 1 and np.size(floor) != n_con):
        raise ConfigError(
            f"{table.key('floor')}: expected a number or a list of {n_con} numbers "
            f"(one per constrained subpopulation), got shape {np.shape(floor)}."
        )
    sigma = table.array("sigma", 1.0, low=0.0, strict_low=True)
    if np.ndim(sigma) != 0 and np.shape(sigma) != (n_arms, n_sub):
        raise ConfigError(
            f"{table.key('sigma')}: expected a number or a {n_arms} x {n_sub} matrix, got shape {np.shape(sigma)}."
        )
    sampling = table.str("sampling", "pair", choices=["pair", "arm"])
    if n_arms == 1 and n_con == 0:
        raise ConfigError(f"{table.key('means')}: expected at least 2 arms (rows) when no subpopulation is constrained.")
    return SubpopulationGaussianEnvironment(means, weights, constrained, floor, sigma, sampling)


ENVIRONMENT_BUILDERS: dict[str, Callable[[Table], Environment]] = {
    "gaussian": _gaussian,
    "bernoulli": _bernoulli,
    "subpopulation-gaussian": _subpopulation_gaussian,
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
