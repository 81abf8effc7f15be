"""Sessions with several outstanding requests (``[session] max_pending``), cancels and expiries.

The property: any interleaving of asks, tells (of any outstanding request, in any order, whole or
in part) and cancels, with max_pending in 1..5, leaves a state that a reopened session -- the log
replayed in another Session object -- rebuilds exactly.
"""

import json
import textwrap
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pybai import BestArmProblem, Bernoulli, FixedConfidence, Gaussian, InvalidParameterError, make_strategy
from pybai.cli import main
from pybai.exceptions import ConfigError, RequestError
from pybai.session import Session

RULES = ("tas", "top-two", "lucb", "uniform", "game")


def _state(session):
    """The replayed strategy's state, without the pointer to the request the last ask handed out
    (an ask that hands out an outstanding request again is not an event of the log), and so without
    the digest, which covers that pointer too."""
    with session._store.reading():
        strategy = session._sync().strategy
    state = strategy.get_state()
    state["base"].pop("request_id")
    state["base"].pop("_pending")
    state.pop("digest", None)
    return json.dumps(state, sort_keys=True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rule=st.sampled_from(RULES), max_pending=st.integers(1, 5),
       steps=st.lists(st.tuples(st.sampled_from(["ask", "ask", "tell", "tell", "part", "cancel"]),
                                st.integers(0, 10**6)), max_size=30))
def test_random_interleavings_equal_their_replay(tmp_path_factory, rule, max_pending, steps):
    db = tmp_path_factory.mktemp("pending") / "s.db"
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1, max_samples=60))
    rng = np.random.default_rng(0)
    with Session.create(db, problem=problem, strategy=make_strategy(rule), seed=4, max_pending=max_pending) as s:
        for verb, pick in steps:
            if s.stopped:
                break
            outstanding = s._sync().strategy.outstanding
            if verb == "ask" or not outstanding:
                request = s.ask()
                assert len(outstanding) < max_pending or request.id == next(iter(outstanding)), \
                    "a new request only while fewer than max_pending are outstanding, else the oldest"
                continue
            rid = list(outstanding)[pick % len(outstanding)]
            part = outstanding[rid]
            if verb == "cancel":
                assert s.cancel(rid) == part.size
                with pytest.raises(RequestError, match="cancelled"):
                    s.tell(rid, part, rng.normal(size=part.size))
            else:
                part = part[:1] if verb == "part" else part
                s.tell(rid, part, rng.normal(size=part.size))
        live = _state(s)
        status = s.status()
    with Session.open(db) as again:
        assert _state(again) == live
        replayed = again.status()
    assert replayed == status
    assert status["max_pending"] == max_pending
    assert isinstance(status["pending"], list) == (max_pending > 1)


def test_max_pending_is_validated(tmp_path):
    problem = BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.1))
    with pytest.raises(InvalidParameterError, match="max_pending: expected an integer >= 1"):
        Session.create(tmp_path / "a.db", problem=problem, strategy=make_strategy("tas"), max_pending=0)
    doc = {"problem": {"goal": "best-arm", "delta": 0.1}, "environment": {"kind": "bernoulli", "arms": 3},
           "strategy": [{"name": "successive-rejects"}], "session": {"max_pending": 2}}
    doc["problem"] = {"goal": "best-arm", "budget": 30}
    with pytest.raises(ConfigError, match="session.max_pending.*phase"):
        Session.create(tmp_path / "b.db", doc)
    doc["session"] = {"max_pending": 2, "expire_after": -1}
    doc["strategy"] = [{"name": "uniform"}]
    with pytest.raises(ConfigError, match="session.expire_after"):
        Session.create(tmp_path / "c.db", doc)


