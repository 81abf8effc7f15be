"""What a guardrail session says of itself: its header (the metrics it stores), each arm's guardrails
in ``status`` / ``status --json`` / HTTP (estimate, margin, state), the refusal of a Bernoulli reward
other than 0 or 1, and the same session stored in SQLite and in a real PostgreSQL server.
"""

import copy
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.cli import main
from pybai.config.learner import parse_session_file
from pybai.environments import BernoulliEnvironment, GaussianEnvironment
from pybai.environments.multi_metric import MultiMetricEnvironment
from pybai.exceptions import ConfigError, RequestError
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.session import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from _serve_sessions import client_for, folder  # noqa: E402,F401 (fixtures)

NAMES = ("revenue", "latency", "refunds")
LABELS = ["control", "fast", "slow"]


def _problem(delta=0.1):
    return GuardrailProblem(3, [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
                                Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.1)],
                            FixedConfidence(delta), control="control", labels=LABELS)


#: "slow" earns most but breaks the latency guardrail; "fast" beats the control and keeps both (its refunds
#: 0.1 below the control's, 0.2 inside the guardrail: a session stops in a few hundred samples; refunds equal to
#: the control's, 0.1 inside, took 1,000 to 2,700)
WORLD = MultiMetricEnvironment({"revenue": GaussianEnvironment([0.0, 0.8, 2.0], sigma=1.0),
                                "latency": GaussianEnvironment([-1.0, -1.0, 1.5], sigma=1.0),
                                "refunds": BernoulliEnvironment([0.2, 0.1, 0.2])},
                               correlation=[[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])


def _drive(session, seed=5, limit=5000):
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        if session.stopped:
            return
        request = session.ask()
        _, rewards = WORLD.respond(request.requests, rng)
        session.tell(request.id, request.requests, rewards.reshape(len(request.requests), len(NAMES)))
    raise AssertionError("the session did not stop")


def _near(value):
    return pytest.approx(value, rel=1e-5, abs=1e-5)


def _check_guardrails(status):
    """The guardrails document agrees with the status's means and with the certified answer (numbers as exact
    as the status gives them: 6 significant figures over HTTP and --json)."""
    means = np.asarray(status["means"], dtype=float)
    doc = status["guardrails"]
    assert doc["evidence"] == "mixture" and doc["level"] == _near(status["threshold"])
    assert [a["label"] for a in doc["arms"]] == LABELS
    for arm in doc["arms"]:
        k = arm["arm"]
        latency, refunds = arm["guardrails"]
        assert (latency["metric"], latency["rule"]) == ("latency", "at most 0")
        assert (refunds["metric"], refunds["rule"]) == ("refunds", "at most control + 0.1")
        assert latency["estimate"] == _near(means[k, 1]) and latency["margin"] == _near(-means[k, 1])
        diff = means[k, 2] - means[0, 2]
        assert refunds["estimate"] == _near(diff)
        assert refunds["binds"] is (k != 0)
        if k:
            assert refunds["margin"] == _near(0.1 - diff)
        for g in arm["guardrails"]:
            if not g["binds"]:
                assert g["state"] == "holds" and g["evidence_holds"] is None
                continue
            assert g["state"] == ("holds" if g["evidence_holds"] > doc["level"] else
                                  "broken" if g["evidence_broken"] > doc["level"] else "undecided")
            assert not (g["evidence_holds"] > doc["level"] and g["evidence_broken"] > doc["level"])
        states = {g["state"] for g in arm["guardrails"]}
        assert arm["state"] == ("broken" if "broken" in states else "undecided" if "undecided" in states else "holds")
    answer = doc["arms"][status["recommendation"]]
    assert answer["state"] == "holds"  # a certified stop refuted every break of the answer's guardrails
    return doc


def test_status_gives_each_guardrail_per_arm(tmp_path, capsys):
    db = tmp_path / "g.db"
    with Session.create(db, problem=_problem(), strategy=make_strategy("tas"), seed=2) as s:
        before = s.status()["guardrails"]
        assert all(g["state"] == "undecided" and g["estimate"] is None
                   for a in before["arms"][1:] for g in a["guardrails"])  # no sample: nothing known
        _drive(s)
        status = s.status()
    assert status["certified"] and status["recommendation"] == 1 and status["metrics"] == list(NAMES)
    doc = _check_guardrails(status)
    assert doc["arms"][1]["guardrails"][0]["state"] == "holds"

    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [a["state"] for a in printed["guardrails"]["arms"]] == [a["state"] for a in doc["arms"]]
    assert printed["guardrails"]["arms"][2]["guardrails"][0]["margin"] == pytest.approx(
        doc["arms"][2]["guardrails"][0]["margin"], rel=1e-5)

    assert main(["session", "status", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "gaussian rewards\n" not in text and "3 metrics per observation" in text
    assert "    refunds: bernoulli rewards (0 or 1), at most control + 0.1" in text
    lines = text.splitlines()
    for arm in doc["arms"]:  # one block per arm: its line, then one line per metric, guardrail states on theirs
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{arm['name']}: "))
        assert lines[start].startswith(f"{arm['name']}: {int(status['counts'][arm['arm']][0])} samples")
        block = lines[start + 1:start + 4]
        assert [line.split()[0] for line in block] == list(NAMES)
        latency = arm["guardrails"][0]
        assert f"at most 0: {latency['state']} (estimate {latency['estimate']:.4g}, margin {latency['margin']:.4g})" \
            in block[1]
    assert "at most control + 0.1: holds (the control is the reference)" in lines[
        next(i for i, line in enumerate(lines) if line.startswith("control (arm 0): ")) + 3]


def test_http_status_has_the_guardrails(folder, client_for):  # noqa: F811 (fixtures)
    with Session.create(folder / "g.db", problem=_problem(), strategy=make_strategy("tas"), seed=3, name="g") as s:
        _drive(s, seed=8)
        expected = s.status()["guardrails"]
    status = client_for(folder).get("/sessions/g/status").json()
    _check_guardrails(status)
    assert [[g["state"] for g in a["guardrails"]] for a in status["guardrails"]["arms"]] == \
        [[g["state"] for g in a["guardrails"]] for a in expected["arms"]]


def test_one_metric_sessions_have_no_guardrails(tmp_path):
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.1))
    with Session.create(tmp_path / "one.db", problem=problem, strategy=make_strategy("tas"), seed=1) as s:
        status = s.status()
    assert status["metrics"] is None and status["guardrails"] is None


def test_a_bernoulli_metric_takes_0_or_1(tmp_path, capsys):
    db = tmp_path / "b.db"
    with Session.create(db, problem=_problem(), strategy=make_strategy("uniform"), seed=1) as s:
        req = s.ask()
        for value in (0.5, 1e-9, 0.999):
            with pytest.raises(RequestError, match=rf"metric 'refunds' takes rewards 0 or 1\. Got {value!r}"):
                s.tell(req.id, req.requests, {"revenue": [1.0], "latency": [0.0], "refunds": [value]})
        assert s.status()["samples"] == 0  # nothing written
        s.tell(req.id, req.requests, {"revenue": [1.0], "latency": [0.0], "refunds": [1.0]})
        assert s.status()["samples"] == 1
        req = s.ask()
    answer = tmp_path / "half.csv"
    answer.write_text(f"arm,revenue,latency,refunds\n{int(req.requests[0])},1,0,0.5\n")
    assert main(["session", "tell", "--db", str(db), "--request", str(req.id), "--csv", str(answer)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "metric 'refunds' takes rewards 0 or 1. Got 0.5" in err
    with Session.open(db) as again:
        assert again.status()["samples"] == 1


def test_a_bernoulli_metric_with_requests_pending(tmp_path):
    """With several requests outstanding the rule chooses on the believer model (pending samples told at the
    current means, fractions of a Bernoulli metric): asks go on, only told rewards are checked."""
    with Session.create(tmp_path / "p.db", problem=_problem(), strategy=make_strategy("tas"), seed=1,
                        max_pending=4) as s:
        rng = np.random.default_rng(3)
        for _ in range(60):
            first, second = s.ask(), s.ask()
            for request in (first, second):
                _, rewards = WORLD.respond(request.requests, rng)
                s.tell(request.id, request.requests, rewards.reshape(len(request.requests), len(NAMES)))
        assert s.status()["samples"] == 120
        pending = s.ask()
        with pytest.raises(RequestError, match="metric 'refunds' takes rewards 0 or 1"):
            s.tell(pending.id, pending.requests, {"revenue": [0.0], "latency": [0.0], "refunds": [0.2]})
        assert s.status()["samples"] == 120


def test_a_bernoulli_reward_model_needs_0_or_1_rewards_from_the_environment():
    from pybai.config.guardrails import guardrail_problem

    truth = [{"name": "revenue", "reward_model": "gaussian", "sigma": 1.0},
             {"name": "latency", "reward_model": "bounded", "reward_range": [0.0, 1.0]}]
    tables = [{"name": "revenue"}, {"name": "latency", "reward_model": "bernoulli", "at_most": 0.5}]
    with pytest.raises(ConfigError, match=r'problem.metric\[1\].reward_model: "bernoulli" takes rewards 0 or 1'):
        guardrail_problem(2, truth, FixedConfidence(0.1), metric=copy.deepcopy(tables))
    tables[1]["reward_model"] = "bounded"
    tables[1]["reward_range"] = [0, 1]
    assert guardrail_problem(2, truth, FixedConfidence(0.1), metric=tables).metrics[1].reward_model == "bounded"


def test_the_header_says_what_the_session_stores(tmp_path, capsys):
    doc = {"name": "h", "problem": {"goal": "best-arm", "delta": 0.05, "metric": [
        {"name": "conversion", "reward_model": "bernoulli"},
        {"name": "latency_ms", "sigma": 40.0, "at_most": 250.0},
        {"name": "refunds", "reward_model": "bounded", "reward_range": [0, 2], "at_least_vs_control": 0.5}]},
        "environment": {"kind": "multi-metric", "arms": 2}, "strategy": [{"name": "tas"}]}
    parse_session_file(copy.deepcopy(doc))  # a valid session file
    path = tmp_path / "h.toml"
    path.write_text('name = "h"\n[problem]\ngoal = "best-arm"\ndelta = 0.05\n'
                    '[[problem.metric]]\nname = "conversion"\nreward_model = "bernoulli"\nmaximize = false\n'
                    '[[problem.metric]]\nname = "latency_ms"\nsigma = 40.0\nat_most = 250.0\n'
                    '[[problem.metric]]\nname = "refunds"\nreward_model = "bounded"\nreward_range = [0, 2]\n'
                    'at_least_vs_control = 0.5\n'
                    '[environment]\nkind = "multi-metric"\narms = 2\n[[strategy]]\nname = "tas"\n')
    assert main(["session", "new", str(path), "--db", str(tmp_path / "h.db")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "  goal best-arm-guardrails (fixed confidence, delta = 0.05), 2 arms, 3 metrics per observation:"
    assert out[2:5] == ["    conversion: objective (minimised), bernoulli rewards (0 or 1)",
                        "    latency_ms: gaussian rewards (sigma = 40), at most 250",
                        "    refunds: bounded rewards in [0, 2], at least control - 0.5"]


def test_guardrail_sessions_on_every_backend(storage_db):
    """SQLite and a real PostgreSQL server store the same session: same status, same rows, same guardrails."""
    with Session.create(storage_db, problem=_problem(), strategy=make_strategy("tas"), seed=4, name="g") as s:
        s.state_every = 5
        _drive(s, seed=11)
        status = s.status()
        rows = s.observations()
    assert status["certified"] and len(rows) == status["samples"]
    assert set(rows[0]) >= {"arm", "label", *NAMES}
    _check_guardrails(status)
    with Session.open(storage_db, "g") as again:
        replayed = again.status()
        assert again.observations() == rows
    for key in ("samples", "counts", "means", "recommendation", "guardrails"):
        assert replayed[key] == status[key], key


def test_the_report_has_each_arms_guardrails(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Session.create(db, problem=_problem(), strategy=make_strategy("tas"), seed=2) as s:
        _drive(s, seed=6)
        doc = s.status()["guardrails"]
    assert main(["session", "report", "--db", str(db), "--out", str(tmp_path / "report")]) == 0
    page = re.sub(r"<td[^>]*>", "<td>", (tmp_path / "report" / "session.html").read_text().replace("\n", ""))
    assert "<h2>Guardrails</h2>" in page and f"evidence above {doc['level']:.4g}" in page
    for arm in doc["arms"]:
        for g in arm["guardrails"]:
            state = g["state"] if g["binds"] else "holds (the control is the reference)"
            cells = [arm["name"], arm["state"], f"{g['metric']} {g['rule']}", f"{g['estimate']:.4g}",
                     f"{g['margin']:.4g}", state]
            assert "".join(f"<td>{c}</td>" for c in cells) in page, cells
