"""Monte Carlo over replications: local worker processes, identical results for any count.

Work is cut into tasks (strategy, block of replications); each replication is seeded
by its own :class:`numpy.random.SeedSequence` child, so where and in which order a task
runs does not change its outcomes.  Outcomes are reassembled in replication order.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from pybai import __version__
from pybai.config.experiment import Experiment
from pybai.simulate.runner import Outcome, run_replication
from pybai.simulate.seeding import replication_seeds
from pybai.simulate.summary import summarize

__all__ = ["run_experiment", "run_outcomes", "make_tasks"]

_EXPERIMENT: Experiment | None = None


def make_tasks(experiment: Experiment, block: int | None = None) -> list[tuple[int, int, int]]:
    """Tasks ``(strategy_index, first, last)`` covering every replication of every strategy."""
    reps = experiment.replications
    if block is None:
        block = max(1, min(50, reps // 8 or 1))
    return [
        (i, first, min(first + block, reps))
        for i in range(len(experiment.strategies))
        for first in range(0, reps, block)
    ]


def _run_task(experiment: Experiment, task: tuple[int, int, int]) -> list[Outcome]:
    index, first, last = task
    _, strategy = experiment.strategies[index]
    seeds = replication_seeds(experiment.seed, experiment.replications)
    return [run_replication(strategy, experiment.environment, experiment.problem, seeds[r]) for r in range(first, last)]


def _init_worker(experiment: Experiment) -> None:
    global _EXPERIMENT
    _EXPERIMENT = experiment


def _run_task_in_worker(task):
    return task, _run_task(_EXPERIMENT, task)


def run_outcomes(
    experiment: Experiment,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[list[Outcome]]:
    """Outcomes per strategy, in replication order.

    Parameters
    ----------
    experiment : Experiment
    jobs : int
        Worker processes (1 runs in this process).
    progress : callable, optional
        Called with the number of replications just finished.
    """
    tasks = make_tasks(experiment)
    results: dict[tuple[int, int, int], list[Outcome]] = {}
    if jobs <= 1:
        for task in tasks:
            results[task] = _run_task(experiment, task)
            if progress:
                progress(task[2] - task[1])
    else:
        ctx = mp.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker, initargs=(experiment,)) as pool:
            futures = [pool.submit(_run_task_in_worker, task) for task in tasks]
            for fut in as_completed(futures):
                task, outs = fut.result()
                results[task] = outs
                if progress:
                    progress(task[2] - task[1])
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
        ``{"name", "version", "seed", "results": [...]}`` with one summary per strategy.
    """
    start = time.perf_counter()
    bar = None
    callback = progress if callable(progress) else None
    if progress is True:
        from tqdm import tqdm

        total = experiment.replications * len(experiment.strategies)
        bar = tqdm(total=total, desc=experiment.name, unit="run", leave=False, disable=None)
        callback = bar.update
    try:
        outcomes = run_outcomes(experiment, jobs=jobs, progress=callback)
    finally:
        if bar is not None:
            bar.close()
    results = [
        summarize(label, experiment.problem, outs) for (label, _), outs in zip(experiment.strategies, outcomes)
    ]
    truth = experiment.environment.source_means
    return {
        "name": experiment.name,
        "version": __version__,
        "seed": experiment.seed,
        "goal": experiment.problem.goal,
        "answer": _jsonable(experiment.problem.answer(truth)),
        "results": results,
        "elapsed_seconds": round(time.perf_counter() - start, 3),
    }


def _jsonable(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return [int(v) for v in x]
