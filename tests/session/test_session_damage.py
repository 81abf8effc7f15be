"""Damaged and read-only session databases: one line naming the file, exit 2, nothing written."""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from pybai.cli import main
from pybai.exceptions import SessionStateError
from pybai.session import Session

VERBS = (["status"], ["status", "--json"], ["ask"], ["tell", "--request", "{pending}", "--csv", "{csv}"],
         ["export"], ["report", "--out", "{out}"])

DOC = {"name": "damage", "seed": 3, "problem": {"goal": "best-arm", "delta": 0.01},
       "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0}, "strategy": [{"name": "tas"}]}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A session with 60 answers and request 61 pending, its log checkpointed into the main file."""
    path = tmp_path_factory.mktemp("pristine") / "s.db"
    rng = np.random.default_rng(4)
    with Session.create(path, DOC) as session:
        for _ in range(61):
            request = session.ask()
            if request.id == 61:
                break
            session.tell(request.id, request.requests, rng.normal(size=len(request)) + 0.1 * request.requests)
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path


def copy_of(pristine, tmp_path) -> Path:
    path = tmp_path / "s.db"
    shutil.copyfile(pristine, path)
    return path


def digest(path) -> str:
    """The bytes of the database and its write-ahead log: a refusal must not change them."""
    h = hashlib.sha256()
    for suffix in ("", "-wal"):
        part = Path(f"{path}{suffix}")
        h.update(part.read_bytes() if part.exists() else b"")  # a reader may leave an empty -wal
    return h.hexdigest()


def edit(path, *statements) -> None:
    con = sqlite3.connect(path)
    for statement in statements:
        con.execute(statement)
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def run_verbs(path, tmp_path, capsys, phrase):
    """Every verb on ``path``: exit 2, one line with ``phrase`` and the file; the file unchanged."""
    csv = tmp_path / "answer.csv"
    csv.write_text("source,reward\n0,0.5\n")
    before = digest(path)
    for verb in VERBS:
        argv = ["session", verb[0], "--db", str(path)] + [
            a.format(pending=61, csv=csv, out=tmp_path / "report") for a in verb[1:]]
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1 and phrase in err[0] and str(path) in err[0], (argv, captured.err)
        assert digest(path) == before, argv


EDITS = {
    "reward stored as text": ["UPDATE observations SET reward = 'abc' WHERE id = 5"],
    "reward stored as a blob": ["UPDATE observations SET reward = x'00ff' WHERE id = 7"],
    "infinite reward": ["UPDATE observations SET reward = 1e999 WHERE id = 9"],
    "source as text": ["UPDATE observations SET source = 'two' WHERE id = 3"],
    "source not an integer": ["UPDATE observations SET source = 0.5 WHERE id = 3"],
    "negative source": ["UPDATE observations SET source = -1 WHERE id = 3"],
    "definition not JSON": ["UPDATE definition SET document = '{\"problem\": '"],
    "definition a JSON list": ["UPDATE definition SET document = '[1, 2]'"],
    "definition not a session file": ["UPDATE definition SET document = '{\"problem\": 1}'"],
    "seed as text": ["UPDATE definition SET seed = 'x'"],
    "no definition row": ["DELETE FROM definition"],
    "requests not JSON": ["UPDATE requests SET sources = '[1,' WHERE id = 4"],
    "requests a JSON object": ["UPDATE requests SET sources = '{\"0\": 1}' WHERE id = 4"],
    "request of booleans": ["UPDATE requests SET sources = '[true]' WHERE id = 4"],
    "request changed": ["UPDATE requests SET sources = '[2, 2]' WHERE id = 4"],
    "schema_version x": ["UPDATE meta SET value = 'x' WHERE key = 'schema_version'"],
    "no schema_version": ["DELETE FROM meta WHERE key = 'schema_version'"],
    "observations dropped": ["DROP TABLE observations"],
    "definition dropped": ["DROP TABLE definition"],
    "requests dropped": ["DROP TABLE requests"],
    "a column added": ["ALTER TABLE answers ADD COLUMN note TEXT"],
    "an answer without observations": ["INSERT INTO answers (session, request, size, created) VALUES (1, 3, 1, 'x')"],
    "an answer of an unknown session": ["PRAGMA foreign_keys = OFF", "UPDATE answers SET session = 2 WHERE id = 10"],
    "an extra observation": ["INSERT INTO observations (answer, request, source, reward, time) "
                             "VALUES (3, 3, 1, 0.5, 'x')"],
    "an observation of another request": ["UPDATE observations SET request = 2 WHERE id = 6"],
    "size does not match": ["UPDATE answers SET size = 4 WHERE id = 8"],
    "answer of an unknown request": ["PRAGMA foreign_keys = OFF", "UPDATE answers SET request = 999 WHERE id = 10"],
    "orphan observation": ["PRAGMA foreign_keys = OFF", "UPDATE observations SET answer = 999 WHERE id = 11"],
    "answers out of order": ["UPDATE answers SET request = 12 WHERE id = 11"],
    "application id": ["PRAGMA application_id = 7"],
}


@pytest.mark.parametrize("name", list(EDITS))
def test_edited_rows_are_refused_as_damaged(pristine, tmp_path, capsys, name):
    path = copy_of(pristine, tmp_path)
    edit(path, *EDITS[name])
    with pytest.raises(SessionStateError, match="database is damaged"):
        Session.open(path).close()
    run_verbs(path, tmp_path, capsys, "database is damaged")


def overwrite(path, where: float, data: bytes) -> None:
    with open(path, "r+b") as handle:
        handle.seek(int(where * path.stat().st_size))
        handle.write(data)


@pytest.mark.parametrize("damage", ["zeros in the middle", "noise at 40%", "noise on the last page",
                                    "cut in half", "cut mid-page", "page headers"])
def test_damaged_pages_are_refused(pristine, tmp_path, capsys, damage):
    path = copy_of(pristine, tmp_path)
    rng = np.random.default_rng(len(damage))
    size = path.stat().st_size
    if damage == "zeros in the middle":
        overwrite(path, 0.5, bytes(700))
    elif damage == "noise at 40%":
        overwrite(path, 0.4, rng.bytes(3000))
    elif damage == "noise on the last page":
        overwrite(path, 1 - 2000 / size, rng.bytes(64))
    elif damage == "cut in half":
        os.truncate(path, size // 2)
    elif damage == "cut mid-page":
        os.truncate(path, size - 1500)
    else:
        for page in range(1, size // 4096):
            with open(path, "r+b") as handle:
                handle.seek(page * 4096)
                handle.write(rng.bytes(12))
    try:
        with Session.open(path) as session:
            status = session.status()
    except SessionStateError as exc:
        assert "database is damaged" in str(exc)
        run_verbs(path, tmp_path, capsys, "database is damaged")
    else:  # the bytes hit unused space (free space of a page): then nothing read changed
        with Session.open(pristine) as session:
            assert {**status, "version": 0} == {**session.status(), "version": 0}
        assert damage in ("noise at 40%", "zeros in the middle", "noise on the last page")


def test_a_whole_database_passes_the_checks(pristine, tmp_path, capsys):
    path = copy_of(pristine, tmp_path)
    assert main(["session", "status", "--db", str(path)]) == 0
    capsys.readouterr()
    assert main(["session", "ask", "--db", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("61,")


# ---------------------------------------------------------------- read-only files and folders
def _unprivileged():
    """argv prefix running a command as an ordinary user (root writes any file), or None."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return None if setpriv is None else [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


# runs as the ordinary user: every command in-process (one start-up), results as JSON lines
_CHILD = """
import contextlib, io, json, sys
from pybai.cli import main
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    print(json.dumps([code, out.getvalue(), err.getvalue()]))
"""


def test_read_only_file_or_folder_reads_and_refuses_writes_with_one_line():
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("running as root without setpriv: no user for whom a file is read-only")
    top = Path(tempfile.mkdtemp(prefix="pybai-ro-"))
    top.chmod(0o777)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(top), "MPLCONFIGDIR": str(top), "HOME": str(top)}
    probe = subprocess.run([*prefix, sys.executable, "-c", "import pybai"], capture_output=True, text=True,
                           env=env, timeout=120, cwd=top)
    if probe.returncode != 0:  # e.g. a checkout inside a mode-700 folder (mktemp -d): the other user cannot read it
        shutil.rmtree(top, ignore_errors=True)
        pytest.skip("the unprivileged user cannot import pybai from this checkout (its folder is not readable)")
    doc = {"name": "ro", "seed": 3, "problem": {"goal": "best-arm", "budget": 50},
           "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0}, "strategy": [{"name": "uniform"}]}
    try:
        csv = top / "answer.csv"
        csv.write_text("source,reward\n0,0.5\n")
        paths, commands = {}, []
        for what in ("file", "folder", "file-new-request"):
            folder = top / what
            folder.mkdir()
            path = paths[what] = folder / "s.db"
            with Session.create(path, doc) as session:
                for _ in range(4):
                    request = session.ask()
                    session.tell(request.id, request.requests, [0.5] * len(request))
                if what != "file-new-request":
                    session.ask()  # request 5 pending
            if what == "folder":
                path.chmod(0o666)
                folder.chmod(0o555)
            else:
                folder.chmod(0o777)
                path.chmod(0o444)
            db = ["--db", str(path)]
            commands += [["session", "status", "--json", *db], ["session", "ask", *db],
                         ["session", "tell", "--request", "5", "--csv", str(csv), *db]]
        before = {what: digest(path) for what, path in paths.items()}
        child = subprocess.run([*prefix, sys.executable, "-c", _CHILD, json.dumps(commands)], capture_output=True,
                               text=True, env=env, timeout=120, cwd=top)
        assert child.returncode == 0, child.stderr
        results = [json.loads(line) for line in child.stdout.splitlines()]
        for (what, path), i in zip(paths.items(), range(0, 9, 3)):
            (s_code, s_out, _), (a_code, a_out, a_err), (t_code, _, t_err) = results[i:i + 3]
            assert s_code == 0 and json.loads(s_out)["samples"] == 4
            if what == "file-new-request":  # a new request would have to be recorded
                assert a_code == 2 and "read-only" in a_err and str(path) in a_err
            else:  # the pending request needs no write
                assert a_code == 0 and a_out.splitlines()[1].startswith("5,"), a_err
            err = t_err.strip().splitlines()
            assert t_code == 2 and len(err) == 1 and "read-only" in err[0] and str(path) in err[0], t_err
            assert digest(path) == before[what]
    finally:
        for p in [top, *top.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize("verb", ["ask", "tell", "status", "observations"])
@pytest.mark.parametrize("change", ["removed", "replaced"])
def test_a_file_removed_or_replaced_under_an_open_session_is_refused(tmp_path, change, verb):
    """An open SQLite connection would go on writing into a removed file (an unlinked inode no one reads again)
    or reading one that was replaced: each call refuses with one line, and nothing acknowledged is lost."""
    path = tmp_path / "s.db"
    session = Session.create(path, DOC)
    request = session.ask()
    session.tell(request.id, request.requests, [0.5] * len(request))
    pending = session.ask()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if change == "replaced":
        with Session.create(path, DOC) as other:  # another session database at the same path
            other.ask()
    calls = {"ask": session.ask, "status": session.status, "observations": session.observations,
             "tell": lambda: session.tell(pending.id, pending.requests, [0.5] * len(pending))}
    with pytest.raises(SessionStateError) as refused:
        calls[verb]()
    message = str(refused.value)
    assert "\n" not in message and str(path) in message and change in message, message
    session.close()
