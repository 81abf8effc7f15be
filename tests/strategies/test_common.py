"""Checks every registered strategy must pass, on every goal and regime it declares.

The cases come from the registry and from ``instances.GOAL_INSTANCES``: a new strategy or a
new goal is covered without editing this file.
"""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from pybai import (
    BatchLimitError,
    BernoulliEnvironment,
    BestArmProblem,
    FixedConfidence,
    InvalidParameterError,
    RequestError,
    SessionStateError,
    get_strategy_class,
    registered_names,
    restore_strategy,
)

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from instances import build, cases, default_label  # noqa: E402

CASES = cases(registered_names(), get_strategy_class)
IDS = ["-".join(str(x) for x in (n, g, label, r, "batch" if b else "seq")) for n, g, label, r, b in CASES]


def finish(strategy, env, noise, limit=200_000):
    """Drive ``strategy`` to its end against ``env``; return a JSON-able record of the run."""
    problem = strategy.problem_
    batch = problem.batch
    asks = 0
    while not strategy.stopped:
        req = strategy.ask()
        if batch is not None:
            assert req.size <= batch.size
            assert np.unique(req, return_counts=True)[1].max() <= batch.max_repeats
        elif not strategy.asks_chunks:  # chunked rules ask stretches of a fixed design
            assert req.size <= 2
        strategy.tell(*env.respond(req, noise), request_id=strategy.request_id)
        asks += 1
        assert asks <= limit, "a run must stop"
    res = strategy.result()
    rec = res.recommendation
    return {
        "status": res.status,
        "samples": res.samples,
        "batches": res.batches,
        "counts": res.counts.tolist(),
        "recommendation": rec if rec is None or np.ndim(rec) == 0 else [int(x) for x in rec],
    }


def start(case, seed=0):
    name, goal, label, regime, batched = case
    env, problem = build(goal, label, regime, batched)
    strategy = get_strategy_class(name)().start(problem, rng=seed)
    if strategy.reference:  # a reference point is told the truth, as the simulation runner does
        strategy.reveal_truth(env.source_means)
    return env, problem, strategy


def test_standard_strategies_are_registered():
    assert {"uniform", "tas", "lucb", "top-two", "game", "tas-cs"} <= set(registered_names())
    assert {c[0] for c in CASES} == set(registered_names()), "every registered strategy has a case"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_runs_within_its_regime_and_recommends(case):
    env, problem, strategy = start(case)
    run = finish(strategy, env, np.random.default_rng(1))
    # a sample is a request answered (one observation may carry several sources: every metric of an arm)
    assert run["samples"] == sum(problem.request_space().counts(np.asarray(run["counts"], dtype=float)))
    if case[3] == "fixed-budget":
        spent = run["batches"] if problem.batch is not None else run["samples"]
        if run["status"] == "stopped" and strategy.may_stop_early:
            assert spent < problem.regime.budget  # a rule that ends when its answer is forced
        else:
            assert run["status"] == "budget-spent"
            assert spent == problem.regime.budget  # exactly the budget
    else:
        assert run["status"] in ("stopped", "censored")
        assert run["samples"] <= problem.regime.max_samples
        if run["status"] == "stopped":
            assert strategy.result().statistic > 0
    assert run["recommendation"] is not None
    final = json.loads(json.dumps(strategy.get_state()))  # a final state restores, its status checked
    assert restore_strategy(final, problem).get_state() == final


