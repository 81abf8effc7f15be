"""A multi-server A/B/n test against one session served by `pybai serve` (docs/sessions.md).

    python docs/examples/serve_ab_test.py [--servers 4] [--conversion 0.10 0.15 0.25]

Creates checkout-served.db in the current directory (a new one each run), starts `pybai serve` on
a free port of 127.0.0.1, and runs --servers "web servers" (threads), each with its own
SessionClient: for every visitor it asks which variant to show, and tells the outcome when the
visitor leaves.  The session has max_pending = --servers, so every server gets a request of its
own while the others' visitors are still on the page, and answers arrive in any order.  Visitors are simulated with the conversion rates given (unknown in real life).
"""
import argparse
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_client import SessionClient  # noqa: E402  (the client of docs/sessions.md)


@contextlib.contextmanager
def served(db, name, token):
    """`pybai serve --db DB --token TOKEN` on a free port of 127.0.0.1, listening; yields its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "pybai", "serve", "--db", db, "--port", str(port),
                               "--token", token], stdout=subprocess.DEVNULL, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):                        # wait for the server to listen (2 min on a busy machine)
            try:
                SessionClient(base, name, token=token).status()
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(f"pybai serve exited with status {server.returncode}") from None
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def run_web_servers(base, name, token, n, work):
    """``n`` threads, each ``work(client, seed, tally)`` with a SessionClient of its own; the tallies."""
    tallies = [{"told": 0, "refused": 0} for _ in range(n)]
    threads = [threading.Thread(target=work, args=(SessionClient(base, name, token), seed, tally))
               for seed, tally in enumerate(tallies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tallies


def web_server(client, seed, tally, outcome):
    """Asks a variant for each visitor and tells ``outcome(variant, visitors)`` when the visit ends."""
    visitors = np.random.default_rng(seed)
    while True:
        try:
            asked = client.ask()                     # which variant this visitor sees
        except RuntimeError as error:                # HTTP 409: the session has stopped
            tally["stopped"] = str(error)
            return
        variant = asked["sources"][0]
        time.sleep(visitors.exponential(0.002))      # the visit
        try:
            client.tell(asked["request"], [variant], outcome(variant, visitors))
            tally["told"] += 1
        except RuntimeError as error:                # 409: the session stopped while this visitor was on the page
            tally["refused"] += 1 if "409" in str(error) else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--conversion", type=float, nargs="+", default=[0.10, 0.15, 0.25])
    parser.add_argument("--db", default="checkout-served.db")
    args = parser.parse_args(argv)

    from pybai import Bernoulli, BestArmProblem, FixedConfidence, make_strategy
    from pybai.session import Session

    k = len(args.conversion)
    for suffix in ("", "-wal", "-shm"):
        Path(args.db + suffix).unlink(missing_ok=True)
    Session.create(args.db, problem=BestArmProblem(k, Bernoulli(n_sources=k), FixedConfidence(0.05)),
                   strategy=make_strategy("top-two"), seed=7, name="checkout",
                   max_pending=args.servers, expire_after=600.0).close()  # one visitor in flight per server
    def bought(variant, visitors):                  # the visitor's outcome: 1 bought, 0 did not
        return [float(visitors.random() < args.conversion[variant])]

    with served(args.db, "checkout", "team-secret") as base:
        tallies = run_web_servers(base, "checkout", "team-secret", args.servers,
                                  lambda client, seed, tally: web_server(client, seed, tally, bought))
        status = SessionClient(base, "checkout", token="team-secret").status()
    print(f"{status['answer']} after {status['samples']} visitors ({'certified' if status['certified'] else status['status']})")
    print("visitors per variant:", status["counts"])
    print("told per web server:", [t["told"] for t in tallies], "refused (the session had stopped):",
          sum(t["refused"] for t in tallies))
    return status


if __name__ == "__main__":
    main()
