"""A bounded (KL_inf) session on rewards that repeat: the exact stores decide, and reopening rebuilds them."""

import numpy as np

from conftest import World, learner_document
from pybai.session import Session
from test_session_families import check_session_equals_run

PROBLEM = {"goal": "best-arm", "delta": 0.1, "reward_model": "bounded", "reward_range": [0.0, 1.0]}
ENV = {"kind": "bernoulli", "means": [0.9, 0.3, 0.2]}


def test_bounded_session_on_bernoulli_rewards_equals_run_and_replays(workdir):
    check_session_equals_run(workdir, PROBLEM, ENV, {"name": "tas"})


def test_reopened_session_keeps_the_stores(workdir):
    doc = {"name": "x", "seed": 3, "replications": 1, "problem": PROBLEM, "environment": ENV,
           "strategy": [{"name": "top-two"}]}
    world = World(doc)
    with Session.create(workdir / "s.db", learner_document(doc)) as session:
        for _ in range(30):
            r = session.ask()
            session.tell(r.id, *world.respond(r.requests))
        model = session._replay.strategy.model_
        assert model.exact.all() and (model.n_values >= 1).all()
        stores = [getattr(model, name).copy() for name in ("values", "value_counts", "n_values")]
    with Session.open(workdir / "s.db") as again:
        model = again._replay.strategy.model_
        for name, stored in zip(("values", "value_counts", "n_values"), stores):
            assert np.array_equal(getattr(model, name), stored)
