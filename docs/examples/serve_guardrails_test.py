"""A multi-server A/B/n test under guardrails against one session served by `pybai serve` (docs/sessions.md).

    python docs/examples/serve_guardrails_test.py [--servers 4]

The session of docs/examples/checkout-guardrails.toml (docs/guardrails.md): conversion is the
objective, latency must stay at most 250 ms and refunds at most the control's rate plus 0.01.
Creates checkout-guarded.db in the current directory (a new one each run), starts `pybai serve`,
and runs --servers "web servers" (threads, each its own SessionClient): for every visitor it asks
which variant to show and, when the visit ends, tells every metric of it at once,
``{"conversion": [1], "latency_ms": [182.4], "refunds": [0]}``.  Visitors are simulated (unknown
in real life): `one-page` converts best but is too slow, `new-checkout` beats the control and
keeps both guardrails.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_ab_test import run_web_servers, served, web_server  # noqa: E402  (the A/B test's server and threads)
from serve_client import SessionClient  # noqa: E402  (the client of docs/sessions.md)

EXAMPLES = Path(__file__).resolve().parent
CONVERSION = [0.10, 0.60, 0.90]    # control, new-checkout, one-page
LATENCY_MS = [200.0, 150.0, 350.0]  # sd 40
REFUNDS = [0.30, 0.05, 0.05]


def visit(variant, visitors):
    """Every metric of one visit, told at once."""
    return {"conversion": [float(visitors.random() < CONVERSION[variant])],
            "latency_ms": [float(visitors.normal(LATENCY_MS[variant], 40.0))],
            "refunds": [float(visitors.random() < REFUNDS[variant])]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--db", default="checkout-guarded.db")
    args = parser.parse_args(argv)

    from pybai.session import Session

    for suffix in ("", "-wal", "-shm"):
        Path(args.db + suffix).unlink(missing_ok=True)
    Session.create(args.db, EXAMPLES / "checkout-guardrails.toml", max_pending=args.servers,
                   expire_after=600.0).close()  # one visitor in flight per server
    with served(args.db, "checkout", "team-secret") as base:
        tallies = run_web_servers(base, "checkout", "team-secret", args.servers,
                                  lambda client, seed, tally: web_server(client, seed, tally, visit))
        status = SessionClient(base, "checkout", token="team-secret").status()
    print(f"{status['answer']} after {status['samples']} visitors ({'certified' if status['certified'] else status['status']})")
    chosen = status["guardrails"]["arms"][status["recommendation"]]
    print(f"guardrails of {chosen['name']}: " + "; ".join(
        f"{g['metric']} {g['rule']}: {g['state']}" for g in chosen["guardrails"]))
    print("visitors per variant:", [row[0] for row in status["counts"]])
    print("told per web server:", [t["told"] for t in tallies], "refused (the session had stopped):",
          sum(t["refused"] for t in tallies))
    return status


if __name__ == "__main__":
    main()
