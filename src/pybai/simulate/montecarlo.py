"""Monte Carlo over the replications of one experiment: the engine on a sweep of one point.

Both functions are thin wrappers of :mod:`pybai.simulate.engine` (no loop of their own).  Work
is cut into tasks (strategy, block of :data:`BLOCK` replications); each replication is
seeded directly from the master seed and its index
(:func:`~pybai.simulate.seeding.replication_seed`) and runs on its own strategy object, so
where, when and in which order a task runs does not change its outcomes.  Sweeps, backends
and stores: :mod:`pybai.simulate.engine`.
"""

from __future__ import annotations

from collections.abc import Callable

from pybai.config.experiment import Experiment
from pybai._validation import fail
from pybai.simulate.engine import execute_sweep, run_sweep
from pybai.report.experiment_result import ExperimentResult
from pybai.simulate.runner import Outcome
from pybai.simulate.tasks import BLOCK, Sweep

__all__ = ["BLOCK", "run_experiment", "run_outcomes"]


def run_outcomes(
    experiment: Experiment,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    spans: dict[int, list[float]] | None = None,
) -> list[list[Outcome]]:
    """Outcomes per strategy, in replication order: the engine (:func:`execute_sweep`) on one point.

    Parameters
    ----------
    experiment : Experiment
    jobs : int
        Worker processes (1 runs in this process); outcomes are identical for any value.
    progress : callable, optional
        Called with the number of replications just finished.
    spans : dict, optional
        Filled with ``{strategy index: [first start, last end]}`` (wall-clock times).

    Replication ``r`` is seeded by :func:`~pybai.simulate.seeding.replication_seed` even when
    ``experiment`` is a point of a sweep (as a file without a grid), so these are the outcomes
    of ``pybai run`` on the point's own file.
    """
    if not isinstance(experiment, Experiment):
        raise fail("experiment", "run_outcomes", "an Experiment (from load_experiment or parse_experiment)",
                   experiment)
    run = execute_sweep(Sweep.from_experiment(experiment, replication_seeds=True), jobs=jobs,
                        progress=progress or False)
    if spans is not None:
        spans.update({strategy: span for (_, strategy), span in run.spans.items()})
    return run.per_strategy()


def run_experiment(experiment: Experiment, jobs: int = 1,
                   progress: bool | Callable[[int], None] = False) -> ExperimentResult:
    """Run every strategy of ``experiment`` and return the result document (keys: docs/reference.md).

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
    ExperimentResult
        A dict ``{"name", "version", "seed", "goal", "answer", "answer_unique", "results": [...],
        "elapsed_seconds"}`` with one summary per strategy (docs/reference.md); every
        replication's outcome in ``.outcomes`` (one row each, as a results folder stores them),
        ``.to_dataframe()`` (pandas) and ``.plot()`` (:func:`pybai.plot_comparison`).

    Before any replication, :func:`~pybai.simulate.preflight.preflight` refuses results that
    would not fit in memory and warns about a non-unique answer or a long run.
    """
    if not isinstance(experiment, Experiment):
        raise fail("experiment", "run_experiment", "an Experiment (from load_experiment or parse_experiment)",
                   experiment)
    return run_sweep(Sweep.from_experiment(experiment), jobs=jobs, progress=progress)
