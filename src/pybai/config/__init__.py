"""Experiment files: validated reading of the contract's TOML."""

from pybai.config.experiment import Experiment, load_experiment, parse_experiment

__all__ = ["Experiment", "load_experiment", "parse_experiment"]
