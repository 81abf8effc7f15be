"""The near-tie report of ``session status`` (pybai.session.near_tie)."""

import json
import pathlib

import numpy as np
import pytest

from conftest import World, learner_document
from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.cli import main
from pybai.session import Session
from pybai.session.near_tie import NEAR_TIE_FACTOR, samples_to_separate


def doc(means, threshold=None, seed=11, max_samples=None):
    problem = {"goal": "best-arm", "delta": 0.05}
    if max_samples is not None:
        problem["max_samples"] = max_samples
    strategy = {"name": "tas"} if threshold is None else {"name": "tas", "threshold": threshold}
    return {"name": "x", "seed": seed, "replications": 1, "problem": problem,
            "environment": {"kind": "gaussian", "means": means, "sigma": 1.0}, "strategy": [strategy]}


def answer(session, world, n):
    for _ in range(n):
        request = session.ask()
        session.tell(request.id, *world.respond(request.requests))


def test_tied_arms_are_reported_with_the_epsilon_advice(workdir, capsys):
    d = doc([1.0, 1.0, 0.0])
    world = World(d)
    db = workdir / "tie.db"
    with Session.create(db, learner_document(d)) as s:
        answer(s, world, 300)
        st = s.status()
    tie = st["near_tie"]
    assert not st["stopped"] and tie is not None
    assert tie["estimated_samples_to_separate"] == st["estimated_samples_to_stop"]
    assert sorted(tie["arms"]) == [0, 1]
    more = tie["estimated_samples_to_separate"]
    assert more is None or 300 + more > NEAR_TIE_FACTOR * 300
    assert tie["epsilon_later"] is True
    assert "keeping the guarantee" in tie["message"] and "pybai session epsilon" in tie["message"]
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db)]) == 0
    assert "near tie: arms" in capsys.readouterr().out
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["near_tie"]["arms"] == tie["arms"]


def test_separated_arms_are_never_reported(workdir):
    d = doc([1.5, 0.5, 0.0])
    world = World(d)
    with Session.create(workdir / "sep.db", learner_document(d)) as s:
        answer(s, world, 30)  # NEAR_TIE_MIN_SAMPLES per arm
        while not s.stopped:
            st = s.status()
            assert st["near_tie"] is None and st["estimated_samples_to_stop"] >= 1
            answer(s, world, 1)
        st = s.status()
        assert st["certified"] and st["estimated_samples_to_stop"] is None


def test_an_exact_empirical_tie_never_separates(workdir):
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.05))
    reward = {0: 1.0, 1: 1.0, 2: 0.0}
    with Session.create(workdir / "exact.db", problem=problem, strategy=make_strategy("tas"), seed=0) as s:
        for _ in range(40):
            request = s.ask()
            s.tell(request.id, request.requests, [reward[int(a)] for a in request.requests])
        tie = s.status()["near_tie"]
    assert tie["estimated_samples_to_separate"] is None and tie["statistic"] == 0.0
    assert sorted(tie["arms"]) == [0, 1] and "never" in tie["message"]


def test_a_heuristic_session_says_an_epsilon_cannot_keep_a_guarantee(workdir):
    d = doc([1.0, 1.0, 0.0], threshold="heuristic")
    world = World(d)
    with Session.create(workdir / "h.db", learner_document(d)) as s:
        answer(s, world, 200)
        tie = s.status()["near_tie"]
    assert tie is not None and tie["epsilon_later"] is False
    assert "no proven guarantee" in tie["message"]


def test_arms_whose_intervals_are_apart_are_not_nearly_tied(workdir):
    """At delta = 1e-30 separated arms still need far more than 10 times the samples spent, and
    fewer than max_samples leaves: neither makes a tie while the intervals do not overlap."""
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(1e-30, max_samples=400))
    mean = {0: 1.0, 1: 0.0, 2: -1.0}
    with Session.create(workdir / "apart.db", problem=problem, strategy=make_strategy("uniform"), seed=0) as s:
        for i in range(60):
            request = s.ask()
            s.tell(request.id, request.requests, [mean[int(a)] + (0.5 if i % 2 else -0.5) for a in request.requests])
        st = s.status()
    low, high = st["ci_low"], st["ci_high"]
    assert low[0] > high[1]  # the leading pair's 95% intervals are apart
    more = st["estimated_samples_to_stop"]
    assert more is None or (more > NEAR_TIE_FACTOR * 60 and more > 400 - 60)
    assert st["near_tie"] is None


def test_overlapping_intervals_alone_are_not_a_tie(workdir):
    """Arms 1.0 and 0.7 after 30 samples overlap, but the rule needs fewer than 10 times the samples spent."""
    problem = BestArmProblem(3, Gaussian(0.2, n_sources=3), FixedConfidence(0.05))
    mean = {0: 1.0, 1: 0.85, 2: 0.0}
    with Session.create(workdir / "close.db", problem=problem, strategy=make_strategy("uniform"), seed=0) as s:
        for i in range(30):
            request = s.ask()
            s.tell(request.id, request.requests, [mean[int(a)] + (0.2 if i % 2 else -0.2) for a in request.requests])
        st = s.status()
    assert st["ci_low"][0] <= st["ci_high"][1]
    assert st["estimated_samples_to_stop"] <= NEAR_TIE_FACTOR * 30 and st["near_tie"] is None


def test_samples_to_separate_is_the_first_crossing_of_the_scaled_statistic():
    """With a threshold of t alone and Gaussian arms, the scaled statistic is z T / t exactly."""
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.05))
    strategy = make_strategy("tas", threshold="heuristic").start(problem, rng=0)
    rng = np.random.default_rng(4)
    for _ in range(30):
        req = strategy.ask()
        strategy.tell(req, rng.normal([0.3, 0.2, 0.0])[req])
    assert strategy.status_ == "running"
    z = float(problem.statistic(strategy.model_))
    t = strategy.t_
    more = samples_to_separate(problem, strategy, z, limit=10**6)
    first = next(n for n in range(t + 1, 10**7) if z * n / t > strategy.threshold_(n))
    assert more == first - t


def test_a_top_k_tie_gets_the_epsilon_advice_and_stops_certified_once_told(workdir):
    """Top-k has an epsilon version (epsilon-top-k, docs/epsilon.md): a tie at the boundary is reported
    with the advice, and an epsilon given later stops the session with a certified epsilon-correct set."""
    d = {"name": "k", "seed": 3, "replications": 1, "problem": {"goal": "top-k", "k": 2, "delta": 0.05},
         "environment": {"kind": "gaussian", "means": [1.0, 0.5, 0.5, 0.0], "sigma": 1.0},
         "strategy": [{"name": "lucb"}]}
    world = World(d)
    with Session.create(workdir / "k.db", learner_document(d)) as s:
        answer(s, world, 200)
        tie = s.status()["near_tie"]
        assert tie is not None and tie["epsilon_later"] is True and "pybai session epsilon" in tie["message"]
        assert sorted(tie["arms"]) == [1, 2]
        s.set_epsilon(0.3)
        while not s.stopped:
            answer(s, world, 1)
        st = s.status()
    assert st["stopped"] and st["certified"] and 0 in st["recommendation"]
