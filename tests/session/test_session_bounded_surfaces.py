"""Bounded-reward sessions (both statistics) through every reading surface: status, export, report, HTTP status.

Once every arm has a sample, the status estimates the samples to stop by scaling the model
(:meth:`~pybai.models.betting.BettingModel.scaled_into`); these surfaces all read the status.
"""

from __future__ import annotations

import csv
import io
import json
import warnings

import pytest

from conftest import World, learner_document
from pybai.cli import main
from pybai.session import Session

ENV = {"kind": "bernoulli", "means": [0.6, 0.5, 0.45]}


def _doc(statistic: str) -> dict:
    return {"name": f"bounded-{statistic}", "seed": 3, "replications": 1,
            "problem": {"goal": "best-arm", "delta": 0.1, "reward_model": "bounded", "reward_range": [0.0, 1.0],
                        "statistic": statistic},
            "environment": ENV, "strategy": [{"name": "top-two"}]}


@pytest.mark.parametrize("statistic", ["kl-inf", "sub-bernoulli"])
def test_bounded_session_status_export_report_and_http(workdir, capsys, statistic):
    doc = _doc(statistic)
    world = World(doc)
    db = workdir / "bounded.db"
    with Session.create(db, learner_document(doc)) as session:
        for _ in range(120):
            r = session.ask()
            session.tell(r.id, *world.respond(r.requests))
        status = session.status()
    assert status["status"] == "running" and min(status["counts"]) >= 1
    more = status["estimated_samples_to_stop"]
    assert more is None or (isinstance(more, int) and more > 0)
    assert status["statistic"] is not None and status["threshold"] is not None

    capsys.readouterr()
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] == 120
    assert main(["session", "export", "--db", str(db)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 120
    out = workdir / "report"
    assert main(["session", "report", "--db", str(db), "--out", str(out)]) == 0
    page = (out / "session.html").read_text()
    assert "<img" in page

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from pybai.server import create_app

    with TestClient(create_app(str(db))) as client:
        got = client.get(f"/sessions/{doc['name']}/status")
        assert got.status_code == 200, got.text
        assert got.json()["samples"] == 120
        page = client.get(f"/sessions/{doc['name']}")
        assert page.status_code == 200
