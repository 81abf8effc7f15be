"""The docs runner's fork server (tests/docs/forkserver.py) behaves as the real ``pybai`` does for a
shell: same output, exit status, working folder, environment and standard input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from forkserver import ForkServer  # rootdir-relative import of this folder (no __init__)

ROOT = Path(__file__).resolve().parents[2]

#: each line a shell command; its output and status must not depend on which pybai runs it
SCRIPT = """
pybai --version
pybai no-such-command; echo "status $?"
pybai list | head -3; echo "status $?"
mkdir -p sub && cd sub && pybai session status --db missing.db; echo "status $?"; cd ..
COLUMNS=40 pybai validate --help | head -4
echo "not an experiment" | pybai run /dev/stdin --quiet; echo "status $?"
"""


def _run(env: dict, cwd: Path) -> str:
    done = subprocess.run(["bash", "-c", SCRIPT], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_commands_through_the_fork_server_print_and_exit_as_the_real_ones(tmp_path):
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
           "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100", "TZ": "UTC"}
    env.pop("PYBAI_DOCS_FORKSERVER", None)
    real = _run(env, tmp_path)
    server = ForkServer(tmp_path / "server", env, tmp_path)
    (tmp_path / "server").mkdir()
    try:
        forked_env = {**env, **server.start()}
        forked = _run(forked_env, tmp_path)
        assert server.process is not None and server.process.poll() is None
        assert [argv[0] for argv in server.served()] == ["--version", "no-such-command", "list", "session",
                                                         "validate", "run"]
    finally:
        server.stop()
    assert "status 2" in real and "pybai " in real
    assert forked == real
