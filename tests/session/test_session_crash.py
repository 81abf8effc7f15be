"""Crash safety and concurrency: kill -9 during tell loses nothing acknowledged; readers run beside a writer."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import learner_document
from pybai.session import Session

HERE = Path(__file__).resolve().parent
ENV = {**os.environ, "PYTHONPATH": f"{HERE.parent.parent / 'src'}:{HERE}"}


def start_child(db, n, hang_at=None):
    args = [sys.executable, str(HERE / "_session_child.py"), str(db), str(n)] + ([str(hang_at)] if hang_at else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def read_until(proc, predicate, timeout=60.0):
    """Lines of the child until one satisfies ``predicate`` (the last line), or the deadline."""
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if predicate(lines[-1]):
            return lines
    proc.kill()
    raise AssertionError(f"child output: {lines}; stderr: {proc.stderr.read()}")


def check_consistent(db):
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    bad = con.execute("SELECT COUNT(*) FROM answers a WHERE a.size != "
                      "(SELECT COUNT(*) FROM observations o WHERE o.answer = a.id)").fetchone()[0]
    orphans = con.execute("SELECT COUNT(*) FROM observations WHERE answer NOT IN (SELECT id FROM answers)").fetchone()[0]
    answers = con.execute("SELECT request, size FROM answers ORDER BY id").fetchall()
    con.close()
    assert bad == 0 and orphans == 0
    return answers


@pytest.mark.parametrize("hang_at", [7, 2])
def test_kill_9_inside_the_tell_transaction(tmp_path, batch_doc, hang_at):
    db = tmp_path / "plate.db"
    Session.create(db, learner_document(batch_doc)).close()
    proc = start_child(db, 50, hang_at=hang_at)
    lines = read_until(proc, lambda line: line.startswith("WRITING"))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    acked = [line.split() for line in lines if line.startswith("ACK")]
    assert len(acked) == hang_at - 1
    killed_request = int(lines[-1].split()[1])
    answers = check_consistent(db)
    assert len(answers) == hang_at - 1  # every acknowledged answer, and not the interrupted one
    assert [a[0] for a in answers] == [int(a[1]) for a in acked]
    with Session.open(db) as session:  # the log replays; the interrupted request is pending again, whole
        status = session.status()
        assert status["samples"] == int(acked[-1][2])
        again = session.ask()
        assert again.id == killed_request and status["pending"]["request"] == killed_request
        receipt = session.tell(again.id, again.requests, np.zeros(len(again)))
        assert receipt.pending == 0 and receipt.samples == status["samples"] + len(again)


def test_kill_9_at_an_arbitrary_moment(tmp_path, gaussian_doc):
    db = tmp_path / "seq.db"
    doc = learner_document(gaussian_doc)
    doc["environment"]["arms"] = 12  # a long session: the kill lands while it is writing
    Session.create(db, doc).close()
    proc = start_child(db, 10_000)
    lines = read_until(proc, lambda line: line.startswith("ACK") and int(line.split()[2]) >= 25)
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    last_acked = int(lines[-1].split()[2])
    answers = check_consistent(db)
    assert len(answers) >= last_acked
    with Session.open(db) as session:
        assert session.status()["samples"] == len(answers)
        r = session.ask()
        session.tell(r.id, r.requests, [0.0])


def test_readers_beside_a_writer_process(workdir, gaussian_doc):
    db = workdir / "shared.db"
    doc = learner_document(gaussian_doc)
    doc["environment"]["arms"] = 12
    Session.create(db, doc).close()
    writer = start_child(db, 40)
    seen = []
    try:
        while writer.poll() is None:
            with Session.open(db) as reader:  # a fresh reader each time, as a dashboard would
                status = reader.status()
                rows = reader.observations()
            assert len(rows) >= status["samples"] == sum(np.asarray(status["counts"]).ravel())
            seen.append(status["samples"])
            time.sleep(0.02)
    finally:
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert "DONE" in out
    assert seen == sorted(seen)  # never goes back
    assert len(set(seen)) > 2  # the readers saw the writer's progress
    with Session.open(db) as final:
        assert final.status()["samples"] == 40
