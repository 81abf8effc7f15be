"""Tests of pybai.stopping.linear: the thresholds of Gaussian linear bandits."""

import math
import types

import numpy as np
import pytest

from pybai.exceptions import InvalidParameterError
from pybai.stopping.linear import LinearSelfNormalizedThreshold, SoareProp1Threshold


def test_self_normalised_threshold_closed_form():
    th = LinearSelfNormalizedThreshold(0.05, 2.0)
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    low = np.linalg.eigvalsh(a)[0]
    expect = (1 + 2.0 / low) * (math.log(20) + 0.5 * math.log(np.linalg.det(np.eye(2) + a / 2.0)))
    assert th.on_design(a) == pytest.approx(expect, rel=1e-12)
    assert th.on_design(np.diag([1.0, 0.0])) == math.inf  # singular design: no stop
    # grows with the design like (d/2) ln t, and with 1/delta like ln(1/delta)
    big = th.on_design(100 * a)
    assert big > th.on_design(a) and LinearSelfNormalizedThreshold(0.005, 2.0).on_design(a) == pytest.approx(
        th.on_design(a) + (1 + 2.0 / low) * math.log(10), rel=1e-12)
    with pytest.raises(InvalidParameterError, match="design"):
        th(100)


def test_at_reads_the_design_matrix_of_the_model_and_splits_delta():
    th = LinearSelfNormalizedThreshold(0.05, 2.0)
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    model = types.SimpleNamespace(design_matrix=a)
    assert th.at(7, model) == th.on_design(a)
    for share in (0.5, 1 / 6, 1 / 12, 1e-9):
        # a share of delta is the threshold at delta * share, bit for bit (what XY-adaptive used to build)
        assert th.at(7, model, delta_share=share) == LinearSelfNormalizedThreshold(0.05 * share, 2.0).on_design(a)
        assert th.at(7, model, delta_share=share) > th.at(7, model)
    for bad in (0.0, -0.5, 1.5, float("nan"), "half", None, True):
        with pytest.raises(InvalidParameterError, match="delta_share"):
            th.at(7, model, delta_share=bad)


def test_prop1_threshold_is_eq11_on_the_glr_scale():
    th = SoareProp1Threshold(0.05, 6)
    n = 1000
    c2 = 8.0  # c^2 = (2 sigma sqrt 2)^2 with sigma = 1; GLR scale divides by 2 sigma^2
    assert th(n) == pytest.approx(c2 / 2 * math.log(6 / math.pi**2 * n * n * 36 / 0.05), rel=1e-12)
    np.testing.assert_allclose(th.values([n, 2 * n]), [th(n), th(2 * n)])
    # a threshold of t only: at(t, model) is threshold(t) whatever the model and the share
    assert th.at(n, None) == th(n) == th.at(n, object(), delta_share=0.25)
