"""Small sessions for the server tests (imported by conftest.py and the test modules)."""

from __future__ import annotations

from pathlib import Path

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.session import Session


def make_ab(db, name: str = "checkout", delta: float = 0.05) -> Path:
    """An A/B/n session: 3 Bernoulli variants, top-two, delta-correct threshold."""
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(delta))
    Session.create(db, problem=problem, strategy=make_strategy("top-two"), seed=7, name=name).close()
    return Path(db)


def make_quick(db, name: str = "quick") -> Path:
    """A Gaussian session with far-apart arms in mind: it stops after a few dozen samples."""
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.1))
    Session.create(db, problem=problem, strategy=make_strategy("uniform"), seed=3, name=name).close()
    return Path(db)
