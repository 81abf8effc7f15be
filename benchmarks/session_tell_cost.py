"""CPU cost of an ask/tell pair on a session with a long log, with and without reading the log at each tell.

    .venv/bin/python benchmarks/session_tell_cost.py [--answers 20000] [--dir /dev/shm]

Builds a session of 2 Gaussian arms (uniform, never stopping) with --answers answers, then times 300
ask/tell pairs as Session does them, and 300 with the log read the tell used to make before it
(``Store.request_info``: a sum over every answer of the request) added back.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from _bench_common import machine, machine_line
from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.session import Session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=20_000)
    parser.add_argument("--dir", help="folder of the SQLite file (default: a temporary folder)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pybai-tell-cost-", dir=args.dir))
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.05, max_samples=10**8))
    session = Session.create(folder / "long.db", problem=problem, strategy=make_strategy("uniform"), seed=1)
    rng = np.random.default_rng(0)

    def pairs(n: int) -> float:
        start = time.process_time()
        for _ in range(n):
            request = session.ask()
            session.tell(request.id, request.requests, rng.normal(size=request.requests.size))
        return (time.process_time() - start) / n * 1e3

    pairs(args.answers)
    fast = pairs(300)
    check = Session._check_answerable

    def reading_the_log(self, strategy, rid):
        self._store.request_info(rid)
        return check(self, strategy, rid)

    Session._check_answerable = reading_the_log  # type: ignore[method-assign]
    slow = pairs(300)
    Session._check_answerable = check  # type: ignore[method-assign]
    session.close()
    shutil.rmtree(folder, ignore_errors=True)
    print(machine_line(machine()))
    print(f"ask/tell CPU per pair at {args.answers} answers: {fast:.2f} ms; with the log read at each tell {slow:.2f} ms")


if __name__ == "__main__":
    main()
