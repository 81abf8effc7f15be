"""The experiment engine: a sweep's tasks on an executor, stored as they finish, summarised at the end.

:func:`run_sweep` is what ``pybai run`` and ``pybai reproduce`` call.  It cuts the sweep into
tasks (:mod:`pybai.simulate.tasks`), skips those already in the store when resuming, runs the
rest on an executor (:mod:`pybai.simulate.executors`: this process, local processes or Dask),
appends each finished task to the store (:mod:`pybai.simulate.store`) and returns the result
document: the result document of docs/reference.md for a file without ``[grid]`` (unchanged), and for a sweep
the same keys plus ``grid_keys`` and ``points`` (one entry per grid point with its own
``results``), with ``results`` listing every (point, strategy) row tagged by ``point`` and
``grid``.  :func:`execute_sweep` is its loop alone (tasks on an executor, outcomes and timings,
no document): :func:`~pybai.simulate.montecarlo.run_outcomes` is that loop on a one-point sweep.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from pybai._version import __version__
from pybai.config.experiment import Experiment
from pybai.exceptions import InvalidParameterError
from pybai.simulate.executors import Executor, DaskExecutor, InlineExecutor, ProcessExecutor, cap_workers, make_executor
from pybai.simulate.runner import Outcome
from pybai.simulate.preflight import preflight
from pybai.report.experiment_result import ExperimentResult
from pybai.simulate.store import ResultStore, StoredResults, outcome_row
from pybai.simulate.summary import summarize
from pybai.simulate.tasks import Sweep, Task, TaskResult, make_tasks, shared_tasks
from pybai.strategies.certificate import is_proven, threshold_kind

__all__ = ["run_sweep", "execute_sweep", "SweepRun", "sweep_document", "stored_document", "RunInterrupted"]


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_sweep`: workers were ended; finished tasks are in the store, if any.

    Attributes: ``done`` and ``total`` tasks, ``store`` (the folder or None).
    """

    def __init__(self, done: int, total: int, store: Path | None):
        super().__init__(f"interrupted after {done} of {total} tasks")
        self.done, self.total, self.store = done, total, store

    def message(self) -> str:
        where = (f"; they are stored in {self.store} (continue with --resume)" if self.store is not None
                 else " and are lost (--out DIR stores finished tasks)")
        return f"interrupted: {self.done} of {self.total} tasks finished{where}."


