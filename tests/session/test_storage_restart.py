"""The PostgreSQL server restarts under eight concurrent clients: nothing acknowledged is lost or doubled.

Eight clients loop ask -> tell on one session of a real PostgreSQL server (started by the tests,
``tests/session/_postgres.py``); in the middle the server is stopped (``fast``: every connection
ended, or ``immediate``: a crash), left down for a moment, and started again.  Through the Python
API the clients never see the restart (a dead connection is replaced at the next BEGIN, a
transaction the server rolled back is run again); through ``pybai serve``'s HTTP API no answer is
a 500, a 503 ("try again") only while the server is down, and every call after it is back works.
Afterwards the log holds exactly the acknowledged answers, each request answered once, and every
client's connection is a new one.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

import numpy as np
import pytest

from pybai.exceptions import RequestError, SessionStateError
from pybai.session import Session

CLIENTS = 8
DOC = {"name": "shared", "seed": 2, "problem": {"goal": "best-arm", "delta": 1e-9},
       "environment": {"kind": "bernoulli", "arms": 3}, "strategy": [{"name": "uniform"}],
       "session": {"max_pending": CLIENTS}}


def _rewards(index: int, round_: int, size: int) -> list[float]:
    """Rewards known from the client and the round alone (so each acknowledged answer is known exactly)."""
    rng = np.random.default_rng([index, round_])
    return (rng.random(size) < 0.5).astype(float).tolist()


def _backend_pid(session) -> int:
    return int(session._store._call(lambda c: c.exec_driver_sql("SELECT pg_backend_pid()").scalar_one(), "read it"))


@pytest.fixture
def drops(monkeypatch):
    """Counts the connections a store found dead and replaced (the fault reached the clients)."""
    from pybai.session.link import Link

    count = Counter()
    drop = Link._drop

    def counted(self):
        count["dropped"] += 1
        drop(self)

    monkeypatch.setattr(Link, "_drop", counted)
    return count


def _restart_when(server, ready, mode: str) -> dict:
    """Restart ``server`` once ``ready()``; the times it went down and came back."""
    times = {}
    deadline = time.monotonic() + 300
    while not ready():
        assert time.monotonic() < deadline, "the clients made no progress before the restart"
        time.sleep(0.05)
    times["down"] = time.monotonic()
    server.restart(mode, down=1.0)
    times["back"] = time.monotonic()
    return times


def _check_log(db, acknowledged) -> dict:
    """The log holds exactly the acknowledged answers, each request answered once; the status."""
    with Session.open(db, "shared") as session:
        rows = session.observations()
        status = session.status()
        answers = session._store.events_after(0, 0).answers
    told = Counter((rid, s, r) for rid, sources, rewards in acknowledged for s, r in zip(sources, rewards))
    logged = Counter((int(row["request"]), int(row["source"]), float(row["reward"])) for row in rows)
    assert logged == told, "an acknowledged answer was lost, or an unacknowledged one stored"
    per_request = Counter(a.request for a in answers)
    assert max(per_request.values()) == 1 and len(per_request) == len(acknowledged), "a request answered twice"
    assert status["samples"] == sum(len(s) for _, s, _ in acknowledged) == status["answers"] * 1
    return status


@pytest.mark.parametrize("mode", ["immediate"])
def test_python_clients_never_see_a_restart(postgres_server, mode, drops):
    db = postgres_server.new_database(f"restart_api_{mode}")
    Session.create(db, DOC).close()
    acknowledged, errors, pids = [], [], []
    lock = threading.Lock()
    rounds_after = 6  # each client's rounds once the server is back
    back = threading.Event()

    def client(index: int) -> None:
        with Session.open(db, "shared") as session:
            before = _backend_pid(session)
            round_, after = 0, 0
            while after < rounds_after and round_ < 2000:
                round_ += 1
                try:
                    request = session.ask()
                    rewards = _rewards(index, round_, len(request))
                    session.tell(request.id, request.requests, rewards)
                except (RequestError, SessionStateError) as exc:
                    with lock:
                        errors.append((index, round_, f"{type(exc).__name__}: {exc}"))
                    continue
                with lock:
                    acknowledged.append((request.id, request.requests.tolist(), rewards))
                if back.is_set():
                    after += 1
            with lock:
                pids.append((before, _backend_pid(session)))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    times = _restart_when(postgres_server, lambda: len(acknowledged) >= 3 * CLIENTS, mode)
    back.set()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a client hangs"
    assert not errors, errors[:5]  # the restart was invisible: no call failed
    assert len(pids) == CLIENTS and all(a != b for a, b in pids), "a client kept a connection across the restart"
    assert drops["dropped"] >= CLIENTS
    status = _check_log(db, acknowledged)
    print(f"{mode}: {len(acknowledged)} answers stored, server down {times['back'] - times['down']:.1f} s, "
          f"{status['samples']} samples, {drops['dropped']} connections replaced")


def _post(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = b"" if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


class _Served:
    """``pybai serve``'s application (``create_app``) under uvicorn in a thread, on a free port."""

    def __init__(self, db: str):
        import socket

        import uvicorn

        from pybai.cli.serve import listening_socket
        from pybai.server import create_app

        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        self.socket = listening_socket("127.0.0.1", port)
        self.url = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(db), log_level="warning", access_log=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> "_Served":
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)
        self.socket.close()


