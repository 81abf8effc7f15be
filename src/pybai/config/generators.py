"""Mean vectors generated from a few keys, for environments too large to list (``generator = ...``).

An experiment file cannot list 522,062 means; instead the ``[environment]`` table of kind
``gaussian``, ``bernoulli`` or ``binomial`` may name a generator and its parameters::

    [environment]
    kind = "bernoulli"
    generator = "power-law"     # instead of means
    arms = 522062
    exponent = 0.5

The truth is the same in every replication: generators without randomness are fixed by their
parameters, random ones (``virus``, and ``shuffle = true``) draw from ``numpy.random.default_rng(seed)``
with the table's ``seed`` key (default 0), independent of the file's master seed.

| generator | kinds | keys (defaults) |
| --- | --- | --- |
| ``linear`` | all three | ``arms`` (100): mu_i = (n - i)/(n - 1), i = 1..n (Table 1's Linear) |
| ``sparse`` | all three | ``arms`` (100), ``n_top`` (10), ``top`` (0.5), ``rest`` (0.3) (Table 1's Sparse) |
| ``power-law`` | all three | ``arms`` (522,062), ``exponent`` (0.5), ``top`` (0.05), ``floor`` (1/8,928): mu_i = max(top i^-exponent, floor) |
| ``virus`` | gaussian | ``arms`` (12,979), ``tail_fraction`` (0.03), ``bulk_sd`` (0.2), ``tail_scale`` (0.6), ``seed`` |

``linear``, ``sparse`` and ``power-law`` list the arms best first unless ``shuffle = true``
(then a random order from ``seed``); ``virus`` always shuffles.  The laws are documented in
:mod:`pybai.batch.instances` and docs/topk.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pybai._validation import check_memory, check_positive_int, fail
from pybai.batch import instances
from pybai.config.keys import Table, config_message
from pybai.exceptions import ConfigError, InvalidParameterError

__all__ = ["GENERATORS", "generated_means", "generated_builder"]


def _order(means: np.ndarray, shuffle: bool, seed: int) -> np.ndarray:
    if not isinstance(shuffle, bool):
        raise fail("shuffle", "", "true or false", shuffle)
    return means[np.random.default_rng(seed).permutation(means.size)] if shuffle else means


def _arms(arms) -> int:
    """The number of arms, refused (with the estimate) when its mean vector alone would not fit in memory."""
    count = check_positive_int(arms, "arms", minimum=2)
    check_memory(8 * count, "arms", "", "the means (8 bytes per arm)", arms)
    return count


def _linear(arms=100, shuffle=False, seed=0):
    return _order(instances.linear_instance(_arms(arms)), shuffle, seed)


def _sparse(arms=100, n_top=10, top=0.5, rest=0.3, shuffle=False, seed=0):
    means = instances.sparse_instance(_arms(arms), n_top, top, rest)
    return _order(means, shuffle, seed)


def _power_law(arms=522_062, exponent=0.5, top=0.05, floor=1.0 / (24 * 372), shuffle=False, seed=0):
    means = instances.twitter_instance(_arms(arms), exponent, top, floor)
    return _order(means, shuffle, seed)


def _virus(arms=12_979, tail_fraction=0.03, bulk_sd=0.2, tail_scale=0.6, seed=0):
    return instances.virus_instance(np.random.default_rng(seed), _arms(arms),
                                    tail_fraction, bulk_sd, tail_scale)


#: generator name -> (function of the table's keys, environment kinds it serves)
GENERATORS: dict[str, tuple[Callable[..., np.ndarray], tuple[str, ...]]] = {
    "linear": (_linear, ("gaussian", "bernoulli", "binomial")),
    "sparse": (_sparse, ("gaussian", "bernoulli", "binomial")),
    "power-law": (_power_law, ("gaussian", "bernoulli", "binomial")),
    "virus": (_virus, ("gaussian",)),
}


def generated_means(table: Table, kind: str) -> np.ndarray | None:
    """The means the table's ``generator`` gives (None without a ``generator`` key)."""
    if not table.has("generator"):
        return None
    name = table.str("generator", choices=sorted(GENERATORS))
    function, kinds = GENERATORS[name]
    if kind not in kinds:
        raise ConfigError(f'{table.key("generator")}: generator "{name}" is not available for kind "{kind}" '
                          f"(expected kind {' or '.join(kinds)}).")
    if table.has("means"):
        raise ConfigError(f"{table.key('means')}: give either means or a generator, not both.")
    params = [p for p in function.__code__.co_varnames[: function.__code__.co_argcount]]
    kwargs = {p: table.raw(p) for p in params if table.has(p)}
    if "seed" in kwargs:
        kwargs["seed"] = table.int("seed", minimum=0)
    try:
        return function(**kwargs)
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None


def generated_builder(cls: type[Any], keys: tuple[str, ...]) -> Callable[[Table], Any]:
    """Builder of ``cls`` from its ``keys``, or from a ``generator`` instead of ``means``."""

    def build(table: Table):
        means = generated_means(table, cls.kind)
        if means is None:
            return table.construct(cls, keys)
        return table.construct(cls, tuple(k for k in keys if k != "means"), means=means)

    build.__doc__ = f"``{cls.kind}`` (a ``generator`` may replace means): keys {', '.join(keys)}, generator."
    return build
