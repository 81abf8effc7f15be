"""Checks made before an experiment runs: memory, a non-unique answer, and how long it may take.

:func:`preflight` is called by :func:`~pybai.simulate.montecarlo.run_experiment` before any
replication starts:

* it refuses an experiment whose per-replication results would not fit in memory (one float
  per source and replication, twice: the counts and the allocation fractions), naming
  ``replications`` and the estimated size;
* it warns (:class:`~pybai.exceptions.PybaiWarning`) when the true answer is not unique (tied
  best means): every tied answer counts as correct, but no strategy can certify one, so
  fixed-confidence runs that do not stop by chance end at ``max_samples`` (censored);
* it warns when the run is estimated to take more than :data:`LONG_RUN_SECONDS`: the samples
  per replication (the budget; ``max_samples`` under a tie; else the lower bound
  T*(mu) kl(delta, 1 - delta), an optimistic guess) times the CPU cost per sample measured on a
  short pilot run of each strategy.
"""

from __future__ import annotations

import math
import os
import time
import warnings

from pybai._validation import check_memory
from pybai.exceptions import InvalidParameterError, PybaiWarning
from pybai.naming import answer_name
from pybai.problems.base import FixedConfidence, lower_bound_factor

__all__ = ["preflight", "estimate_samples", "pilot_seconds_per_sample", "LONG_RUN_SECONDS", "RESULT_BYTES_PER_SOURCE"]

#: Estimated run times above this (seconds) are announced before the run.
LONG_RUN_SECONDS = 60.0

#: Memory kept per replication and source until the summary (counts and allocation fractions, float64).
RESULT_BYTES_PER_SOURCE = 16

#: Fixed memory per replication outcome (Python objects), bytes.
RESULT_BYTES_PER_REPLICATION = 1000

#: Below this many samples in all, no pilot is run (a run this small is quick).
_PILOT_FROM_SAMPLES = 2_000_000

#: Wall-clock seconds spent on the pilot of each strategy, at most.
_PILOT_SECONDS = 0.2

#: Timed steps of the pilot of each strategy, at least (the cost is read on their second half).
_PILOT_STEPS = 40


def _truth(experiment):
    try:
        return experiment.environment.source_means
    except InvalidParameterError:  # a truth drawn per replication (e.g. from a prior): no single answer
        return None


def estimate_samples(problem, truth) -> tuple[float | None, str]:
    """Samples one replication is expected to use, and how the figure was obtained.

    ``(None, reason)`` when no estimate is available (a truth drawn per replication, an oracle
    that fails).
    """
    regime = problem.regime
    if not isinstance(regime, FixedConfidence):
        size = 1 if problem.batch is None else problem.batch.size
        return float(regime.budget * size), "the budget"
    if truth is None:
        return None, "a truth drawn per replication"
    if not problem.answer_is_unique(truth):
        return float(regime.max_samples), "max_samples (the answer is not unique)"
    try:
        t_star = float(problem.oracle(truth)[0])
    except Exception:  # noqa: BLE001 - an estimate only; the run itself reports real errors
        return None, "no oracle"
    if not math.isfinite(t_star):
        return float(regime.max_samples), "max_samples (T* is infinite)"
    bound = t_star * lower_bound_factor(regime.delta)
    return (float(min(regime.max_samples, max(bound, problem.n_requests))),
            "the lower bound T* kl(delta, 1-delta), usually exceeded")


