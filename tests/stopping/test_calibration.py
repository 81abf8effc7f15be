"""Tests of pybai.stopping.calibration (the calibration functions of Kaufmann & Koolen 2021)."""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np
import pytest
from scipy.special import zeta

from pybai.stopping.calibration import c_exp, c_gauss, g_gauss, h, h_inv, h_tilde, h_tilde_min

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _calibration_reference import ref_c_exp, ref_c_gauss, ref_h_inv, ref_h_tilde  # noqa: E402


@pytest.mark.parametrize(
    "x", [1.0, 1 + 1e-14, 1 + 1e-10, 1 + 1e-6, 1.001, 1.01, 1.2, 2.0, 3.8, 10.0, 123.4, 499.0, 501.0, 1e4, 1e9]
)
def test_h_inv_matches_brentq(x):
    u = h_inv(x)
    assert u >= 1.0
    assert u == pytest.approx(ref_h_inv(x), rel=2e-15, abs=0.0)


def test_h_inv_is_inverse_of_h():
    for u in [1.01, 1.5, 2.0, math.e, 10.0, 1e3, 1e7]:
        assert h_inv(h(u)) == pytest.approx(u, rel=1e-12)


@pytest.mark.parametrize("x", [1.1, 1.3, 1.5635, 1.5637, 2.0, 2.5, 3.5, 3.8, 4.0, 6.0, 20.0])
def test_h_tilde_min_is_min_over_grid_parameter(x):
    assert h_tilde_min(x, 1.5) == pytest.approx(ref_h_tilde(x, 1.5), rel=1e-8)


@pytest.mark.parametrize("x", [1.1, 1.3, 1.5635, 1.5637, 2.0, 2.5, 3.5, 3.79, 3.81, 4.0, 6.0, 20.0])
def test_h_tilde_is_conservative(x):
    lo, hi = h(1.0 / math.log(1.5)), ref_h_inv(1.0 / math.log(1.5))  # 1.5636, 3.80
    ref = ref_h_tilde(x, 1.5)
    assert h_tilde(x) >= ref * (1 - 1e-9)
    if x < lo:
        assert h_tilde(x) == pytest.approx(ref, rel=1e-8)
    else:  # the boundary value on [lo, hi), then a plateau until the interior branch catches up
        plateau = 1.5 * (min(x, hi) - math.log(math.log(1.5)))
        assert h_tilde(x) == pytest.approx(max(ref, plateau), rel=1e-8)


def test_h_tilde_non_decreasing():
    xs = np.linspace(1.0, 20.0, 5001)
    vals = np.array([h_tilde(x) for x in xs])
    assert np.all(np.diff(vals) >= 0)


def test_h_tilde_min_continuous_and_increasing():
    cut = h(1.0 / math.log(1.5))  # 1.56358...
    assert h_tilde_min(cut - 1e-12) == pytest.approx(h_tilde_min(cut + 1e-12), abs=1e-9)
    xs = np.linspace(1.0, 20.0, 5001)
    vals = np.array([h_tilde_min(x) for x in xs])
    assert np.all(np.diff(vals) > 0)


@pytest.mark.parametrize("x", [0.0, 0.01, 0.3, 0.55, 1.0, math.log(40) / 2, 2.5, 3.6, 7.2, 10.0, 50.0, 1e3, 1e5])
def test_c_exp_matches_independent_computation(x):
    assert c_exp(x) == pytest.approx(ref_c_exp(x), rel=1e-13)


def test_c_exp_known_values():
    # Regression values (computed once; cross-checked against ref_c_exp above).
    assert c_exp(0.0) == pytest.approx(5.994432591699676, rel=1e-12)
    assert c_exp(math.log(40.0) / 2.0) == pytest.approx(10.950402, rel=1e-6)


def test_c_exp_increasing_and_above_identity():
    xs = np.linspace(0.0, 200.0, 4001)
    vals = np.array([c_exp(x) for x in xs])
    assert np.all(np.diff(vals) >= 0)
    assert np.all(vals > xs)


@pytest.mark.parametrize("x", [10.0, 15.0, 20.0, 50.0, 100.0, 300.0, 1e3, 1e4, 1e5, 1e6])
def test_c_exp_approximation_large_x(x):
    # C_exp(x) ~ x + 4 ln(1 + x + sqrt(2x)).  Observed relative gap <= 2.5% for x >= 10
    # (the gap is large for small x: at x = 0.5 C_exp is about 2x the approximation).
    approx = x + 4.0 * math.log(1.0 + x + math.sqrt(2.0 * x))
    assert abs(c_exp(x) - approx) / approx <= 0.025


@pytest.mark.parametrize("x", [5.0, 6.0, 8.0])
def test_c_exp_approximation_moderate_x(x):
    approx = x + 4.0 * math.log(1.0 + x + math.sqrt(2.0 * x))
    assert abs(c_exp(x) - approx) / approx <= 0.10


@pytest.mark.parametrize("x", [0.0, 0.1, 1.0, math.log(40.0) / 2.0, 5.0, 10.0, 100.0])
def test_c_gauss_matches_grid_minimum(x):
    got = c_gauss(x)
    ref = ref_c_gauss(x)
    assert got <= ref + 1e-9
    assert got == pytest.approx(ref, abs=1e-7)


def test_c_gauss_close_to_x_plus_log_x():
    for x in [5.0, 10.0, 100.0, 1000.0]:
        assert abs(c_gauss(x) - (x + math.log(x))) / x < 0.05


def test_g_gauss_definition():
    lam = 0.75
    expected = 1.5 - 1.5 * math.log(3.0) + math.log(float(zeta(1.5, 1.0))) - 0.5 * math.log(0.25)
    assert g_gauss(lam) == pytest.approx(expected, rel=1e-14)
    with pytest.raises(ValueError):
        g_gauss(0.5)
    with pytest.raises(ValueError):
        g_gauss(1.0)


def test_calibration_functions_reject_bad_x():
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            c_exp(bad)
        with pytest.raises(ValueError):
            c_gauss(bad)
    with pytest.raises(ValueError):
        h_inv(0.5)
    with pytest.raises(ValueError):
        h_tilde(2.0, z=3.0)
