"""The summary at the top of a report: what was compared, who came first, and how sure the runs make it.

Everything is computed from the stored per-replication outcomes:

* **the deciding metric** (:func:`headline_metric`): in fixed confidence the mean number of
  samples; in fixed budget the first of :data:`FIXED_BUDGET_HEADLINES` on which the strategies
  differ.  :data:`LOWER_IS_BETTER` says which way is better.
* **how sure** (:func:`difference`): the leader against the runner-up, on the runs they share.
  Every strategy of a file sees the same seeded replications, so the difference is taken run by
  run (a paired difference: the common randomness of the instance cancels) with a normal 95%
  interval; the leader is "ahead" when that interval excludes 0, otherwise the runs "cannot tell
  them apart".
* **correctness and censoring**, said once (the tables leave out columns that are 0 everywhere).

Examples
--------
>>> rows = [{"strategy": s, "point": 0, "replication": r, "samples": n}
...         for s, base in (("a", 100), ("b", 130)) for r, n in enumerate([0, 10, 20, 30, 40])]
>>> rows = [dict(row, samples=row["samples"] + (100 if row["strategy"] == "a" else 130)) for row in rows]
>>> from pybai.report.registry import FigureData
>>> data = FigureData("x", {"results": [{"strategy": "a"}, {"strategy": "b"}]}, rows)
>>> d = difference(data, data.points[0], "b", "a", "mean_samples")
>>> round(d.value, 6), round(d.low, 6), round(d.high, 6)
(30.0, 30.0, 30.0)
"""

from __future__ import annotations

import math

import numpy as np

from pybai.report.intervals import METRICS, Z95, Estimate, format_number
from pybai.report.registry import FigureData, at_text, measured, metric_label

__all__ = ["LOWER_IS_BETTER", "FIXED_BUDGET_HEADLINES", "better_is_lower", "headline_metric", "difference",
           "ranked", "summary_sentences"]

#: metrics where less is better (the rest of the registered ones: more is better)
LOWER_IS_BETTER = {"mean_samples", "mean_samples_stopped", "median_samples", "mean_batches", "error_rate",
                   "mean_simple_regret", "false_negative_rate", "censored", "mean_seconds", "mean_cpu_seconds"}
#: fixed budget: the metrics that can decide, in this order (the first on which strategies differ)
FIXED_BUDGET_HEADLINES = ("mean_gain", "correct_rate", "false_negative_rate", "mean_simple_regret")


def better_is_lower(data: FigureData, metric: str) -> bool:
    """Whether a lower value of ``metric`` is better (a derived metric goes the way of its numerator)."""
    derived = data.metrics.get(metric)
    if derived is not None and derived.of is not None:
        return (derived.of in LOWER_IS_BETTER) != derived.invert
    return metric in LOWER_IS_BETTER


def _per_run(data: FigureData, point: dict, strategy: str, metric: str) -> dict[int, float]:
    """replication -> the metric's value in that run (registered metrics only)."""
    spec = METRICS[metric]
    out: dict[int, float] = {}
    for row in data.rows_of(point["point"], strategy):
        if spec.where is not None and not spec.where(row):
            continue
        value = row.get(spec.field)
        if value is None:
            continue
        value = float(value)
        out[int(row.get("replication", len(out)))] = spec.transform(value) if spec.transform else value
    return out


def difference(data: FigureData, point: dict, first: str, second: str, metric: str) -> Estimate | None:
    """``first - second`` on ``metric`` with a 95% interval, run by run on the replications both have.

    Falls back to the difference of the two means (independent intervals) when they share fewer
    than 2 replications; None for a metric without stored outcomes.
    """
    if metric not in METRICS:
        return None
    a, b = _per_run(data, point, first, metric), _per_run(data, point, second, metric)
    shared = sorted(set(a) & set(b))
    if len(shared) >= 2:
        d = np.array([a[r] - b[r] for r in shared])
        half = Z95 * float(d.std(ddof=1)) / math.sqrt(d.size)
        return Estimate(float(d.mean()), float(d.mean()) - half, float(d.mean()) + half)
    ea, eb = measured(data, point, first, metric), measured(data, point, second, metric)
    if not (isinstance(ea, Estimate) and isinstance(eb, Estimate)):
        return None
    half = math.hypot((ea.high - ea.low) / 2, (eb.high - eb.low) / 2)
    value = ea.value - eb.value
    return Estimate(value, value - half, value + half)


def _value(cell) -> float | None:
    if isinstance(cell, Estimate):
        return cell.value if math.isfinite(cell.value) else None
    if isinstance(cell, (int, float)) and not isinstance(cell, bool) and math.isfinite(float(cell)):
        return float(cell)
    return None


def ranked(data: FigureData, point: dict, metric: str) -> list[tuple[str, float]]:
    """The strategies at ``point`` that have ``metric``, best first: ``[(strategy, value), ...]``."""
    values = []
    for strategy in data.strategies():
        if data.result(point, strategy) is None:
            continue
        value = _value(measured(data, point, strategy, metric))
        if value is not None:
            values.append((strategy, value))
    lower = better_is_lower(data, metric)
    return sorted(values, key=lambda sv: sv[1] if lower else -sv[1])


