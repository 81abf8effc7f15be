"""The checks every registered strategy must pass, on every goal, instance and regime it declares.

Each check is a plain function that raises :class:`AssertionError` with what went wrong (or
:class:`~pybai.testing.CheckSkipped` for a case it does not apply to).  The per-case checks take a
:class:`~pybai.testing.instances.Case` (:data:`CASE_CHECKS`), the per-rule ones a registered name
(:data:`RULE_CHECKS`); :func:`check_strategy` runs them all on one strategy.

>>> from pybai.testing import check_strategy
>>> report = check_strategy("uniform", labels=["bernoulli"])
>>> sorted({outcome.split(":")[0] for outcome in report.values()})
['passed', 'skipped']
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np

from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.exceptions import InvalidParameterError, RequestError, SessionStateError
from pybai.problems.base import FixedConfidence
from pybai.problems.best_arm import BestArmProblem
from pybai.strategies.base import Strategy
from pybai.strategies.registry import get_strategy_class
from pybai.strategies.state import restore_strategy
from pybai.testing._outcomes import CheckSkipped, raises, run_checks
from pybai.testing.instances import build, case_id, checked_strategy, default_label, strategy_cases

__all__ = ["play", "start", "check_runs_within_its_regime", "check_same_seed_same_run", "check_request_rules",
           "check_read_only_arrays", "check_partial_answer", "check_outstanding_requests", "check_burst_is_spread",
           "check_state_round_trip", "saved_mid_run", "resume_saved", "check_bad_parameters", "check_params_and_clone", "check_refuses_batches",
           "check_max_samples_is_exact", "check_own_stopping_rule_is_declared", "CASE_CHECKS", "RULE_CHECKS", "check_strategy"]


def play(strategy, env, noise, limit: int = 200_000) -> dict:
    """Drive ``strategy`` to its end against ``env``; a JSON-able record of the run.

    Every request must respect the batch limits (b, r), or ask at most two sources at a time
    when sequential (unless the rule asks stretches of a fixed design); a run must end within
    ``limit`` asks.
    """
    batch = strategy.problem_.batch
    asks = 0
    while not strategy.stopped:
        req = strategy.ask()
        if batch is not None:
            assert req.size <= batch.size, f"a request of {req.size} samples in batches of {batch.size}"
            assert np.unique(req, return_counts=True)[1].max() <= batch.max_repeats, \
                f"a source asked more than max_repeats = {batch.max_repeats} times in {req}"
        elif not strategy.asks_chunks:  # chunked rules ask stretches of a fixed design
            assert req.size <= 2, f"a sequential request of {req.size} samples"
        strategy.tell(*env.respond(req, noise), request_id=strategy.request_id)
        asks += 1
        assert asks <= limit, f"the run did not stop within {limit} asks"
    res = strategy.result()
    rec = res.recommendation
    return {
        "status": res.status,
        "samples": res.samples,
        "batches": res.batches,
        "counts": res.counts.tolist(),
        "recommendation": rec if rec is None or np.ndim(rec) == 0 else [int(x) for x in rec],
    }


def start(case, seed: int = 0, **options):
    """``(environment, problem, strategy)`` of ``case``, the strategy (its check parameters:
    :func:`~pybai.testing.instances.checked_strategy`) started with ``seed`` (a reference point is told
    the truth, as the simulation runner does)."""
    name, goal, label, regime, batched = case
    env, problem = build(goal, label, regime, batched)
    strategy = checked_strategy(name).start(problem, rng=seed, **options)
    if strategy.reference:
        strategy.reveal_truth(env.source_means)
    return env, problem, strategy


def _state(strategy) -> str:
    return json.dumps(strategy.get_state())


def _unchanged_since(strategy, before: dict) -> bool:
    """Whether ``strategy.get_state()`` equals ``before`` (an earlier one): the dicts compared, the digest
    included (SHA-256 of the canonical JSON of every section, which tells -0.0 from 0.0), without
    encoding the JSON again."""
    return strategy.get_state() == before


# ----------------------------------------------------------------------- per case
def check_runs_within_its_regime(case, seeds: tuple[int, int] = (0, 1)) -> dict:
    """A whole run ends in its regime's way (the budget exactly spent, or a stop / censoring within
    ``max_samples``) with a recommendation, and its counts add up to its samples.

    ``seeds``: of the strategy and of the rewards.  Returns the run's record (:func:`play`).
    """
    env, problem, strategy = start(case, seed=seeds[0])
    run = play(strategy, env, np.random.default_rng(seeds[1]))
    # a sample is a request answered (one observation may carry several sources: every metric of an arm)
    answered = sum(problem.request_space().counts(np.asarray(run["counts"], dtype=float)))
    assert run["samples"] == answered, f"{run['samples']} samples but counts {run['counts']}"
    if case[3] == "fixed-budget":
        spent = run["batches"] if problem.batch is not None else run["samples"]
        if run["status"] == "stopped" and strategy.may_stop_early:
            assert spent < problem.regime.budget, "a rule that stops early stopped at the budget"
        else:
            assert run["status"] == "budget-spent", f"status {run['status']!r} in fixed budget"
            assert spent == problem.regime.budget, f"{spent} spent of a budget of {problem.regime.budget}"
    else:
        assert run["status"] in ("stopped", "censored"), f"status {run['status']!r} in fixed confidence"
        assert run["samples"] <= problem.regime.max_samples, f"{run['samples']} samples > max_samples"
        if run["status"] == "stopped":
            assert strategy.result().statistic > 0, "stopped with a statistic <= 0"
    assert run["recommendation"] is not None, "no recommendation at the end"
    final = json.loads(_state(strategy))  # a final state restores, its status checked
    assert restore_strategy(final, problem).get_state() == final, "the final state does not restore to itself"
    return run


def check_same_seed_same_run(case, first: dict | None = None) -> None:
    """The same seeds give the same run.

    ``first``: the record (:func:`play`) of a run of ``case`` with seeds ``(7, 3)`` made earlier in this
    process (e.g. :func:`check_runs_within_its_regime` ``(case, seeds=(7, 3))``); one new run is then
    compared with it instead of two new runs with each other.
    """
    runs = [] if first is None else [first]
    while len(runs) < 2:
        env, _, strategy = start(case, seed=7)
        runs.append(play(strategy, env, np.random.default_rng(3)))
    assert runs[0] == runs[1], f"two runs with the same seeds differ: {runs[0]} and {runs[1]}"


def check_request_rules(case) -> None:
    """ask before start and tell before ask are refused; ask is idempotent until answered; every bad
    answer is refused naming what is wrong and changes nothing; an answered request cannot be
    answered again; a stopped strategy asks nothing."""
    env, problem, strategy = start(case)
    with raises(SessionStateError, doing="ask() before start()"):
        get_strategy_class(case[0])().ask()
    with raises(SessionStateError, match="ask", doing="tell() before any ask()"):
        strategy.tell([0], [0.0])
    req = strategy.ask()
    rid = strategy.request_id
    assert np.array_equal(strategy.ask(), req) and strategy.request_id == rid, "ask() is not idempotent"
    sources, rewards = env.respond(req, np.random.default_rng(0))
    before = strategy.get_state()
    bad_calls: list[tuple[tuple, dict, type[Exception] | tuple[type[Exception], ...], str]] = [
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
    low, high = problem.family.support
    if np.isfinite(high):  # rewards outside the family's support
        bad_calls.append(((sources, [high + 4.0] * len(sources)), {}, (RequestError, InvalidParameterError), ""))
    if np.isfinite(low):
        bad_calls.append(((sources, [low - 1.0] * len(sources)), {}, (RequestError, InvalidParameterError), ""))
    for args, kwargs, error, message in bad_calls:
        with raises(error, match=message or None, doing=f"tell{args!r:.120} {kwargs or ''}"):
            strategy.tell(*args, **kwargs)
        assert _unchanged_since(strategy, before), f"a refused tell{args!r:.120} changed the state"
    strategy.tell(sources, rewards, request_id=rid)
    answered = len(problem.request_space().answered(sources))  # one sample per observation
    assert strategy.t_ == answered, f"t_ = {strategy.t_} after {answered} samples"
    with raises(SessionStateError, doing="a second answer to an answered request"):
        strategy.tell(sources, rewards, request_id=rid)
    play(strategy, env, np.random.default_rng(2))
    with raises(SessionStateError, match="stopped", doing="ask() after the stop"):
        strategy.ask()


def check_read_only_arrays(case) -> None:
    """ask() hands out read-only arrays and counts_/sums_/means_ are read-only views: writing into
    them raises and leaves the state as it was; result() hands out copies."""
    env, _, strategy = start(case)
    noise = np.random.default_rng(0)
    for _ in range(30):
        if strategy.stopped:
            break
        req = strategy.ask()
        before = strategy.get_state()
        for what, array in (("ask()", req), ("counts_", strategy.counts_), ("sums_", strategy.sums_),
                            ("means_", strategy.means_)):
            with raises(ValueError, match="read-only", doing=f"writing into {what}"):
                array[0] = array[-1] + 1
        assert _unchanged_since(strategy, before), "a refused write changed the state"
        assert np.array_equal(strategy.ask(), req), "ask() changed after a refused write"
        strategy.tell(*env.respond(req, noise))
    res = strategy.result()
    res.counts[0] += 1
    assert strategy.result().counts[0] == res.counts[0] - 1, "result().counts is not a copy"


def check_partial_answer(case) -> None:
    """Part of a batch answered: the rest stays pending under the same id, then completes it."""
    if not case[4]:
        raise CheckSkipped("a batched case only")
    env, problem, strategy = start(case)
    noise = np.random.default_rng(0)
    for _ in range(200):  # find a batch of several samples
        req = strategy.ask()
        if req.size > 1 or strategy.stopped:
            break
        strategy.tell(*env.respond(req, noise))
    if req.size < 2:
        raise CheckSkipped("no batch of several samples before the end")
    rid = strategy.request_id
    sources, rewards = env.respond(req, noise)
    first = problem.request_space().observation_size  # the sources of one observation
    strategy.tell(sources[:first], rewards[:first], request_id=rid)
    rest = strategy.ask()
    assert strategy.request_id == rid and rest.size == req.size - 1, "the unanswered part is not what is pending"
    strategy.tell(sources[first:], rewards[first:], request_id=rid)
    assert strategy.request_id is None or strategy.request_id != rid, "a completed request is still pending"
    assert strategy.batches_ >= 1, "a completed batch was not counted"


def check_outstanding_requests(case) -> None:
    """max_pending = 3: new requests while fewer than 3 are outstanding, the oldest again when 3 are;
    answers in any order, some cancelled; the regime's limits hold, and a saved state continues."""
    if case[4]:
        raise CheckSkipped("a sequential case only")
    env, problem = build(*case[1:])
    cls = get_strategy_class(case[0])
    if cls.single_request:
        with raises(InvalidParameterError, match="max_pending = 3", doing="start(max_pending=3) of a single-request rule"):
            checked_strategy(case[0]).start(problem, rng=0, max_pending=3)
        return
    _, _, strategy = start(case, max_pending=3)
    noise, order = np.random.default_rng(1), np.random.default_rng(2)
    limit = problem.regime.max_samples if case[3] == "fixed-confidence" else problem.regime.budget
    for step in range(200):
        if strategy.stopped:
            break
        before = strategy.outstanding
        req = strategy.ask()
        if len(before) == 3 or strategy.t_ + sum(p.size for p in before.values()) >= limit:  # the oldest again
            assert strategy.request_id == next(iter(before)) and np.array_equal(req, before[strategy.request_id]), \
                "with no room for another request, ask() did not give the oldest outstanding one"
        else:
            assert strategy.request_id not in before and len(strategy.outstanding) == len(before) + 1, \
                "with room for another request, ask() did not open a new one"
        if step == 100:  # the state, with requests outstanding, continues exactly
            copy = restore_strategy(json.loads(_state(strategy)), problem)
            assert copy.outstanding.keys() == strategy.outstanding.keys(), "a restored state lost outstanding requests"
        if len(strategy.outstanding) < 3 and order.random() < 0.5:
            continue  # keep it outstanding for now
        rid = list(strategy.outstanding)[order.integers(len(strategy.outstanding))]
        if order.random() < 0.1:
            strategy.cancel(rid)
            with raises((RequestError, SessionStateError), match="not pending|no pending",
                        doing="an answer to a cancelled request"):
                strategy.tell(*env.respond(req, noise), request_id=rid)
        else:
            strategy.tell(*env.respond(strategy.outstanding[rid], noise), request_id=rid)
        assert strategy.t_ == problem.request_space().counts(strategy.counts_).sum(), "t_ is not the sum of the counts"
        assert strategy.t_ + sum(p.size for p in strategy.outstanding.values()) <= limit, \
            "the samples told and outstanding exceed the regime's limit"
    assert strategy.recommendation() is not None or strategy.t_ == 0, "no recommendation after samples"


