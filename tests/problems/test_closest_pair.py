"""Problem.closest_pair: the pair a near-tie report names."""

import numpy as np

from pybai import BestArmProblem, FixedConfidence, Gaussian
from pybai.models.base import EmpiricalMeans
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.top_k import TopKProblem


def model(counts, means):
    return EmpiricalMeans(len(counts)).set_statistics(np.array(counts, float), np.array(counts, float) * means)


def test_best_arm_names_the_best_and_its_cheapest_rival():
    p = BestArmProblem(4, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    # arm 2 is closer in mean to the best (0) but far better sampled than arm 1
    assert p.closest_pair(model([100, 2, 100, 100], np.array([1.0, 0.5, 0.8, 0.0]))) == (0, 1)
    assert p.closest_pair(model([100, 100, 100, 100], np.array([1.0, 0.5, 0.8, 0.0]))) == (0, 2)
    assert p.closest_pair(model([5, 5, 5, 5], np.array([1.0, 1.0, 0.0, 0.0]))) == (0, 1)  # exact tie: cost 0
    assert p.closest_pair(EmpiricalMeans(4)) is None  # no estimates yet


def test_top_k_pairs_cross_the_boundary():
    p = TopKProblem(4, 2, Gaussian(1.0, n_sources=4), FixedConfidence(0.1))
    assert p.closest_pair(model([10, 10, 10, 10], np.array([2.0, 1.0, 0.9, -1.0]))) == (1, 2)


def test_problems_without_an_answer_mask_name_no_pair():
    p = LinearBestArmProblem(np.eye(2), 1.0, FixedConfidence(0.1))
    m = p.new_model()
    m.update(np.array([0, 1]), np.array([1.0, 0.0]))
    assert p.closest_pair(m) is None
