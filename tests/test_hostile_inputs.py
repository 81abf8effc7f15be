"""Property harness of the command line's input surfaces: whatever the bytes, exit 0 or one clean line.

Each example runs ``pybai.cli.main`` in this process with its output captured; the invariant is
the contract's: status 0, or status 2 with exactly one line on standard error, never a
traceback (an exception escaping ``main``).  Surfaces: random bytes as an experiment file, as an
answer CSV and as command-line arguments; a session database with random bytes flipped.
Extend the strategies here when a command or an input file is added.
"""

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybai.cli import main
from pybai.session import Session

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

SESSION = {"name": "h", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0}, "strategy": [{"name": "uniform"}]}


def clean(argv, capsys) -> int:
    """Run the command; assert exit 0, or exit 2 with one line (a crash fails the test with its traceback)."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: usage errors exit 2 with one line
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert len(err) == 1 and err[0].startswith("pybai: error:"), (argv, err)
    return code


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module")
def session_db(scratch):
    """A session with 12 answers and request 13 pending, checkpointed into one file."""
    path = scratch / "pristine.db"
    rng = np.random.default_rng(0)
    with Session.create(path, SESSION) as session:
        for _ in range(12):
            request = session.ask()
            session.tell(request.id, request.requests, rng.normal(size=len(request)))
        session.ask()
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


PRINTABLE_TOML = st.text(alphabet=st.sampled_from(list('[]=".,#\n abcdegkmnprstuy0123456789-+e_')), max_size=200)


@SETTINGS
@given(data=st.one_of(st.binary(max_size=300), PRINTABLE_TOML.map(lambda t: t.encode())))
def test_random_experiment_files(scratch, capsys, data):
    path = scratch / "random.toml"
    path.write_bytes(data)
    for command in (["run", path, "--quiet", "--jobs", "1"], ["complexity", path]):
        assert clean(command, capsys) == 2  # no random file is a valid experiment


CSV_CELLS = st.sampled_from(["source", "reward", "request", "0", "1", "2", "3", "-1", "0.5", "1e309", "nan", "inf",
                             "", " ", '"', "１", "1_0", "0x1", "\t", "é", "2.5", "arm", "true"])


@SETTINGS
@given(data=st.one_of(
    st.binary(max_size=200),
    st.lists(st.lists(CSV_CELLS, min_size=1, max_size=4), min_size=1, max_size=5).map(
        lambda rows: "\n".join(",".join(r) for r in rows).encode()),
))
def test_random_answer_csvs(session_db, scratch, capsys, data):
    db = scratch / "answers.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(session_db, db)
    csv = scratch / "answer.csv"
    csv.write_bytes(data)
    if clean(["session", "tell", "--db", db, "--request", "13", "--csv", csv], capsys) == 0:
        clean(["session", "status", "--db", db], capsys)  # an accepted answer leaves a readable session


ARGUMENT = st.one_of(
    st.sampled_from(["run", "complexity", "session", "status", "ask", "tell", "export", "list", "report", "--db",
                     "--csv", "--json", "--jobs", "--out", "--request", "--resume", "--cluster", "--seed", "/dev/zero",
                     "/dev/null", "/", ".", "-", "0", "-1", "99999999999999999999", "local:0", "bai-gaussian-5",
                     "\x00", "é", ""]),
    st.text(max_size=12),
)


@SETTINGS
@given(argv=st.lists(ARGUMENT, max_size=6))
def test_random_arguments(scratch, capsys, monkeypatch, argv):
    monkeypatch.chdir(scratch)
    if "--cluster" in argv or "--scheduler" in argv or "demo" in argv or "validate" in argv or "reproduce" in argv:
        return  # long-running commands: their arguments are checked in their own tests
    if argv[:1] == ["run"] and any(a == "bai-gaussian-5" for a in argv):
        return  # a real run of a shipped experiment: seconds, not a parsing question
    clean(argv, capsys)


@SETTINGS
@given(flips=st.lists(st.tuples(st.floats(0.0, 1.0, allow_nan=False), st.integers(0, 255)), min_size=1, max_size=8))
def test_session_database_byte_flips(session_db, scratch, capsys, flips):
    db = scratch / "flipped.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    data = bytearray(session_db.read_bytes())
    for where, value in flips:
        data[min(int(where * len(data)), len(data) - 1)] = value
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    for verb in (["status", "--json"], ["export"]):
        clean(["session", verb[0], "--db", db, *verb[1:]], capsys)
    if clean(["session", "ask", "--db", db], capsys) == 2:
        assert db.read_bytes() == before  # a refused database is never written
