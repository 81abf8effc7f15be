"""Every writer of pybai x every kind of thing already at the output path: written through or refused
with one line, never replaced (``pybai._output.write_output``).

The writers are the commands that take an output path (``run --json``, ``complexity --json``,
``session ask --csv``, ``session export --csv``, ``session report --out``); the
kinds are a symbolic link to a file, a dangling symbolic link, a FIFO with a reader, a FIFO
without one, a device (through a link to ``/dev/null`` and ``/dev/full``), a read-only-mode
regular file and a folder.  A writer added to the command line belongs in ``WRITERS``.
"""

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from pybai.cli import main
from pybai.session import Session

EXPERIMENT = """
name = "tiny"
replications = 2
seed = 3
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.0]
sigma = 1.0
[[strategy]]
name = "uniform"
"""

SESSION = {"name": "out", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "bernoulli", "arms": 2}, "strategy": [{"name": "uniform"}]}


def _experiment(tmp: Path) -> str:
    path = tmp / "tiny.toml"
    path.write_text(EXPERIMENT)
    return str(path)


def _session(tmp: Path) -> str:
    db = tmp / "s.db"
    with Session.create(db, SESSION) as session:
        request = session.ask()
        session.tell(request.id, request.requests, [1.0] * len(request))
    return str(db)


# each writer: (prepare(tmp) -> argv builder, the path that receives the output for a given P)
WRITERS = {
    "run --json": lambda tmp: (lambda p: ["run", _experiment(tmp), "--quiet", "--json", p], lambda p: p),
    "complexity --json": lambda tmp: (lambda p: ["complexity", _experiment(tmp), "--json", p], lambda p: p),
    "session ask --csv": lambda tmp: (lambda p, db=_session(tmp): ["session", "ask", "--db", db, "--csv", p],
                                      lambda p: p),
    "session export --csv": lambda tmp: (lambda p, db=_session(tmp): ["session", "export", "--db", db, "--csv", p],
                                         lambda p: p),
    "session report --out": lambda tmp: (
        lambda p, db=_session(tmp): ["session", "report", "--db", db, "--out", str(Path(p).parent)],
        lambda p: str(Path(p).parent / "session.html")),
}


def _wait_in_open(thread: threading.Thread) -> None:
    """Wait (at most 2 s) until ``thread`` blocks in opening the FIFO for reading: a writer started before that sees
    no reader and refuses, rightly, so the case "fifo with a reader" would race with the thread's start."""
    wchan = Path(f"/proc/self/task/{thread.native_id}/wchan")
    for _ in range(200):
        try:
            if wchan.read_text() == "wait_for_partner":
                return
        except OSError:  # no /proc: fall back to the time budget
            pass
        time.sleep(0.01)


def _run(argv, capsys) -> tuple[int, list[str]]:
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert len(err) == 1 and err[0].startswith("pybai: error:"), err
    return code, err


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return ("link" if stat.S_ISLNK(mode) else "fifo" if stat.S_ISFIFO(mode) else "dir" if stat.S_ISDIR(mode)
            else "file" if stat.S_ISREG(mode) else "other")


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_outputs_never_replace_what_is_there(writer, tmp_path, capsys):
    results = {}
    for case in ("link to a file", "dangling link", "fifo with a reader", "fifo without a reader", "/dev/null",
                 "/dev/full", "read-only-mode file", "folder"):
        work = tmp_path / case.replace("/", "_").replace(" ", "-")
        out = work / "out"
        out.mkdir(parents=True)
        argv_of, receiver_of = WRITERS[writer](work)
        target = Path(receiver_of(str(out / "result")))
        elsewhere = work / "elsewhere.txt"
        reader = None
        got: list[bytes] = []
        if case == "link to a file":
            elsewhere.write_text("old")
            target.symlink_to(elsewhere)
        elif case == "dangling link":
            target.symlink_to(elsewhere)
        elif case.startswith("fifo"):
            os.mkfifo(target)
            if case == "fifo with a reader":
                def read():
                    with open(target, "rb") as handle:
                        got.append(handle.read())
                reader = threading.Thread(target=read, daemon=True)
                reader.start()
                _wait_in_open(reader)
        elif case.startswith("/dev/"):
            target.symlink_to(case)
        elif case == "read-only-mode file":
            target.write_text("old")
            target.chmod(0o640)
        elif case == "folder":
            target.mkdir()
        before = _kind(target)
        code, err = _run(argv_of(str(out / "result")), capsys)
        if reader is not None:
            if code != 0:  # the command refused before opening it: let the reader go
                with open(target, "wb"):
                    pass
            reader.join(timeout=60)
            assert not reader.is_alive()
        assert _kind(target) == before, (case, "replaced")
        results[case] = code
        if case == "link to a file" or case == "dangling link":
            assert code == 0 and os.readlink(target) == str(elsewhere) and elsewhere.read_text() != "old", case
        elif case == "fifo with a reader":
            assert code == 0 and got and got[0], case
        elif case == "fifo without a reader":
            assert code == 2 and "no process reads" in err[0]
        elif case == "/dev/null":
            assert code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)
        elif case == "/dev/full":
            assert code == 2 and "No space left" in err[0]
        elif case == "read-only-mode file":
            assert code == 0 and stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() != "old"
        elif case == "folder":
            assert code == 2
        assert not [p for p in target.parent.iterdir() if p.name.endswith((".tmp", ".probe"))], "left behind"
    print(writer, results)


def test_a_regular_output_is_replaced_atomically_and_a_stray_tmp_is_kept(tmp_path):
    from pybai._output import write_output

    target = tmp_path / "a.json"
    stray = tmp_path / "a.json.tmp"  # someone's file: the old code wrote and removed it
    stray.write_text("mine")
    write_output(target, "one")
    inode = target.stat().st_ino
    write_output(target, "two")
    assert target.read_text() == "two" and target.stat().st_ino != inode  # renamed into place
    assert stray.read_text() == "mine"