def check_burst_is_spread(case) -> None:
    """After the initial phase, ten asks without answers do not all go to one source (the rule sees
    counts plus pending)."""
    if case[4] or case[3] != "fixed-confidence" or get_strategy_class(case[0]).single_request:
        raise CheckSkipped("a sequential fixed-confidence case of a rule that takes several requests")
    env, _, burst = start(case, max_pending=10)
    noise = np.random.default_rng(0)
    while not burst._ready and not burst.stopped:  # the initial phase (Strategy's own flag)
        burst.tell(*env.respond(burst.ask(), noise))
    if burst.stopped:
        raise CheckSkipped("stopped in the initial phase")
    asked = np.concatenate([burst.ask() for _ in range(10)])
    assert np.unique(asked).size > 1, f"ten asks without answers all went to one source: {asked}"


def saved_mid_run(case, steps: int = 17) -> dict | None:
    """``case``'s strategy (seed 11, rewards of seed 5) stopped after ``steps`` asks, or inside the first
    batch of several samples (its first observation told): ``{"case", "state", "noise", "run"}`` with
    its JSON state, the rewards' generator state and the record (:func:`play`) of the uninterrupted run
    from there; ``None`` if the strategy stopped before.  :func:`resume_saved` continues it from the state.
    """
    env, problem, strategy = start(case, seed=11)
    noise = np.random.default_rng(5)
    for _ in range(steps):
        if strategy.stopped:
            break
        req = strategy.ask()
        sources, rewards = env.respond(req, noise)
        if req.size > 1:  # also save a partly answered batch
            first = problem.request_space().observation_size  # the sources of one observation
            strategy.tell(sources[:first], rewards[:first])
            break
        strategy.tell(sources, rewards)
    if strategy.stopped:
        return None
    saved = {"case": list(case), "state": json.loads(_state(strategy)), "noise": noise.bit_generator.state}
    saved["run"] = play(strategy, env, noise)  # the same object, continued
    return saved


