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


def test_a_session_whose_arms_differ_tenfold_in_noise_is_certified(tmp_path):
    """Linear means, noise of standard deviation 0.1 on two arms and 1 on the others (all within the model's
    sigma = 1): the session stops with the best arm and no note on the model.  (These short runs would pass with the
    earlier pooled noise level too; tests/problems/linear/test_linear_fit.py tells the two apart on longer data.)"""
    import numpy as np

    features = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]])
    means = features @ np.array([1.0, -0.5])
    sd = np.array([0.1, 1.0, 0.1, 1.0])
    doc = dict(DOC, problem=dict(DOC["problem"], max_samples=5000))
    stopped = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        with Session.create(tmp_path / f"h{seed}.db", dict(doc, seed=seed)) as s:
            for _ in range(5000):
                try:
                    req = s.ask()
                except PybaiError:
                    break
                arms = np.array(req.requests)
                s.tell(req.id, list(req.requests), (means[arms] + sd[arms] * rng.standard_normal(arms.size)).tolist())
            status = s.status()
        assert not status.get("reward_model_note"), status.get("reward_model_note")
        stopped += status["certified"] and status["recommendation"] == 0
    assert stopped == 3