def test_requests_older_than_expire_after_are_withdrawn_and_asked_again(tmp_path):
    problem = BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.1))
    db = tmp_path / "e.db"
    with Session.create(db, problem=problem, strategy=make_strategy("tas"), max_pending=2, expire_after=0.2) as s:
        first, second = s.ask(), s.ask()
        assert (first.id, second.id) == (1, 2) and s.ask().id == 1  # two outstanding: the oldest again
        s.tell(2, second.requests, [1.0])
        time.sleep(0.3)
        third = s.ask()  # request 1 expired at this operation; its arm is asked again
        assert third.id == 3 and third.requests.tolist() == first.requests.tolist()
        with pytest.raises(RequestError, match="expired"):
            s.tell(1, first.requests, [0.0])
        status = s.status()
    assert status["withdrawn"] == 1 and [p["request"] for p in status["pending"]] == [3]
    with Session.open(db) as again:  # the expiry is an event of the log: no clock on replay
        assert again.status()["pending"] == status["pending"]


@pytest.mark.parametrize("refused", ["tell", "cancel", "tell-bad-rewards"])
def test_a_refused_call_keeps_the_expiries_it_recorded(tmp_path, refused):
    """The first operation after the deadline records the expiry; when it is itself refused (the request it
    answers has just expired, or its rewards are wrong) the expiry stays recorded, in this process and in the log."""
    problem = BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.1))
    db = tmp_path / "x.db"
    with Session.create(db, problem=problem, strategy=make_strategy("tas"), max_pending=2,
                        expire_after=0.2) as s:
        first, second = s.ask(), s.ask()
        time.sleep(0.3)
        with pytest.raises(RequestError):
            if refused == "tell":
                s.tell(first.id, first.requests, [1.0])
            elif refused == "cancel":
                s.cancel(first.id)
            else:
                s.tell(second.id, second.requests, [0.5])  # not 0 or 1: refused after the expiries
        status = s.status()
    assert status["withdrawn"] == 2 and status["pending"] == []
    with Session.open(db) as again:
        assert again.status()["withdrawn"] == 2 and again.ask().id == 3  # not request 1 or 2 again
        with pytest.raises(RequestError, match="expired"):
            again.tell(first.id, first.requests, [1.0])


def test_cli_second_ask_hands_out_the_next_request_and_cancel(tmp_path, capsys):
    session = tmp_path / "ab.toml"
    session.write_text(textwrap.dedent("""
        name = "ab"
        seed = 3
        [problem]
        goal = "best-arm"
        delta = 0.05
        [environment]
        kind = "bernoulli"
        arms = 2
        [session]
        max_pending = 2
        [[strategy]]
        name = "tas"
    """))
    db = tmp_path / "ab.db"
    assert main(["session", "new", str(session), "--db", str(db)]) == 0
    capsys.readouterr()
    asked = []
    for _ in range(3):
        assert main(["session", "ask", "--db", str(db)]) == 0
        asked.append(capsys.readouterr().out.splitlines()[1])
    assert asked == ["1,0", "2,1", "1,0"]  # a second ask: the next request; at two outstanding: the oldest
    assert main(["session", "cancel", "--db", str(db), "--request", "1"]) == 0
    assert "withdrew 1" in capsys.readouterr().out
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["max_pending"] == 2 and status["pending"][0]["request"] == 2 and len(status["pending"]) == 1
    assert main(["session", "cancel", "--db", str(db), "--request", "1"]) == 2
    assert "was cancelled" in capsys.readouterr().err


def test_report_lists_the_outstanding_requests():
    from pybai.session.report import _pending

    assert _pending([{"request": 3, "size": 1, "created": None}, {"request": 4, "size": 2, "created": None}]) == \
        "2 requests: 3 (1), 4 (2)"
    assert _pending([]) == "none" and _pending(None) == "none"
    assert _pending({"request": 5, "size": 12}) == "request 5: 12 samples"


def test_numpy_numbers_are_numbers(tmp_path):
    import numpy as np

    problem = BestArmProblem(2, Bernoulli(n_sources=2), FixedConfidence(0.1))
    with Session.create(tmp_path / "n.db", problem=problem, strategy=make_strategy("tas"), seed=np.uint8(3),
                        max_pending=np.int64(3), expire_after=np.float32(2.5)) as s:
        assert (s.spec.max_pending, s.spec.expire_after, s.seed) == (3, 2.5, 3)
        assert [s.ask().id for _ in range(3)] == [1, 2, 3]