@pytest.mark.parametrize("name", registered_names())
def test_a_rule_with_a_stopping_rule_of_its_own_says_so(name):
    """A restored "stopped" state is checked against the problem's stopping decision only for rules that stop
    by it: a rule that overrides ``_should_stop`` must set ``stops_on_statistics = False``."""
    from pybai.strategies.base import Strategy

    cls = get_strategy_class(name)
    if cls._should_stop is not Strategy._should_stop:
        assert not cls.stops_on_statistics, name


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_same_seed_same_run(case):
    env, _, a = start(case, seed=7)
    env, _, b = start(case, seed=7)
    assert finish(a, env, np.random.default_rng(3)) == finish(b, env, np.random.default_rng(3))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_request_rules(case):
    env, problem, strategy = start(case)
    fresh = get_strategy_class(case[0])()
    with pytest.raises(SessionStateError):
        fresh.ask()
    with pytest.raises(SessionStateError, match="ask"):
        strategy.tell([0], [0.0])  # nothing pending yet
    req = strategy.ask()
    rid = strategy.request_id
    np.testing.assert_array_equal(strategy.ask(), req)  # idempotent until answered
    assert strategy.request_id == rid
    sources, rewards = env.respond(req, np.random.default_rng(0))
    before = json.dumps(strategy.get_state())
    bad_calls = [
        ((sources, [np.nan] * len(sources)), {}, InvalidParameterError, "rewards"),
        ((["a"] * len(sources), rewards), {}, InvalidParameterError, "sources"),
        ((sources, ["x"] * len(sources)), {}, InvalidParameterError, "rewards"),
        ((sources, ["0.5"] * len(sources)), {}, InvalidParameterError, "rewards"),
        ((sources, [True] * len(sources)), {}, InvalidParameterError, "rewards"),
        ((sources, np.ones(len(sources), dtype=bool)), {}, InvalidParameterError, "rewards"),
        ((sources, np.asarray(rewards) + 1j), {}, InvalidParameterError, "rewards"),
        ((sources, [complex(r) for r in rewards]), {}, InvalidParameterError, "rewards"),
        (([problem.n_sources + 5], [0.0]), {}, InvalidParameterError, "sources"),
        ((sources, rewards[:-1] if len(rewards) > 1 else []), {}, InvalidParameterError, "rewards"),
        ((sources, rewards), {"request_id": rid + 1}, RequestError, "not pending"),
    ]
    other = [s for s in range(problem.n_sources) if problem.request_space().request_of(np.array([s]))[0] not in req]
    if other:
        bad_calls.append((([other[0]], [0.0]), {}, RequestError, "not"))
    if problem.family.name == "bernoulli":
        bad_calls.append(((sources, [5.0] * len(sources)), {}, RequestError, "0 or 1"))
        bad_calls.append(((sources, [-1.0] * len(sources)), {}, RequestError, "0 or 1"))
    for args, kwargs, error, message in bad_calls:
        with pytest.raises(error, match=message):
            strategy.tell(*args, **kwargs)
        assert json.dumps(strategy.get_state()) == before, "a refused tell changes nothing"
    strategy.tell(sources, rewards, request_id=rid)
    assert strategy.t_ == len(problem.request_space().answered(sources))  # one sample per observation
    with pytest.raises(SessionStateError):
        strategy.tell(sources, rewards, request_id=rid)  # already answered, nothing pending
    finish(strategy, env, np.random.default_rng(2))
    with pytest.raises(SessionStateError, match="stopped"):
        strategy.ask()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_asked_requests_and_estimates_cannot_be_changed_by_the_caller(case):
    """ask() hands out its pending array and counts_/sums_/means_ are views of the model: all
    read-only, so writing into them raises and leaves the state as it was (initial phase and rule)."""
    env, problem, strategy = start(case)
    noise = np.random.default_rng(0)
    for step in range(30):
        if strategy.stopped:
            break
        req = strategy.ask()
        before = json.dumps(strategy.get_state())
        for array in (req, strategy.counts_, strategy.sums_, strategy.means_):
            with pytest.raises(ValueError, match="read-only"):
                array[0] = array[-1] + 1
        assert json.dumps(strategy.get_state()) == before
        np.testing.assert_array_equal(strategy.ask(), req)
        strategy.tell(*env.respond(req, noise))
    res = strategy.result()  # copies: the caller may change them
    res.counts[0] += 1
    assert strategy.result().counts[0] == res.counts[0] - 1


@pytest.mark.parametrize("case", [c for c in CASES if c[4]], ids=[i for i, c in zip(IDS, CASES) if c[4]])
def test_partial_answer_keeps_the_rest_pending(case):
    env, problem, strategy = start(case)
    noise = np.random.default_rng(0)
    for _ in range(200):  # find a batch of several samples
        req = strategy.ask()
        if req.size > 1 or strategy.stopped:
            break
        strategy.tell(*env.respond(req, noise))
    if req.size < 2:
        pytest.skip("no multi-sample batch before the end")
    rid = strategy.request_id
    sources, rewards = env.respond(req, noise)
    first = len(sources) // len(req)  # the sources of one observation (several when it carries several metrics)
    strategy.tell(sources[:first], rewards[:first], request_id=rid)
    rest = strategy.ask()
    assert strategy.request_id == rid and rest.size == req.size - 1
    strategy.tell(sources[first:], rewards[first:], request_id=rid)
    assert strategy.request_id is None or strategy.request_id != rid
    assert strategy.batches_ >= 1


