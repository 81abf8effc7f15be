"""Tests of pybai.stopping.thresholds (GLR stopping thresholds)."""

from __future__ import annotations

import functools
import math
import pickle

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import zeta

from pybai.stopping.thresholds import (
    BernoulliKTThreshold,
    ExponentialFamilyThreshold,
    GaussianThreshold,
    HeuristicThreshold,
    Threshold,
    c_exp,
    c_gauss,
    g_gauss,
    h,
    h_inv,
    h_tilde,
    h_tilde_min,
    make_threshold,
)

# ---------------------------------------------------------------------------
# Independent reference implementations (brentq / brute force, no lambertw)
# ---------------------------------------------------------------------------


def ref_h_inv(x: float) -> float:
    """u >= 1 with u - ln u = x, by brentq on v - log1p(v) = x - 1 (v = u - 1)."""
    eps = x - 1.0
    if eps == 0.0:
        return 1.0
    return 1.0 + brentq(lambda v: v - math.log1p(v) - eps, 0.0, max(2.0, 2.0 * x),
                        xtol=1e-300, rtol=1e-15, maxiter=500)


def ref_h_tilde(x: float, z: float = 1.5) -> float:
    """min over y in (1, z] of y (x - ln ln y), by bounded scalar minimisation + grid."""
    ys = np.linspace(1.0 + 1e-12, z, 400_001)
    return float(np.min(ys * (x - np.log(np.log(ys)))))


def ref_c_exp(x: float) -> float:
    """C_exp(x) = 2 htilde_{3/2}((h^{-1}(1+x) + ln(2 zeta(2))) / 2), via brentq."""
    arg = 0.5 * (ref_h_inv(1.0 + x) + math.log(2.0 * float(zeta(2.0, 1.0))))
    z = 1.5
    u = ref_h_inv(arg)
    cut = ref_h_inv(1.0 / math.log(z))  # the conservative cut (see h_tilde)
    boundary = 2.0 * z * (min(arg, cut) - math.log(math.log(z)))
    if arg >= cut:
        return max(2.0 * math.exp(1.0 / u) * u, boundary)
    return boundary


@functools.lru_cache(maxsize=None)
def ref_c_gauss(x: float) -> float:
    """min over lambda in (1/2, 1) of (g_G(lambda) + x)/lambda on a dense grid (vectorised)."""
    lam = np.linspace(0.5 + 1e-7, 1.0 - 1e-9, 2_000_001)
    g = 2 * lam - 2 * lam * np.log(4 * lam) + np.log(zeta(2 * lam, 1.0)) - 0.5 * np.log1p(-lam)
    return float(np.min((g + x) / lam))


ALL_KINDS = [
    lambda d, m=4, n=2: HeuristicThreshold(d),
    lambda d, m=4, n=2: ExponentialFamilyThreshold(d, m, n),
    lambda d, m=4, n=2: GaussianThreshold(d, m, n),
]
IDS = ["heuristic", "expfam", "gaussian"]


# ---------------------------------------------------------------------------
# Calibration functions
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Threshold values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", [1, 2, 3, 100, 1000, 10_000, 123_456.5])
def test_heuristic_formula(t):
    assert HeuristicThreshold(0.05)(t) == pytest.approx(math.log((1.0 + math.log(t)) / 0.05), rel=1e-14)


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


# ---------------------------------------------------------------------------
# Structural properties
# ---------------------------------------------------------------------------

T_GRID = np.unique(np.concatenate([np.arange(1, 200), np.round(np.logspace(0, 12, 500))]))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
@pytest.mark.parametrize("delta", [0.5, 0.1, 1e-4])
def test_monotone_in_t(make, delta):
    v = make(delta).values(T_GRID)
    assert np.all(np.diff(v) >= 0)
    assert v[-1] > v[0]


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_decreasing_in_delta(make):
    deltas = [0.9, 0.5, 0.2, 0.1, 0.05, 1e-2, 1e-3, 1e-6, 1e-12]  # decreasing delta
    for t in [1, 10, 1000, 10**7]:
        vals = [make(d)(t) for d in deltas]
        assert all(b > a for a, b in zip(vals, vals[1:]))


@pytest.mark.parametrize("cls", [ExponentialFamilyThreshold, GaussianThreshold])
def test_increasing_in_n_alternatives(cls):
    vals = [cls(0.1, m, 2)(1000) for m in (1, 2, 4, 10, 100)]
    assert all(b > a for a, b in zip(vals, vals[1:]))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_values_matches_call(make):
    th = make(0.05)
    ts = [1, 2, 5, 17, 1000, 12345.5, 10**8]
    np.testing.assert_allclose(th.values(ts), [th(t) for t in ts], rtol=1e-14)
    assert th.values(np.array([[1, 10], [100, 1000]])).shape == (2, 2)
    assert isinstance(th(np.int64(100)), float)
    assert th(100) == th(100.0) == th(np.int64(100))