@pytest.mark.parametrize("mode", ["fast"])
def test_no_500_under_serve_and_every_call_works_once_the_server_is_back(postgres_server, mode, drops):
    db = postgres_server.new_database(f"restart_http_{mode}")
    Session.create(db, DOC).close()
    acknowledged, answers = [], []  # answers: (sent, received, route, code, error)
    lock = threading.Lock()
    back = threading.Event()
    rounds_after = 6

    with _Served(db) as served:
        base = f"{served.url}/sessions/shared"

        def client(index: int) -> None:
            round_, after = 0, 0
            while after < rounds_after and round_ < 2000:
                round_ += 1
                sent = time.monotonic()
                code, body = _post(f"{base}/ask")
                with lock:
                    answers.append((sent, time.monotonic(), "ask", code, body.get("error")))
                if code != 200:
                    continue
                rewards = _rewards(index, round_, body["size"])
                for _ in range(200):  # "try again" means try again: the same answer until it is taken
                    sent = time.monotonic()
                    told, reply = _post(f"{base}/tell", {"request": body["request"], "sources": body["sources"],
                                                         "rewards": rewards})
                    with lock:
                        answers.append((sent, time.monotonic(), "tell", told, reply.get("error")))
                        if told == 200:
                            acknowledged.append((body["request"], body["sources"], rewards))
                    if told != 503:
                        break
                    time.sleep(0.2)
                if told == 200 and back.is_set():
                    after += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        times = _restart_when(postgres_server, lambda: len(acknowledged) >= 3 * CLIENTS, mode)
        back.set()
        for thread in threads:
            thread.join(timeout=300)
        assert not any(t.is_alive() for t in threads), "a client hangs"
    codes = Counter(code for *_, code, _ in answers)
    assert 500 not in codes, [a for a in answers if a[3] == 500][:3]
    failed_after = [a for a in answers if a[0] > times["back"] and a[3] != 200]
    assert not failed_after, failed_after[:5]  # every call made once the server was back worked
    unexpected = [a for a in answers if a[3] not in (200, 503)]
    assert not unexpected, unexpected[:5]
    _check_log(db, acknowledged)
    assert drops["dropped"] >= 1  # the served session's connection died with the server
    print(f"{mode}: {len(acknowledged)} answers stored; codes {dict(codes)}; dropped {drops['dropped']}; "
          f"server down {times['back'] - times['down']:.1f} s")


@pytest.mark.parametrize("committed", [True, False])
def test_a_commit_whose_answer_was_lost_is_looked_up(postgres_server, committed, monkeypatch, drops):
    """The connection dies at COMMIT, after the server committed (``committed``) or before: the tell is
    stored exactly once either way (found by its journal row, or run again)."""
    import psycopg

    db = postgres_server.new_database(f"lost_commit_{int(committed)}")
    Session.create(db, DOC).close()
    with Session.open(db, "shared") as session:
        request = session.ask()
        connection = session._store._db
        pid = _backend_pid(session)
        real = type(connection).exec_driver_sql
        state = {"armed": True}

        def exec_driver_sql(self, statement, *args, **kwargs):
            if statement != "COMMIT" or not state["armed"] or self is not connection:
                return real(self, statement, *args, **kwargs)
            state["armed"] = False
            if committed:
                real(self, statement, *args, **kwargs)
            with psycopg.connect(postgres_server.url.replace("/shared", ""), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            return real(self, "SELECT 1") if committed else real(self, statement, *args, **kwargs)

        monkeypatch.setattr(type(connection), "exec_driver_sql", exec_driver_sql)
        receipt = session.tell(request.id, request.requests, [1.0] * len(request))
        assert not state["armed"] and receipt.samples == len(request) and drops["dropped"] == 1
        assert session.status()["answers"] == 1
    _check_log(db, [(request.id, request.requests.tolist(), [1.0] * len(request))])
