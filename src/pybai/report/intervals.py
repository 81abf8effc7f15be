"""Metrics computed from per-replication outcomes, with 95% confidence intervals.

A metric of the result document that is a mean over replications (``mean_samples``,
``correct_rate``, ...) is recomputed from the stored outcomes, so figures and tables can show
its 95% interval: a normal interval ``mean +- 1.96 sd / sqrt(n)`` for means, a Wilson score
interval for proportions (exact enough near 0 and 1, where rates of correct answers live).
Families add metrics with :func:`register_metric`.

Examples
--------
>>> rows = [{"correct": True}] * 95 + [{"correct": False}] * 5
>>> center, low, high = metric_interval(rows, "correct_rate")
>>> round(center, 3), round(low, 3), round(high, 3)
(0.95, 0.888, 0.978)
>>> [round(v, 3) for v in metric_interval(rows, "error_rate")]
[0.05, 0.022, 0.112]
>>> str(ratio(Estimate(300.0, 270.0, 330.0), 100.0))
'3.0 ± 0.3'
>>> format_number(1234.5), format_number(0.98765), format_number(12.0), format_number(3.2e-5)
('1,234', '0.9877', '12', '3.2e-05')
>>> str(Estimate(812.4, 772.2, 852.6)), str(Estimate(0.98765, 0.9754, 0.9999)), str(Estimate(0.97, 0.95, 0.98, "proportion"))
('812 ± 40', '0.988 ± 0.012', '0.97 [0.95, 0.98]')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["MetricSpec", "METRICS", "register_metric", "metric_interval", "estimate", "Estimate", "ratio", "Z95",
           "format_number"]

#: two-sided 95% standard normal quantile
Z95 = 1.959963984540054


@dataclass(frozen=True)
class MetricSpec:
    """``field`` of the stored outcome lines, ``kind`` "mean" or "proportion", optional ``transform`` of each value."""

    field: str
    kind: str = "mean"
    transform: Callable[[float], float] | None = None
    #: the outcome lines the metric is taken over (default: all)
    where: Callable[[dict], bool] | None = None


METRICS: dict[str, MetricSpec] = {}


def register_metric(name: str, field: str, kind: str = "mean", transform: Callable[[float], float] | None = None,
                    where: Callable[[dict], bool] | None = None) -> None:
    """Declare that result-document metric ``name`` is the mean of outcome ``field`` (kind "mean" or "proportion"),
    over the outcome lines for which ``where`` is true (all by default)."""
    if kind not in ("mean", "proportion"):
        raise ValueError(f"kind: expected 'mean' or 'proportion', got {kind!r}")
    METRICS[name] = MetricSpec(field, kind, transform, where)


register_metric("mean_samples", "samples")
register_metric("mean_samples_stopped", "samples", where=lambda row: row.get("status") != "censored")
register_metric("mean_batches", "batches")
register_metric("correct_rate", "correct", "proportion")
register_metric("error_rate", "correct", "proportion", transform=lambda correct: 1.0 - correct)
register_metric("mean_simple_regret", "simple_regret")
register_metric("false_negative_rate", "false_negative")
register_metric("mean_seconds", "seconds")
register_metric("mean_cpu_seconds", "cpu_seconds")
register_metric("mean_gain", "gain")
register_metric("oracle_gain", "oracle_gain")


def estimate(values, kind: str = "mean") -> tuple[float, float, float]:
    """``(estimate, low, high)`` of the 95% interval of the mean of ``values`` (NaN and None dropped)."""
    x = np.array([np.nan if v is None else float(v) for v in values], dtype=float)
    x = x[np.isfinite(x)]
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if kind == "proportion":  # Wilson score interval
        z2 = Z95 * Z95
        centre = (mean + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return (mean, max(centre - half, 0.0), min(centre + half, 1.0))
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    return (mean, mean - half, mean + half)


def metric_interval(rows: list[dict], metric: str) -> tuple[float, float, float] | None:
    """The metric over ``rows`` (stored outcome lines) with its 95% interval; None if it is not registered."""
    spec = METRICS.get(metric)
    if spec is None:
        return None
    values = [row.get(spec.field) for row in rows if spec.where is None or spec.where(row)]
    values = [None if v is None else float(v) for v in values]
    if spec.transform is not None:
        values = [None if v is None else spec.transform(v) for v in values]
    return estimate(values, spec.kind)


def format_number(x) -> str:
    """The one number format of reports: whole numbers with thousands separators, others to 4
    significant figures (no decimals from 1,000 on, no exponent above 0.001), "-" when not finite."""
    if x is None or isinstance(x, bool):
        return "-" if x is None else str(x)
    x = float(x)
    if not math.isfinite(x):
        return "-"
    if x == round(x) and abs(x) < 1e15:
        return f"{int(round(x)):,}"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 1e-3:
        return f"{x:.4g}"
    return f"{x:.2g}"


def _decimals(half: float) -> int:
    """Decimals that show ``half`` (a 95% half-width) to 1 significant figure, 2 when it starts with 1 or 2."""
    exponent = math.floor(math.log10(half))
    lead = half / 10.0 ** exponent
    figures = 2 if lead < 2.95 else 1
    return min(max(figures - 1 - exponent, 0), 8)


@dataclass(frozen=True)
class Estimate:
    """A measured metric with its 95% interval; prints as ``mean ± half-width`` (means) or ``p [low, high]``.

    A mean is shown to the precision its half-width supports (the half-width to 1 significant
    figure, 2 when it starts with 1 or 2); other numbers by :func:`format_number`.
    """

    value: float
    low: float
    high: float
    kind: str = "mean"

    def __str__(self) -> str:
        if not math.isfinite(self.value):
            return "-"
        if self.kind == "proportion":
            return f"{format_number(self.value)} [{format_number(self.low)}, {format_number(self.high)}]"
        half = (self.high - self.low) / 2
        if not (math.isfinite(half) and half > 0):
            return f"{format_number(self.value)} ± 0"
        d = _decimals(half)
        return f"{self.value:,.{d}f} ± {half:,.{d}f}"


def ratio(numerator: Estimate | float, denominator: Estimate | float) -> Estimate | None:
    """``numerator / denominator`` with a 95% interval by the delta method (None for a zero or missing denominator).

    The relative half-widths of the two add in quadrature, as for independent estimates; a plain
    number counts as exact.
    """
    def parts(x):
        if isinstance(x, Estimate):
            return x.value, (x.high - x.low) / 2
        return float(x), 0.0

    if numerator is None or denominator is None:
        return None
    (a, ha), (b, hb) = parts(numerator), parts(denominator)
    if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
        return None
    value = a / b
    relative = math.hypot(ha / a if a else 0.0, hb / b)
    half = abs(value) * relative
    return Estimate(value, value - half, value + half)
