"""One trajectory, many deltas: the shared runs give each delta the outcome of its own run."""

from __future__ import annotations

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, TopKProblem, make_strategy
from pybai.environments.gaussian import GaussianEnvironment
from pybai.simulate.engine import run_sweep
from pybai.simulate.runner import run_replication, run_replication_deltas
from pybai.simulate.tasks import Sweep

DELTAS = (0.001, 0.1, 0.01, 0.3)  # any order: the runner orders the thresholds


def _key(o):
    return (o.samples, o.status, o.recommendation, o.correct, o.counts.tolist())


@pytest.mark.parametrize("name,params", [("tas", {}), ("tas", {"tracking": "D", "threshold": "kk21"}),
                                         ("uniform", {}), ("top-two", {"selection": "random"}), ("game", {}),
                                         ("tas", {"threshold": "delta-correct"})])
def test_shared_trajectory_gives_each_delta_its_own_outcome(name, params):
    env = GaussianEnvironment([1.0, 0.7, 0.5, 0.2], 1.0)
    problems = [BestArmProblem(4, Gaussian(1.0, n_sources=4), FixedConfidence(d, max_samples=600)) for d in DELTAS]
    strategy = make_strategy(name, params)
    for r in range(3):
        seed = np.random.SeedSequence(11, spawn_key=(r,))
        shared = run_replication_deltas(strategy, env, problems, seed, r)
        assert shared is not None
        alone = [run_replication(strategy, env, p, seed, r, fast=False) for p in problems]
        assert [_key(o) for o in shared] == [_key(o) for o in alone]


@pytest.mark.parametrize("name,threshold", [("uniform", "heuristic"), ("game", "heuristic"), ("game", "delta-correct")])
def test_shared_top_k_trajectory_gives_each_delta_its_own_outcome(name, threshold):
    env = GaussianEnvironment([1.0, 0.2, 0.8, 0.3, 0.0], 0.5)
    problems = [TopKProblem(5, 2, Gaussian(0.5, n_sources=5), FixedConfidence(d, max_samples=600)) for d in DELTAS]
    strategy = make_strategy(name, {"threshold": threshold})
    for r in range(2):
        seed = np.random.SeedSequence(13, spawn_key=(r,))
        shared = run_replication_deltas(strategy, env, problems, seed, r)
        assert shared is not None
        alone = [run_replication(strategy, env, p, seed, r, fast=False) for p in problems]
        key = [(o.samples, o.status, o.recommendation.tolist(), o.correct, o.counts.tolist()) for o in shared]
        assert key == [(o.samples, o.status, o.recommendation.tolist(), o.correct, o.counts.tolist()) for o in alone]
        assert len({o.samples for o in shared}) > 1  # the deltas stop at different times


def test_lucb_samples_with_delta_so_it_does_not_share():
    env = GaussianEnvironment([1.0, 0.5], 1.0)
    problems = [BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(d)) for d in (0.1, 0.01)]
    assert run_replication_deltas(make_strategy("lucb"), env, problems, np.random.SeedSequence(0)) is None


DOC = {
    "name": "delta-sweep", "replications": 12, "seed": 5, "share_trajectories": True,
    "problem": {"goal": "best-arm", "delta": 0.1, "max_samples": 3000},
    "environment": {"kind": "bernoulli", "means": [0.6, 0.45, 0.4]},
    "strategy": [{"name": "tas"}, {"name": "lucb"}],
    "grid": {"problem.delta": [0.2, 0.05, 0.01, 0.001]},
}


def _rows(document):
    return [{k: v for k, v in row.items() if k not in ("wall_seconds", "cpu_seconds")} for row in document["results"]]


def test_a_delta_sweep_shares_seeds_and_trajectories_and_matches_separate_runs():
    sweep = Sweep.from_document(DOC)
    assert [e.seed_point for e in sweep.experiments] == [0, 0, 0, 0]
    assert sweep.experiments[0].delta_group == (0, 1, 2, 3)
    shared = run_sweep(sweep)
    separate = run_sweep(sweep, compiled=False)  # each point's own ask/tell runs on the shared seeds
    assert _rows(shared) == _rows(separate)
    means = [row["mean_samples"] for row in shared["results"] if row["strategy"] == "tas"]
    assert means == sorted(means)  # a smaller delta never stops earlier on the same trajectory
