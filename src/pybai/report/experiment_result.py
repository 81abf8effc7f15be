"""The result of an experiment or sweep in Python: its document, every replication's outcome, a DataFrame, a plot.

What :func:`pybai.run_experiment` and :func:`pybai.run_sweep` return (:class:`ExperimentResult`).
pandas is optional (``pip install 'pybai[pandas]'``): only :meth:`ExperimentResult.to_dataframe`
and :func:`pybai.read_outcomes` need it.
"""

from __future__ import annotations

from pybai.report.comparison import plot_comparison

__all__ = ["ExperimentResult", "pandas_module"]


def pandas_module():
    """pandas, or one ImportError saying how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError("pandas is needed for DataFrames: pip install 'pybai[pandas]'") from None
    return pandas


class ExperimentResult(dict):
    """The result document of an experiment or sweep, with every replication's outcome.

    A ``dict`` with the keys of the result document (docs/reference.md: ``name``, ``goal``,
    ``results`` with one summary per strategy, and for a sweep ``grid_keys`` and ``points``);
    what :func:`pybai.run_experiment` and :func:`pybai.run_sweep` return.  Besides the summaries:

    Attributes
    ----------
    outcomes : list of dict
        One row per replication, as stored in a results folder (``outcomes.jsonl``): ``point``,
        the grid values, ``strategy``, ``replication``, ``samples``, ``batches``, ``status``,
        ``recommendation``, ``correct``, ``simple_regret``, ``false_negative``, ``counts``,
        ``seconds``, ``cpu_seconds`` (and ``gain``, ``oracle_gain``, ``exact_correct`` where the
        goal has them), in task order.

    Examples
    --------
    >>> from pybai import parse_experiment, run_experiment
    >>> doc = {"name": "two", "seed": 1, "replications": 3, "problem": {"goal": "best-arm", "delta": 0.1},
    ...        "environment": {"kind": "gaussian", "means": [1.0, 0.0], "sigma": 1.0},
    ...        "strategy": [{"name": "uniform"}, {"name": "tas"}]}
    >>> result = run_experiment(parse_experiment(doc))
    >>> len(result.outcomes), sorted({row["strategy"] for row in result.outcomes})
    (6, ['tas', 'uniform'])
    >>> [row["replication"] for row in result.outcomes if row["strategy"] == "tas"]
    [0, 1, 2]
    """

    def __init__(self, document: dict, outcomes=None):
        super().__init__(document)
        self._outcomes = outcomes

    @property
    def outcomes(self) -> list[dict]:
        if callable(self._outcomes):  # built on first use (counts of large instances are big)
            self._outcomes = self._outcomes()
        return list(self._outcomes or [])

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __reduce__(self):
        return (ExperimentResult, (dict(self), self.outcomes))

    def to_dataframe(self, what: str = "outcomes"):
        """A pandas DataFrame: ``"outcomes"`` (one row per replication) or ``"summary"`` (one per strategy and point).

        Both carry an ``experiment`` column (the document's name); a sweep's rows carry one
        column per grid key.  ``counts`` (per replication) and ``mean_allocation`` (per summary)
        stay one array per cell.  Needs pandas (``pip install 'pybai[pandas]'``).
        """
        pandas = pandas_module()
        if what == "outcomes":
            rows = self.outcomes
        elif what == "summary":
            rows = [{**({"point": r["point"]} if "point" in r else {}), **r.get("grid", {}),
                     **{k: v for k, v in r.items() if k not in ("grid", "point", "threshold")}}
                    for r in self.get("results", [])]
        else:
            raise ValueError(f"what: expected 'outcomes' or 'summary', got {what!r}")
        frame = pandas.DataFrame(rows)
        frame.insert(0, "experiment", self.get("name"))
        return frame

    def plot(self, y: str = "samples", x: str | None = None, ax=None):
        """:func:`pybai.plot_comparison` of these outcomes (returns the axes)."""
        return plot_comparison(self, y=y, x=x, ax=ax)
