"""Small sessions, fixtures and a live server for the server tests (the test modules import what they use;
no conftest.py here: tests/session has one, and test folders are not packages)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.session import Session


def make_ab(db, name: str = "checkout", delta: float = 0.05) -> Path:
    """An A/B/n session: 3 Bernoulli variants, top-two, delta-correct threshold."""
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(delta))
    Session.create(db, problem=problem, strategy=make_strategy("top-two"), seed=7, name=name).close()
    return Path(db)


#: the metrics of the guardrail session: revenue (objective), latency at most 0, refunds at most the control's + 0.1
GUARDED_METRICS = ("revenue", "latency", "refunds")


def make_guarded(db, name: str = "guarded", delta: float = 0.1) -> Path:
    """A guardrail session: 3 variants (control, fast, slow), objective revenue, a latency bound and a refunds
    non-inferiority margin, Track-and-Stop, delta-correct rule."""
    from pybai.problems.guardrails import GuardrailProblem, Metric

    problem = GuardrailProblem(3, [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
                                   Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.1)],
                               FixedConfidence(delta), control="control", labels=["control", "fast", "slow"])
    Session.create(db, problem=problem, strategy=make_strategy("tas"), seed=2, name=name).close()
    return Path(db)


def guarded_world():
    """The truth of :func:`make_guarded`'s session: "slow" earns most but breaks the latency guardrail,
    "fast" beats the control and keeps both (metrics correlated within an observation; its refunds 0.1 below
    the control's, 0.2 inside the guardrail, so that the session stops in a few hundred observations)."""
    from pybai.environments import BernoulliEnvironment, GaussianEnvironment
    from pybai.environments.multi_metric import MultiMetricEnvironment

    return MultiMetricEnvironment({"revenue": GaussianEnvironment([0.0, 0.8, 2.0], sigma=1.0),
                                   "latency": GaussianEnvironment([-1.0, -1.0, 1.5], sigma=1.0),
                                   "refunds": BernoulliEnvironment([0.2, 0.1, 0.2])},
                                  correlation=[[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])


def make_quick(db, name: str = "quick") -> Path:
    """A Gaussian session with far-apart arms in mind: it stops after a few dozen samples."""
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.1))
    Session.create(db, problem=problem, strategy=make_strategy("uniform"), seed=3, name=name).close()
    return Path(db)


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
