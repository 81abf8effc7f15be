"""The exact stores of few distinct rewards beside the betting tables: same wealth, bounded memory, state."""

import json

import numpy as np
import pytest

from pybai import BestArmProblem, Bounded, FixedConfidence, make_strategy
from pybai.models.betting import DEFAULT_MAX_VALUES, BettingModel
from pybai.strategies.state import restore_strategy


def _fed(values, n=300, seed=0, **kw):
    rng = np.random.default_rng(seed)
    model = BettingModel(2, -1.0, 3.0, levels=41, **kw)
    sources = rng.integers(0, 2, size=n)
    rewards = rng.choice(values, size=n)
    for s, x in zip(sources[: n // 2], rewards[: n // 2]):  # the scalar path, then the batch path
        model.update(np.array([s]), np.array([x]))
    model.update(sources[n // 2:], rewards[n // 2:])
    return model, sources, rewards


def test_store_gives_the_tables_wealth_at_the_grid_levels():
    model, sources, rewards = _fed([-1.0, 0.0, 0.5, 3.0])  # Likert-like scores on [-1, 3]
    grid = model.grid
    for s in range(2):
        assert model.exact[s] and model.n_values[s] == 4
        assert model.value_counts[s].sum() == model.counts[s] == np.sum(sources == s)
        np.testing.assert_allclose(model.log_mixture(s, grid[1:], "up"), model.ln_up[s, 1:], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(model.log_mixture(s, grid[:-1], "down"), model.ln_down[s, :-1], rtol=1e-10,
                                   atol=1e-10)
    # between the grid levels the mixtures are monotone: ln M+ nonincreasing, ln M- nondecreasing
    fine = np.linspace(0.01, 0.99, 197)
    assert np.all(np.diff(model.log_mixture(0, fine, "up")) <= 1e-12)
    assert np.all(np.diff(model.log_mixture(0, fine, "down")) >= -1e-12)


def test_store_overflows_to_the_grid_and_stays_there():
    model = BettingModel(1, 0.0, 1.0, levels=11, max_values=3)
    model.update(np.array([0, 0, 0]), np.array([0.1, 0.2, 0.3]))
    assert model.n_values[0] == 3 and not model.exact[0]  # no reward repeated yet: the grid decides
    model.update(np.array([0]), np.array([0.2]))
    assert model.exact[0] and model.value_counts[0].tolist() == [1.0, 2.0, 1.0]
    model.update(np.array([0]), np.array([0.4]))  # a fourth distinct value: over the cap
    assert model.n_values[0] == -1 and not model.exact[0]
    assert not model.values.any() and not model.value_counts.any()
    model.update(np.array([0]), np.array([0.1]))
    assert model.n_values[0] == -1
    with pytest.raises(ValueError, match="more than 3 distinct rewards"):
        model.log_mixture(0, [0.5])
    assert model.check_state() is None


def test_continuous_rewards_never_use_the_store_and_keep_the_grid_results():
    rng = np.random.default_rng(3)
    with_store = BettingModel(2, 0.0, 1.0, levels=21)
    without = BettingModel(2, 0.0, 1.0, levels=21, max_values=0)
    for _ in range(200):
        s, x = np.array([rng.integers(2)]), rng.beta(2.0, 3.0, size=1)
        with_store.update(s, x)
        without.update(s, x)
        assert not with_store.exact.any()
    assert (with_store.n_values == -1).all() and (without.n_values == -1).all()
    for name in ("ln_up", "ln_down", "up_w", "down_w"):
        assert np.array_equal(getattr(with_store, name), getattr(without, name))


def test_check_state_names_a_damaged_store():
    model, _, _ = _fed([0.0, 1.0], n=40)
    assert model.check_state() is None
    model.value_counts[0, 0] += 1.0
    assert "values" in model.check_state()
    model.value_counts[0, 0] -= 1.0
    model.n_values[1] = DEFAULT_MAX_VALUES + 1
    assert model.check_state().startswith("n_values")


def test_family_passes_the_cap_and_keeps_its_description():
    fam = Bounded(2)
    assert fam.new_model(2).values.shape == (2, DEFAULT_MAX_VALUES)
    assert "max_values" not in fam.to_dict()  # descriptions saved before the stores still match
    assert Bounded(2, max_values=8).to_dict()["max_values"] == 8
    assert Bounded(2, statistic="sub-bernoulli").new_model(2).values.shape == (2, 0)
    with pytest.raises(Exception, match="max_values"):
        Bounded(2, max_values=-1)


def test_state_round_trip_keeps_the_store():
    problem = BestArmProblem(3, Bounded(3, 0.0, 10.0, levels=21), FixedConfidence(0.05))
    s = make_strategy("tas").start(problem, rng=1)
    rng = np.random.default_rng(2)
    for _ in range(40):
        a = s.ask()
        s.tell(a, rng.choice([0.0, 5.0, 10.0], size=a.size))
    r = restore_strategy(json.loads(json.dumps(s.get_state())), problem)
    for name in ("values", "value_counts", "n_values"):
        assert np.array_equal(getattr(r.model_, name), getattr(s.model_, name))
    assert r.model_.exact.all()
    state = s.get_state()
    state["model"]["value_counts"]["data"][0] += 1.0
    with pytest.raises(Exception, match="value"):
        restore_strategy(state, problem)


def test_mixtures_at_the_range_ends_are_their_limits():
    """Down-bets at level 1 and up-bets at level 0: the limit, not a division by 0 (the additive-epsilon refinement
    reaches level 1 on its last cell)."""
    from pybai.models._betting_exact import log_mix_down, log_mix_up
    from pybai.models.betting import DEFAULT_BETS

    bets = np.array(DEFAULT_BETS)
    for top, bottom, rewards in ((1.0, 0.0, np.array([1.0, 1.0, 1.0])), (0.0, 1.0, np.array([0.0, 0.0]))):
        mix, end = (log_mix_down, 1.0) if top == 1.0 else (log_mix_up, 0.0)
        vals = np.zeros(4)
        cnts = np.zeros(4)
        vals[0], cnts[0] = rewards[0], rewards.size
        at_end = mix(vals, cnts, 1, bets, end)
        expected = np.log(np.mean((1.0 - bets) ** rewards.size))
        assert at_end == pytest.approx(expected, rel=1e-12)  # every reward sat on the end: (1/J) sum_j (1 - c_j)^N
        near = mix(vals, cnts, 1, bets, end + (1e-9 if end == 0.0 else -1e-9))
        assert near == pytest.approx(at_end, rel=1e-9)  # continuous from inside
        vals[1], cnts[1] = 0.5, 1.0  # one reward left the end: the bets against the end win without bound
        assert mix(vals, cnts, 2, bets, end) == np.inf
        assert mix(vals, cnts, 2, bets, end + (1e-9 if end == 0.0 else -1e-9)) < np.inf


def test_epsilon_pairs_at_the_top_of_the_range_are_decided():
    """Bernoulli arms [0.6, 0.6, 0.35] at epsilon 0.2 (kl-inf): two arms with only 1s used to divide by 0."""
    from pybai.stopping.betting import BettingThreshold

    model = BettingModel(3, 0.0, 1.0)
    rule = BettingThreshold(0.05, 2)
    margins = []
    for t in range(40):
        for s, r in ((0, 1.0), (1, 1.0), (2, 0.0)):
            model.update(np.array([s]), np.array([r]))
        for offset in (0.05, 0.1, 0.2, 0.25, 0.7):
            margin = rule.model_margin(model, None, [0], [1, 2], 1.0, offset)
            assert margin == margin  # a number (not NaN), no exception
        margins.append(rule.model_margin(model, None, [0], [1, 2], 1.0, 0.2))
    assert margins[0] < 0 < margins[-1]  # and the rule certifies once the data say so


def test_bounded_epsilon_experiment_with_arms_at_the_top_runs(tmp_path):
    """The experiment of the report: every replication runs (13% of them start with two arms at 1)."""
    from pybai.config.experiment import parse_experiment
    from pybai.simulate import run_experiment

    doc = {"name": "top", "replications": 10, "seed": 1,
           "problem": {"goal": "best-arm", "delta": 0.05, "epsilon": 0.2, "reward_model": "bounded",
                       "statistic": "kl-inf", "max_samples": 300},
           "environment": {"kind": "bernoulli", "means": [0.6, 0.6, 0.35]},
           "strategy": [{"name": "tas", "threshold": "delta-correct"}]}
    row = run_experiment(parse_experiment(doc))["results"][0]
    assert row["correct_rate"] is not None and json.dumps(row)
