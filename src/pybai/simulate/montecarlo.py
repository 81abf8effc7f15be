"""Monte Carlo over replications: local worker processes, identical results for any count.

Work is cut into tasks (strategy, block of :data:`BLOCK` replications); the block size does not
depend on the number of replications, so a task keeps its identity when R grows.  Each
replication is seeded directly from the master seed and its index
(:func:`~pybai.simulate.seeding.replication_seed`) and runs on its own strategy object, so
where, when and in which order a task runs does not change its outcomes.  Outcomes are
reassembled in replication order.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from pybai import __version__
from pybai.config.experiment import Experiment
from pybai._validation import fail
from pybai.exceptions import InvalidParameterError
from pybai.simulate.preflight import preflight
from pybai.simulate.runner import Outcome, run_replication
from pybai.simulate.seeding import replication_seed
from pybai.simulate.summary import summarize

__all__ = ["BLOCK", "Task", "run_experiment", "run_outcomes", "make_tasks", "run_task"]

#: Replications per task.
BLOCK = 25

Task = tuple[int, int, int]  # (strategy index, first replication, last replication + 1)

_EXPERIMENT: Experiment | None = None


def make_tasks(experiment: Experiment, block: int = BLOCK) -> list[Task]:
    """Tasks ``(strategy_index, first, last)`` covering every replication of every strategy."""
    reps = experiment.replications
    return [
        (i, first, min(first + block, reps))
        for i in range(len(experiment.strategies))
        for first in range(0, reps, block)
    ]


def run_task(experiment: Experiment, task: Task) -> tuple[list[Outcome], float, float]:
    """Outcomes of one task, with its start and end times (``time.time()``, comparable across processes)."""
    index, first, last = task
    _, strategy = experiment.strategies[index]
    began = time.time()
    outs = [
        run_replication(strategy, experiment.environment, experiment.problem, replication_seed(experiment.seed, r), r)
        for r in range(first, last)
    ]
    return outs, began, time.time()


def _init_worker(experiment: Experiment) -> None:
    global _EXPERIMENT
    _EXPERIMENT = experiment


def _run_task_in_worker(task):
    return task, run_task(_EXPERIMENT, task)


def run_outcomes(
    experiment: Experiment,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    spans: dict[int, list[float]] | None = None,
) -> list[list[Outcome]]:
    """Outcomes per strategy, in replication order.

    Parameters
    ----------
    experiment : Experiment
    jobs : int
        Worker processes (1 runs in this process).
    progress : callable, optional
        Called with the number of replications just finished.
    spans : dict, optional
        Filled with ``{strategy index: [first start, last end]}`` (wall-clock times).
    """
    tasks = make_tasks(experiment)
    results: dict[Task, list[Outcome]] = {}
    spans = {} if spans is None else spans

    def record(task, outs, began, ended):
        results[task] = outs
        span = spans.setdefault(task[0], [began, ended])
        span[0], span[1] = min(span[0], began), max(span[1], ended)
        if progress:
            progress(task[2] - task[1])

    if jobs <= 1:
        for task in tasks:
            record(task, *run_task(experiment, task))
    else:
        ctx = mp.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker, initargs=(experiment,)) as pool:
            futures = [pool.submit(_run_task_in_worker, task) for task in tasks]
            for fut in as_completed(futures):
                task, (outs, began, ended) = fut.result()
                record(task, outs, began, ended)
    per_strategy: list[list[Outcome]] = [[] for _ in experiment.strategies]
    for task in tasks:
        per_strategy[task[0]].extend(results[task])
    return per_strategy


def run_experiment(experiment: Experiment, jobs: int = 1, progress: bool | Callable[[int], None] = False) -> dict:
    """Run every strategy of ``experiment`` and return the contract's result document.

    Parameters
    ----------
    experiment : Experiment
    jobs : int, default 1
        Worker processes; results are identical for any value.
    progress : bool or callable
        ``True`` shows a progress bar on standard error (tqdm).

    Returns
    -------
    dict
        ``{"name", "version", "seed", "goal", "answer", "answer_unique", "results": [...],
        "elapsed_seconds"}`` with one summary per strategy (docs/reference.md).

    Before any replication, :func:`~pybai.simulate.preflight.preflight` refuses results that
    would not fit in memory and warns about a non-unique answer or a long run.
    """
    start = time.perf_counter()
    if not isinstance(experiment, Experiment):
        raise fail("experiment", "run_experiment", "an Experiment (from load_experiment or parse_experiment)",
                   experiment)
    preflight(experiment, jobs=jobs)  # memory, a tied answer, a long run: before any replication
    try:
        truth = experiment.environment.source_means
    except InvalidParameterError:  # a truth drawn per replication (e.g. from a prior): no single answer
        truth = None
    bar = None
    callback = progress if callable(progress) else None
    if progress is True:
        from tqdm import tqdm

        total = experiment.replications * len(experiment.strategies)
        bar = tqdm(total=total, desc=experiment.name, unit="run", leave=False, disable=None)
        callback = bar.update
    spans: dict[int, list[float]] = {}
    try:
        outcomes = run_outcomes(experiment, jobs=jobs, progress=callback, spans=spans)
    finally:
        if bar is not None:
            bar.close()
    results = [
        summarize(label, experiment.problem, outs, wall_seconds=spans[i][1] - spans[i][0])
        for i, ((label, _), outs) in enumerate(zip(experiment.strategies, outcomes))
    ]
    return {
        "name": experiment.name,
        "version": __version__,
        "seed": experiment.seed,
        "goal": experiment.problem.goal,
        "answer": None if truth is None else _jsonable(experiment.problem.answer(truth)),
        "answer_unique": None if truth is None else bool(experiment.problem.answer_is_unique(truth)),
        "results": results,
        "elapsed_seconds": round(time.perf_counter() - start, 3),
    }


def _jsonable(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return [int(v) for v in x]
