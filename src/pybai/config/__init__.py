"""Experiment files: validated reading of the experiment TOML (docs/reference.md; one experiment, or a sweep over a grid)."""

from pybai.config.experiment import Experiment, load_experiment, load_sweep, parse_experiment, parse_sweep, read_document
from pybai.config.grid import GridPoint, expand_grid

__all__ = ["Experiment", "load_experiment", "load_sweep", "parse_experiment", "parse_sweep", "read_document", "GridPoint", "expand_grid"]
