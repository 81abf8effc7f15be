"""Reports: tables, plot data and figures built from stored results (never runs simulations)."""

from pybai.report.table import format_results

__all__ = ["format_results"]
