"""Requests, answers and observations of a problem whose one observation carries several metrics.

A request is an arm; its answer is one observation per asked sample, with every metric of the
arm.  ``ask`` rows: ``request, arm`` (and ``label`` when the arms have labels), then one empty
column per metric, in the problem's order: filled in, the file is a valid answer.

``tell`` rows: ``arm`` (an index or a label) or ``label``, and one column per metric; a
``request`` column, if present, must equal the request answered.  A row whose metric cells are
all empty is not answered (that sample stays pending); a row with some of them empty is refused
naming the metric missing.  Through Python and HTTP the rewards of an answer are an object
``{"metric": [values]}`` (one list per metric, one value per arm given) or one row of M values
per arm.

Sources are stored as the problem numbers them, ``arm * M + metric`` (one stored observation
row per metric); exports group them back into one row per observation.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pybai._validation import real_values
from pybai.exceptions import InvalidParameterError
from pybai.naming import arm_name
from pybai.session.messages import answer_arrays, check_flat_rewards
from pybai.session.rows import Layout, answer_cells, check_columns, format_reward, integer_cell, number_cell

__all__ = ["MetricLayout", "layout_for"]


class MetricLayout(Layout):
    """How the arms and metrics of a multi-metric problem appear in rows.

    Parameters
    ----------
    problem : Problem
        A problem whose request space answers an arm with ``observation_size`` metrics, named by
        its ``observation_names``.
    """

    def __init__(self, problem):
        super().__init__(problem)
        space = problem.request_space()
        self.metrics = tuple(space.observation_names)
        self.n_metrics = len(self.metrics)
        self.n_arms = problem.n_requests
        self.n_subpopulations = None
        self.arm_requests = False

    # ------------------------------------------------------------ names
    @property
    def ask_columns(self) -> list[str]:
        return ["request", "arm"] + self._label_column + list(self.metrics)

    @property
    def answer_columns(self) -> str:
        named = "arm (an index or a label) or label" if self.labels is not None else "arm"
        return f"{named}, one column per metric ({', '.join(self.metrics)}) (optionally request)"

    def label(self, source: int) -> str:
        """``"control (arm 0) / latency"``: the arm and the metric of a source."""
        arm, metric = divmod(int(source), self.n_metrics)
        return f"{arm_name(arm, self.labels)} / {self.metrics[metric]}"

    def samples(self, sources: np.ndarray) -> int:
        return int(np.size(sources)) // self.n_metrics

    # ------------------------------------------------------------ ask
    def ask_rows(self, request_id: int, requests: np.ndarray) -> list[dict]:
        """One row per requested observation (an arm), its metric cells empty."""
        empty = dict.fromkeys(self.metrics, "")
        return [{"request": request_id, "arm": a, **self._arm_label(a), **empty} for a in requests.tolist()]

    # ------------------------------------------------------------ tell
    def answer(self, sources, rewards, owner: str = "tell") -> tuple[np.ndarray, np.ndarray]:
        """(sources, rewards) as the problem numbers them, from arms and their observations.

        ``sources``: one arm per observation (indices or labels); ``rewards``: ``{"metric": [values]}``
        with every metric, or an (observations x metrics) array.  One reward per source given: the sources
        are the problem's own (``arm * M + metric``; the learner checks that they make whole observations).
        """
        arms = self.sources(sources, owner)
        if not isinstance(rewards, Mapping) and np.size(rewards) == np.size(arms):
            check_flat_rewards(rewards, owner)
            return answer_arrays(arms, rewards)  # the problem's own numbering: one reward per (arm, metric) source
        arms, _ = answer_arrays(arms, np.zeros(np.size(arms)))  # integer arms, one per observation
        n = arms.size
        if isinstance(rewards, Mapping):
            unknown = [k for k in rewards if k not in self.metrics]
            if unknown:
                raise InvalidParameterError(f"The 'rewards' parameter of {owner} must have one entry per metric "
                                            f"({', '.join(self.metrics)}). Got the unknown metric {unknown[0]!r}.")
            missing = [m for m in self.metrics if m not in rewards]
            if missing:
                raise InvalidParameterError(f"The 'rewards' parameter of {owner}: metric {missing[0]!r} is missing "
                                            f"(an observation is told with every metric: {', '.join(self.metrics)}).")
            columns = []
            for m in self.metrics:
                check_flat_rewards(rewards[m], owner, f"one value of metric {m!r} per arm given")
                values = real_values(rewards[m], "rewards", owner)
                if values.size != n:
                    raise InvalidParameterError(f"The 'rewards' parameter of {owner}: metric {m!r} has {values.size} "
                                                f"values, expected one per arm given ({n}).")
                columns.append(values)
            table = np.column_stack(columns)
        else:
            _, flat = answer_arrays(np.zeros(max(np.size(rewards), 1), dtype=np.intp), rewards)
            if flat.size != n * self.n_metrics:
                raise InvalidParameterError(
                    f"The 'rewards' parameter of {owner} must be {{metric: values}} or one row of {self.n_metrics} "
                    f"values ({', '.join(self.metrics)}) per arm given ({n}). Got {flat.size} values.")
            table = flat.reshape(n, self.n_metrics)
        bad = (arms < 0) | (arms >= self.n_arms)
        if bad.any():
            raise InvalidParameterError(f"The 'sources' parameter of {owner} must be arms in [0, {self.n_arms - 1}] "
                                        f"(one per observation). Got {int(arms[np.argmax(bad)])}.")
        src = (arms[:, None] * self.n_metrics + np.arange(self.n_metrics)).reshape(-1)
        return src.astype(np.intp), table.reshape(-1)

    def parse_answer(self, header: list[str], rows: list[list[str]], request_id: int, where: str = "answer"):
        """(arms, {metric: rewards}) from CSV cells; refuses wrong columns and bad cells with one line.

        A file with the columns ``source, reward`` gives one row per metric reading in the problem's own
        numbering (``source = arm * M + metric``), as the rows of one-metric problems.
        """
        header = [h.strip() for h in header]
        if "reward" in header and "source" in header and not set(header) & set(self.metrics):
            return super().parse_answer(header, rows, request_id, where)
        allowed = ["request", "arm"] + self._label_column + list(self.metrics)
        expected = f"expected columns {self.answer_columns}"
        check_columns(header, allowed, expected, where)
        for name in ("arm", *self.metrics):
            if name not in header and not (name == "arm" and "label" in header):
                raise InvalidParameterError(f"{where}: missing column {name!r}; {expected}.")
        arms, values = [], []
        for line, value in answer_cells(header, rows, where):
            empty = [m for m in self.metrics if value[m] == ""]
            if len(empty) == self.n_metrics:
                continue  # not answered: stays pending
            if empty:
                raise InvalidParameterError(f"{where}, line {line}: metric {empty[0]!r} is empty (an observation is "
                                            "told with every metric; leave them all empty to keep it pending).")
            if value.get("request", "") != "":
                got = integer_cell(value["request"], "request", where, line)
                if got != request_id:
                    raise InvalidParameterError(
                        f"{where}, line {line}: request {got}, but the answer is for request {request_id}.")
            arms.append(self._observed_arm(value, where, line))
            values.append([number_cell(value[m], where, line) for m in self.metrics])
        if not arms:
            raise InvalidParameterError(f"{where}: no rewards (every row's metrics are empty).")
        table = np.array(values, dtype=float)
        return np.array(arms, dtype=np.intp), {m: table[:, i] for i, m in enumerate(self.metrics)}

    def _observed_arm(self, value: dict, where: str, line: int) -> int:
        arm = self._arm(value["arm"], "arm", where, line) if value.get("arm", "") != "" else None
        if value.get("label", "") != "":
            named = self._arm(value["label"], "label", where, line)
            if arm is not None and named != arm:
                raise InvalidParameterError(f"{where}, line {line}: label {value['label']!r} is not arm {arm}.")
            arm = named
        if arm is None:
            raise InvalidParameterError(f"{where}, line {line}: empty arm.")
        if not 0 <= arm < self.n_arms:
            raise InvalidParameterError(f"{where}, line {line}: arm {arm} is not in [0, {self.n_arms - 1}].")
        return arm

    # ------------------------------------------------------------ export
    @property
    def export_columns(self) -> list[str]:
        return ["observation", "answer", "request", "arm"] + self._label_column + list(self.metrics) + ["time"]

    def export_rows(self, rows) -> list[dict]:
        """One row per observation: its M stored rows (consecutive, in metric order) side by side."""
        rows = list(rows)
        out = []
        for i in range(0, len(rows) - self.n_metrics + 1, self.n_metrics):
            group = rows[i:i + self.n_metrics]
            oid, answer, request, source, _, time = group[0]
            arm = source // self.n_metrics
            row = {"observation": oid, "answer": answer, "request": request, "arm": arm, **self._arm_label(arm)}
            row.update({self.metrics[r[3] % self.n_metrics]: format_reward(r[4]) for r in group})
            row["time"] = time
            out.append(row)
        return out


def layout_for(problem) -> Layout:
    """The layout of ``problem``: :class:`MetricLayout` when one observation carries several metrics
    (``request_space().observation_size > 1``), else :class:`~pybai.session.rows.Layout`."""
    if problem.request_space().observation_size > 1:
        return MetricLayout(problem)
    return Layout(problem)
