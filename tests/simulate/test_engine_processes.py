"""The engine as a process: SIGKILL then --resume, Ctrl-C with workers, orphans, outputs refused before running."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pybai.cli import main

from pybai.simulate import Sweep, run_sweep
from pybai.simulate.executors import InlineExecutor
from pybai.simulate.store import OUTCOMES, ResultStore
from pybai.simulate.tasks import make_tasks, run_task

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process checks read /proc")

# 3 points x 2 strategies x 2 blocks = 12 tasks of ~0.1-0.2 s CPU each
SLOW = """
name = "slow"
replications = 50
seed = 7
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "gaussian"
means = [1.0, 0.7, 0.4]
[grid]
"environment.sigma" = [0.8, 1.0, 1.2]
[[strategy]]
name = "tas"
[[strategy]]
name = "uniform"
"""

LONGER = SLOW.replace("replications = 50", "replications = 200")  # 48 tasks: still running when interrupted


def write(tmp_path, text=SLOW):
    path = tmp_path / "slow.toml"
    path.write_text(textwrap.dedent(text))
    return path


def _default_sigint():
    """A terminal starts a foreground command with SIGINT at its default; a test process may have it
    ignored (an ignored signal stays ignored across exec, and Python then installs no Ctrl-C handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(*args, **kwargs):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-m", "pybai.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint, **kwargs)


def session_processes(sid):
    """Processes of session ``sid`` still alive (zombies excluded)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def wait_for_lines(path, minimum, proc, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and path.read_bytes().count(b"\n") >= minimum:
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def wait_gone(sid, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end and session_processes(sid):
        time.sleep(0.05)
    return session_processes(sid)


class Recording(InlineExecutor):
    def __init__(self):
        self.ran = []

    def results(self, tasks):
        for task in tasks:
            self.ran.append(task)
            yield run_task(self._experiments, task, self._gridded)


def strip(document):
    document = json.loads(json.dumps(document))
    document.pop("elapsed_seconds")
    for r in document["results"] + [r for p in document["points"] for r in p["results"]]:
        r.pop("wall_seconds")
        r.pop("cpu_seconds")
    return document


def test_sigkill_mid_sweep_then_resume(tmp_path):
    path, out = write(tmp_path), tmp_path / "store"
    proc = cli("run", path, "--out", out, "--quiet")
    started = wait_for_lines(out / OUTCOMES, 26, proc)  # at least one task stored
    proc.kill()
    proc.communicate()
    assert started, "the run ended before it could be killed"
    sweep = Sweep.from_file(path)
    tasks = make_tasks(sweep.experiments)
    stored = ResultStore(out, sweep).completed(tasks)
    assert 0 < len(stored) < len(tasks)
    rec = Recording()
    resumed = run_sweep(sweep, backend=rec, out=out, resume=True)
    assert sorted(rec.ran) == sorted(set(tasks) - set(stored))
    assert strip(resumed) == strip(run_sweep(Sweep.from_file(path), jobs=2))


def test_ctrl_c_with_workers_stops_fast_keeps_finished_tasks_and_ends_workers(tmp_path):
    path, out = write(tmp_path, LONGER), tmp_path / "store"
    proc = cli("run", path, "--out", out, "--jobs", "2")
    assert wait_for_lines(out / OUTCOMES, 26, proc)
    assert len(session_processes(proc.pid)) >= 2  # the main process and its workers
    began = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal does
    _, err = proc.communicate(timeout=30)
    elapsed = time.monotonic() - began
    assert elapsed < 3.0, (elapsed, proc.returncode, signal.getsignal(signal.SIGINT), err[-400:])
    assert proc.returncode == 130
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    assert wait_gone(proc.pid, 2.0) == []
    sweep = Sweep.from_file(path)
    assert len(ResultStore(out, sweep).completed(make_tasks(sweep.experiments))) >= 1


def test_killed_main_process_leaves_no_orphan_workers(tmp_path):
    path, out = write(tmp_path, LONGER), tmp_path / "store"
    proc = cli("run", path, "--out", out, "--jobs", "2", "--quiet")
    assert wait_for_lines(out / OUTCOMES, 1, proc)
    workers = [pid for pid in session_processes(proc.pid) if pid != proc.pid]
    assert workers
    proc.kill()
    proc.communicate()
    assert wait_gone(proc.pid, 3.0) == []


@pytest.mark.parametrize("args, message", [
    (["--json", "/proc/x.json"], "--json /proc/x.json: cannot write there"),
    (["--json", "{tmp}"], "is a folder"),
    (["--out", "{tmp}/file.txt"], "is a file"),
])
def test_unwritable_outputs_are_refused_before_running(tmp_path, capsys, args, message):
    path = write(tmp_path)
    (tmp_path / "file.txt").write_text("x")
    before = set(tmp_path.iterdir())
    began = time.process_time()
    assert main(["run", str(path), *[a.replace("{tmp}", str(tmp_path)) for a in args]]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert captured.out == ""  # no table: nothing was simulated
    assert set(tmp_path.iterdir()) == before  # nothing half-written, no .tmp left behind
    assert time.process_time() - began < 1.0


def test_jobs_far_above_tasks_is_capped_with_one_line(tmp_path, capsys):
    path = write(tmp_path, SLOW.replace("replications = 50", "replications = 2").replace("[0.8, 1.0, 1.2]", "[0.8]"))
    assert main(["run", str(path), "--jobs", "1000", "--quiet"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if "capped" in line]
    assert len(notes) == 1 and notes[0].startswith("pybai: note: 1000 workers capped at ")
    assert notes[0].endswith(" tasks to run)") and "tas" in captured.out


@pytest.mark.parametrize("command", [["complexity", "{file}"], ["validate", "--quick", "--family", "close-arms"]])
def test_other_commands_refuse_an_unwritable_json_before_working(tmp_path, capsys, command):
    path = write(tmp_path)
    began = time.process_time()
    assert main([a.replace("{file}", str(path)) for a in command] + ["--json", "/proc/x.json"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "--json /proc/x.json: cannot write there" in lines[0], captured.err
    assert captured.out == "" and time.process_time() - began < 1.0


def test_write_json_failure_is_one_config_error(tmp_path):
    from pybai.cli._common import write_json
    from pybai.exceptions import ConfigError

    with pytest.raises(ConfigError, match="--json /proc/x.json: cannot write there"):
        write_json({"a": 1}, "/proc/x.json")
    assert not Path("/proc/x.json.tmp").exists()
