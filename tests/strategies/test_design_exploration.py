"""Forced exploration of the design (Jedra & Proutiere 2020) for tas and game on linear problems."""

import math

import numpy as np
import pytest

from pybai import InvalidParameterError, make_strategy
from pybai.environments.linear_instances import soare_environment
from pybai.problems import FixedConfidence
from pybai.problems.best_arm import BestArmProblem
from pybai.models.families import Gaussian
from pybai.problems.linear import LinearBestArmProblem
from pybai.strategies.design_exploration import DesignExploration


def soare_problem(d=5, omega=0.1, delta=0.05):
    env = soare_environment(d=d, omega=omega, sigma=1.0)
    return env, LinearBestArmProblem(**env.structure(), regime=FixedConfidence(delta, max_samples=10**6))


def run_rule(explorer, problem, w, start_counts, total, chunk):
    """Track the fixed target ``w`` from ``start_counts`` up to ``total`` samples, ``chunk`` at a time."""
    x = problem.features
    counts = np.array(start_counts, dtype=float)
    cumulative = np.zeros(x.shape[0])
    nxt = 0
    while counts.sum() < total:
        t = int(counts.sum())
        size = min(chunk, total - t)
        design = x.T @ (counts[:, None] * x)
        out, nxt = explorer.chunk(cumulative, counts, w, t, size, design, nxt, True)
        np.add.at(counts, out, 1)
    return counts


def test_design_forcing_keeps_lambda_min_at_c0_sqrt_t_and_leaves_spanned_arms_alone():
    """Target all on e_2: the forcing alone gives e_1, e_3..e_d about sqrt(t/d) samples, x_{d+1} none."""
    d, total = 5, 20_000
    _, p = soare_problem(d=d)
    explorer = DesignExploration(*p.request_space().design())
    assert list(explorer.spanning) == list(range(d))            # the canonical arms span R^d
    assert explorer.level_scale == pytest.approx(1 / math.sqrt(d))  # lambda_min(I) / sqrt(d)
    w = np.zeros(d + 1)
    w[1] = 1.0
    counts = run_rule(explorer, p, w, [1] * d + [0], total, chunk=997)
    level = math.sqrt(total / d)                               # f(t) = sqrt(t/d) = 63.2
    lam = np.linalg.eigvalsh(p.features.T @ (counts[:, None] * p.features))[0]
    assert level - 1 <= lam <= level + 2
    for j in [0, 2, 3, 4]:                                     # forced arms: just enough, round robin
        assert level - 1 <= counts[j] <= level + 2, counts
    assert counts[d] == 0 and counts[1] == total - counts[[0, 2, 3, 4]].sum()


def test_design_chunks_equal_single_steps():
    _, p = soare_problem(d=4)
    explorer = DesignExploration(*p.request_space().design())
    w = np.array([0.1, 0.8, 0.02, 0.03, 0.05])
    big = run_rule(explorer, p, w, [1, 1, 1, 1, 0], 3_000, chunk=3_000)
    single = run_rule(explorer, p, w, [1, 1, 1, 1, 0], 3_000, chunk=1)
    np.testing.assert_array_equal(big, single)
    # unprojected tracking: the non-forced samples follow w (x_5 gets its 5%)
    assert abs(big[4] - 0.05 * 3_000) <= 2


def play(strategy, env, seed):
    noise = np.random.default_rng(seed)
    for _ in range(200_000):
        if strategy.stopped:
            break
        strategy.tell(*env.respond(strategy.ask(), noise))
    return strategy.result()


def test_tas_design_exploration_spares_the_spanned_arm_and_arms_mode_does_not():
    env, p = soare_problem(d=4, omega=0.1, delta=0.05)
    # the certified oracle: these seeds' runs are long enough to show the forcing (with the
    # approximate default oracle this seed's design run stops by chance at 17 samples)
    design = play(make_strategy("tas", check_growth=0.02, oracle_growth=0.25, oracle="certified").start(p, rng=3), env, 3)
    arms = play(make_strategy("tas", check_growth=0.02, oracle_growth=0.25, exploration="arms",
                              oracle="certified").start(p, rng=3), env, 3)
    assert design.recommendation == 0 and arms.recommendation == 0
    # x_5 = (cos w, sin w, 0, 0) is spanned by e_1, e_2 and has weight 0 in w*: only arms mode forces it
    assert design.counts[4] <= 3
    assert arms.counts[4] >= math.sqrt(arms.samples) - 5 - 2
    # e_3, e_4: forced to about sqrt(t/d) by the design rule, sqrt(t) by the arms rule
    assert design.counts[2] <= math.sqrt(design.samples / 4) + 3 + 0.01 * design.samples
    assert arms.counts[2] >= math.sqrt(arms.samples) - 5 - 2


def test_game_linear_optimism_uses_the_design_norm():
    """The optimistic width of arm a is ||x_a||^2_{A^-1}: small for an arm spanned by well-sampled ones."""
    env, p = soare_problem(d=2, omega=0.1)
    g = make_strategy("game", optimism="ucb").start(p, rng=0)
    noise = np.random.default_rng(0)
    for _ in range(12):
        g.tell(*env.respond(g.ask(), noise))
    out = g._optimistic(np.zeros(3))
    x = p.features
    width = np.array([v @ np.linalg.inv(x.T @ (g.counts_[:, None] * x)) @ v for v in x])
    np.testing.assert_allclose(out, math.log(g.t_) * width)
    # x_3 = (cos w, sin w) is estimated through e_1 and e_2: its width is below 1/N_3 (1/max(N_3, 1))
    assert width[2] < 1.0 / max(g.counts_[2], 1.0)


def test_exploration_choices_are_checked():
    _, p = soare_problem(d=2)
    unstructured = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="exploration"):
        make_strategy("tas", exploration="design").start(unstructured)
    with pytest.raises(InvalidParameterError, match="exploration"):
        make_strategy("tas", exploration="none").start(p)
    with pytest.raises(InvalidParameterError, match="exploration"):
        make_strategy("game", exploration="none").start(p)   # needs optimism
    make_strategy("game", exploration="none", optimism="ucb").start(p)
    make_strategy("tas", exploration="auto").start(unstructured)   # arms mode off linear problems
