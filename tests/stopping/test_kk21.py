"""Tests of pybai.stopping.kk21 (the delta-correct thresholds of Kaufmann & Koolen 2021)."""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np
import pytest

from pybai.stopping.calibration import c_exp, c_gauss
from pybai.stopping.heuristic import HeuristicThreshold
from pybai.stopping.kk21 import ExponentialFamilyThreshold, GaussianThreshold

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _calibration_reference import ref_c_exp, ref_c_gauss  # noqa: E402


@pytest.mark.parametrize("t", [2, 3, 100, 1000, 10_000, 10**9])
@pytest.mark.parametrize("K", [2, 5, 20])
@pytest.mark.parametrize("delta", [0.1, 1e-3])
def test_expfam_formula_bai(t, K, delta):
    th = ExponentialFamilyThreshold(delta, K - 1, 2)
    expected = 2 * ref_c_exp(math.log((K - 1) / delta) / 2) + 6 * math.log(1 + math.log(t / 2))
    assert th(t) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("t", [2, 3, 100, 1000, 10_000, 10**9])
@pytest.mark.parametrize("K", [2, 5])
@pytest.mark.parametrize("delta", [0.1, 1e-3])
def test_gaussian_formula_bai_jourdan_form(t, K, delta):
    # 2 C_G(ln((K-1)/delta)/2) + 4 ln(4 + ln(t/2))  (Jourdan et al. 2022)
    th = GaussianThreshold(delta, K - 1)
    expected = 2 * ref_c_gauss(math.log((K - 1) / delta) / 2) + 4 * math.log(4 + math.log(t / 2))
    assert th(t) == pytest.approx(expected, abs=1e-6)


def test_small_t_uses_clamped_loglog_term():
    th = ExponentialFamilyThreshold(0.1, 4, 3)
    # t <= n_terms: log-log term is 0 (not all arms of the term can have been sampled).
    assert th(1) == th(2) == th(3) == pytest.approx(3 * c_exp(math.log(40) / 3))
    g = GaussianThreshold(0.1, 4, 2)
    assert g(1) == g(2) == pytest.approx(2 * c_gauss(math.log(40) / 2) + 4 * math.log(4))


def test_table_values_K5_delta01():
    # The table in docs/thresholds.md.
    h_ = HeuristicThreshold(0.1)
    e_ = ExponentialFamilyThreshold(0.1, 4, 2)
    g_ = GaussianThreshold(0.1, 4, 2)
    assert [round(h_(t), 2) for t in (100, 1000, 10_000)] == [4.03, 4.37, 4.63]
    assert [round(e_(t), 2) for t in (100, 1000, 10_000)] == [31.45, 33.76, 35.42]
    assert [round(g_(t), 2) for t in (100, 1000, 10_000)] == [15.11, 16.13, 16.94]


@pytest.mark.parametrize("cls", [ExponentialFamilyThreshold, GaussianThreshold])
def test_increasing_in_n_alternatives(cls):
    vals = [cls(0.1, m, 2)(1000) for m in (1, 2, 4, 10, 100)]
    assert all(b > a for a, b in zip(vals, vals[1:]))


def test_gaussian_tighter_than_expfam_everywhere():
    t = np.round(np.logspace(0, 12, 300))
    for m in (1, 2, 4, 19, 999):
        for delta in (0.9, 0.1, 1e-3, 1e-9):
            for n in (1, 2, 5):
                gap = GaussianThreshold(delta, m, n).values(t) - ExponentialFamilyThreshold(delta, m, n).values(t)
                assert np.all(gap < 0)


def test_proven_flags():
    assert ExponentialFamilyThreshold(0.1, 4, 2).proven
    assert GaussianThreshold(0.1, 4).proven
