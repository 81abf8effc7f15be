"""The ``linear-gaussian`` environment kind of experiment files.

Two ways to write it:

* explicit (the keys of docs/reference.md): ``features`` (K x d), ``theta`` (d), ``sigma`` (default 1.0);
* a named instance, so a figure can sweep its size with a ``[grid]``:

  - ``instance = "soare"``: the section-6 instance of Soare, Lazaric & Munos (2014), keys
    ``d`` (>= 2, required), ``omega`` (default 0.01), ``sigma`` (default 1.0): arms e_1..e_d and
    (cos omega, sin omega, 0, ...), theta = (2, 0, ..., 0).  ``"environment.d" = [2, 3, ...]``
    in a ``[grid]`` sweeps the dimension (Figure 4);
  - ``instance = "wine"``: the 1,599 red wines shipped with pybai (d = 12: 11 standardised
    features and an intercept), theta = least-squares fit of the quality score, sigma = the
    residual standard deviation (no other key).

Examples
--------
>>> from pybai.config.keys import Table
>>> env = build_linear_environment(Table({"kind": "linear-gaussian", "instance": "soare", "d": 3}, "environment"))
>>> env.features.shape, env.theta.tolist()
((4, 3), [2.0, 0.0, 0.0])
"""

from __future__ import annotations

from pybai.config.keys import Table, config_message
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.linear_instances import soare_environment, wine_environment
from pybai.exceptions import ConfigError, InvalidParameterError

__all__ = ["build_linear_environment", "LINEAR_INSTANCES"]

#: named instances of ``environment.instance``
LINEAR_INSTANCES = ("soare", "wine")


def build_linear_environment(table: Table) -> LinearGaussianEnvironment:
    """``linear-gaussian`` (explicit, or a named instance): keys features, theta, sigma, instance."""
    table.raw("kind")
    if not table.has("instance"):
        return table.construct(LinearGaussianEnvironment, ("features", "theta", "sigma", "labels"))
    instance = table.str("instance", choices=LINEAR_INSTANCES)
    labels = table.raw("labels", None)
    environment = _instance(table, instance)
    try:
        environment._set_labels(labels, environment.n_sources)
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None
    return environment


def _instance(table: Table, instance: str) -> LinearGaussianEnvironment:
    for key in ("features", "theta"):
        if table.has(key):
            raise ConfigError(f"{table.key(key)}: not with 'instance' (the named instance gives the arms and theta).")
    if instance == "soare":
        d = table.int("d", minimum=2)
        omega = table.float("omega", 0.01, low=0.0, open_low=True)
        sigma = table.float("sigma", 1.0, low=0.0, open_low=True)
        table.finish()
        try:
            return soare_environment(d, omega, sigma)
        except InvalidParameterError as exc:  # e.g. d too large for memory
            raise ConfigError(config_message(table.prefix, str(exc))) from None
    table.finish()
    try:
        return wine_environment()
    except InvalidParameterError as exc:  # the packaged file is missing or unreadable
        raise ConfigError(f"{table.key('instance')}: {exc}") from None
