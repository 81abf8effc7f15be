"""The docs pages' ``pybai`` commands without paying the library's imports each time: a fork server.

A page's console block runs ``pybai ...`` tens of times (the README's plate screen: 27 commands);
a fresh interpreter spends about 3 s of CPU importing numpy, scipy, numba and SQLAlchemy before
each one does its work.  The runner (:mod:`tests.docs.run_markdown`) starts this server once per
page: it imports those libraries, then forks one child per command.  A command still runs in a
process of its own, started from the same state as a fresh ``pybai`` process after its imports:
it gets the caller's standard input, output and error (the file descriptors themselves), working
folder, environment and arguments, runs :func:`pybai.cli.main`, and exits through the interpreter's
normal exit (``atexit`` handlers run) with its status.  Nothing a command does reaches the next one
(each starts from the server's untouched state).  What differs from a fresh interpreter: modules
were imported in the server's folder with the page's environment (the runner's, the same for
every command of a page), numba's CPU target is already set up (:func:`preload`), and ``sys.argv[0]``
is the console script's path, as in the real one.

The ``pybai`` the page's shell finds first on ``PATH`` is :data:`SHIM`: it hands its arguments and
descriptors to the server over a Unix socket, forwards SIGTERM, SIGINT and SIGHUP to the command,
and exits with the command's status.  Where there is no server (``PYBAI_DOCS_FORKSERVER`` unset
or not answering) and for ``pybai serve`` (a long-running server: nothing to save), the shim runs
the real console script instead.  ``PYBAI_DOCS_FORK=0`` makes the runner start no server, so every
command runs in a fresh interpreter (for comparison).
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

#: imported by the server before it forks: the command line and the session package, and what a
#: ``pybai session`` command imports only when it runs (the command line imports its heavy modules
#: where they are used): the SQLite backend with SQLAlchemy, and numba
PRELOAD = ("pybai.cli", "pybai.session", "pybai.session.backend_sqlite", "pybai.session.migrations", "numba")


def preload() -> None:
    """What the server does once before it forks: import :data:`PRELOAD`, build the command line's
    parser (it imports every command's module), and set up numba's CPU target (its registries of
    compiled implementations, which numba otherwise loads in each process on the first compiled
    function it runs or loads from the cache: about 0.4 s of CPU per command).  None of this
    changes what a command computes or prints."""
    for name in PRELOAD:
        importlib.import_module(name)
    importlib.import_module("pybai.cli").build_parser()
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()

#: the ``pybai`` found first on the page's PATH; ``{python}`` and ``{script}`` are filled in
SHIM = """#!{python} -IS
import json, os, signal, socket, sys
script = {script!r}
path = os.environ.get("PYBAI_DOCS_FORKSERVER")
if not path or sys.argv[1:2] == ["serve"]:
    os.execv(script, [script, *sys.argv[1:]])
sock = socket.socket(socket.AF_UNIX)
try:
    sock.connect(path)
except OSError:
    os.execv(script, [script, *sys.argv[1:]])
request = json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}).encode()
socket.send_fds(sock, [len(request).to_bytes(8, "big")], [0, 1, 2])
sock.sendall(request)
reply = sock.makefile("rb")
pid = int(reply.readline())
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, lambda n, _: os.kill(pid, n))
status = reply.readline().strip()
sys.exit(int(status) if status else 1)
"""


class ForkServer:
    """The server of one page: started with :meth:`start`, stopped with :meth:`stop`."""

    def __init__(self, folder: Path, env: dict, cwd: Path):
        self.folder, self.env, self.cwd = folder, env, cwd
        self.socket = folder / "pybai.sock"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120.0) -> dict:
        """Write the shim, start the server, wait until it listens; return the variables to add to
        the page's environment (``PATH`` with the shim first, the socket's path)."""
        script = Path(sys.executable).parent / "pybai"
        shim = self.folder / "bin" / "pybai"
        shim.parent.mkdir(parents=True, exist_ok=True)
        shim.write_text(SHIM.format(python=sys.executable, script=str(script)))
        shim.chmod(0o755)
        self.process = subprocess.Popen([sys.executable, __file__, str(self.socket), str(script)], cwd=self.cwd,
                                        env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline()
        if ready.strip() != "ready":
            self.stop()
            raise RuntimeError("the docs fork server did not start")
        return {"PATH": str(shim.parent) + os.pathsep + self.env["PATH"], "PYBAI_DOCS_FORKSERVER": str(self.socket)}

    def served(self) -> list[list[str]]:
        """The arguments of each command the server ran, in order."""
        log = self.socket.with_name("served.log")
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def stop(self) -> None:
        if self.process is None:
            return
        process, self.process = self.process, None
        if process.poll() is None:
            process.terminate()  # the server's handler ends its own commands still running, then itself
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        process.stdout.close()


# ------------------------------------------------------------------ the server process
def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, 8, 3)
    size = int.from_bytes(header, "big")
    data = bytearray()
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the shim closed the connection")
        data += chunk
    return json.loads(data), list(fds)


def _command(conn: socket.socket, request: dict, fds: list[int], script: str) -> None:
    """In the forked child: become the command and leave through the interpreter's exit."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [script, *request["argv"]]

    def report(status):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        try:
            conn.sendall(f"{status}\n".encode())
        except OSError:
            pass

    status = 1
    atexit.register(lambda: report(status))  # registered first: runs last, after the command's own handlers
    conn.sendall(f"{os.getpid()}\n".encode())
    from pybai.cli import main

    try:
        status = main(request["argv"])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - printed as the interpreter would, status 1
        import traceback

        traceback.print_exc()
        status = 1
    status = 0 if status is None else int(status)
    raise SystemExit(status)


def serve(path: str, script: str) -> None:
    sys.path[0] = str(Path(script).parent)  # as the console script's own interpreter has it
    preload()
    children: set[int] = set()

    def reap(block: bool = False) -> None:
        """Wait for the commands that ended (all of them with ``block``): their CPU time then counts
        in the server's, which the runner waits for (``time`` of a page's run sees it all)."""
        for pid in list(children):
            try:
                done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                children.discard(pid)

    def stop(number, frame):
        for pid in children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        reap(block=True)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(16)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        reap()
        try:
            request, fds = _receive(conn)
        except (OSError, ValueError):
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            listener.close()
            _command(conn, request, fds, script)  # raises SystemExit: the interpreter exits from here
        children.add(pid)
        with open(Path(path).with_name("served.log"), "a") as log:  # what the tests read back
            log.write(json.dumps(request["argv"]) + "\n")
        conn.close()
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
