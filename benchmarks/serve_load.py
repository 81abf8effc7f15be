"""Load generator for ``pybai serve``: concurrent clients asking and telling one session over loopback.

    .venv/bin/python benchmarks/serve_load.py                       # SQLite file in a temporary folder
    .venv/bin/python benchmarks/serve_load.py --dir /dev/shm        # the same on tmpfs (no fsync cost)
    .venv/bin/python benchmarks/serve_load.py --db postgresql://...  # once the storage takes server URLs
    .venv/bin/python benchmarks/serve_load.py --metrics 3            # a session on 3 metrics (guardrails)

A server process (``python -m pybai serve``) serves a new A/B/n session (3 Bernoulli variants
with equal conversion, so it never stops during the run; with ``--metrics 3``, the same variants
under guardrails: conversion, latency_ms at most 250 and refunds at most the control's + 0.01, every
visit told with its three metrics); ``--clients`` client processes each
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


#: the metrics of a ``--metrics 3`` session (the objective first)
METRICS = ("conversion", "latency_ms", "refunds")


def _create(db: str, name: str, strategy: str, max_pending: int, metrics: int = 1) -> None:
    from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
    from pybai.session import Session

    regime = FixedConfidence(0.05, max_samples=10**7)
    if metrics == 3:
        from pybai.problems.guardrails import GuardrailProblem, Metric

        problem = GuardrailProblem(3, [Metric("conversion", reward_model="bernoulli"),
                                       Metric("latency_ms", sigma=40.0, at_most=250.0),
                                       Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.01)], regime)
    elif metrics == 1:
        problem = BestArmProblem(3, Bernoulli(n_sources=3), regime)
    else:
        sys.exit(f"--metrics: expected 1 or 3, got {metrics}")
    extra = {}
    if max_pending > 1:
        if "max_pending" not in inspect.signature(Session.create).parameters:
            sys.exit("--max-pending > 1 needs a pybai whose Session.create takes max_pending")
        extra["max_pending"] = max_pending
    Session.create(db, problem=problem, strategy=make_strategy(strategy), seed=1, name=name, **extra).close()


def _client(args) -> dict:
    port, name, budget, deadline, seed, metrics = args
    rng = np.random.default_rng(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    base = f"/sessions/{name}"
    latencies: list[float] = []
    tells: list[float] = []  # the tells' own latencies
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
        rewards: list | dict = [outcome]
        if metrics == 3:  # one visit: its conversion, latency and refund, told together
            rewards = {"conversion": [outcome], "latency_ms": [float(rng.normal(200.0, 40.0))],
                       "refunds": [float(rng.random() < 0.02)]}
        call("/tell", {"request": asked["request"], "sources": asked["sources"][:1], "rewards": rewards})
        tells.append(latencies[-1])
    conn.close()
    return {"latencies": latencies, "tells": tells, "codes": codes}


def add_load_arguments(parser: argparse.ArgumentParser, strategy: str = "top-two", max_pending: int = 1,
                       warmup: int = 0) -> None:
    """The options of one load run (shared with ``guardrails_serve_load.py``)."""
    parser.add_argument("--dir", help="folder of the SQLite file (default: a temporary folder)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=6000, help="HTTP requests in all (bound)")
    parser.add_argument("--seconds", type=float, default=30.0, help="time bound of the load")
    parser.add_argument("--strategy", default=strategy)
    parser.add_argument("--max-pending", type=int, default=max_pending)
    parser.add_argument("--warmup", type=int, default=warmup,
                        help="ask -> tell cycles by one client before the timed load (compilation, caches)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="session database to create (default: a new SQLite file in --dir)")
    parser.add_argument("--metrics", type=int, default=1, choices=(1, 3),
                        help="metrics per observation: 1 (conversion) or 3 (conversion under two guardrails)")
    add_load_arguments(parser)
    args = parser.parse_args()
    run = run_load(args, args.metrics, args.db)
    print(machine_line(machine()))
    print_run(run, args)


def run_load(args, metrics: int, db: str | None = None) -> dict:
    """One load run on a new session: start the server, run the clients, stop the server.

    Returns ``latencies`` (s, every HTTP request), ``tells`` (s, the tells'), ``codes``, ``wall`` (s), ``cpu`` (server CPU s),
    ``told`` (samples accepted), ``where`` and ``metrics``.
    """
    folder = Path(tempfile.mkdtemp(prefix="pybai-serve-load-", dir=args.dir))
    db = db or str(folder / "load.db")
    name = "load"
    _create(db, name, args.strategy, args.max_pending, metrics)
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
        if args.warmup > 0:  # untimed: the first asks and tells compile the strategy's kernels
            _client((port, name, 2 * args.warmup, time.perf_counter() + 600, 10**6, metrics))
        budget = args.requests // args.clients
        cpu_before = _cpu_seconds(server.pid)
        start = time.perf_counter()
        jobs = [(port, name, budget, start + args.seconds, seed, metrics) for seed in range(args.clients)]
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            results = pool.map(_client, jobs)
        wall = time.perf_counter() - start
        cpu = _cpu_seconds(server.pid) - cpu_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    latencies = np.concatenate([r["latencies"] for r in results])
    tells = np.concatenate([r["tells"] for r in results])
    codes: dict[int, int] = {}
    for r in results:
        for code, n in r["codes"].items():
            codes[code] = codes.get(code, 0) + n
    from pybai.session import Session

    with Session.open(db) as session:
        told = session.status()["samples"]
    shutil.rmtree(folder, ignore_errors=True)
    where = db if not str(db).startswith(str(folder)) else f"SQLite file in {args.dir or tempfile.gettempdir()}"
    return {"latencies": latencies, "tells": tells, "codes": codes, "wall": wall, "cpu": cpu, "told": told, "where": where,
            "metrics": metrics}


def print_run(run: dict, args) -> None:
    """The lines of one run: requests/s, server CPU per request, latency percentiles."""
    latencies, wall, cpu, told = run["latencies"], run["wall"], run["cpu"], run["told"]
    print(f"{args.clients} clients, {run['where']}, strategy {args.strategy}, max_pending {args.max_pending}, "
          f"{run['metrics']} metric{'s' if run['metrics'] > 1 else ''} per observation")
    print(f"{latencies.size} requests in {wall:.2f} s: {latencies.size / wall:.0f} requests/s; "
          f"{told} tells accepted ({told / wall:.0f}/s); status codes {dict(sorted(run['codes'].items()))}")
    if cpu == cpu:
        print(f"server CPU: {cpu:.2f} s, {1e3 * cpu / latencies.size:.2f} ms per request "
              f"(one free core would serve about {latencies.size / cpu:.0f} requests/s)")
    print(f"latency ms: median {1e3 * np.median(latencies):.2f}, p90 {1e3 * np.quantile(latencies, 0.9):.2f}, "
          f"p99 {1e3 * np.quantile(latencies, 0.99):.2f}; tells: median {1e3 * np.median(run['tells']):.2f}")


if __name__ == "__main__":
    main()
