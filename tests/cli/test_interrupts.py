"""Ctrl-C on the pybai command: one line and status 130 at start-up, in the run, and on a second Ctrl-C."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pybai import _interrupts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and signals")

QUICK = """
name = "quick"
replications = 400
seed = 7
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.8, 0.6]
[[strategy]]
name = "uniform"
"""


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a terminal starts a foreground command


def start(*args, python_options=()):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, *python_options, "-m", "pybai", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint)


def ctrl_c(proc):
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal does: the whole process group


def errors(err: str) -> list[str]:
    return [line for line in err.strip().splitlines() if not line.startswith("import time:")]


def test_ctrl_c_while_pybai_starts_is_one_line_and_status_130(tmp_path):
    path = tmp_path / "quick.toml"
    path.write_text(textwrap.dedent(QUICK))
    proc = start("run", path, python_options=("-X", "importtime"))
    seen = []
    for line in proc.stderr:  # each finished import, in order: the handler is in place after pybai._version
        seen.append(line)
        if line.rstrip().endswith("pybai._version"):
            break
    ctrl_c(proc)
    out, err = proc.communicate(timeout=30)
    lines = errors("".join(seen[-1:]) + err)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert lines == ["pybai: interrupted"], err[-2000:]
    assert out == ""


def wait_for_lines(path: Path, proc, timeout=30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and path.stat().st_size > 0:
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("gap", [0.05])
def test_a_second_ctrl_c_with_workers_is_still_status_130(tmp_path, gap):
    path, out = tmp_path / "quick.toml", tmp_path / "store"
    path.write_text(textwrap.dedent(QUICK))
    proc = start("run", path, "--jobs", "2", "--out", out, "--quiet")
    assert wait_for_lines(out / "outcomes.jsonl", proc), proc.communicate()[1][-2000:]
    ctrl_c(proc)
    time.sleep(gap)
    ctrl_c(proc)
    _, err = proc.communicate(timeout=30)
    lines = errors(err)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("pybai: interrupted"), err[-2000:]


def test_only_the_command_process_is_taken_for_the_command(monkeypatch):
    """Importing pybai elsewhere (scripts, notebooks, workers) leaves Ctrl-C to Python."""
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "script.py"], raising=False)
    assert not _interrupts.launched_as_command()
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "/x/bin/pybai", "run", "f"], raising=False)
    assert _interrupts.launched_as_command()
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-X", "dev", "-m", "pybai.cli", "run"], raising=False)
    assert _interrupts.launched_as_command()
    # a worker spawned by the command: the command line of spawn, the command's argv copied in
    monkeypatch.setattr(sys, "orig_argv", [sys.executable, "-c", "from multiprocessing.spawn import spawn_main",
                                           "--multiprocessing-fork"], raising=False)
    monkeypatch.setattr(sys, "argv", ["/x/bin/pybai", "run", "f"])
    assert not _interrupts.launched_as_command() and _interrupts.spawned_by_command()
    monkeypatch.setattr(sys, "argv", ["/x/script.py"])
    assert not _interrupts.spawned_by_command()


@pytest.mark.skipif(os.environ.get("PYBAI_TEST_DASK_INTERRUPT") != "1",
                    reason="a LocalCluster takes 5-15 s to start and to close (run with PYBAI_TEST_DASK_INTERRUPT=1)")
def test_ctrl_c_on_a_local_cluster_is_one_line_and_ends_the_workers(tmp_path):
    pytest.importorskip("distributed")
    path, out = tmp_path / "quick.toml", tmp_path / "store"
    path.write_text(textwrap.dedent(QUICK))
    proc = start("run", path, "--cluster", "local:2", "--out", out, "--quiet")
    assert wait_for_lines(out / "outcomes.jsonl", proc, timeout=120)
    ctrl_c(proc)
    _, err = proc.communicate(timeout=60)
    lines = errors(err)
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], err[-3000:]
    end = time.monotonic() + 10
    while time.monotonic() < end and _group_alive(proc.pid):
        time.sleep(0.1)
    assert not _group_alive(proc.pid)


def _group_alive(sid) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                return True
    return False
