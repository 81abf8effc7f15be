"""Figure kinds of ``[[reproduce.figure]]``: the registry ``kind -> function``, drawn from stored results only.

This module is the registry's entry point: importing it registers the built-in kinds, one
module per kind of drawing, and gives the registry's names (:mod:`pybai.report.registry`).
Families add kinds with :func:`register_figure`::

    @register_figure("regret-vs-budget", keys=("x", "title"), required=("x",))
    def regret_vs_budget(data, options): ...

Built-in kinds (options in docs/engine.md):

==================  ==========================================  ===============================
kind                draws                                       module
==================  ==========================================  ===============================
``metric-vs-grid``  a metric against a grid key                 :mod:`pybai.report.trend`
``allocation``      mean fraction of samples per source         :mod:`pybai.report.allocation`
``boxplot``         per-replication distribution, boxes         :mod:`pybai.report.distribution`
``histogram``       per-replication distribution, counts        :mod:`pybai.report.distribution`
``bars``            a metric per strategy                       :mod:`pybai.report.summaries`
``table``           metrics per (point, strategy)               :mod:`pybai.report.summaries`
``complexity``      the problem's complexity report per point   :mod:`pybai.report.summaries`
==================  ==========================================  ===============================

``at = { "environment.d" = 5 }`` picks a grid point where a kind shows one point (default: the
first point).
"""

from __future__ import annotations

from pybai.report import allocation, distribution, summaries, trend  # noqa: F401 - registers the built-in kinds
from pybai.report.intervals import Estimate
from pybai.report.registry import (
    DEFAULT_COLUMNS, FIGURES, FigureData, FigureKind, TableBlock, measured, register_figure, same_value,
)

__all__ = ["FIGURES", "FigureKind", "FigureData", "TableBlock", "Estimate", "register_figure", "measured",
           "same_value", "DEFAULT_COLUMNS"]
