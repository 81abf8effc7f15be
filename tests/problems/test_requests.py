"""Request spaces: what each family lets a learner ask for, and the conversions around it."""

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian
from pybai.problems.feasible import ArmLevel, CellSpace, FeasibleArmProblem
from pybai.problems.linear import DesignSpace, LinearBestArmProblem
from pybai.problems.requests import IdentityView, RequestSpace


def test_plain_space_is_the_identity_with_a_round_robin_start():
    space = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1)).request_space()
    assert type(space) is RequestSpace and space.identity and space.default_start
    assert space.n_requests == 3 and space.source_shape == (3,)
    np.testing.assert_array_equal(space.initial_requests(2), [0, 1, 2, 0, 1, 2])
    w = np.array([0.2, 0.3, 0.5])
    assert space.weights(w) is w and space.expand(w) is w and space.counts(w) is w and space.gains(w) is w
    view = space.arm_view()
    assert isinstance(view, IdentityView) and view.identity and view.n_arms == 3
    assert view.random_cell(2, None) == 2 and view.proportional_cell(1, w) == 1
    assert space.design() is None and space.explorations == ("arms",)


@pytest.mark.parametrize("sampling", ["pair", "arm"])
def test_cell_space_converts_between_cells_and_arms(sampling):
    p = FeasibleArmProblem(2, 3, [0.5, 0.3, 0.2], None, 0.0, Gaussian(1.0, n_sources=6), FixedConfidence(0.1),
                           sampling=sampling)
    space = p.request_space()
    assert p.request_space() is space  # built once
    assert isinstance(space, CellSpace) and space.source_shape == (2, 3) == p.source_shape
    counts = np.arange(6.0)
    if sampling == "arm":
        assert not space.identity and space.n_requests == 2 == p.n_requests
        np.testing.assert_array_equal(space.counts(counts), [3.0, 12.0])
        np.testing.assert_allclose(space.expand(np.array([0.4, 0.6])), [0.2, 0.12, 0.08, 0.3, 0.18, 0.12])
        np.testing.assert_allclose(space.weights(space.expand(np.array([0.4, 0.6]))), [0.4, 0.6])
        np.testing.assert_allclose(space.gains(np.arange(6.0)), [0.7, 3.7])  # expected over q
        np.testing.assert_array_equal(space.request_of(np.array([0, 2, 4])), [0, 0, 1])
        assert isinstance(space.arm_view(), IdentityView)
    else:
        assert space.identity and space.n_requests == 6 and space.counts(counts) is counts
        view = space.arm_view()
        assert isinstance(view, ArmLevel) and not view.identity
        np.testing.assert_array_equal(view.arm_counts(counts), [3.0, 12.0])
        cells = view.random_cells(np.ones(2000, dtype=int), np.random.default_rng(0))
        assert set(cells) <= {3, 4, 5}
        np.testing.assert_allclose(np.bincount(cells - 3) / 2000, [0.5, 0.3, 0.2], atol=0.04)


def test_design_space_starts_on_a_spanning_set_and_offers_design_forcing():
    x = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.7, 0.7]])
    p = LinearBestArmProblem(x, 1.0, FixedConfidence(0.1))
    space = p.request_space()
    assert isinstance(space, DesignSpace) and not space.default_start
    start = space.initial_requests(1)
    assert start.size == 2 and np.linalg.matrix_rank(x[start]) == 2 and 1 not in start  # no duplicate row
    features, spanning = space.design()
    assert features is p.features and np.array_equal(spanning, start)
    assert space.default_exploration == "design" and "none" in space.explorations