@pytest.mark.parametrize("name", registered_names())
def test_bad_parameters_name_the_parameter(name):
    cls = get_strategy_class(name)
    _, problem = build("best-arm", default_label(cls, "best-arm"), "fixed-confidence", False) if "best-arm" in \
        cls.goals else build("best-feasible-arm", "pair", "fixed-confidence", False)
    with pytest.raises(InvalidParameterError, match="'threshold'"):
        get_strategy_class(name)(threshold="fast").start(problem)
    with pytest.raises(InvalidParameterError, match="'n_init'"):
        get_strategy_class(name)(n_init=0).start(problem)


@pytest.mark.parametrize("name", registered_names())
def test_get_params_and_clone(name):
    cls = get_strategy_class(name)
    s = cls()
    assert cls(**s.get_params()).get_params() == s.get_params()
    assert name == cls.name and cls.__name__ in repr(s)
    c = s.clone()
    assert c is not s and c.get_params() == s.get_params()


@pytest.mark.parametrize("name", [n for n in registered_names() if not get_strategy_class(n).batched])
def test_sequential_strategies_refuse_batches(name):
    cls = get_strategy_class(name)
    goal = cls.goals[0]
    label = default_label(cls, goal)
    _, problem = build(goal, label, cls.regimes[0], True)
    with pytest.raises(InvalidParameterError, match="batch"):
        cls().start(problem)


def test_max_samples_is_exact_and_censoring_is_a_status():
    env = BernoulliEnvironment([0.5, 0.5001])
    for name in registered_names():
        cls = get_strategy_class(name)
        if "best-arm" not in cls.goals or "fixed-confidence" not in cls.regimes:
            continue
        problem = BestArmProblem(2, env.family(), FixedConfidence(0.01, max_samples=101))
        arms = env
        if "features" in cls.requires:
            from pybai.environments.linear import LinearGaussianEnvironment
            from pybai.problems.linear import LinearBestArmProblem

            arms = LinearGaussianEnvironment([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5001], 1.0)
            problem = LinearBestArmProblem(**arms.structure(), regime=FixedConfidence(0.01, max_samples=101))
        strategy = cls().start(problem, rng=0)
        if strategy.reference:
            strategy.reveal_truth(arms.source_means)
        run = finish(strategy, arms, np.random.default_rng(0))
        assert run["status"] == "censored" and run["samples"] == 101, name


def test_batch_limits_are_enforced():
    from pybai import Uniform
    from pybai.problems import BatchSpec

    env = BernoulliEnvironment([0.5, 0.4, 0.3])
    problem = BestArmProblem(3, env.family(), FixedConfidence(0.1), BatchSpec(4, 2))

    class Greedy(Uniform):
        def _select(self):
            return np.zeros(3, dtype=int)  # three pulls of one arm: r = 2 allows two

    s = Greedy().start(problem, rng=0)
    with pytest.raises(BatchLimitError, match="r = 2"):
        while True:
            s.tell(*env.respond(s.ask(), np.random.default_rng(0)))