def interrupted(exc: BaseException | None) -> bool:
    """Whether ``exc`` is, or was caused by, a ``KeyboardInterrupt`` (Ctrl-C)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _truth(experiment: Experiment):
    try:
        return experiment.environment.source_means
    except InvalidParameterError:  # a truth drawn per replication (e.g. from a prior): no single answer
        return None


def _answer(experiment: Experiment):
    truth = _truth(experiment)
    if truth is None:
        return None
    answer = experiment.problem.answer(truth)
    try:
        return int(answer)
    except (TypeError, ValueError):
        return [int(v) for v in answer]


def _answer_unique(experiment: Experiment):
    truth = _truth(experiment)
    return None if truth is None else bool(experiment.problem.answer_is_unique(truth))


def threshold_info(strategy, problem) -> dict | None:
    """A result row's ``threshold``: ``{"kind", "proven", "default"}`` (null in fixed budget).

    ``default``: the strategy left ``threshold`` unchosen (``pybai run`` then runs the papers'
    heuristic); ``proven``: whether a stop certifies the answer (:mod:`pybai.strategies.certificate`).
    """
    kind = threshold_kind(strategy, problem)
    if kind is None:
        return None
    return {"kind": kind, "proven": is_proven(strategy, problem),
            "default": strategy.threshold is None and not (strategy.proven_rule or strategy.stopping_rule)}


def sweep_document(
    sweep: Sweep,
    outcomes: dict[Task, list[Outcome]],
    walls: dict[tuple[int, int], float] | None = None,
    elapsed: float | None = None,
) -> dict:
    """The result document of a sweep from its tasks' outcomes (missing tasks are left out).

    ``walls[(point, strategy)]`` is the wall time of that strategy's tasks at that point when
    they all ran in this session; otherwise ``wall_seconds`` is the sum of the replications' own times.
    """
    walls = walls or {}
    by_cell: dict[tuple[int, int], list[tuple[int, list[Outcome]]]] = {}
    for task, outs in outcomes.items():
        by_cell.setdefault((task.point, task.strategy), []).append((task.first, outs))
    points = []
    for p, experiment in enumerate(sweep.experiments):
        results = []
        for s, (label, _) in enumerate(experiment.strategies):
            blocks = sorted(by_cell.get((p, s), []), key=lambda item: item[0])
            outs = [o for _, block in blocks for o in block]
            if outs:
                row = summarize(label, experiment.problem, outs, wall_seconds=walls.get((p, s)))
                row["threshold"] = threshold_info(experiment.strategies[s][1], experiment.problem)
                results.append(row)
        points.append({"point": p, "name": experiment.name, "grid": dict(experiment.grid),
                       "answer": _answer(experiment), "answer_unique": _answer_unique(experiment),
                       "results": results})
    first = sweep.experiments[0]
    note = first.problem.correctness_note()
    document = {
        "name": sweep.name if sweep.gridded else first.name,
        "version": __version__,
        "seed": first.seed,
        "goal": first.problem.goal,
        "answer": None if sweep.gridded else points[0]["answer"],
        "answer_unique": None if sweep.gridded else points[0]["answer_unique"],
        "results": points[0]["results"],
        "elapsed_seconds": None if elapsed is None else round(elapsed, 3),
    }
    if first.problem.labels is not None:  # the arms' names ([environment] labels)
        document["labels"] = list(first.problem.labels)
    if note is not None:  # epsilon-best-arm identification: what correct_rate counts
        document["correctness"] = note
    if sweep.gridded:
        document["grid_keys"] = sweep.grid_keys
        document["points"] = points
        document["results"] = [dict(r, point=pt["point"], grid=pt["grid"]) for pt in points for r in pt["results"]]
    return document


def outcome_rows(sweep: Sweep, outcomes: dict[Task, list[Outcome]]) -> list[dict]:
    """One row per replication, in task order, as a store writes them (:func:`~pybai.simulate.store.outcome_row`)."""
    return [outcome_row(sweep, task, task.first + i, outcome)
            for task in sorted(outcomes) for i, outcome in enumerate(outcomes[task])]


def stored_document(stored: StoredResults) -> dict:
    """The result document rebuilt from a store alone (``elapsed_seconds`` null, walls summed)."""
    return sweep_document(stored.sweep, stored.outcomes)


@dataclass
class SweepRun:
    """What :func:`execute_sweep` produced: outcomes of every finished task and the timings.

    Attributes
    ----------
    sweep : Sweep
    outcomes : dict
        ``{task: outcomes in replication order}`` for every task stored or run.
    spans : dict
        ``{(point, strategy): [first start, last end]}`` (``time.time()``) of the tasks run now.
    walls : dict
        ``{(point, strategy): seconds}`` for the cells whose tasks all ran now (none from the store).
    elapsed : float
        Wall-clock seconds of the whole call.
    """

    sweep: Sweep
    outcomes: dict[Task, list[Outcome]]
    spans: dict[tuple[int, int], list[float]]
    walls: dict[tuple[int, int], float]
    elapsed: float

    def per_strategy(self, point: int = 0) -> list[list[Outcome]]:
        """Outcomes of each strategy at grid point ``point``, in replication order."""
        experiment = self.sweep.experiments[point]
        cells: list[list[Outcome]] = [[] for _ in experiment.strategies]
        for task in sorted(t for t in self.outcomes if t.point == point):
            cells[task.strategy].extend(self.outcomes[task])
        return cells


def _pick_executor(executor, jobs, cluster, scheduler, todo: int, note) -> Executor:
    """The executor of the options, its local workers capped at the tasks to run and the cores."""
    if executor is None:
        executor = make_executor(jobs, cluster, scheduler)
    if isinstance(executor, (ProcessExecutor, DaskExecutor)) and getattr(executor, "n_workers", 0) is not None:
        workers, message = cap_workers(executor.workers, todo)
        if message:
            executor.workers = workers
            if isinstance(executor, DaskExecutor):
                executor.n_workers = workers
            if note:
                note(message)
    if isinstance(executor, ProcessExecutor) and executor.workers <= 1:
        executor = InlineExecutor()
    return executor


def execute_sweep(
    sweep: Sweep,
    *,
    jobs: int = 1,
    cluster: str | None = None,
    scheduler: str | None = None,
    backend: Executor | None = None,
    store: ResultStore | None = None,
    progress: bool | Callable[[int], None] = False,
    note: Callable[[str], None] | None = None,
    compiled: bool | None = None,
) -> SweepRun:
    """Run the tasks of ``sweep`` that ``store`` does not hold yet: the one loop over an executor.

    Parameters are those of :func:`run_sweep`, with an open ``store`` (or None) instead of
    ``out``/``resume``; the store is appended to as tasks finish and closed at the end.
    ``compiled`` (True or False) overrides every experiment's ``compiled`` setting.
    Every entry point (:func:`run_sweep`, :func:`~pybai.simulate.montecarlo.run_outcomes`)
    runs through here, so they share seeds, backends, preflight checks and interrupts.
    """
    start = time.perf_counter()
    if compiled is not None:
        sweep = dataclasses.replace(sweep, experiments=[dataclasses.replace(e, compiled=bool(compiled))
                                                        for e in sweep.experiments])
    tasks = make_tasks(sweep.experiments)
    outcomes: dict[Task, list[Outcome]] = store.completed(tasks) if store is not None else {}
    todo = [task for task in tasks if task not in outcomes]
    followers = {other for task in todo for other in shared_tasks(sweep.experiments, task)}
    todo = [task for task in todo if task not in followers]  # computed by the task leading their delta group
    executor = _pick_executor(backend, jobs, cluster, scheduler, len(todo), note)
    for experiment in sweep.experiments:  # memory, a tied answer, a long run: before any replication
        preflight(experiment, jobs=jobs)
    bar, callback = None, progress if callable(progress) else None
    if progress is True and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc=sweep.name, unit="task",
                   leave=False, disable=None, file=sys.stderr, mininterval=0.5, smoothing=0.05)
    spans: dict[tuple[int, int], list[float]] = {}
    abort = True
    try:
        if todo:
            executor.start(sweep.experiments, sweep.gridded)
            for lead in executor.results(todo):
                shared = [TaskResult(t, outs, lead.began, lead.ended) for t, outs in lead.shared.items()
                          if t not in outcomes]
                for result in [lead, *shared]:
                    task = result.task
                    if store is not None:
                        store.append(result)
                    outcomes[task] = result.outcomes
                    span = spans.setdefault((task.point, task.strategy), [result.began, result.ended])
                    span[0], span[1] = min(span[0], result.began), max(span[1], result.ended)
                    if bar is not None:
                        bar.update(1)
                    if callback is not None:
                        callback(task.size)
        abort = False
    except (KeyboardInterrupt, SystemError) as exc:
        # Ctrl-C inside compiled (numba) code may surface as a SystemError caused by the KeyboardInterrupt
        if not isinstance(exc, KeyboardInterrupt) and not interrupted(exc):
            raise
        raise RunInterrupted(len(outcomes), len(tasks), store.folder if store else None) from None
    finally:
        try:
            executor.stop(abort=abort)
        finally:
            if bar is not None:
                bar.close()
            if store is not None:
                store.close()
    counts: dict[tuple[int, int], int] = {}
    for task in [*todo, *followers]:
        counts[(task.point, task.strategy)] = counts.get((task.point, task.strategy), 0) + 1
    totals: dict[tuple[int, int], int] = {}
    for task in tasks:
        totals[(task.point, task.strategy)] = totals.get((task.point, task.strategy), 0) + 1
    walls = {cell: hi - lo for cell, (lo, hi) in spans.items() if counts.get(cell) == totals[cell]}
    return SweepRun(sweep, outcomes, spans, walls, time.perf_counter() - start)


def run_sweep(
    sweep: Sweep,
    *,
    jobs: int = 1,
    cluster: str | None = None,
    scheduler: str | None = None,
    backend: Executor | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    progress: bool | Callable[[int], None] = False,
    note: Callable[[str], None] | None = None,
    source: str | None = None,
    fsync: str = "background",
    compiled: bool | None = None,
) -> ExperimentResult:
    """Run every task of ``sweep`` and return its result document (an :class:`~pybai.result.ExperimentResult`:
    the summaries as a dict, and every replication's outcome in ``.outcomes``).

    Parameters
    ----------
    sweep : Sweep
    jobs, cluster, scheduler :
        Where the tasks run, as the CLI's ``--jobs N``, ``--cluster local:N``, ``--scheduler ADDRESS``
        (or pass ``backend``).  Local worker counts are capped at the tasks to run and the
        CPU cores; ``note`` receives a one-line message when that happens.
    backend : Executor, optional
        An executor of :mod:`pybai.simulate.executors` (this process, local processes or Dask),
        instead of the three options above.
    out : path, optional
        Store every finished task in this folder (see :mod:`pybai.simulate.store`) and the
        result document and table at the end.
    resume : bool
        Continue the store in ``out``: only tasks not stored yet are run.
    progress : bool or callable
        ``True``: a tqdm bar over tasks on standard error (silent when it is not a terminal);
        a callable receives the number of replications of each finished task.
    fsync : {"background", "each", "none"}
        When stored lines reach the disk (see :class:`~pybai.simulate.store.ResultStore`).
    compiled : bool, optional
        True or False overrides the experiments' ``compiled`` key: False forces the ask/tell loop
        (the reference) where a strategy offers a compiled run; outcomes are identical either way.

    Raises
    ------
    RunInterrupted
        On Ctrl-C: workers are ended within about a second; finished tasks stay in the store.
    """
    store = ResultStore.open(out, sweep, resume=resume, source=source, fsync=fsync) if out is not None else None
    try:
        run = execute_sweep(sweep, jobs=jobs, cluster=cluster, scheduler=scheduler, backend=backend, store=store,
                            progress=progress, note=note, compiled=compiled)
        document = ExperimentResult(sweep_document(sweep, run.outcomes, run.walls, run.elapsed),
                                    outcomes=partial(outcome_rows, sweep, run.outcomes))
        if store is not None:
            from pybai.report.table import format_results

            store.write_results(document, format_results(document))
    finally:
        if store is not None:
            store.release()
    return document