def pilot_seconds_per_sample(strategy, experiment, seconds: float = _PILOT_SECONDS) -> float | None:
    """CPU seconds per sample of ``strategy`` on the experiment's first truths, from a short run.

    Each replication starts as in :func:`~pybai.simulate.runner.run_replication`
    (:func:`~pybai.simulate.runner.start_replication`: a reference rule is told the truth).
    """
    from pybai.simulate.runner import start_replication
    from pybai.simulate.seeding import replication_seed

    warm_up = 2 * experiment.problem.n_requests + 20  # first calls load compiled kernels: not timed
    samples, used, began = 0, 0.0, time.perf_counter()
    trace: list[tuple[int, float]] = []  # (samples, CPU seconds) after each timed step; the cost is read on the second half
    for replication in range(100):  # runs that stop early: go on with the next replications
        started = start_replication(strategy, experiment.environment, experiment.problem,
                                    replication_seed(experiment.seed, replication), replication)
        truth, noise, run = started.truth, started.noise, started.strategy  # as run_replication starts it
        while replication == 0 and not run.stopped and run.t_ < warm_up:  # bounded by warm_up samples
            run.tell(*truth.respond(run.ask(), noise))
        if replication == 0:
            began = time.perf_counter()
        first, cpu = run.t_, time.process_time()
        while not run.stopped and (time.perf_counter() - began < seconds or len(trace) < _PILOT_STEPS):
            run.tell(*truth.respond(run.ask(), noise))
            trace.append((samples + run.t_ - first, used + time.process_time() - cpu))
        used += time.process_time() - cpu
        samples += run.t_ - first
        if time.perf_counter() - began >= seconds and len(trace) >= _PILOT_STEPS:
            break
    if len(trace) < 4:
        return used / samples if samples > 0 else None
    (s0, c0), (s1, c1) = trace[len(trace) // 2], trace[-1]  # the second half: one-time costs excluded
    return (c1 - c0) / (s1 - s0) if s1 > s0 else None


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def preflight(experiment, jobs: int = 1) -> None:
    """Check ``experiment`` before running it (see the module docstring).

    Raises
    ------
    InvalidParameterError
        When the results of the replications would not fit in memory.

    Warns
    -----
    PybaiWarning
        When the true answer is not unique, and when the run is estimated to be long.
    """
    problem = experiment.problem
    n_runs = experiment.replications * len(experiment.strategies)
    need = n_runs * (RESULT_BYTES_PER_SOURCE * problem.n_sources + RESULT_BYTES_PER_REPLICATION)
    check_memory(need, "replications", "experiment",
                 f"{experiment.replications} replications x {len(experiment.strategies)} strategies x "
                 f"{problem.n_sources} sources", experiment.replications)
    truth = _truth(experiment)
    tied = truth is not None and not problem.answer_is_unique(truth)
    try:
        oracle_problem = problem.truth_view(experiment.environment)
    except InvalidParameterError:  # the truth does not fit the learner's reward model: the run says so
        oracle_problem = problem
    per_run, basis = estimate_samples(oracle_problem, None if truth is None else problem.family.learner_means(truth))
    estimate = ""
    if per_run is not None and per_run * n_runs >= _PILOT_FROM_SAMPLES:
        total = 0.0
        for _, strategy in experiment.strategies:
            cost = pilot_seconds_per_sample(strategy, experiment)
            if cost is None:
                total = math.nan
                break
            total += cost * per_run * experiment.replications
        workers = max(1, min(jobs, os.cpu_count() or 1))
        total /= workers
        if math.isfinite(total) and (total > LONG_RUN_SECONDS or tied):
            up_to = "up to " if basis.startswith("max_samples") else ""
            basis = "" if up_to else f": {basis}"
            estimate = (f"estimated CPU time {up_to}about {_duration(total)} with {workers} worker(s) ({n_runs} runs x "
                        f"{per_run:,.0f} samples{basis}; cost per sample from a short pilot run)")
    if tied:
        answer = problem.answer(truth)
        message = (f"{experiment.name}: the true answer is not unique (tied means; any tied answer counts as "
                   f"correct; the lowest index is reported: {answer_name(answer, problem.labels)}); "
                   "no strategy can certify it")
        if isinstance(problem.regime, FixedConfidence):
            message += (f": fixed-confidence runs that do not stop by chance end at max_samples = "
                        f"{problem.regime.max_samples:,} (censored)")
        warnings.warn(PybaiWarning(message + (f"; {estimate}" if estimate else "") + "."), stacklevel=3)
    elif estimate:
        warnings.warn(PybaiWarning(f"{experiment.name}: long run: {estimate}."), stacklevel=3)
