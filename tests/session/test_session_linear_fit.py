"""A linear session whose data contradict the linear model: never certified, and every surface says so once."""

import json

from pybai.cli import main
from pybai.exceptions import PybaiError
from pybai.session import Session

DOC = {"name": "lin", "seed": 36, "problem": {"goal": "best-arm", "delta": 0.1, "max_samples": 300},
       "environment": {"kind": "linear-gaussian", "features": [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]},
       "strategy": [{"name": "tas"}]}
SAID = "contradict the linear model"


def test_status_report_and_cli_say_once_that_the_data_contradict_the_model(tmp_path, capsys):
    db = tmp_path / "s.db"
    with Session.create(db, DOC) as s:
        for _ in range(300):
            try:
                req = s.ask()
            except PybaiError:
                break
            s.tell(req.id, list(req.requests), [1.0] * len(req.requests))  # every arm pays exactly 1.0
        status = s.status()
    assert not status["certified"] and status["status"] == "censored"
    assert SAID in status["reward_model_note"] and "unstructured" in status["reward_model_note"]
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db)]) == 0
    assert capsys.readouterr().out.count(SAID) == 1
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert SAID in json.loads(capsys.readouterr().out)["reward_model_note"]
    out = tmp_path / "report"
    assert main(["session", "report", "--db", str(db), "--out", str(out)]) == 0
    assert (out / "session.html").read_text().count(SAID) == 1
