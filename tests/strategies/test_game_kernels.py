"""The game's compiled stretch: the same rounds as one AdaHedge round and one best response per sample."""

import math

import numpy as np
import pytest

from pybai.environments.linear_instances import soare_environment
from pybai.problems import FixedConfidence
from pybai.problems.linear import LinearBestArmProblem
from pybai.strategies._game_kernels import adahedge_update, adahedge_weights, game_stretch
from pybai.strategies.design_exploration import DesignExploration
from pybai.strategies.tracking import c_tracking_step


def reference_rounds(problem, means, counts, t, size, explorer, optimistic_widths):
    """Round by round in Python with ``alt_gradient`` (no compiled best response)."""
    k = counts.shape[0]
    cum_loss, gap, cumulative = np.zeros(k), 0.0, np.zeros(k)
    counts = counts.astype(float).copy()
    w, out, nxt = np.empty(k), [], 0
    for i in range(size):
        s = t + i
        adahedge_weights(cum_loss, gap, w)
        _, g = problem.alt_gradient(means, w)
        if optimistic_widths is not None:
            g = (np.sqrt(g) + np.sqrt(math.log(max(s, 2)) * optimistic_widths)) ** 2
        gap = adahedge_update(cum_loss, gap, w, -g)
        if explorer is not None:
            design = problem.features.T @ (counts[:, None] * problem.features)
            arm, nxt = explorer.chunk(cumulative, counts, w, s, 1, design, nxt, True)
            arm = int(arm[0])
        else:
            arm = c_tracking_step(cumulative, counts, w, float(s))
        counts[arm] += 1
        out.append(arm)
    return np.array(out), cum_loss, gap, nxt


@pytest.mark.parametrize("mode", ["design", "arms", "optimistic"])
def test_stretch_equals_rounds_one_at_a_time(mode):
    env = soare_environment(d=4, omega=0.1, sigma=1.0)
    problem = LinearBestArmProblem(**env.structure(), regime=FixedConfidence(0.05))
    rng = np.random.default_rng(3)
    means = problem.features @ (np.array([2.0, 0.0, 0.0, 0.0]) + 0.05 * rng.normal(size=4))
    counts = np.array([3.0, 9.0, 2.0, 2.0, 1.0])
    t, size = int(counts.sum()), 400
    explorer = DesignExploration(*problem.request_space().design(), forced=mode == "design") if mode != "arms" else None
    inv = np.linalg.inv(problem.features.T @ (counts[:, None] * problem.features))
    # bonus widths ||x_a||^2_{A^-1} scaled down so that no weight underflows (where the kernel's ridge and
    # alt_gradient's singular branch legitimately differ)
    widths = 0.01 * np.einsum("ij,jk,ik->i", problem.features, inv, problem.features) if mode == "optimistic" else None
    expected, exp_loss, exp_gap, exp_next = reference_rounds(problem, means, counts, t, size, explorer, widths)

    kernel, data = problem.best_response_kernel(means)
    cum_loss, cumulative, out = np.zeros(5), np.zeros(5), np.empty(size, dtype=np.intp)
    design = problem.features.T @ (counts[:, None] * problem.features)
    if explorer is None:
        feats, span, level = np.zeros((1, 1)), np.zeros(1, dtype=np.intp), 0.0
    else:
        feats, span, level = explorer.features, explorer.spanning, explorer.level_scale
    gap, nxt = game_stretch(kernel, data, cum_loss, 0.0, np.empty(0) if widths is None else widths, cumulative,
                            counts, float(t), out, feats, design, span, level, 0, explorer is not None)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_allclose(cum_loss, exp_loss, rtol=1e-8)
    assert gap == pytest.approx(exp_gap, rel=1e-8) and nxt == exp_next
    assert counts.sum() == t                                     # inputs left alone
    w = np.empty(5)
    adahedge_weights(cum_loss, gap, w)
    assert w.min() > 1e-3                                        # a regime where both formulas coincide
    if mode == "design":                                         # the forcing did act (e_3, e_4 rarely chosen)
        assert {2, 3} <= set(out.tolist())
