"""Shared helpers of the session tests: experiment/session documents and a simulated world."""

from __future__ import annotations

import copy
import itertools
import os

import numpy as np
import pytest

from pybai.config import parse_experiment
from pybai.simulate.seeding import STREAM_NOISE, STREAM_TRUTH, child, replication_seed

TRUTH_KEYS = ("means", "theta", "draw", "truths")


def learner_document(experiment_document: dict) -> dict:
    """The session file of an experiment document: the same file without the truth."""
    doc = copy.deepcopy(experiment_document)
    env = doc["environment"]
    means = env.get("means")
    for key in TRUTH_KEYS:
        env.pop(key, None)
    if env["kind"] in ("gaussian", "bernoulli"):
        env["arms"] = len(means)
    elif env["kind"] == "subpopulation-gaussian":
        env["arms"], env["subpopulations"] = len(means), len(means[0])
    return doc


def as_session_runs(experiment_document: dict) -> dict:
    """The experiment with the threshold a session uses: an unchosen one is "delta-correct" in fixed
    confidence (``pybai run`` keeps the heuristic default)."""
    doc = copy.deepcopy(experiment_document)
    strategy = doc["strategy"][0]
    if "delta" in doc["problem"] and "threshold" not in strategy:
        strategy["threshold"] = "delta-correct"
    return doc


class World:
    """The world of replication 0 of ``pybai run`` with the experiment's seed (same truth, same noise).

    Its experiment runs the strategy as a session of the same file does (:func:`as_session_runs`).
    """

    def __init__(self, experiment_document: dict):
        self.experiment = parse_experiment(as_session_runs(experiment_document))
        seed = replication_seed(self.experiment.seed, 0)
        self.truth = self.experiment.environment.realize(np.random.default_rng(child(seed, STREAM_TRUTH)))
        self.noise = np.random.default_rng(child(seed, STREAM_NOISE))

    def respond(self, requests):
        return self.truth.respond(np.asarray(requests), self.noise)

    def drive(self, session, max_rounds: int = 100_000) -> None:
        """Answer every request of ``session`` (Python API) until it stops."""
        for _ in range(max_rounds):
            if session.stopped:
                return
            request = session.ask()
            session.tell(request.id, *self.respond(request.requests))
        raise AssertionError("the session did not stop")


@pytest.fixture
def gaussian_doc():
    return {
        "name": "g3", "seed": 11, "replications": 1,
        "problem": {"goal": "best-arm", "delta": 0.1},
        "environment": {"kind": "gaussian", "means": [1.5, 0.5, 0.0], "sigma": 1.0},
        "strategy": [{"name": "tas"}],
    }


@pytest.fixture
def batch_doc():
    return {
        "name": "plate", "seed": 5, "replications": 1,
        "problem": {"goal": "best-arm", "delta": 0.1, "batch": {"size": 8, "max_repeats": 2}},
        "environment": {"kind": "gaussian", "means": [0.0, 0.3, 1.2, 0.2, 0.1], "sigma": 1.0},
        "strategy": [{"name": "uniform"}],
    }


@pytest.fixture
def workdir(tmp_path):
    """A scratch directory, in memory (/dev/shm) when the machine has one.

    Every accepted tell is an fsync'ed SQLite transaction; on a shared disk that costs
    milliseconds, so the long CLI-driven sessions run on tmpfs (durability across a process
    crash does not depend on the file system: see test_session_crash.py, which uses tmp_path).
    """
    import shutil
    import tempfile
    from pathlib import Path

    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="pybai-session-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- storage backends (tests/session/test_storage_*.py)
_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server started for the test session (skipped only when no server is installed)."""
    from _postgres import Server, server_binaries  # tests/session/_postgres.py

    binaries = server_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin; "
                    "install Debian's postgresql package (.ci/run does)")
    pytest.importorskip("psycopg", reason="the PostgreSQL driver: pip install -e '.[postgresql]' (make install)")
    server = Server(binaries).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def storage_db(request, tmp_path):
    """A new, empty database of each backend: an SQLite path, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return tmp_path / "s.db"
    return request.getfixturevalue("postgres_server").new_database(f"t{os.getpid()}_{next(_databases)}")
