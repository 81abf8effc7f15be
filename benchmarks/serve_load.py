"""Load generator for ``pybai serve``: concurrent clients asking and telling one session over loopback.

    .venv/bin/python benchmarks/serve_load.py                       # SQLite file in a temporary folder
    .venv/bin/python benchmarks/serve_load.py --dir /dev/shm        # the same on tmpfs (no fsync cost)
    .venv/bin/python benchmarks/serve_load.py --db postgresql://...  # once the storage takes server URLs

A server process (``python -m pybai serve``) serves a new A/B/n session (3 Bernoulli variants
with equal conversion, so it never stops during the run); ``--clients`` client processes each
keep one HTTP/1.1 connection and loop ask -> tell (one visitor, one outcome) until
``--requests`` requests were made in all or ``--seconds`` passed.  With ``max_pending = 1`` (the
only mode before ``Session(max_pending=...)``) the clients share the pending request and all
but the first tell of each request are refused with 409 ("already answered"): they are counted
(the server did the work of refusing them) and reported apart.  Printed: requests per second
(all answered HTTP requests), accepted tells per second, latency percentiles.
"""

from __future__ import annotations

import argparse
import http.client
import inspect
import json
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _bench_common import machine, machine_line


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _create(db: str, name: str, strategy: str, max_pending: int) -> None:
    from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
    from pybai.session import Session

    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.05, max_samples=10**7))
    extra = {}
    if max_pending > 1:
        if "max_pending" not in inspect.signature(Session.create).parameters:
            sys.exit("--max-pending > 1 needs a pybai whose Session.create takes max_pending")
        extra["max_pending"] = max_pending
    Session.create(db, problem=problem, strategy=make_strategy(strategy), seed=1, name=name, **extra).close()


def _client(args) -> dict:
    port, name, budget, deadline, seed = args
    rng = np.random.default_rng(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    base = f"/sessions/{name}"
    latencies: list[float] = []
    codes: dict[int, int] = {}

    def call(path: str, body: dict) -> tuple[int, dict]:
        data = json.dumps(body).encode()
        start = time.perf_counter()
        conn.request("POST", base + path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        payload = json.loads(response.read())
        latencies.append(time.perf_counter() - start)
        codes[response.status] = codes.get(response.status, 0) + 1
        return response.status, payload

    while len(latencies) < budget and time.perf_counter() < deadline:
        status, asked = call("/ask", {})
        if status != 200:
            break  # stopped (409) or an error: nothing more to do
        outcome = float(rng.random() < 0.3)
        call("/tell", {"request": asked["request"], "sources": asked["sources"][:1], "rewards": [outcome]})
    conn.close()
    return {"latencies": latencies, "codes": codes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="session database to create (default: a new SQLite file in --dir)")
    parser.add_argument("--dir", help="folder of the SQLite file (default: a temporary folder)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=6000, help="HTTP requests in all (bound)")
    parser.add_argument("--seconds", type=float, default=30.0, help="time bound of the load")
    parser.add_argument("--strategy", default="top-two")
    parser.add_argument("--max-pending", type=int, default=1)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="pybai-serve-load-", dir=args.dir))
    db = args.db or str(folder / "load.db")
    name = "load"
    _create(db, name, args.strategy, args.max_pending)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "pybai", "serve", "--db", db, "--port", str(port)],
                              stdout=subprocess.DEVNULL, env={**os.environ, "PYBAI_SERVE_TOKEN": ""})
    try:
        for _ in range(600):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", f"/sessions/{name}/status")  # also opens the session (replay, compilation)
                ok = conn.getresponse().status == 200
                conn.close()
                if ok:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("the server did not start")
        budget = args.requests // args.clients
        cpu_before = _cpu_seconds(server.pid)
        start = time.perf_counter()
        jobs = [(port, name, budget, start + args.seconds, seed) for seed in range(args.clients)]
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            results = pool.map(_client, jobs)
        wall = time.perf_counter() - start
        cpu = _cpu_seconds(server.pid) - cpu_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    latencies = np.concatenate([r["latencies"] for r in results])
    codes: dict[int, int] = {}
    for r in results:
        for code, n in r["codes"].items():
            codes[code] = codes.get(code, 0) + n
    from pybai.session import Session

    with Session.open(db) as session:
        told = session.status()["samples"]
    print(machine_line(machine()))
    where = db if args.db else f"SQLite file in {args.dir or tempfile.gettempdir()}"
    print(f"{args.clients} clients, {where}, strategy {args.strategy}, max_pending {args.max_pending}")
    print(f"{latencies.size} requests in {wall:.2f} s: {latencies.size / wall:.0f} requests/s; "
          f"{told} tells accepted ({told / wall:.0f}/s); status codes {dict(sorted(codes.items()))}")
    if cpu == cpu:
        print(f"server CPU: {cpu:.2f} s, {1e3 * cpu / latencies.size:.2f} ms per request "
              f"(one free core would serve about {latencies.size / cpu:.0f} requests/s)")
    print(f"latency ms: median {1e3 * np.median(latencies):.2f}, p90 {1e3 * np.quantile(latencies, 0.9):.2f}, "
          f"p99 {1e3 * np.quantile(latencies, 0.99):.2f}")
    if not args.db:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
