"""The certified infimum over levels from exact stores: below the true infimum, above the grid's bound."""

import math

import numpy as np
import pytest

from pybai.models.betting import BettingModel
from pybai.stopping.base import PairPieces
from pybai.stopping._betting_refine import refine_pair
from pybai.stopping.betting import BettingThreshold, _pair_value, pair_log_wealth


def _model(n=2000, seed=0, levels=41, max_values=64):
    rng = np.random.default_rng(seed)
    model = BettingModel(2, 0.0, 1.0, levels=levels, max_values=max_values)
    a = (rng.random(n) < 0.55).astype(float)  # Bernoulli 0.55 and 0.45
    b = (rng.random(n) < 0.45).astype(float)
    model.update(np.repeat([0, 1], n), np.concatenate([a, b]))
    return model


def _brute(model, e=0.0, points=4001):
    """min over a fine set of levels l of ln M+_0(l) + ln M-_1(l + e) (an upper value of the infimum)."""
    lev = np.linspace(1e-6, 1.0 - e - 1e-6, points)
    return float(np.min(model.log_mixture(0, lev, "up") + model.log_mixture(1, lev + e, "down")))


def _refine(model, e, level, decide, tol=1e-3, budget=20_000):
    shift = max(int(math.floor(e * (model.grid.shape[0] - 1) - 1e-9)), 0) if e > 0 else 0
    return refine_pair(model.ln_up[0], model.ln_down[1], model.grid, shift, e, level, decide, tol, budget,
                       model.values[0], model.value_counts[0], model.n_values[0], model.values[1],
                       model.value_counts[1], model.n_values[1], model.bets), shift


@pytest.mark.parametrize("e", [0.0, 0.03])
def test_value_is_certified_and_tighter_than_the_grid(e):
    model = _model()
    value, shift = _refine(model, e, math.inf, False)
    brute = _brute(model, e)
    grid = _pair_value(model.ln_up[0], model.ln_down[1], shift)
    assert grid < value <= brute + 1e-9  # a lower bound of the infimum, above the grid's one
    assert value >= brute - 2e-3  # within the tolerance (and the brute force's own resolution)
    assert value - grid > 1.0  # the grid's loss of one cell (1/40 of the range) is large here


def test_decision_agrees_with_the_infimum():
    model = _model()
    inf = _brute(model)
    for level, stops in ((inf - 0.02, True), (inf + 0.02, False), (inf - 3.0, True)):
        value, _ = _refine(model, 0.0, level, True, tol=0.0, budget=400)
        assert (value > level) == stops
        assert value <= inf + 1e-9


def test_threshold_refines_only_pairs_of_usable_stores():
    exact, grid_only = _model(), _model(max_values=0)
    assert np.array_equal(exact.ln_up, grid_only.ln_up)
    th = BettingThreshold(0.05, 1)
    inf = _brute(exact)
    th.level = inf - 0.02
    assert th.margin(PairPieces([0], [1], (1.0, 0.0), None), exact) > 0.0
    assert th.margin(PairPieces([0], [1], (1.0, 0.0), None), grid_only) == pytest.approx(
        _pair_value(grid_only.ln_up[0], grid_only.ln_down[1]) - th.level)
    assert th.margin(PairPieces([0], [1], (1.0, 0.0), None), grid_only) < 0.0  # the grid alone cannot certify it
    assert pair_log_wealth(exact, 0, 1) == pytest.approx(inf, abs=2e-3)
    assert pair_log_wealth(grid_only, 0, 1) == _pair_value(grid_only.ln_up[0], grid_only.ln_down[1])