def resume_saved(saved: dict, check_state: bool = False) -> dict:
    """The record (:func:`play`) of the run restored from ``saved`` (:func:`saved_mid_run`) and continued
    with the rewards' generator where it was; with ``check_state``, the restored state is first checked
    to be the saved one."""
    env, problem = build(*saved["case"][1:])
    copy = restore_strategy(saved["state"], problem)
    if check_state:
        assert _state(copy) == json.dumps(saved["state"]), "the restored state differs from the saved one"
    noise = np.random.default_rng()
    noise.bit_generator.state = saved["noise"]
    return play(copy, env, noise)


def check_state_round_trip(case, steps: int = 17, saved: dict | None = None) -> None:
    """Stopped mid-run (a batch partly answered when one is asked), its state through JSON restores a
    strategy that continues exactly as the original.

    ``saved``: ``saved_mid_run(case, steps)`` made earlier in this process (it is made here otherwise).
    """
    saved = saved_mid_run(case, steps) if saved is None else saved
    if saved is None:
        raise CheckSkipped(f"stopped within {steps} asks")
    assert resume_saved(saved, check_state=True) == saved["run"], "the restored strategy continued differently"


# ----------------------------------------------------------------------- per rule
def _some_problem(cls, batched: bool = False):
    goal = cls.goals[0]
    return build(goal, default_label(cls, goal), cls.regimes[0], batched)[1]


