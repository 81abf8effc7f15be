"""Per-replication outcomes of stored runs as a table: :func:`read_outcomes` (a pandas DataFrame).

A results folder (``pybai run --out DIR``, each store of ``pybai reproduce``) keeps one line per
replication in ``outcomes.jsonl`` (columns: docs/engine.md).  :func:`read_outcomes` reads a store,
a folder of stores or the lines file itself, keeps the complete tasks only (a store being written
may end with a torn line or an unfinished task), and adds an ``experiment`` column, so the
outcomes of a whole reproduction are one table.
"""

from __future__ import annotations

from pathlib import Path

from pybai.exceptions import ConfigError
from pybai.report.experiment_result import pandas_module
from pybai.simulate.store import OUTCOMES, is_store, read_store

__all__ = ["read_outcomes"]


def _stores(path: Path) -> list[Path]:
    if path.is_file() and path.name == OUTCOMES:
        path = path.parent
    if is_store(path):
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_dir() and is_store(p))
        if found:
            return found
    raise ConfigError(f"{path}: no results store here (a folder written by pybai run --out or pybai reproduce, "
                      f"or its {OUTCOMES}).")


def read_outcomes(path, frame: bool = True):
    """Every stored replication's outcome under ``path``: one row each, with its ``experiment``.

    Parameters
    ----------
    path : str or Path
        A results store, a folder of stores (``pybai reproduce``'s output), or a store's
        ``outcomes.jsonl``.
    frame : bool, default True
        A pandas DataFrame (``pip install 'pybai[pandas]'``); False: a list of dicts.

    Returns
    -------
    pandas.DataFrame or list of dict
        Columns ``experiment``, ``point``, the grid keys, ``strategy``, ``replication``,
        ``samples``, ``batches``, ``status``, ``recommendation``, ``correct``, ``simple_regret``,
        ``false_negative``, ``counts``, ``seconds``, ``cpu_seconds`` (and ``gain``,
        ``oracle_gain``, ``exact_correct`` where stored); complete tasks only, in task order.

    Raises
    ------
    ConfigError
        ``path`` holds no store.
    """
    rows: list = []
    for store in _stores(Path(path)):
        stored = read_store(store)
        rows.extend({"experiment": stored.sweep.name, **row} for row in stored.rows)
    return pandas_module().DataFrame(rows) if frame else rows
