"""Sessions driven only through the command line against a simulated world equal ``pybai run``.

The world (``_session_driver.py``) reads each ``pybai session ask`` CSV, draws the rewards with
the truth and noise streams of replication 0 of the experiment's seed, writes them to a CSV and
calls ``pybai session tell``.  ``pybai run`` on the experiment file (one replication, same seed)
must report the same stopping time, batches and allocation, and ``run_replication`` the same
recommendation and counts.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from _session_driver import drive
from pybai.cli import main
from pybai.config import load_experiment
from pybai.simulate.runner import run_replication
from pybai.simulate.seeding import replication_seed

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"

TAS = """
name = "tas-gaussian"
seed = 2026
replications = 1
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
{truth}
sigma = 1.0
[[strategy]]
name = "tas"
"""

BATCH = """
name = "plate"
seed = 31
replications = 1
[problem]
goal = "best-arm"
delta = 0.1
[problem.batch]
size = 12
max_repeats = 3
[environment]
kind = "gaussian"
{truth}
sigma = 1.0
[[strategy]]
name = "uniform"
"""


def files(workdir, template, means):
    """The world's experiment file (the truth, and the threshold a session of the same file uses when
    it chooses none: "delta-correct") and the session file."""
    world = workdir / "world.toml"
    world.write_text(textwrap.dedent(template.format(truth=f"means = {means}")) + 'threshold = "delta-correct"\n')
    session = workdir / "session.toml"
    session.write_text(textwrap.dedent(template.format(truth=f"arms = {len(means)}")))
    return world, session


def run_document(world, workdir, capsys):
    out = workdir / "run.json"
    assert main(["run", str(world), "--json", str(out), "--quiet"]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())["results"][0]


def status_json(db, capsys):
    capsys.readouterr()
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_same_as_run(world, db, workdir, capsys):
    status = status_json(db, capsys)
    run = run_document(world, workdir, capsys)
    exp = load_experiment(world)
    outcome = run_replication(exp.strategies[0][1], exp.environment, exp.problem, replication_seed(exp.seed, 0))
    assert status["stopped"] and status["status"] == "stopped"
    assert status["samples"] == run["mean_samples"] == outcome.samples
    assert status["batches"] == outcome.batches
    assert np.array_equal(status["counts"], outcome.counts)
    alloc = np.asarray(run["mean_allocation"]) * run["mean_samples"]
    assert np.allclose(alloc, status["counts"], atol=1e-3 * run["mean_samples"])
    assert status["recommendation"] == outcome.recommendation
    assert run["correct_rate"] == float(outcome.correct)
    return status, outcome


def test_sequential_tas_cli_session_equals_run(workdir, capsys):
    world, session_file = files(workdir, TAS, [1.6, 0.6, 0.0])
    db = workdir / "tas.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    asks = drive(world, db, workdir)
    status, outcome = check_same_as_run(world, db, workdir, capsys)
    assert asks == status["requests"] == outcome.samples  # one sample per request
    assert outcome.samples > 8  # the sampling rule (not only the initial phase) was exercised


def test_batch_uniform_cli_session_equals_run_in_another_process(workdir, capsys):
    world, session_file = files(workdir, BATCH, [0.0, 0.3, 1.5, 0.2, 0.1, 0.4])
    db = workdir / "plate.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    env = {"PYTHONPATH": f"{SRC}{':'}{HERE}", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(HERE / "_session_driver.py"), str(world), str(db), str(workdir)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    status, outcome = check_same_as_run(world, db, workdir, capsys)
    assert outcome.batches > 2 and status["requests"] == outcome.batches


def test_ask_after_stop_prints_the_answer_and_an_empty_request(workdir, capsys):
    world, session_file = files(workdir, TAS, [2.0, 0.0])
    db = workdir / "s.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    drive(world, db, workdir)
    capsys.readouterr()
    plate = workdir / "after.csv"
    plate.write_text("request,source\n99,0\n")  # a stale file must not survive
    assert main(["session", "ask", "--db", str(db), "--csv", str(plate)]) == 0
    out = capsys.readouterr().out
    assert "has stopped" in out and "Recommendation: arm 0" in out
    assert plate.read_text() == "request,source\n"
    assert main(["session", "ask", "--db", str(db)]) == 0
    assert "Recommendation: arm 0" in capsys.readouterr().out


@pytest.mark.parametrize("place", ["a folder", "through a file"])
@pytest.mark.parametrize("verb", ["ask", "export"])
def test_csv_output_that_cannot_be_written_is_refused_before_anything_is_recorded(workdir, capsys, verb, place):
    """``--csv`` naming a folder or a path through a file: exit 2, one line naming the option, and ``ask``
    records no request that no one would see."""
    _, session_file = files(workdir, TAS, [2.0, 0.0])
    db = workdir / "s.db"
    assert main(["session", "new", str(session_file), "--db", str(db)]) == 0
    blocker = workdir / "a-file"
    blocker.write_text("keep\n")
    target = workdir if place == "a folder" else blocker / "out.csv"
    capsys.readouterr()
    assert main(["session", verb, "--db", str(db), "--csv", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"pybai: error: --csv {target}: "), err
    assert blocker.read_text() == "keep\n"
    assert main(["session", "status", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == 0
