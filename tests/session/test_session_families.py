"""A session of every family, driven by the same world as ``pybai run``: same samples, counts and answer.

The world answers through the Python API with the runner's truth and noise streams of
replication 0, so the session must reproduce ``run_replication`` exactly; reopening the
database must rebuild (by replay) exactly the live strategy's state.
"""

import numpy as np
import pytest

from conftest import World, learner_document
from pybai.session import Session
from pybai.simulate.runner import run_replication
from pybai.simulate.seeding import STREAM_STRATEGY, child, replication_seed
from pybai.session.replay import strategy_seed

KERNEL = {"name": "rbf", "points": [0, 1, 2, 3]}
CASES = {
    "best-arm tas gaussian": ({"goal": "best-arm", "delta": 0.1},
                              {"kind": "gaussian", "means": [1.5, 0.5, 0.0]}, {"name": "tas"}),
    "best-arm top-two bernoulli": ({"goal": "best-arm", "delta": 0.1},
                                   {"kind": "bernoulli", "means": [0.7, 0.3, 0.2]}, {"name": "top-two"}),
    "best-arm tas bounded sub-bernoulli": ({"goal": "best-arm", "delta": 0.1, "reward_model": "bounded",
                                            "reward_range": [0.0, 1.0], "statistic": "sub-bernoulli"},
                                           {"kind": "bernoulli", "means": [0.7, 0.4, 0.3]}, {"name": "tas"}),
    "best-feasible-arm pair": ({"goal": "best-feasible-arm", "delta": 0.1},
                               {"kind": "subpopulation-gaussian", "means": [[1.0, 0.8], [0.2, 0.5], [1.5, -0.6]],
                                "weights": [0.5, 0.5], "floor": 0.0}, {"name": "tas-cs"}),
    "best-feasible-arm arm sampling": ({"goal": "best-feasible-arm", "delta": 0.1},
                                       {"kind": "subpopulation-gaussian",
                                        "means": [[1.8, 1.5], [0.0, 0.3], [2.0, -1.5]],
                                        "weights": [0.5, 0.5], "floor": 0.0, "sampling": "arm"}, {"name": "tas"}),
    "top-k game": ({"goal": "top-k", "delta": 0.1, "k": 2},
                   {"kind": "gaussian", "means": [2.5, 2.0, 0.0, -0.5]}, {"name": "game"}),
    "fixed-budget bayes-gap correlated": ({"goal": "best-arm", "budget": 40},
                                          {"kind": "correlated-gaussian", "means": [0.0, 0.5, 1.0, 0.2],
                                           "kernel": KERNEL, "sigma": 0.5}, {"name": "bayes-gap"}),
    "fixed-budget uniform correlated": ({"goal": "best-arm", "budget": 40},
                                        {"kind": "correlated-gaussian", "means": [0.0, 0.5, 1.0, 0.2],
                                         "kernel": KERNEL, "sigma": 0.5}, {"name": "uniform"}),
}


def test_strategy_stream_is_replication_zero_of_run():
    for seed in (0, 7, 2**40):
        a = np.random.default_rng(strategy_seed(seed)).random(4)
        b = np.random.default_rng(child(replication_seed(seed, 0), STREAM_STRATEGY)).random(4)
        assert np.array_equal(a, b)


def check_session_equals_run(workdir, problem, env, strategy):
    doc = {"name": "x", "seed": 11, "replications": 1, "problem": problem, "environment": env,
           "strategy": [strategy]}
    world = World(doc)
    exp = world.experiment
    expected = run_replication(exp.strategies[0][1], exp.environment, exp.problem, replication_seed(11, 0))
    db = workdir / "s.db"
    with Session.create(db, learner_document(doc)) as session:
        world.drive(session)
        status = session.status()
        live = session._replay.strategy.get_state()
    assert status["stopped"] and status["samples"] == expected.samples
    assert status["batches"] == expected.batches
    assert np.array_equal(np.asarray(status["counts"]).ravel(), expected.counts)
    assert np.array_equal(np.asarray(status["recommendation"]), np.asarray(expected.recommendation))
    assert status["status"] == expected.status
    with Session.open(db) as again:  # a new process would do the same: replay the log
        assert again._replay.strategy.get_state() == live
        assert again.status()["counts"] == status["counts"]
        assert len(again.observations()) == expected.samples


@pytest.mark.parametrize("case", sorted(CASES))
def test_session_equals_run_and_replays_exactly(workdir, case):
    check_session_equals_run(workdir, *CASES[case])


LINEAR_ENV = {"kind": "linear-gaussian", "features": [[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]], "theta": [1.0, -0.3],
              "sigma": 1.0}


@pytest.mark.parametrize("name", ["tas", "xy-adaptive"])
def test_linear_session_equals_run(workdir, name):
    check_session_equals_run(workdir, {"goal": "best-arm", "delta": 0.1}, LINEAR_ENV, {"name": name})


BATCH_TOP_K = {"batch-racing": {"delta": 0.1}, "batch-sar": {"budget": 6}, "halving": {"budget": 6},
               "round-robin": {"budget": 6}}


@pytest.mark.parametrize("name", sorted(BATCH_TOP_K))
def test_batch_top_k_session_equals_run(workdir, name):
    problem = {"goal": "top-k", "k": 2, "batch": {"size": 6, "max_repeats": 2}, **BATCH_TOP_K[name]}
    check_session_equals_run(workdir, problem, {"kind": "gaussian", "means": [2.0, 1.5, 0.0, -0.5, -1.0]},
                             {"name": name})


def test_session_from_objects_equals_session_from_file(workdir, gaussian_doc):
    world = World(gaussian_doc)
    exp = world.experiment
    with Session.create(workdir / "obj.db", problem=exp.problem, strategy=exp.strategies[0][1], seed=11) as s:
        world.drive(s)
        from_objects = s.status()
    world = World(gaussian_doc)
    with Session.create(workdir / "file.db", learner_document(gaussian_doc)) as s:
        world.drive(s)
        from_file = s.status()
    for key in ("samples", "counts", "means", "recommendation", "statistic", "threshold"):
        assert from_objects[key] == from_file[key]


def test_status_statistic_and_threshold_are_the_problems(workdir, gaussian_doc):
    world = World(gaussian_doc)
    with Session.create(workdir / "s.db", learner_document(gaussian_doc)) as s:
        for _ in range(6):
            r = s.ask()
            s.tell(r.id, *world.respond(r.requests))
        st = s.status()
        strategy = s._replay.strategy
        problem = s.problem
    # the session default, delta-correct, tests each hypothesis "j is best" with its own counts (the leader
    # rule): the status shows the evidence of the deciding hypothesis and the rule's level ln(1 / delta)
    rule = problem.threshold("delta-correct", 0.1)
    assert st["threshold_count_dependent"] and st["threshold"] == rule.level == pytest.approx(np.log(1 / 0.1))
    # the run's own rule: the leader rule's evidence reads the run's state (its leaders), which a new object lacks
    assert (st["statistic"], st["threshold"]) == strategy.threshold_.evidence(problem, strategy.model_, 6)
    assert (st["statistic"] >= st["threshold"]) == rule.decide(problem, strategy.model_, 6).stop
    assert st["samples"] == 6 and st["requests"] == 6 and st["answers"] == 6 and st["pending"] is None
    sums = np.zeros(3)
    counts = np.zeros(3)
    with Session.open(workdir / "s.db") as again:
        for row in again.observations():
            sums[row["source"]] += float(row["reward"])
            counts[row["source"]] += 1
    assert np.allclose(sums / counts, st["means"]) and counts.tolist() == st["counts"]
