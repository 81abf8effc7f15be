"""Reopening a session with 100,000 answers: from its stored strategy state, and by replaying the whole log.

    .venv/bin/python benchmarks/session_reopen.py [--answers 100000] [--db postgresql://...]

Builds the session (Track-and-Stop, 3 Gaussian arms in an exact tie, delta = 1e-12: it never
stops) by driving its strategy and writing the log, with a stored state every
``pybai.session.replay.STATE_EVERY`` answers exactly as ``Session.tell`` does, in one
transaction (building it through 100,000 separate ``tell`` transactions would take minutes of
fsyncs).  Then times, in a fresh process each (``python -c``, the first thing it does;
the compiled kernels come from numba's cache), ``Session.open(db).status()``: with the stored
states, and with the ``snapshots`` rows deleted (the whole log replayed).  Wall time,
``time.perf_counter``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _bench_common import machine, machine_line
from pybai.session import Session
from pybai.session.replay import STATE_EVERY
from pybai.session.store import utc_now

DOC = {"name": "reopen", "seed": 1, "problem": {"goal": "best-arm", "delta": 1e-12, "max_samples": 10**8},
       "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0}, "strategy": [{"name": "tas"}]}

_CHILD = """
import sys, time
t0 = time.perf_counter()
from pybai.session import Session
t1, c1 = time.perf_counter(), time.process_time()
with Session.open(sys.argv[1]) as s:
    st = s.status()
t2, c2 = time.perf_counter(), time.process_time()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {c2 - c1:.3f} {st['answers']}")
"""


def build(db, answers: int) -> None:
    session = Session.create(db, DOC)
    store = session._store
    rng = np.random.default_rng(0)
    with store.writing("build"):
        replay = session._sync()
        strategy = replay.strategy
        for n in range(1, answers + 1):
            requests = strategy.ask().copy()
            rid = strategy.request_id
            now = utc_now()
            store.add_request(rid, requests, now)
            store.add_event("request", rid, now)  # the journal fixes the order replay follows
            rewards = rng.normal(size=len(requests))
            strategy.tell(requests, rewards, request_id=rid)
            answer = store.add_answer(rid, requests, rewards, now)
            event = store.add_event("answer", rid, now, answer=answer)
            if n % STATE_EVERY == 0:
                store.add_state(answer, rid, strategy.t_, replay.state_text(), now, event=event)
    session.close()


def reopen(db) -> tuple[float, float, float, int]:
    """(import wall s, open + status wall s, open + status CPU s, answers) in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(db)], capture_output=True, text=True, check=True)
    imported, opened, cpu, n_answers = out.stdout.split()
    return float(imported), float(opened), float(cpu), int(n_answers)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--db", help="a postgresql:// URL of an empty database (default: an SQLite file)")
    args = parser.parse_args()
    print(machine_line(machine()))
    folder = Path(tempfile.mkdtemp())
    db = args.db or folder / "reopen.db"
    start = time.perf_counter()
    build(db, args.answers)
    print(f"built {args.answers} answers in {time.perf_counter() - start:.1f} s ({'PostgreSQL' if args.db else 'SQLite'})")
    reopen(db)  # warms numba's cache and the file system cache
    print("| reopening | import s | open + status: wall s | CPU s | answers |\n| --- | ---: | ---: | ---: | ---: |")
    for _ in range(3):
        imported, opened, cpu, n = reopen(db)
        print(f"| from the stored state (every {STATE_EVERY} answers) | {imported:.2f} | {opened:.2f} | {cpu:.2f} | {n} |")
    with Session.open(db) as session:  # the same log without stored states: everything replayed
        with session._store.writing("delete the stored states"):
            session._store._db.exec_driver_sql("DELETE FROM snapshots")
    imported, opened, cpu, n = reopen(db)
    print(f"| replaying the whole log | {imported:.2f} | {opened:.2f} | {cpu:.2f} | {n} |")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
