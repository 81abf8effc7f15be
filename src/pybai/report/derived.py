"""Metrics a reproduction defines from others: ratios (speedups, costs, multiples of a bound) and samples per source.

Declared in ``[reproduce.metric]`` (see docs/engine.md) and usable wherever a metric is named:
table columns, the paper's columns, ``y`` of the figure kinds.  Evaluated by
:func:`pybai.report.registry.measured`::

    [reproduce.metric]
    actual_speedup = { of = "mean_batches", at = { "problem.batch.size" = 1 }, invert = true }
    ratio_to_tas_cs = { of = "mean_samples", at = { strategy = "tas-cs" } }
    over_lower_bound = { of = "mean_samples", over = "lower_bound" }
    us_per_sample = { of = "mean_cpu_seconds", over = "mean_samples", scale = 1e6 }
    x1 = { source = 0 }

* ``of`` / ``over``: ``of`` divided by ``over`` (default ``of`` itself), each a metric of the
  result document, a registered metric or a key of the problem's complexity report;
* ``at``: the denominator is read in another cell: ``strategy`` and/or grid values (the other
  grid values stay those of the row);
* ``invert``: ``over / of`` instead (a speedup); ``scale``: a factor;
* ``source``: the mean number of samples of one source (0-based index into the flattened
  sources), from the stored counts;
* ``label``: what tables and axes call it (default: said from the keys above, :meth:`DerivedMetric.describe`).

Examples
--------
>>> parse_metrics({"speedup": {"of": "mean_batches", "at": {"problem.k": 1}, "invert": True}})["speedup"].invert
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pybai.exceptions import ConfigError

__all__ = ["DerivedMetric", "parse_metrics"]

_KEYS = ("of", "over", "at", "invert", "scale", "source", "label")


@dataclass(frozen=True)
class DerivedMetric:
    """One ``[reproduce.metric]`` entry (see the module docstring)."""

    name: str
    of: str | None = None
    over: str | None = None
    at: dict[str, Any] = field(default_factory=dict)
    invert: bool = False
    scale: float = 1.0
    source: int | None = None
    label: str = ""

    def describe(self, name_of) -> str:
        """The metric in words: its ``label``, else its definition with ``name_of(metric)`` for the parts.

        >>> DerivedMetric("r", of="mean_samples", at={"strategy": "tas"}).describe(lambda k: k.replace("_", " "))
        'mean samples / mean samples of tas'
        >>> DerivedMetric("x1", source=0).describe(str)
        'mean samples of source 0'
        """
        if self.label:
            return self.label
        if self.source is not None:
            text = f"mean samples of source {self.source}"
        else:
            of = name_of(self.of)
            at = dict(self.at)
            strategy = at.pop("strategy", None)
            where = ", ".join(f"{str(k).rsplit('.', 1)[-1].replace('_', ' ')} = {v}" for k, v in at.items())
            other = " ".join(part for part in (strategy and f"of {strategy}", where and f"at {where}") if part)
            if other:
                text = f"{of} {other} / {of}" if self.invert else f"{of} / {of} {other}"
            else:
                over = name_of(self.over or self.of)
                text = f"{over} / {of}" if self.invert else f"{of} / {over}"
        return text if self.scale == 1.0 else f"{text} (x {self.scale:g})"


def _metric(name: str, entry: dict, where: str) -> DerivedMetric:
    for key in entry:
        if key not in _KEYS:
            raise ConfigError(f"{where}.{key}: unknown key (expected one of {', '.join(_KEYS)}).")
    if ("of" in entry) == ("source" in entry):
        raise ConfigError(f"{where}: give exactly one of of (a ratio) and source (samples of one source).")
    source = entry.get("source")
    if source is not None and (isinstance(source, bool) or not isinstance(source, int) or source < 0):
        raise ConfigError(f"{where}.source: expected a 0-based source index, got {source!r}.")
    for key in ("of", "over"):
        if key in entry and (not isinstance(entry[key], str) or not entry[key]):
            raise ConfigError(f"{where}.{key}: expected a metric name, got {entry[key]!r}.")
    at = entry.get("at", {})
    if not isinstance(at, dict):
        raise ConfigError(f'{where}.at: expected a table, e.g. {{ strategy = "tas" }}, got {at!r}.')
    invert = entry.get("invert", False)
    if not isinstance(invert, bool):
        raise ConfigError(f"{where}.invert: expected true or false, got {invert!r}.")
    scale = entry.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale == 0:
        raise ConfigError(f"{where}.scale: expected a non-zero number, got {scale!r}.")
    label = entry.get("label", "")
    if not isinstance(label, str):
        raise ConfigError(f"{where}.label: expected a string, got {label!r}.")
    if source is not None and (set(entry) - {"source", "scale", "label"}):
        raise ConfigError(f"{where}: source takes no of, over, at or invert.")
    return DerivedMetric(name, entry.get("of"), entry.get("over"), dict(at), invert, float(scale), source, label)


def parse_metrics(table: Any, where: str = "reproduce.metric") -> dict[str, DerivedMetric]:
    """The validated ``[reproduce.metric]`` table; a derived metric may not be built on another one."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of metrics, e.g. x1 = {{ source = 0 }}.")
    metrics = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}.{name}: expected a table, e.g. {{ of = \"mean_samples\", over = \"lower_bound\" }}.")
        metrics[name] = _metric(name, entry, f"{where}.{name}")
    for metric in metrics.values():
        for key in ("of", "over"):
            if getattr(metric, key) in metrics:
                raise ConfigError(f"{where}.{metric.name}.{key}: {getattr(metric, key)!r} is itself derived; "
                                  "name a metric of the results or of the complexity report.")
    return metrics
