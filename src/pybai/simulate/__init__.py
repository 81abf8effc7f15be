"""Simulation: one replication, Monte Carlo over replications and grids, seeding, backends, results store."""

from pybai.simulate.engine import RunInterrupted, run_sweep, stored_document, sweep_document
from pybai.simulate.montecarlo import run_experiment, run_outcomes
from pybai.simulate.runner import Outcome, run_replication
from pybai.simulate.seeding import replication_seed, replication_seeds
from pybai.simulate.store import ResultStore, read_store
from pybai.simulate.summary import summarize
from pybai.simulate.tasks import Sweep

__all__ = [
    "run_experiment", "run_outcomes", "run_replication", "Outcome", "replication_seed", "replication_seeds",
    "summarize", "Sweep", "run_sweep", "sweep_document", "stored_document", "RunInterrupted", "ResultStore",
    "read_store",
]
