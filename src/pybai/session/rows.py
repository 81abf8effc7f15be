"""Requests, answers and observations as table rows (the CSV files of ``pybai session``).

``ask`` rows: ``request, source`` (one row per sample); subpopulation problems add ``arm,
subpopulation`` (source = arm * L + subpopulation).  In the "arm" sampling model the learner
picks the arm and the subpopulation arrives: ``source`` and ``subpopulation`` are empty and
are filled in by whoever observes the sample.

When the arms have labels (``[environment] labels``), ``ask`` and ``export`` rows add a ``label``
column (the arm's name), and an answer may name an arm by its label or its index: in ``source``
(subpopulation problems: in ``arm``), or in ``label`` alone; every name given must agree.

``tell`` rows: ``reward`` with ``source`` (subpopulation problems: ``source``, or ``arm`` and
``subpopulation``, or all three when they agree); a ``request`` column, if present, must
equal the request answered, so the ``ask`` file with a ``reward`` column added is a valid
answer.  A row whose reward is empty is not answered (that sample stays pending).  Any other
column is refused, as is a missing one, with one line naming it.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np

from pybai._output import write_output
from pybai._validation import read_user_text
from pybai.exceptions import InvalidParameterError
from pybai.naming import arm_index, source_name
from pybai.problems.base import Problem

__all__ = ["Layout", "read_csv", "write_csv", "format_reward", "integer_cell", "number_cell"]


def format_reward(value: float) -> str:
    """The shortest text that reads back as exactly ``value``."""
    return repr(float(value))


def check_columns(header: list[str], allowed: list[str], expected: str, where: str) -> None:
    """Refuse, with one line, a CSV header with a column not in ``allowed`` or a column twice."""
    for name in header:
        if name not in allowed:
            raise InvalidParameterError(f"{where}: unknown column {name!r}; {expected}.")
    if len(set(header)) != len(header):
        raise InvalidParameterError(f"{where}: a column appears twice in {header}; {expected}.")


def answer_cells(header: list[str], rows: list[list[str]], where: str):
    """``(line, {column: stripped cell})`` for each non-blank CSV row (line numbers from 2, after the
    header); a row with another number of cells than the header is refused with one line."""
    col = {name: i for i, name in enumerate(header)}
    for line, cells in enumerate(rows, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise InvalidParameterError(f"{where}, line {line}: {len(cells)} cells, expected {len(header)}.")
        yield line, {name: cells[i].strip() for name, i in col.items()}


class Layout:
    """How the sources and requests of ``problem`` appear in rows."""

    def __init__(self, problem: Problem):
        self.n_sources = problem.n_sources
        shape = problem.source_shape
        self.n_arms = shape[0]
        self.n_subpopulations = shape[1] if len(shape) == 2 else None
        self.arm_requests = problem.n_requests < problem.n_sources  # "arm" sampling model
        self.labels = problem.labels
        self._label_column = ["label"] if self.labels is not None else []

    # ------------------------------------------------------------ names
    @property
    def ask_columns(self) -> list[str]:
        return ["request", "source"] + (["arm", "subpopulation"] if self.n_subpopulations else []) + self._label_column

    @property
    def answer_columns(self) -> str:
        named = ", label" if self.labels is not None else ""
        if self.n_subpopulations:
            return f"reward with source, or with arm and subpopulation (optionally request{named})"
        if self.labels is not None:
            return "source (an index or a label) or label, reward (optionally request)"
        return "source, reward (optionally request)"

    def samples(self, sources: np.ndarray) -> int:
        """The samples an answer of ``sources`` brings (one per source here)."""
        return int(np.size(sources))

    def label(self, source: int) -> str:
        """A readable name of a source ("arm 2", "control (arm 2)" or "arm 2 / subpopulation 0")."""
        return source_name(source, self.labels, self.n_subpopulations)

    def _arm_label(self, arm) -> dict:
        return {"label": self.labels[arm]} if self.labels is not None else {}

    def sources(self, sources, owner: str = "tell") -> np.ndarray:
        """``sources`` as an array of indices: labels (or indices written as text) become indices.

        Anything that names no arm is left for the caller's own checks; an unknown label raises
        one line naming it.
        """
        if isinstance(sources, (str, bytes)):
            raise InvalidParameterError(f"The 'sources' parameter of {owner} must be a list of sources (indices"
                                        f"{' or labels' if self.labels is not None else ''}), one per reward. "
                                        f"Got the bare string {sources!r}.")
        values = list(sources) if isinstance(sources, (list, tuple, np.ndarray)) else None
        if values is None or not any(isinstance(v, str) for v in values):
            return sources
        if self.n_subpopulations:
            raise InvalidParameterError(f"The 'sources' parameter of {owner} must be source indices (arm * "
                                        f"{self.n_subpopulations} + subpopulation). Got {values!r}.")
        out = []
        for value in values:
            if isinstance(value, str):
                try:
                    value = arm_index(value, self.labels, self.n_sources, exact=True)
                except ValueError as exc:
                    raise InvalidParameterError(f"The 'sources' parameter of {owner}: {exc}.") from None
            out.append(value)
        return np.asarray(out)

    def answer(self, sources, rewards, owner: str = "tell") -> tuple[np.ndarray, np.ndarray]:
        """The (sources, rewards) arrays of an answer given through Python or HTTP, checked."""
        from pybai.session.messages import answer_arrays, check_flat_rewards

        check_flat_rewards(rewards, owner)
        return answer_arrays(self.sources(sources, owner), rewards)

    # ------------------------------------------------------------ ask
    def ask_rows(self, request_id: int, requests: np.ndarray) -> list[dict]:
        """One row per requested sample."""
        rows = []
        for r in requests.tolist():
            if not self.n_subpopulations:
                rows.append({"request": request_id, "source": r, **self._arm_label(r)})
            elif self.arm_requests:
                rows.append({"request": request_id, "source": "", "arm": r, "subpopulation": "", **self._arm_label(r)})
            else:
                arm, sub = divmod(r, self.n_subpopulations)
                rows.append({"request": request_id, "source": r, "arm": arm, "subpopulation": sub,
                             **self._arm_label(arm)})
        return rows

    # ------------------------------------------------------------ tell
    def parse_answer(self, header: list[str], rows: list[list[str]], request_id: int, where: str = "answer"):
        """(sources, rewards) from CSV cells; refuses wrong columns and bad cells with one line."""
        header = [h.strip() for h in header]
        allowed = (["request", "source", "reward"] + (["arm", "subpopulation"] if self.n_subpopulations else [])
                   + self._label_column)
        expected = f"expected columns {self.answer_columns}"
        check_columns(header, allowed, expected, where)
        if ("arm" in header) != ("subpopulation" in header):
            raise InvalidParameterError(f"{where}: columns 'arm' and 'subpopulation' go together; {expected}.")
        named = "source" in header or "arm" in header or ("label" in header and not self.n_subpopulations)
        if "reward" not in header or not named:
            missing = "reward" if "reward" not in header else "source"
            raise InvalidParameterError(f"{where}: missing column {missing!r}; {expected}.")
        sources, rewards = [], []
        for line, value in answer_cells(header, rows, where):
            if value["reward"] == "":
                continue  # not answered: stays pending
            if "request" in value and value["request"] != "":
                got = integer_cell(value["request"], "request", where, line)
                if got != request_id:
                    raise InvalidParameterError(
                        f"{where}, line {line}: request {got}, but the answer is for request {request_id}.")
            sources.append(self._source(value, where, line))
            rewards.append(number_cell(value["reward"], where, line))
        if not sources:
            raise InvalidParameterError(f"{where}: no rewards (every row's reward is empty).")
        return np.array(sources, dtype=np.intp), np.array(rewards, dtype=float)

    def _arm(self, text: str, name: str, where: str, line: int) -> int:
        """An arm named by its index or (arms with labels) its label."""
        if self.labels is None:
            return integer_cell(text, name, where, line)
        try:
            return arm_index(text, self.labels, self.n_arms)
        except ValueError as exc:
            raise InvalidParameterError(f"{where}, line {line}: {name}: {exc}.") from None

    def _source(self, value: dict, where: str, line: int) -> int:
        source = None
        if value.get("source", "") != "":
            plain = self.n_subpopulations or _INTEGER.fullmatch(value["source"])
            source = integer_cell(value["source"], "source", where, line) if plain else self._arm(
                value["source"], "source", where, line)
        labelled = value.get("label", "") != ""
        if self.n_subpopulations and (value.get("arm", "") != "" or value.get("subpopulation", "") != ""
                                      or (labelled and source is None)):
            arm = self._arm(value["arm"], "arm", where, line) if value.get("arm", "") != "" else (
                self._arm(value["label"], "label", where, line) if labelled else integer_cell("", "arm", where, line))
            sub = integer_cell(value.get("subpopulation", ""), "subpopulation", where, line)
            if not (0 <= arm < self.n_arms and 0 <= sub < self.n_subpopulations):
                raise InvalidParameterError(
                    f"{where}, line {line}: arm {arm}, subpopulation {sub} is not a cell of the "
                    f"{self.n_arms} x {self.n_subpopulations} problem.")
            cell = arm * self.n_subpopulations + sub
            if source is not None and source != cell:
                raise InvalidParameterError(
                    f"{where}, line {line}: source {source} is not arm {arm}, subpopulation {sub} (source {cell}).")
            source = cell
        if source is None and labelled and not self.n_subpopulations:
            source = self._arm(value["label"], "label", where, line)
        if source is None:
            what = "source (or arm and subpopulation)" if self.n_subpopulations else "source"
            raise InvalidParameterError(f"{where}, line {line}: empty {what}.")
        if not 0 <= source < self.n_sources:
            raise InvalidParameterError(
                f"{where}, line {line}: source {source} is not in [0, {self.n_sources - 1}].")
        if labelled:
            arm = source // (self.n_subpopulations or 1)
            if self._arm(value["label"], "label", where, line) != arm:
                raise InvalidParameterError(f"{where}, line {line}: label {value['label']!r} is not the arm of "
                                            f"source {source} ({self.label(source)}).")
        return source

    # ------------------------------------------------------------ export
    @property
    def export_columns(self) -> list[str]:
        return ["observation", "answer", "request", "source"] + (
            ["arm", "subpopulation"] if self.n_subpopulations else []) + self._label_column + ["reward", "time"]

    def export_rows(self, rows) -> list[dict]:
        """The export rows of the stored observation rows."""
        return [self.export_row(r) for r in rows]

    def export_row(self, row) -> dict:
        oid, answer, request, source, reward, time = row
        out = {"observation": oid, "answer": answer, "request": request, "source": source}
        if self.n_subpopulations:
            out["arm"], out["subpopulation"] = divmod(source, self.n_subpopulations)
        out.update(self._arm_label(source // (self.n_subpopulations or 1)))
        out["reward"] = format_reward(reward)
        out["time"] = time
        return out


#: an integer cell: ASCII digits, optionally signed (int() would also take "1_000" and full-width digits)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: a reward cell: a plain decimal or scientific ASCII number, or nan/inf (refused later as not finite);
#: float() would also take "1_000" and full-width or other Unicode digits
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
                     re.ASCII | re.IGNORECASE)


def integer_cell(text: str, name: str, where: str, line: int) -> int:
    if not _INTEGER.fullmatch(text):
        raise InvalidParameterError(f"{where}, line {line}: {name} {text!r} is not an integer.")
    return int(text)


def number_cell(text: str, where: str, line: int) -> float:
    if not _NUMBER.fullmatch(text):
        raise InvalidParameterError(f"{where}, line {line}: reward {text!r} is not a number "
                                    "(plain decimal digits, e.g. 0.25, -3 or 1.5e-3).")
    return float(text)


def read_csv(path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV file (UTF-8, with or without a byte-order mark)."""
    path = Path(path)
    text = read_user_text(path, "a CSV file", InvalidParameterError, encoding="utf-8-sig")
    try:
        table = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InvalidParameterError(f"{path}: not a valid CSV file ({exc}).") from None
    if not table:
        raise InvalidParameterError(f"{path}: empty file, expected a header line.")
    return table[0], table[1:]


def write_csv(columns: list[str], rows: list[dict], target=None, label: str | None = None) -> str:
    """The CSV text of ``rows``; written to ``target`` when given (:func:`pybai._output.write_output`:
    atomically, through a device, FIFO or symbolic link; ``label`` names it in an error line)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    text = buffer.getvalue()
    if target is not None:
        write_output(target, text, label)
    return text
