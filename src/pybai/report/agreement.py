"""Where the measured results agree with a paper's table and where they do not, computed (never written by hand).

Two checks, both on the stored runs:

* **orderings.**  For every metric of the paper's table (in fixed confidence not the rates of
  correct answers, which all sit near 1 - delta), the paper ranks the strategies of a grid point
  by their published values; with ``ranking = { by = METRIC, order = [[best, ...],
  [next, ...], ...] }`` under ``[reproduce.paper]`` it ranks them in words (a published figure
  without numbers: tiers, best first, no order claimed inside a tier).  A pair the paper puts one
  way is **contradicted** when the measured difference is the other way with a 95% interval that
  excludes 0 (paired over the same runs, :func:`pybai.report.verdict.difference`), and **not
  resolved** when the interval includes 0.
* **values.**  A published number is **outside** when it lies outside the measured 95% interval
  (a number computed exactly, such as T*(mu), when it differs beyond the paper's rounding).

:func:`paper_agreement` returns the sentences the report prints beside the paper's table.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from pybai.report.intervals import METRICS, Estimate, format_number
from pybai.report.registry import FigureData, at_text, measured, metric_label, same_value
from pybai.report.spec import PaperTable
from pybai.report.verdict import better_is_lower, difference

__all__ = ["Agreement", "paper_agreement"]


@dataclass
class Agreement:
    """The outcome of the checks; ``sentences()`` says it for readers.

    Pairs the paper orders: ``contradicted`` (measured the other way, 95% interval excluding 0),
    ``reversed`` (the other way, not resolved), ``unresolved`` (the paper's way, not resolved);
    the rest agree and are resolved.
    """

    pairs: int = 0
    contradicted: list[str] = field(default_factory=list)
    reversed: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    values: int = 0
    outside: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.contradicted and not self.outside

    def sentences(self) -> list[str]:
        """The findings, the most important first (a disagreement before anything else)."""
        out = []
        if self.contradicted:
            out.append(f"Disagrees with the paper's ordering on {len(self.contradicted)} of {self.pairs} pairs: "
                       + "; ".join(self.contradicted) + ".")
        if self.outside:
            out.append(f"Published values outside pybai's 95% interval: {len(self.outside)} of {self.values}: "
                       + "; ".join(self.outside) + ".")
        if self.reversed:
            out.append("The other way round than in the paper, but not resolved by these runs (95% interval "
                       "includes 0): " + "; ".join(self.reversed) + ".")
        if self.unresolved:
            out.append("In the paper's order, but not resolved by these runs: " + "; ".join(self.unresolved) + ".")
        agreed = self.pairs - len(self.contradicted) - len(self.reversed) - len(self.unresolved)
        if self.pairs and agreed == self.pairs:
            out.append(f"Agrees with the paper's ordering on all {self.pairs} pair{'s' if self.pairs != 1 else ''}, "
                       "each resolved at 95%.")
        elif agreed:
            out.append(f"Agrees with the paper's ordering, resolved at 95%, on {agreed} of {self.pairs} pairs.")
        if self.values and not self.outside:
            out.append(f"Every published value ({self.values}) lies inside pybai's 95% interval.")
        return out


def _decimals(value) -> int:
    text = repr(float(value))
    return 0 if float(value).is_integer() else len(text.split(".")[1]) if "." in text and "e" not in text else 6


def _outside(paper_value: float, ours) -> bool:
    """Whether a published number disagrees with a measured cell (see the module docstring)."""
    slack = 0.5 * 10.0 ** -_decimals(paper_value)  # the paper's rounding
    if isinstance(ours, Estimate):
        return not (ours.low - slack <= paper_value <= ours.high + slack)
    return abs(float(ours) - paper_value) > slack + 1e-9 * abs(paper_value)


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        return None
    return float(value)


def _pair_check(data: FigureData, point: dict, better: str, worse: str, metric: str, result: Agreement,
                where: str) -> None:
    """The paper says ``better`` beats ``worse`` on ``metric``: is that contradicted by the runs?"""
    diff = difference(data, point, better, worse, metric)
    if diff is None:
        return
    result.pairs += 1
    lower = better_is_lower(data, metric)
    wrong_way = diff.low > 0 if lower else diff.high < 0
    right_way = diff.high < 0 if lower else diff.low > 0
    said = (f"the paper has {better} {'below' if lower else 'above'} {worse} on {metric_label(data, metric)}{where}, "
            f"measured {better} - {worse} = {diff} (95%, paired over the same runs)")
    if wrong_way:
        result.contradicted.append(said)
    elif not right_way:
        short = f"{better} vs {worse} on {metric_label(data, metric)}{where}: {better} - {worse} = {diff}"
        (result.unresolved if (diff.value < 0) == lower else result.reversed).append(short)


def _point_of(data: FigureData, keys, row: dict) -> dict | None:
    return next((p for p in data.points
                 if all(same_value(p["grid"].get(k), row[c]) for c, k in keys if k is not None)), None)


def paper_agreement(data: FigureData, paper: PaperTable) -> Agreement:
    """Compare the paper's table (and its ``ranking``) with the stored runs (module docstring)."""
    result = Agreement()
    keys: list[tuple[str, str | None]] = []
    metrics = []
    for i, column in enumerate(paper.columns):
        if column == "strategy" or all(isinstance(row[i], str) for row in paper.rows):
            keys.append((column, None))
            continue
        try:
            keys.append((column, data.key(column)))
        except KeyError:
            metrics.append(column)
    strategies = set(data.strategies())
    only = next(iter(strategies)) if len(strategies) == 1 and "strategy" not in paper.columns else None
    groups: dict[int, list[tuple[str, dict]]] = {}
    for values in paper.rows:
        row = dict(zip(paper.columns, values))
        strategy = row.get("strategy", only)
        point = _point_of(data, keys, row)
        if point is None or strategy not in strategies or data.result(point, strategy) is None:
            continue
        groups.setdefault(int(point["point"]), []).append((strategy, row))
        for metric in metrics:
            published, ours = _number(row[metric]), measured(data, point, strategy, metric)
            if published is None or _number(ours.value if isinstance(ours, Estimate) else ours) is None:
                continue
            result.values += 1
            if _outside(published, ours):
                where = at_text(point)
                result.outside.append(f"{strategy}{' (' + where + ')' if where else ''} {metric_label(data, metric)}: "
                                      f"paper {format_number(published)}, pybai {ours}")
    ordered = [m for m in metrics if data.fixed_budget or METRICS.get(m) is None or METRICS[m].kind != "proportion"]
    for index, members in groups.items():
        point = next(p for p in data.points if int(p["point"]) == index)
        where = f" ({at_text(point)})" if at_text(point) else ""
        for metric in ordered:  # in fixed confidence every rate sits near 1 - delta: its order means nothing
            for (a, ra), (b, rb) in itertools.combinations(members, 2):
                va, vb = _number(ra[metric]), _number(rb[metric])
                if va is None or vb is None or va == vb or a == b:
                    continue
                lower = better_is_lower(data, metric)
                better, worse = (a, b) if (va < vb) == lower else (b, a)
                _pair_check(data, point, better, worse, metric, result, where)
    if paper.ranking is not None:
        by, tiers = paper.ranking
        for point in data.points:
            where = f" ({at_text(point)})" if len(data.points) > 1 else ""
            present = [[s for s in tier if s in strategies and data.result(point, s) is not None] for tier in tiers]
            for i, j in itertools.combinations(range(len(present)), 2):
                for better in present[i]:
                    for worse in present[j]:
                        _pair_check(data, point, better, worse, by, result, where)
    return result
