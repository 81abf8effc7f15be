"""Tests of pybai.stopping.heuristic (the heuristic threshold ln((1 + ln t)/delta))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.kk21 import GaussianThreshold


@pytest.mark.parametrize("t", [1, 2, 3, 100, 1000, 10_000, 123_456.5])
def test_heuristic_formula(t):
    assert HeuristicThreshold(0.05)(t) == pytest.approx(math.log((1.0 + math.log(t)) / 0.05), rel=1e-14)


def test_heuristic_below_proven_for_bai():
    for K in (2, 5, 50):
        for delta in (0.1, 1e-3):
            t = np.round(np.logspace(0, 9, 100))
            heur = HeuristicThreshold(delta).values(t)
            assert np.all(heur < GaussianThreshold(delta, K - 1).values(t))


def test_not_proven():
    assert not HeuristicThreshold(0.1).proven