def check_bad_parameters(name: str) -> None:
    """A bad ``threshold`` or ``n_init`` is refused at start, naming the parameter."""
    problem = _some_problem(get_strategy_class(name))
    with raises(InvalidParameterError, match="'threshold'", doing="threshold='fast'"):
        get_strategy_class(name)(threshold="fast").start(problem)
    with raises(InvalidParameterError, match="'n_init'", doing="n_init=0"):
        get_strategy_class(name)(n_init=0).start(problem)


def check_params_and_clone(name: str) -> None:
    """get_params() rebuilds the strategy; clone() is a new object with the same parameters."""
    cls = get_strategy_class(name)
    s = cls()
    assert cls(**s.get_params()).get_params() == s.get_params(), "cls(**get_params()) has other parameters"
    assert name == cls.name and cls.__name__ in repr(s), f"the registered name or the repr of {cls.__name__} is off"
    c = s.clone()
    assert c is not s and c.get_params() == s.get_params(), "clone() is not a copy with the same parameters"


def check_refuses_batches(name: str) -> None:
    """A sequential rule refuses a batched problem, naming the batch."""
    cls = get_strategy_class(name)
    if cls.batched:
        raise CheckSkipped("a batched rule")
    with raises(InvalidParameterError, match="batch", doing="start on a batched problem"):
        cls().start(_some_problem(cls, batched=True))


