"""Many processes ask and tell one session at once, on SQLite and on a real PostgreSQL server.

Eight client processes (forked by a forkserver) loop ask -> tell on the same session.  With one request
pending at a time they often get the same request: one tell is stored, the others are refused as "already
answered" (counted); with ``max_pending = 8`` each client holds a request of its own and the
answers arrive in any order.  Afterwards the log holds exactly the acknowledged tells, no request is
answered twice, and a replay of the log gives the state of the session.  A client killed with
SIGKILL inside its tell transaction loses nothing that was acknowledged, on both backends.
"""

import multiprocessing
import os
import signal
from collections import Counter

import numpy as np
import pytest

from _storage_client import client, warm_up  # tests/session/_storage_client.py
from conftest import learner_document
from pybai.session import Session
from test_session_crash import read_until, start_child

CLIENTS = 8
ROUNDS = 12
DOC = {"name": "shared", "seed": 2, "problem": {"goal": "best-arm", "delta": 0.05},
       "environment": {"kind": "bernoulli", "arms": 3}, "strategy": [{"name": "tas"}]}


@pytest.fixture(scope="module")
def pool():
    """The eight client processes, forked by a fresh forkserver process that imported the clients' module and
    the session code once (spawned clients paid those imports eight times: 13.7 -> 4.7 s of CPU for the pool's
    two SQLite races).  Each client is still a process of its own, started from a clean interpreter (never a
    fork of pytest's), that opens its own connection to the session."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["_storage_client", "pybai.session"])
    with context.Pool(CLIENTS) as workers:
        assert len(set(workers.map(warm_up, range(CLIENTS)))) >= 1
        yield workers


@pytest.mark.parametrize("max_pending", [1, CLIENTS])
def test_eight_clients_on_one_session(storage_db, pool, max_pending):
    db = storage_db
    Session.create(storage_db, {**DOC, "session": {"max_pending": max_pending}}).close()
    results = pool.starmap(client, [(str(db), "shared", i, ROUNDS) for i in range(CLIENTS)])
    acknowledged = [tell for r in results for tell in r["acknowledged"]]
    refused = sum(r["refused"] for r in results)
    assert len(acknowledged) + refused == sum(len(r["acknowledged"]) + r["refused"] for r in results)
    assert acknowledged, "no tell was stored"
    with Session.open(storage_db, "shared") as session:
        rows = session.observations()
        status = session.status()
        events = session._store.events_after(0, 0)
        state = session._replay.strategy.get_state()
    # the log holds exactly the acknowledged tells, each request answered once
    told = Counter((rid, s, r) for rid, sources, rewards in acknowledged for s, r in zip(sources, rewards))
    logged = Counter((int(row["request"]), int(row["source"]), float(row["reward"])) for row in rows)
    assert logged == told
    per_request = Counter(a.request for a in events.answers)
    assert max(per_request.values()) == 1 and len(per_request) == len(acknowledged)
    assert status["samples"] == len(acknowledged) == status["answers"]
    # with one pending request, racing clients are refused rather than counted twice
    rounds = sum(len(r["acknowledged"]) + r["refused"] for r in results)
    assert rounds == len(acknowledged) + refused
    print(f"max_pending {max_pending}: {len(acknowledged)} answers stored, {refused} tells refused")
    if max_pending == CLIENTS:  # each client holds a request of its own: (almost) every tell counts
        assert refused <= len(acknowledged) // 4
    # replaying the whole log from the start gives the same strategy
    with Session.open(storage_db, "shared") as fresh:
        fresh.state_every = 10**9
        fresh._store.latest_state = lambda: None
        fresh._replay = None
        with fresh._store.reading():
            assert fresh._sync().strategy.get_state() == state


@pytest.mark.parametrize("hang_at", [3])
def test_kill_9_inside_a_tell_loses_nothing_acknowledged(storage_db, batch_doc, hang_at):
    db = storage_db
    Session.create(storage_db, learner_document(batch_doc)).close()
    proc = start_child(storage_db, 50, hang_at=hang_at)
    lines = read_until(proc, lambda line: line.startswith("WRITING"))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    acked = [line.split() for line in lines if line.startswith("ACK")]
    killed_request = int(lines[-1].split()[1])
    assert len(acked) == hang_at - 1
    with Session.open(db) as session:
        events = session._store.events_after(0, 0)
        assert [a.request for a in events.answers] == [int(a[1]) for a in acked]
        status = session.status()
        assert status["samples"] == int(acked[-1][2])
        again = session.ask()  # the interrupted request is pending again, whole
        assert again.id == killed_request
        receipt = session.tell(again.id, again.requests, np.zeros(len(again)))
        assert receipt.pending == 0 and receipt.samples == status["samples"] + len(again)