def test_gaussian_tighter_than_expfam_everywhere():
    t = np.round(np.logspace(0, 12, 300))
    for m in (1, 2, 4, 19, 999):
        for delta in (0.9, 0.1, 1e-3, 1e-9):
            for n in (1, 2, 5):
                gap = GaussianThreshold(delta, m, n).values(t) - ExponentialFamilyThreshold(delta, m, n).values(t)
                assert np.all(gap < 0)


def test_heuristic_below_proven_for_bai():
    for K in (2, 5, 50):
        for delta in (0.1, 1e-3):
            t = np.round(np.logspace(0, 9, 100))
            heur = HeuristicThreshold(delta).values(t)
            assert np.all(heur < GaussianThreshold(delta, K - 1).values(t))


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
def test_picklable(make):
    th = make(0.01)
    back = pickle.loads(pickle.dumps(th))
    assert type(back) is type(th)
    assert back == th
    assert back(1234) == th(1234)
    assert back.delta == 0.01
    assert isinstance(back, Threshold)
    assert isinstance(th.name, str) and th.name
    assert repr(th).startswith(type(th).__name__)
    assert len(pickle.dumps(th)) < 1000


def test_proven_flags():
    assert not HeuristicThreshold(0.1).proven
    assert ExponentialFamilyThreshold(0.1, 4, 2).proven
    assert GaussianThreshold(0.1, 4).proven


# ---------------------------------------------------------------------------
# Factory and bad input
# ---------------------------------------------------------------------------


def test_make_threshold_dispatch():
    assert isinstance(make_threshold("heuristic", 0.1, n_alternatives=4), HeuristicThreshold)
    g = make_threshold("delta-correct", 0.1, n_alternatives=4)
    assert isinstance(g, GaussianThreshold) and g == GaussianThreshold(0.1, 4, 2)
    b = make_threshold("delta-correct", 0.1, n_alternatives=4, family="bernoulli")
    assert isinstance(b, BernoulliKTThreshold) and b == BernoulliKTThreshold(0.1, 4, 2)
    assert make_threshold("kk21", 0.1, n_alternatives=4, family="bernoulli") == ExponentialFamilyThreshold(0.1, 4, 2)
    assert make_threshold("kk21", 0.1, n_alternatives=4) == GaussianThreshold(0.1, 4, 2)
    assert make_threshold("kt-mixture", 0.1, n_alternatives=4, family="bernoulli") == b
    with pytest.raises(ValueError, match="family"):
        make_threshold("kt-mixture", 0.1, n_alternatives=4, family="gaussian")
    e = make_threshold("delta-correct", 0.1, n_alternatives=9, n_terms=3, family="exponential_family")
    assert e == ExponentialFamilyThreshold(0.1, 9, 3)


def test_make_threshold_accepts_family_objects():
    from pybai.models import Bernoulli

    th = make_threshold("delta-correct", 0.1, n_alternatives=4, family=Bernoulli())
    assert isinstance(th, BernoulliKTThreshold)


@pytest.mark.parametrize("delta", [0, 0.0, 1, 1.0, -0.1, 1.5, float("nan"), float("inf"), "0.1", None, True])
def test_bad_delta_raises(delta):
    with pytest.raises(ValueError, match="delta"):
        make_threshold("heuristic", delta, n_alternatives=4)
    with pytest.raises(ValueError, match="delta"):
        make_threshold("delta-correct", delta, n_alternatives=4)
    for cls in (HeuristicThreshold,):
        with pytest.raises(ValueError, match="delta"):
            cls(delta)
    with pytest.raises(ValueError, match="delta"):
        GaussianThreshold(delta, 4)
    with pytest.raises(ValueError, match="delta"):
        ExponentialFamilyThreshold(delta, 4, 2)


@pytest.mark.parametrize("kind", ["", "proven", "Heuristics", None, 3])
def test_bad_kind_raises(kind):
    with pytest.raises(ValueError, match="kind"):
        make_threshold(kind, 0.1, n_alternatives=4)


@pytest.mark.parametrize("family", ["student", "", None, 1])
def test_bad_family_raises(family):
    with pytest.raises(ValueError, match="family"):
        make_threshold("delta-correct", 0.1, n_alternatives=4, family=family)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "4", None, True])
def test_bad_counts_raise(bad):
    with pytest.raises(ValueError, match="n_alternatives"):
        make_threshold("delta-correct", 0.1, n_alternatives=bad)
    with pytest.raises(ValueError, match="n_terms"):
        make_threshold("delta-correct", 0.1, n_alternatives=4, n_terms=bad)
    with pytest.raises(ValueError, match="n_alternatives"):
        GaussianThreshold(0.1, bad)
    with pytest.raises(ValueError, match="n_terms"):
        ExponentialFamilyThreshold(0.1, 4, bad)


@pytest.mark.parametrize("make", ALL_KINDS, ids=IDS)
@pytest.mark.parametrize("t", [0, 0.5, -3, float("nan")])
def test_bad_t_raises(make, t):
    th = make(0.1)
    with pytest.raises(ValueError, match="'t'"):
        th(t)
    with pytest.raises(ValueError, match="'t'"):
        th.values([1, 2, t])


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
