"""The classes a second hostile probe (``benchmarks/hostile_probe_fresh.py``) found, one case each, fast.

Each was a silent acceptance or a refusal that did not name the parameter: booleans read as numbers,
a session file's date named nowhere, an epsilon that overflowed a guardrail session (and broke its
replay), duplicate JSON keys and nested rewards accepted, altered saved states restored as a different
run, ``--cluster local:N`` beyond 64 bits.
"""

from __future__ import annotations

import copy
import datetime
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from pybai import restore_strategy
from pybai.config import parse_experiment
from pybai.exceptions import ConfigError, InvalidParameterError, PybaiError
from pybai.session import Session
from pybai.strategies.state import state_digest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from _serve_sessions import client_for, folder  # noqa: E402,F401 (fixtures)

GUARDED = [{"name": "objective", "sigma": 1.0}, {"name": "guarded", "sigma": 1.0, "at_most": 0.5}]


def _doc(**problem):
    return {"name": "s", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.1, **problem},
            "environment": {"kind": "gaussian", "arms": 3}, "strategy": [{"name": "top-two"}]}


def _guarded_doc():
    return {"name": "g", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.1, "metric": GUARDED},
            "environment": {"kind": "multi-metric", "arms": 3}, "strategy": [{"name": "top-two-guardrails"}]}


@pytest.mark.parametrize("environment, key", [
    ({"kind": "gaussian", "means": [True, False]}, "environment.means"),
    ({"kind": "gaussian", "means": [0.5, 0.4], "sigma": True}, "environment.sigma"),
    ({"kind": "gaussian", "means": [0.5, True]}, "environment.means"),
])
def test_booleans_are_not_numbers_in_a_file(environment, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_experiment({"problem": {"goal": "best-arm", "delta": 0.1}, "environment": environment,
                          "strategy": [{"name": "uniform"}]})


@pytest.mark.parametrize("value", [datetime.date(1979, 5, 27), datetime.time(7, 32), float("nan")])
def test_a_session_file_names_the_key_of_a_value_json_cannot_hold(tmp_path, value):
    with pytest.raises(ConfigError, match=r"problem\.max_samples") as info:
        Session.create(tmp_path / "s.db", _doc(max_samples=value))
    assert "\n" not in str(info.value) and not (tmp_path / "s.db").exists()


def test_an_epsilon_beyond_the_safe_reward_range_is_refused(tmp_path):
    with Session.create(tmp_path / "g.db", _guarded_doc()) as s:
        rng = np.random.default_rng(1)
        for _ in range(12):
            req = s.ask()
            arms = [int(a) for a in np.asarray(req.requests).ravel()]
            s.tell(req.id, arms, {"objective": rng.normal(size=len(arms)).tolist(), "guarded": [0.1] * len(arms)})
        with pytest.raises(InvalidParameterError, match="epsilon"):
            s.set_epsilon(1e300)  # overflowed the objective tests (NaN) and the replay then diverged
        assert s.set_epsilon(1e99)["epsilon"] == 1e99
    with pytest.raises(PybaiError, match="epsilon"):
        Session.create(tmp_path / "p.db", _doc(epsilon=1e300))


def test_nested_rewards_are_refused_like_nested_sources(tmp_path):
    with Session.create(tmp_path / "s.db", _doc()) as s:
        req = s.ask()
        with pytest.raises(InvalidParameterError, match="flat list"):
            s.tell(req.id, [int(req.requests[0])], [[0.5]])
    with Session.create(tmp_path / "g.db", _guarded_doc()) as g:
        req = g.ask()
        arms = [int(a) for a in np.asarray(req.requests).ravel()]
        with pytest.raises(InvalidParameterError, match="metric 'objective'"):
            g.tell(req.id, arms, {"objective": [[0.5]] * len(arms), "guarded": [0.1] * len(arms)})
        assert g.status()["samples"] == 0


def test_http_refuses_a_key_given_twice(tmp_path, client_for):
    Session.create(tmp_path / "h.db", _doc()).close()
    client = client_for(tmp_path / "h.db")
    rid = client.post("/sessions/s/ask").json()["request"]
    body = b'{"request": 999, "request": %d, "sources": [0], "rewards": [0.5]}' % rid
    answer = client.post("/sessions/s/tell", content=body)
    assert answer.status_code == 400 and "'request' twice" in answer.json()["error"]
    answer = client.post("/sessions/s/epsilon", content=b'{"epsilon": 0.1, "epsilon": -5}')
    assert answer.status_code == 400 and "'epsilon' twice" in answer.json()["error"]
    assert client.get("/sessions/s/status").json()["samples"] == 0


def _saved(strategy: dict, problem: dict | None = None, environment: dict | None = None):
    exp = parse_experiment({"problem": problem or {"goal": "best-arm", "delta": 0.1},
                            "environment": environment or {"kind": "gaussian", "means": [1.0, 0.5, 0.2]},
                            "strategy": [strategy]})
    s = exp.strategies[0][1]
    s.start(exp.problem, rng=1)
    rng = np.random.default_rng(1)
    env = exp.environment.realize(rng)
    for _ in range(30):
        s.tell(*env.respond(np.asarray(s.ask()), rng))
    return exp.problem, json.loads(json.dumps(s.get_state()))


def _edit(state, path, value):
    state = copy.deepcopy(state)
    node = state
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    state["digest"] = state_digest(state)  # re-signed, as an editor of the file would
    return state


@pytest.mark.parametrize("path, value, part", [
    (("base", "batches_"), -1, "base.batches_"),
    (("base", "batches_"), 31, "base.batches_"),
    (("base", "_next_id"), -1, "base._next_id"),
    (("rule", "leader_rounds_", "data", 0), -10.0, "rule.leader_rounds_"),
    (("rule", "leader_rounds_", "data", 1), 3.5, "rule.leader_rounds_"),
    (("rule", "leader_pulls_", "data", 1), "nan", "rule.leader_pulls_"),
    (("stopping", "data", 0), 0.0, "stopping"),  # hypothesis 0 led by arm 0 itself
    (("stopping", "data", 0), 0.5, "stopping"),
    (("stopping", "data", 9), 99.0, "stopping"),  # 99 completed segments of 32
    (("stopping", "data", 15 + 3 * 31 + 2), 7.0, "stopping"),  # an unused segment slot
])
def test_a_re_signed_state_that_breaks_an_invariant_is_refused(path, value, part):
    problem, state = _saved({"name": "top-two", "threshold": "leader-settled"})
    assert restore_strategy(copy.deepcopy(state), problem).get_state() == state
    with pytest.raises(InvalidParameterError, match=part.replace(".", r"\.")) as info:
        restore_strategy(_edit(state, path, value), problem)
    assert "\n" not in str(info.value)


def test_a_negative_tracking_sum_is_refused():
    problem, state = _saved({"name": "tas"})
    with pytest.raises(InvalidParameterError, match=r"rule\.cumulative_"):
        restore_strategy(_edit(state, ("rule", "cumulative_", "data", 0), -1.0), problem)


def test_cluster_size_beyond_64_bits_is_refused():
    from pybai.simulate.executors import make_executor

    for size in (str(2**64), "0", "-1", "1e3", "\u0661\u0662"):
        with pytest.raises(ConfigError, match="--cluster"):
            make_executor(1, f"local:{size}")
