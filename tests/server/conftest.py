"""Shared helpers of the server tests: small sessions in a folder, a test client, a live server in a thread."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from _serve_sessions import make_ab, make_quick


@pytest.fixture
def folder():
    """A scratch folder on tmpfs when there is one (every accepted tell is an fsync'ed transaction)."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="pybai-server-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def sessions(folder):
    """A folder holding two sessions ("checkout", "quick") and a file that is not one."""
    make_ab(folder / "checkout.db")
    make_quick(folder / "quick.db")
    (folder / "notes.txt").write_text("not a session\n")
    return folder


@pytest.fixture
def client_for():
    """``client_for(db, token=None)``: a Starlette TestClient of ``pybai serve`` (closed after the test)."""
    import warnings

    with warnings.catch_warnings():  # newer Starlette prefers the httpx2 package; httpx works with every version
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from pybai.server import create_app

    clients = []

    def make(db, token=None):
        client = TestClient(create_app(str(db), token=token))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


class LiveServer:
    """``pybai serve``'s application under uvicorn in a thread, on a free port of 127.0.0.1."""

    def __init__(self, db, token=None):
        import uvicorn

        from pybai.server import create_app

        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(str(db), token=token), log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()
