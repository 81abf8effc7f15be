"""A throw-away PostgreSQL server for the tests: initdb in a temporary folder, a free port, a socket there.

Found through PATH or ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql`` package).  As root
(initdb refuses to run as root) the cluster belongs to the ``postgres`` user and its commands
run through ``runuser -u postgres --``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def server_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl, or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").exists() and Path(folder, "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running cluster; :attr:`url` names its database ``pybai`` (user ``pybai``, no password)."""

    def __init__(self, binaries: Path):
        self.bin = binaries
        self.top = Path(tempfile.mkdtemp(prefix="pybai-pg-"))
        self.data = self.top / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                pw = None
            if runuser is None or pw is None:
                raise RuntimeError("running as root without a postgres user and runuser: initdb refuses root")
            os.chown(self.top, pw.pw_uid, pw.pw_gid)
            self.prefix = [runuser, "-u", "postgres", "--"]
        self.url = f"postgresql://pybai@127.0.0.1:{self.port}/pybai"

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([*self.prefix, *argv], capture_output=True, text=True, check=check, timeout=120,
                              cwd=self.top)

    def start(self) -> "Server":
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "pybai", "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        self._start()
        self.new_database("pybai")
        return self

    def new_database(self, name: str) -> str:
        """A new empty database of the cluster; its URL."""
        import psycopg

        with psycopg.connect(f"postgresql://pybai@127.0.0.1:{self.port}/postgres", autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://pybai@127.0.0.1:{self.port}/{name}"

    def restart(self, mode: str = "fast", down: float = 0.0) -> None:
        """Stop the server (``mode``: ``fast`` ends every connection, ``immediate`` is a crash), wait ``down``
        seconds (connections are refused meanwhile) and start it again on the same port; returns when it
        accepts connections."""
        import time

        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")
        time.sleep(down)
        self._start()

    def _start(self) -> None:
        options = (f"-p {self.port} -k {self.top} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c max_connections=60 -c shared_buffers=16MB")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.top / "log"), "-o", options,
                  "-w", "-t", "60", "start")

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        finally:
            shutil.rmtree(self.top, ignore_errors=True)