def test_round_trip_in_a_fresh_process(tmp_path):
    """Stop mid-run, serialise, restore in a new process, continue: exactly the uninterrupted run."""
    saved, expected = {}, {}
    for i, case in enumerate(CASES):
        env, _, strategy = start(case, seed=11)
        noise = np.random.default_rng(5)
        for _ in range(17):  # into the rule's own phase for most cases
            if strategy.stopped:
                break
            req = strategy.ask()
            sources, rewards = env.respond(req, noise)
            if req.size > 1:  # also save a partly answered batch
                strategy.tell(sources[:1], rewards[:1])
                break
            strategy.tell(sources, rewards)
        if strategy.stopped:
            continue
        saved[str(i)] = {"case": list(case), "state": strategy.get_state(), "noise": noise.bit_generator.state}
        json.dumps(saved[str(i)])  # JSON-safe
        expected[str(i)] = finish(strategy, env, noise)  # the uninterrupted run: the same object, continued
    src = tmp_path / "saved.json"
    out = tmp_path / "out.json"
    src.write_text(json.dumps(saved))
    here = pathlib.Path(__file__).parent
    proc = subprocess.run([sys.executable, str(here / "_resume_child.py"), str(src), str(out), str(here)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(out.read_text())
    assert len(got) >= len(CASES) - 2
    for key, run in expected.items():
        assert got[key] == run, (saved[key]["case"], got[key], run)


@pytest.mark.parametrize("name", [n for n in registered_names() if "posterior" in get_strategy_class(n).requires])
def test_posterior_rules_refuse_independent_arms(name):
    _, problem = build("best-arm", "gaussian", "fixed-budget", False)
    with pytest.raises(InvalidParameterError, match="posterior"):
        get_strategy_class(name)().start(problem)


@pytest.mark.parametrize("name", [n for n in registered_names() if "features" in get_strategy_class(n).requires])
def test_linear_rules_refuse_independent_arms(name):
    _, problem = build("best-arm", "gaussian", "fixed-confidence", False)
    with pytest.raises(InvalidParameterError, match="linear"):
        get_strategy_class(name)().start(problem)


SEQUENTIAL = [c for c in CASES if not c[4]]
SEQ_IDS = [i for i, c in zip(IDS, CASES) if not c[4]]


@pytest.mark.parametrize("case", SEQUENTIAL, ids=SEQ_IDS)
def test_several_outstanding_requests_answered_in_any_order(case):
    """max_pending = 3: new requests while fewer than 3 are outstanding, the oldest when 3 are; answers
    in a random order, some cancelled; the regime's limits hold, and a saved state continues alike."""
    env, problem = build(*case[1:])
    cls = get_strategy_class(case[0])
    if cls.single_request:
        with pytest.raises(InvalidParameterError, match="max_pending = 3"):
            cls().start(problem, rng=0, max_pending=3)
        return
    strategy = cls().start(problem, rng=0, max_pending=3)
    if strategy.reference:
        strategy.reveal_truth(env.source_means)
    noise, order = np.random.default_rng(1), np.random.default_rng(2)
    limit = problem.regime.max_samples if case[3] == "fixed-confidence" else problem.regime.budget
    for step in range(200):
        if strategy.stopped:
            break
        before = strategy.outstanding
        req = strategy.ask()
        if len(before) == 3 or strategy.t_ + sum(p.size for p in before.values()) >= limit:  # the oldest again
            assert strategy.request_id == next(iter(before)) and np.array_equal(req, before[strategy.request_id])
        else:
            assert strategy.request_id not in before and len(strategy.outstanding) == len(before) + 1
        if step == 100:  # the state, with requests outstanding, continues exactly
            from pybai import restore_strategy

            copy = restore_strategy(json.loads(json.dumps(strategy.get_state())), problem)
            assert copy.outstanding.keys() == strategy.outstanding.keys()
        if len(strategy.outstanding) < 3 and order.random() < 0.5:
            continue  # keep it outstanding for now
        rid = list(strategy.outstanding)[order.integers(len(strategy.outstanding))]
        if order.random() < 0.1:
            strategy.cancel(rid)
            with pytest.raises((RequestError, SessionStateError), match="not pending|no pending"):
                strategy.tell(*env.respond(req, noise), request_id=rid)
        else:
            strategy.tell(*env.respond(strategy.outstanding[rid], noise), request_id=rid)
        assert strategy.t_ == problem.request_space().counts(strategy.counts_).sum()
        assert strategy.t_ + sum(p.size for p in strategy.outstanding.values()) <= limit
    assert strategy.recommendation() is not None or strategy.t_ == 0


@pytest.mark.parametrize("case", [c for c in SEQUENTIAL if c[3] == "fixed-confidence" and c[1] == "best-arm"][:6])
def test_a_burst_of_asks_is_spread(case):
    """After the initial phase, ten asks without answers do not all go to one source (the rule sees
    counts plus pending), and with max_pending = 1 the run is the sequential one."""
    env, problem = build(*case[1:])
    cls = get_strategy_class(case[0])
    if cls.single_request:
        pytest.skip("one request at a time")
    burst = cls().start(problem, rng=0, max_pending=10)
    noise = np.random.default_rng(0)
    while not burst._ready and not burst.stopped:
        burst.tell(*env.respond(burst.ask(), noise))
    if burst.stopped:
        pytest.skip("stopped in the initial phase")
    asked = np.concatenate([burst.ask() for _ in range(10)])
    assert np.unique(asked).size > 1, asked
