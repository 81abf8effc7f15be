"""Bounded rewards: the family's checks, the exact KL_inf kernels and the betting tables."""

import numpy as np
import pytest
from scipy.optimize import minimize

from pybai import BestArmProblem, BetaEnvironment, Bounded, FixedConfidence, TrackAndStop
from pybai.exceptions import InvalidParameterError, RequestError
from pybai.models.betting import BettingModel
from pybai.models.kl_inf import kl_inf_above, kl_inf_below, kl_inf_pair


def _brute_above(x, w, lev, high):
    """min KL(F, G) over G on supp(F) + {high} with mean >= lev (SLSQP on the probabilities)."""
    w = w / w.sum()
    pts = np.append(x, high)
    cons = [{"type": "eq", "fun": lambda g: g.sum() - 1.0},
            {"type": "ineq", "fun": lambda g: g @ pts - lev}]
    best = np.inf
    for start in (np.append(w, 0.0) * 0.5 + 0.5 / pts.size, np.full(pts.size, 1.0 / pts.size)):
        res = minimize(lambda g: float(np.sum(w * np.log(w / np.maximum(g[:-1], 1e-300)))), start,
                       bounds=[(1e-12, 1.0)] * pts.size, constraints=cons, method="SLSQP",
                       options={"ftol": 1e-14, "maxiter": 1000})
        if res.success:
            best = min(best, res.fun)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_kl_inf_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 0.8, size=5)
    w = rng.uniform(0.2, 1.0, size=5)
    mean = (w @ x) / w.sum()
    lev = mean + rng.uniform(0.02, 0.9) * (1.0 - mean)
    assert kl_inf_above(x, w, lev, 0.0, 1.0) == pytest.approx(_brute_above(x, w, lev, 1.0), rel=1e-4, abs=1e-7)
    # the mirror: below(F, l) on [a, b] is above of the reflected law
    assert kl_inf_below(1.0 - x, w, 1.0 - lev, 0.0, 1.0) == pytest.approx(kl_inf_above(x, w, lev, 0.0, 1.0))


def test_kl_inf_of_two_points_is_bernoulli_kl():
    p, q = 0.3, 0.55
    kl = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
    assert kl_inf_above([0.0, 1.0], [1 - p, p], q, 0.0, 1.0) == pytest.approx(kl, rel=1e-9)
    assert kl_inf_above([0.0, 1.0], [1 - p, p], 0.2, 0.0, 1.0) == 0.0


def test_pair_glr_is_the_min_over_levels():
    rng = np.random.default_rng(3)
    a, b = rng.beta(5, 4, 40), rng.beta(4, 5, 30)
    z, lev = kl_inf_pair(a, b, 0.0, 1.0)
    grid = np.linspace(b.mean(), a.mean(), 301)
    vals = [40 * kl_inf_below(a, None, g, 0, 1) + 30 * kl_inf_above(b, None, g, 0, 1) for g in grid]
    assert z <= min(vals) + 1e-9 and z >= min(vals) - 1e-3 and b.mean() <= lev <= a.mean()


def test_betting_tables_are_exact_sums_and_batch_equals_sequential():
    rng = np.random.default_rng(0)
    src = rng.integers(0, 2, 50)
    rew = rng.uniform(-2.0, 3.0, 50)
    one, many = BettingModel(2, -2.0, 3.0, levels=11), BettingModel(2, -2.0, 3.0, levels=11)
    for s, r in zip(src, rew):
        one.update(np.array([s]), np.array([r]))
    many.update(src, rew)
    np.testing.assert_allclose(one.log_up, many.log_up, rtol=1e-12, atol=1e-12)
    y = (rew[src == 1] + 2.0) / 5.0
    lev, c = one.grid[4], one.bets[3]
    assert one.log_down[1, 3, 4] == pytest.approx(np.sum(np.log1p(-c * (y - lev) / (1 - lev))))
    assert one.estimate[1] == pytest.approx(y.mean())


def test_rewards_outside_the_range_are_refused_at_tell():
    p = BestArmProblem(3, Bounded(3, 0.0, 10.0, "sub-bernoulli"), FixedConfidence(0.1))
    s = TrackAndStop().start(p, rng=0)
    a = s.ask()
    with pytest.raises(RequestError, match=r"numbers in \[0, 10\]"):
        s.tell(a, np.full(len(a), 10.5))
    s.tell(a, np.full(len(a), 10.0))  # the ends are inside


@pytest.mark.parametrize("low, high", [(1.0, 1.0), (2.0, 1.0)])
def test_low_not_below_high_is_refused(low, high):
    with pytest.raises(InvalidParameterError, match="low < high"):
        Bounded(3, low, high)


def test_means_are_reported_in_the_users_units():
    env = BetaEnvironment([0.8, 0.3], 0.1)
    p = BestArmProblem(2, Bounded(2, -1.0, 3.0, "kl-inf", levels=11), FixedConfidence(0.1, max_samples=400))
    s = TrackAndStop().start(p, rng=0)
    rng = np.random.default_rng(1)
    while not s.stopped:
        a = s.ask()
        s.tell(a, env.sample(a, rng))
    res = s.result()
    assert abs(res.means[0] - 0.8) < 0.1 and abs(res.means[1] - 0.3) < 0.1  # not rescaled to [0, 1]
    assert np.all(s.means_ == (res.means + 1.0) / 4.0)


def test_beta_environment_refuses_a_too_large_sd():
    with pytest.raises(InvalidParameterError, match="sd"):
        BetaEnvironment([0.5, 0.1], 0.31)


@pytest.mark.parametrize("statistic", ["kl-inf", "sub-bernoulli"])
def test_interval_in_user_units_holds_the_mean_and_shrinks(statistic):
    fam = Bounded(1, 10.0, 20.0, statistic, levels=101)
    model = fam.new_model(1)
    rng = np.random.default_rng(2)
    widths = []
    for n in (20, 400):
        model.update(np.zeros(n, dtype=np.int64), 10.0 + 10.0 * rng.beta(6, 4, n))
        lo, hi = fam.interval(model, 0.95)
        assert lo[0] < 16.0 < hi[0] and 10.0 <= lo[0] and hi[0] <= 20.0
        widths.append(hi[0] - lo[0])
    assert widths[1] < widths[0]
