"""Environment builders, one per ``environment.kind`` of an experiment file (docs/reference.md).

A builder reads the keys of its kind and hands them to the environment's constructor, which
does every check; the constructor's message ("The 'sigma' parameter of ... must be ...") is
turned into the file's form ("environment.sigma: expected ..., got ...").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pybai.config.generators import generated_builder
from pybai.config.guardrails import build_multi_metric_environment
from pybai.config.keys import Table, UnknownKeyError
from pybai.config.reward_models import point_to_reward_models
from pybai.config.linear import build_linear_environment
from pybai.environments import BernoulliEnvironment, BetaEnvironment, BinomialEnvironment, Environment, GaussianEnvironment
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.from_callable import CallableEnvironment
from pybai.environments.route_delays import route_delays_environment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment

__all__ = ["ENVIRONMENT_BUILDERS", "build_environment", "register_environment", "keys_builder"]


def keys_builder(cls: type[Any], keys: tuple[str, ...]) -> Callable[[Table], Environment]:
    """A builder passing the keys ``keys`` (those present) of the table to ``cls``."""

    def build(table: Table) -> Environment:
        return table.construct(cls, keys)

    build.__doc__ = f"``{cls.kind}``: keys {', '.join(keys)}."
    return build


ENVIRONMENT_BUILDERS: dict[str, Callable[[Table], Environment]] = {
    "gaussian": generated_builder(GaussianEnvironment, ("means", "sigma", "labels")),  # means, or a generator
    "bernoulli": generated_builder(BernoulliEnvironment, ("means", "labels")),
    "binomial": generated_builder(BinomialEnvironment, ("means", "trials", "labels")),  # mean of `trials` Bernoulli draws
    "beta": keys_builder(BetaEnvironment, ("means", "sd", "labels")),  # bounded rewards in [0, 1]
    "subpopulation-gaussian": keys_builder(
        SubpopulationGaussianEnvironment, ("means", "weights", "constrained", "floor", "sigma", "sampling", "labels")
    ),
    "correlated-gaussian": keys_builder(
        CorrelatedGaussianEnvironment,
        ("means", "draw", "covariance", "kernel", "sigma", "eta", "prior_mean", "labels"),
    ),
    # rewards from a Python function named "module:function" (docs/bayesgap.md)
    "callable": keys_builder(
        CallableEnvironment,
        ("function", "n_arms", "params", "sigma", "means", "covariance", "eta", "prior_mean", "labels"),
    ),
    "linear-gaussian": build_linear_environment,  # features/theta/sigma, or instance = "soare" | "wine"
    "multi-metric": build_multi_metric_environment,  # [[environment.metric]] tables, correlation (guardrails)
}


def _route_delays(table: Table) -> Environment:
    """``route-delays`` (the shipped flight-delay data): keys history_fraction, noise_fraction, eta."""
    return table.construct(route_delays_environment, ("history_fraction", "noise_fraction", "eta"))


ENVIRONMENT_BUILDERS["route-delays"] = _route_delays


def register_environment(kind: str, builder: Callable[[Table], Environment]) -> None:
    """Add a builder for ``environment.kind = kind``."""
    ENVIRONMENT_BUILDERS[kind] = builder


def build_environment(table: Table) -> Environment:
    """Build the environment described by the ``[environment]`` table."""
    kind = table.str("kind", choices=sorted(ENVIRONMENT_BUILDERS))
    try:
        return ENVIRONMENT_BUILDERS[kind](table)
    except UnknownKeyError as exc:  # e.g. reward_range: said in [problem], with the way to say it
        raise point_to_reward_models(exc) from None
