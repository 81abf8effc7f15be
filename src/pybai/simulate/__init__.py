"""Simulation: one replication, Monte Carlo over replications, seeding, summaries."""

from pybai.simulate.montecarlo import run_experiment, run_outcomes
from pybai.simulate.runner import Outcome, run_replication
from pybai.simulate.seeding import replication_seed, replication_seeds
from pybai.simulate.summary import summarize

__all__ = ["run_experiment", "run_outcomes", "run_replication", "Outcome", "replication_seed", "replication_seeds", "summarize"]
