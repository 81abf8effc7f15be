"""Tests of pybai.stopping.kt (Krichevsky-Trofimov threshold for Bernoulli sources)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy.special import betaln, xlogy
from scipy.stats import binom

from pybai.stopping.kt import BernoulliKTThreshold
from pybai.stopping.thresholds import make_threshold


def kl_bernoulli(p, q):
    """Bernoulli divergence kl(p, q), vectorised, 0 log 0 = 0."""
    return xlogy(p, p / q) + xlogy(1.0 - p, (1.0 - p) / (1.0 - q))


# ---------------------------------------------------------------------------
# Values (hand-computed) and shape
# ---------------------------------------------------------------------------


def test_best_arm_form_is_gk16_proposition_12():
    # m = K - 1 = 3, n = 2, delta = 0.1, t = 1000: ln(2 * 1000 * 3 / 0.1) = ln(60000)
    th = BernoulliKTThreshold(0.1, 3, 2)
    assert th(1000) == pytest.approx(math.log(60000.0), rel=1e-14)
    assert th(1000) == pytest.approx(11.0020998412, abs=1e-9)
    for t in [2, 3, 17, 1e6]:
        assert th(t) == pytest.approx(math.log(2 * t * 3 / 0.1), rel=1e-14)


def test_hand_values_other_shapes():
    # n = 1, m = 1, delta = 0.5, t = 100: ln 2 + ln 2 + (1/2) ln 100 = 3.688879...
    assert BernoulliKTThreshold(0.5, 1, 1)(100) == pytest.approx(2 * math.log(2) + math.log(10), rel=1e-14)
    # n = 3, m = 5, delta = 0.01, t = 30: ln 500 + 3 ln 2 + 1.5 ln 10
    want = math.log(500) + 3 * math.log(2) + 1.5 * math.log(10)
    assert BernoulliKTThreshold(0.01, 5, 3)(30) == pytest.approx(want, rel=1e-14)
    # t <= n: constant ln(m/delta) + n ln 2
    assert BernoulliKTThreshold(0.01, 5, 3)(2) == pytest.approx(math.log(500) + 3 * math.log(2), rel=1e-14)


def test_monotone_in_t_and_delta_and_vectorised():
    t = np.unique(np.round(np.geomspace(1, 1e9, 400)))
    for n in (1, 2, 5):
        th = BernoulliKTThreshold(0.05, 4, n)
        v = th.values(t)
        assert np.all(np.diff(v) >= 0.0)
        np.testing.assert_allclose(v, [th(x) for x in t], rtol=1e-14)
    d = [0.5, 0.2, 0.1, 0.01, 1e-6]
    for tt in (1, 10, 1000, 1e7):
        vals = [BernoulliKTThreshold(x, 4, 2)(tt) for x in d]
        assert np.all(np.diff(vals) > 0.0)


def test_below_kk21_exponential_family_threshold():
    kt = make_threshold("delta-correct", 0.1, n_alternatives=4, family="bernoulli")
    kk = make_threshold("kk21", 0.1, n_alternatives=4, family="bernoulli")
    t = np.geomspace(1, 1e12, 200)
    assert np.all(kt.values(t) < kk.values(t))


def test_pickle_and_bad_input():
    th = BernoulliKTThreshold(0.1, 3, 2)
    again = pickle.loads(pickle.dumps(th))
    assert again == th and again(123) == th(123)
    for bad in (0, 0.5, float("nan")):
        with pytest.raises(ValueError, match="'t'"):
            th(bad)
    with pytest.raises(ValueError, match="n_alternatives"):
        BernoulliKTThreshold(0.1, 0, 2)
    with pytest.raises(ValueError, match="n_terms"):
        BernoulliKTThreshold(0.1, 3, 0)


# ---------------------------------------------------------------------------
# The inequality the proof rests on (step 2 of the module docstring)
# ---------------------------------------------------------------------------


def test_kt_regret_bound_exact_for_all_counts_up_to_2000():
    """ln(max-likelihood / KT mixture) <= ln 2 + (1/2) ln N for every N <= 2000 and 0 <= s <= N."""
    worst = -np.inf
    for n in range(1, 2001):
        s = np.arange(n + 1, dtype=float)
        log_kt = betaln(s + 0.5, n - s + 0.5) - betaln(0.5, 0.5)
        log_ml = xlogy(s, s / n) + xlogy(n - s, (n - s) / n)
        gap = np.max(log_ml - log_kt) - (math.log(2.0) + 0.5 * math.log(n))
        worst = max(worst, gap)
    assert worst <= 1e-12
    # and the bound is not loose by much (the worst case is within ln(2/sqrt(pi)) ~ 0.12 of it)
    assert worst > -0.13


# ---------------------------------------------------------------------------
# Empirical time-uniform check at a large delta (nearly tight there)
# ---------------------------------------------------------------------------


def _crossing_frequency(threshold, means, horizon, runs, rng):
    """Frequency of runs with sum_a N_a kl(mu_hat_a, mu_a) > beta(t) for some t <= horizon.

    Sources are sampled in round robin (t = 1, 2, ...: source (t - 1) mod n).
    """
    n = len(means)
    per = horizon // n
    crossed = np.zeros(runs, dtype=bool)
    dev = np.zeros((runs, per * n))
    for a, mu in enumerate(means):
        x = rng.random((runs, per)) < mu
        cnt = np.arange(1, per + 1, dtype=float)
        d = cnt * kl_bernoulli(np.cumsum(x, axis=1) / cnt, mu)  # after the j-th sample of source a
        # time of the j-th sample of source a: j * n + a (0-based), deviation held until next sample
        held = np.repeat(d, n, axis=1)
        start = a  # before its first sample source a contributes 0
        dev[:, start:] += held[:, : per * n - start]
    t = np.arange(1, per * n + 1, dtype=float)
    crossed |= np.any(dev > threshold.values(t), axis=1)
    return crossed.mean()


@pytest.mark.parametrize(
    "means,delta",
    [((0.5,), 0.5), ((0.1,), 0.5), ((0.5, 0.3), 0.4), ((0.05, 0.6), 0.4)],
)
def test_time_uniform_crossing_frequency_below_delta(means, delta):
    rng = np.random.default_rng(20240611 + int(1000 * means[0]))
    runs, horizon = 3000, 1200
    th = BernoulliKTThreshold(delta, 1, len(means))
    freq = _crossing_frequency(th, means, horizon, runs, rng)
    # one-sided binomial test of H0: p <= delta at level 1e-4
    k = int(round(freq * runs))
    assert binom.sf(k - 1, runs, delta) > 1e-4, (freq, delta)


def test_crossing_check_detects_an_invalid_threshold():
    """Control: ln(1/delta) alone (no price for time uniformity) is crossed far more often than delta."""

    class _Flat:
        def values(self, t):
            return np.full(np.shape(t), math.log(1 / 0.4))

    rng = np.random.default_rng(5)
    freq = _crossing_frequency(_Flat(), (0.5, 0.3), 2000, 2000, rng)
    assert freq > 0.6
