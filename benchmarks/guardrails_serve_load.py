"""HTTP load on a session with 3 metrics per observation (guardrails) against a one-metric session.

    .venv/bin/python benchmarks/guardrails_serve_load.py                    # 3 rounds, 3000 requests each
    .venv/bin/python benchmarks/guardrails_serve_load.py --rounds 5 --dir /dev/shm

Each round runs ``serve_load.py``'s load (a new session, ``pybai serve`` in its own process,
``--clients`` processes looping ask -> tell over loopback) once on the one-metric A/B/n session and
once on the same variants under guardrails (conversion, latency_ms at most 250, refunds at most the
control's + 0.01; every visit told with its three metrics), in alternating order (1, 3 then 3, 1),
so that a machine shared with other work loads both alike.  Same strategy for both (Track-and-Stop
by default: the guardrail session pays for its oracle), ``max_pending = 8`` (each client answers its
own request) and 30 untimed ask -> tell cycles first (the strategy's kernels are compiled then).  Printed per run, then the medians over the
rounds and the ratios 3 metrics / 1 metric: requests per second, the tells' median latency and the
server's CPU per request (the least sensitive to other processes).
"""

from __future__ import annotations

import argparse

import numpy as np

from _bench_common import machine, machine_line
from serve_load import add_load_arguments, print_run, run_load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    add_load_arguments(parser, strategy="tas", max_pending=8, warmup=30)
    parser.set_defaults(requests=3000)
    args = parser.parse_args()
    print(machine_line(machine()))
    found: dict[int, list[tuple[float, float, float]]] = {1: [], 3: []}
    for r in range(args.rounds):
        for metrics in ((1, 3) if r % 2 == 0 else (3, 1)):
            run = run_load(args, metrics)
            print(f"round {r + 1}: ", end="")
            print_run(run, args)
            n = run["latencies"].size
            found[metrics].append((n / run["wall"], 1e3 * float(np.median(run["tells"])), 1e3 * run["cpu"] / n))
    one, three = (np.median(np.array(found[m]), axis=0) for m in (1, 3))
    print(f"medians over {args.rounds} rounds (1 metric | 3 metrics | ratio 3/1):")
    for i, what in enumerate(("requests/s", "tell latency, median ms", "server CPU ms per request")):
        print(f"  {what:<27} {one[i]:9.2f} | {three[i]:9.2f} | {three[i] / one[i]:.3f}")


if __name__ == "__main__":
    main()