def check_max_samples_is_exact(name: str) -> None:
    """On a near tie, a fixed-confidence best-arm run ends censored at exactly ``max_samples``."""
    cls = get_strategy_class(name)
    if "best-arm" not in cls.goals or "fixed-confidence" not in cls.regimes:
        raise CheckSkipped("a fixed-confidence best-arm rule")
    if cls.stopping_rule:  # e.g. Thompson sampling stopped at P(best) > 0.95: no test, it may stop on a near tie
        raise CheckSkipped(f"stops by an unproven rule of its own ({cls.stopping_rule})")
    regime = FixedConfidence(0.01, max_samples=101)
    env: Any = BernoulliEnvironment([0.5, 0.5001])
    problem: Any = BestArmProblem(2, env.family(), regime)
    if "features" in cls.requires:
        from pybai.environments.linear import LinearGaussianEnvironment
        from pybai.problems.linear import LinearBestArmProblem

        env = LinearGaussianEnvironment([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5001], 1.0)
        problem = LinearBestArmProblem(**env.structure(), regime=regime)
    strategy = cls().start(problem, rng=0)
    if strategy.reference:
        strategy.reveal_truth(env.source_means)
    run = play(strategy, env, np.random.default_rng(0))
    assert run["status"] == "censored" and run["samples"] == 101, \
        f"a near tie with max_samples = 101 ended {run['status']} after {run['samples']} samples"


def check_own_stopping_rule_is_declared(name: str) -> None:
    """A rule that overrides ``_should_stop`` sets ``stops_on_statistics = False`` (a restored "stopped"
    state is checked against the problem's stopping decision only for rules that stop by it)."""
    cls = get_strategy_class(name)
    if cls._should_stop is Strategy._should_stop:
        raise CheckSkipped("the rule stops by the problem's stopping decision")
    assert not cls.stops_on_statistics, f"{name} overrides _should_stop but keeps stops_on_statistics = True"


#: the checks of one case (:class:`~pybai.testing.instances.Case`)
CASE_CHECKS = (check_runs_within_its_regime, check_same_seed_same_run, check_request_rules, check_read_only_arrays,
               check_partial_answer, check_outstanding_requests, check_burst_is_spread, check_state_round_trip)
#: the checks of one registered rule (its name)
RULE_CHECKS = (check_bad_parameters, check_params_and_clone, check_refuses_batches, check_max_samples_is_exact,
               check_own_stopping_rule_is_declared)


def check_strategy(name: str, labels: Iterable[str] | None = None) -> dict[str, str]:
    """Run every check on the registered strategy ``name``: each of its cases (on the instances
    ``labels``, default all), then the per-rule checks.

    Returns
    -------
    dict
        ``{"check_name[case]": "passed" | "skipped: why"}``.

    Raises
    ------
    AssertionError
        One line per failed check, after all have run.
    """
    cases = strategy_cases([name], labels)
    if not cases:
        raise AssertionError(f"{name!r} has no case: no instance of its goals provides what it requires "
                             "(add one with pybai.testing.register_instance)")
    runs: list[tuple[str, Any, tuple]] = [(f"{check.__name__}[{case_id(case)}]", check, (case,))
                                          for case in cases for check in CASE_CHECKS]
    runs += [(f"{check.__name__}[{name}]", check, (name,)) for check in RULE_CHECKS]
    return run_checks(runs)
