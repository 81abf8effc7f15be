"""The epsilon row of issue 39 (benchmarks/eps_tie_msprt.toml): the mixture SPRT carries the problem's margin."""

import pathlib

import numpy as np
import pytest

from pybai.config.experiment import read_document
from pybai.simulate.tasks import Sweep

FILE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "eps_tie_msprt.toml"


def test_the_tie_file_gives_the_mixture_sprt_the_problems_epsilon():
    experiment = Sweep.from_document(read_document(FILE), FILE.stem).experiments[0]
    problem = experiment.problem
    assert problem.epsilon == 0.01 and problem.epsilon_mode == "additive" and problem.delta == 0.05
    means = np.sort(experiment.environment.source_means)
    assert means[-1] == means[-2]  # a tie: only a margin lets a test stop
    sprts = [s for _, s in experiment.strategies if s.name == "mixture-sprt"]
    assert all(s.epsilon == problem.epsilon for s in sprts)
    gap = means[-1] - means[0]
    assert sorted(s.tau for s in sprts) == pytest.approx(sorted([problem.epsilon / 2, problem.epsilon, gap]))
    proven = {s.name for _, s in experiment.strategies if s.threshold == "delta-correct" and not s.stopping_rule}
    assert {"tas", "top-two", "lucb", "game", "uniform"} <= proven
