"""Monte Carlo over the replications of one experiment: the engine on a sweep of one point.

Work is cut into tasks (strategy, block of :data:`BLOCK` replications); each replication is
seeded directly from the master seed and its index
(:func:`~pybai.simulate.seeding.replication_seed`) and runs on its own strategy object, so
where, when and in which order a task runs does not change its outcomes.  Sweeps, backends
and stores: :mod:`pybai.simulate.engine`.
"""

from __future__ import annotations

from collections.abc import Callable

from pybai.config.experiment import Experiment
from pybai._validation import fail
from pybai.simulate.backends import make_backend
from pybai.simulate.engine import run_sweep
from pybai.simulate.runner import Outcome
from pybai.simulate.tasks import BLOCK, Sweep, make_tasks

__all__ = ["BLOCK", "run_experiment", "run_outcomes"]


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
    tasks = make_tasks([experiment])
    backend = make_backend(jobs)
    backend.start([experiment], False)
    results = {}
    spans = {} if spans is None else spans
    abort = True
    try:
        for result in backend.results(tasks):
            results[result.task] = result.outcomes
            span = spans.setdefault(result.task.strategy, [result.began, result.ended])
            span[0], span[1] = min(span[0], result.began), max(span[1], result.ended)
            if progress:
                progress(result.task.size)
        abort = False
    finally:
        backend.stop(abort=abort)
    per_strategy: list[list[Outcome]] = [[] for _ in experiment.strategies]
    for task in tasks:
        per_strategy[task.strategy].extend(results[task])
    return per_strategy


def run_experiment(experiment: Experiment, jobs: int = 1, progress: bool | Callable[[int], None] = False) -> dict:
    """Run every strategy of ``experiment`` and return the contract's result document.

    Parameters
    ----------
    experiment : Experiment
    jobs : int, default 1
        Worker processes; results are identical for any value.
    progress : bool or callable
        ``True`` shows a progress bar on standard error (tqdm); a callable receives the number
        of replications of each finished task.

    Returns
    -------
    dict
        ``{"name", "version", "seed", "goal", "answer", "answer_unique", "results": [...],
        "elapsed_seconds"}`` with one summary per strategy (docs/reference.md).

    Before any replication, :func:`~pybai.simulate.preflight.preflight` refuses results that
    would not fit in memory and warns about a non-unique answer or a long run.
    """
    if not isinstance(experiment, Experiment):
        raise fail("experiment", "run_experiment", "an Experiment (from load_experiment or parse_experiment)",
                   experiment)
    return run_sweep(Sweep.from_experiment(experiment), jobs=jobs, progress=progress)
