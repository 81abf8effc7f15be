"""``pybai serve``: the sessions of a database over HTTP (ask, tell, cancel, status, export) with a live dashboard."""

from __future__ import annotations

import os
import sys

from pybai.cli._common import integer_argument

TOKEN_VARIABLE = "PYBAI_SERVE_TOKEN"


def _port(text: str) -> int:
    value = integer_argument(text, "a port number")
    if not 1 <= value <= 65535:
        import argparse

        raise argparse.ArgumentTypeError(f"a port number must be in 1..65535. Got {text}.")
    return value


def add_parser(sub) -> None:
    parser = sub.add_parser("serve", help="serve sessions over HTTP: JSON API and a live dashboard per session")
    parser.add_argument("--db", required=True, metavar="URL",
                        help="a session database (SQLite file), or a directory of them: each session by its name")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    parser.add_argument("--token", help="write access (ask, tell, cancel) needs 'Authorization: Bearer TOKEN'; "
                        f"reads stay open (default: the environment variable {TOKEN_VARIABLE}, else no token)")
    parser.add_argument("--access-log", action="store_true", help="print one line per HTTP request")
    parser.set_defaults(func=command)


def command(args) -> int:
    import uvicorn

    from pybai.server import create_app

    token = args.token if args.token is not None else os.environ.get(TOKEN_VARIABLE) or None
    app = create_app(args.db, token=token)
    names = app.state.pool.names()
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"serving {len(names)} session(s) of {args.db} at http://{host}:{args.port}/ "
          f"(writes {'need the token' if token else 'are open: no --token'}); Ctrl-C stops", flush=True)
    if not token and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"pybai: warning: listening on {args.host} without --token: anyone who reaches this port can ask "
              "and tell", file=sys.stderr, flush=True)
    for name in names[:10]:
        print(f"  dashboard: http://{host}:{args.port}/sessions/{name}", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=args.access_log,
                server_header=False)
    return 0