def headline_metric(data: FigureData) -> str | None:
    """The metric that decides who comes first (module docstring), or None when none tells strategies apart."""
    candidates = FIXED_BUDGET_HEADLINES if data.fixed_budget else ("mean_samples",)
    for metric in candidates:
        spread = [{v for _, v in ranked(data, p, metric)} for p in data.points]
        if any(len(values) > 1 for values in spread):
            return metric
    return None


def _leader(data: FigureData, point: dict, metric: str) -> tuple[str, Estimate | float, str | None, Estimate | None]:
    """(leader, its value, runner-up, the leader's lead): the lead is positive when the leader is better."""
    order = ranked(data, point, metric)
    leader = order[0][0]
    value = measured(data, point, leader, metric)
    if len(order) < 2:
        return leader, value, None, None
    runner = order[1][0]
    first, second = (runner, leader) if better_is_lower(data, metric) else (leader, runner)
    return leader, value, runner, difference(data, point, first, second, metric)


def _sure(lead: Estimate | None) -> bool:
    return lead is not None and lead.low > 0


def _verdict(data: FigureData, point: dict, metric: str) -> str:
    leader, value, runner, lead = _leader(data, point, metric)
    lower = better_is_lower(data, metric)
    text = f"{'Lowest' if lower else 'Highest'} {metric_label(data, metric)}: {leader}, {value}"
    if runner is None:
        return text + " (the only strategy)."
    if lead is None:
        return text + f"; next: {runner}."
    text += f"; it leads {runner} by {lead} (95%, paired over the same runs)"
    return text + (": the runs separate them." if _sure(lead) else ": these runs cannot tell the two apart.")


def _grid_verdict(data: FigureData, metric: str) -> str:
    leaders: dict[str, list[dict]] = {}
    sure = 0
    for point in data.points:
        if len(ranked(data, point, metric)) < 1:
            continue
        leader, _, _, lead = _leader(data, point, metric)
        leaders.setdefault(leader, []).append(point)
        sure += _sure(lead)
    if not leaders:
        return ""
    lower = better_is_lower(data, metric)
    n = sum(len(v) for v in leaders.values())
    parts = []
    for leader, points in sorted(leaders.items(), key=lambda kv: -len(kv[1])):
        where = "every grid point" if len(points) == n else (
            f"{len(points)} of {n} grid points ({'; '.join(at_text(p) for p in points[:4])}"
            + (", ..." if len(points) > 4 else "") + ")")
        parts.append(f"{leader} at {where}")
    return (f"{'Lowest' if lower else 'Highest'} {metric_label(data, metric)}: " + ", ".join(parts)
            + f"; ahead of the runner-up with a 95% interval excluding 0 at {sure} of {n} points.")


def _correctness(data: FigureData) -> list[str]:
    out = []
    rates = [(s, measured(data, p, s, "correct_rate")) for p in data.points for s in data.strategies()
             if data.result(p, s) is not None]
    rates = [(s, r) for s, r in rates if isinstance(r, Estimate)]
    if rates and not data.fixed_budget:
        low = min(r.value for _, r in rates)
        delta = next((data.complexity(p).get("delta") for p in data.points if data.complexity(p).get("delta")), None)
        target = f" (a proven stopping rule keeps it at least 1 - delta = {format_number(1 - delta)})" if delta else ""
        censored = sum(int(r.get("censored") or 0) for p in data.points for r in p["results"])
        stops = " (none reached max_samples)" if censored == 0 else (
            f"; {censored} run(s) reached max_samples without stopping (counted at max_samples)")
        if low == 1.0:
            out.append("Every run of every strategy found the right answer" + stops + ".")
        else:
            worst = min(rates, key=lambda sr: sr[1].value)
            out.append(f"Correct answers: at worst {worst[1]} ({worst[0]}){target}{stops}.")
            if delta and any(r.high < 1 - delta for _, r in rates):
                short = sorted({s for s, r in rates if r.high < 1 - delta})
                out.append(f"Below 1 - delta = {format_number(1 - delta)} with 95% confidence: {', '.join(short)}.")
    return out


def summary_sentences(data: FigureData) -> list[str]:
    """What was compared, who came first on the deciding metric and how sure, then correctness."""
    strategies = data.strategies()
    runs = sorted({int(r.get("replications") or 0) for p in data.points for r in p["results"]})
    runs_text = "/".join(format_number(r) for r in runs)
    goal = data.document.get("goal", "")
    regime = "fixed budget" if data.fixed_budget else "fixed confidence"
    where = f", at each of {len(data.points)} grid points" if len(data.points) > 1 else ""
    first = (f"Compared: {len(strategies)} strateg{'y' if len(strategies) == 1 else 'ies'} ({', '.join(strategies)})"
             f" on {goal} identification ({regime}), {runs_text} runs each{where}.")
    out = [first]
    metric = headline_metric(data)
    if metric is not None:
        out.append(_grid_verdict(data, metric) if len(data.points) > 1 else _verdict(data, data.points[0], metric))
    return out + _correctness(data)
