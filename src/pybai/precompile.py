"""Compile pybai's numerical kernels once, into numba's on-disk cache, before the first real run.

pybai's hot loops are numba functions compiled on first use and cached on disk (``cache=True``,
keyed to their source files by :mod:`pybai._numba_cache`).  On a fresh installation the first
run of each kind pays that compilation: about six minutes of CPU in all, a minute or more for
the first compiled Track-and-Stop run alone.  :func:`precompile` pays it up front, as
``make install`` does (``pybai precompile --jobs 2``): it plays one tiny replication of every
strategy on one instance of every family of the validation suite (:mod:`pybai.validation`:
every goal and reward model pybai serves), once through the compiled run and once through the
ask/tell loop, with both stopping thresholds; Track-and-Stop also plays every other threshold kind
it takes.  The results are thrown away; the machine code
stays in the cache, and every later process loads it in milliseconds.

Running it again costs only the tiny runs (seconds): nothing is compiled twice.  After an
update of the sources, the kernels whose files (or their dependencies) changed are compiled
again, by this command or by the first run that needs them.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

__all__ = ["precompile", "FamilyWarmUp", "CAP"]

#: samples per warm-up replication (fixed confidence; a fixed budget runs its smallest budget)
CAP = 300
#: the strategy that also plays every named threshold kind (the kinds' kernels do not depend on the sampling rule)
REFERENCE_STRATEGY = "tas"


@dataclass(frozen=True)
class FamilyWarmUp:
    """What :func:`precompile` did for one instance family."""

    family: str
    runs: int
    refused: int
    cpu_seconds: float


def _warm_family(name: str) -> FamilyWarmUp:
    """Tiny replications of every strategy on one instance of family ``name`` (compiled and ask/tell)."""
    from pybai.exceptions import PybaiError
    from pybai.simulate.runner import run_replication
    from pybai.strategies.registry import get_strategy_class, make_strategy
    from pybai.validation import FAMILIES
    from pybai.validation.suite import strategies_for

    t0 = time.process_time()
    family = FAMILIES[name]
    instance = family.draw(np.random.default_rng(0))
    seed = np.random.SeedSequence(0)
    runs = refused = 0
    plays: list[tuple[str, dict, object]] = []
    for strategy in strategies_for(family.goal, "fixed-confidence"):
        kinds = [{}] if get_strategy_class(strategy).stopping_rule else \
            [{"threshold": "delta-correct"}, {"threshold": "heuristic"}]
        plays += [(strategy, kind, family.regime(None, CAP)) for kind in kinds]
    if REFERENCE_STRATEGY in strategies_for(family.goal, "fixed-confidence"):
        # every other threshold kind a user may name (pair-tilt, leader, ...), through one strategy:
        # their kernels are the stopping rule's, whatever rule samples
        plays += [(REFERENCE_STRATEGY, {"threshold": kind}, family.regime(None, CAP))
                  for kind in get_strategy_class(REFERENCE_STRATEGY).threshold_kinds
                  if kind not in ("delta-correct", "heuristic")]
    if family.budgets:
        plays += [(strategy, {}, family.regime(min(family.budgets), None))
                  for strategy in strategies_for(family.goal, "fixed-budget")]
    for strategy, parameters, regime in plays:
        for fast in (True, False):
            try:
                problem = instance.make_problem(regime)
                run_replication(make_strategy(strategy, **parameters), instance.environment, problem, seed, fast=fast)
                runs += 1
            except PybaiError:  # the strategy refuses this family: nothing to compile for it
                refused += 1
    return FamilyWarmUp(name, runs, refused, time.process_time() - t0)


def precompile(jobs: int = 1, families=None, progress=None) -> list[FamilyWarmUp]:
    """Compile the kernels of every family (or of ``families``) into numba's on-disk cache.

    Parameters
    ----------
    jobs : int
        Worker processes (>= 1).  The families are shared out between them; two workers may
        compile a kernel both families use at the same time (each then writes the same cache
        entry), so a second worker saves about a third of the wall time on 2 cores, not half.
    families : sequence of str, optional
        Names of validation families (:data:`pybai.validation.FAMILIES`); default: all.
    progress : callable, optional
        Called with each finished :class:`FamilyWarmUp`.

    Returns
    -------
    list of FamilyWarmUp
        One per family, in the order they finished.
    """
    from pybai._validation import fail
    from pybai.validation import FAMILIES

    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise fail("jobs", "precompile", "an integer >= 1", jobs)
    names = list(FAMILIES) if families is None else list(families)
    for name in names:
        if name not in FAMILIES:
            raise fail("families", "precompile", "names among " + ", ".join(FAMILIES), name)
    if jobs > 1 and families is None:
        # the first family (Gaussian best arm) compiles the shared compiled-run driver; a second worker
        # starts from the other end of the list (bounded rewards, guardrails, epsilon), whose kernels are its own
        names = names[:1] + names[:0:-1]
    done: list[FamilyWarmUp] = []
    if jobs == 1 or len(names) < 2:
        for name in names:
            done.append(_warm_family(name))
            if progress is not None:
                progress(done[-1])
        return done
    # fork keeps the parent's imports; numba's cache writes are atomic renames, safe between processes
    import multiprocessing

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=int(jobs), mp_context=context) as pool:
        for result in pool.map(_warm_family, names):
            done.append(result)
            if progress is not None:
                progress(result)
    return done
