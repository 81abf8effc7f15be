"""A session under reward_model = "gaussian-unknown-variance": ask/tell to a proven stop, status, report, replay."""

import numpy as np

from pybai.config.learner import parse_session_file
from pybai.session import Session
from pybai.session.report import write_session_report

DOC = {"name": "uv", "seed": 5,
       "problem": {"goal": "best-arm", "delta": 0.05, "reward_model": "gaussian-unknown-variance"},
       "environment": {"kind": "gaussian", "arms": 3}, "strategy": [{"name": "top-two"}]}


def test_unknown_variance_session_certifies_and_reports(tmp_path):
    spec = parse_session_file(DOC)
    mu, sd = np.array([1.0, 0.5, 0.4]), np.array([0.5, 2.0, 1.0])
    rng = np.random.default_rng(0)
    with Session.create(tmp_path / "s.db", problem=spec.problem, strategy=spec.strategy, seed=5) as session:
        while not session.stopped:
            request = session.ask()
            session.tell(request.id, request.requests, rng.normal(mu[request.requests], sd[request.requests]))
        status = session.status()
        path = write_session_report(session, tmp_path / "report")
    assert status["certified"] and status["threshold_kind"] == "delta-correct" and status["recommendation"] == 0
    assert np.allclose(status["sd"], sd, rtol=0.5) and all(lo < m for lo, m in zip(status["ci_low"], status["means"]))
    html = path.read_text()
    assert "<th>sd</th>" in html and "Status: stopped: the answer is certified" in html
    with Session.open(tmp_path / "s.db") as again:  # another process: the replay gives the same state
        assert again.status()["means"] == status["means"] and again.status()["sd"] == status["sd"]
