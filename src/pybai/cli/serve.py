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


def listening_socket(host: str, port: int):
    """A socket listening on ``host``:``port``, or one :class:`InvalidParameterError` line
    naming the option (an unknown host, an address of another machine, a port in use or not allowed)."""
    import errno
    import socket

    from pybai.exceptions import InvalidParameterError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InvalidParameterError(f"--host {host}: not an address this machine can listen on ({reason}).") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(2048)  # here, so that a port another process took between bind and listen is refused too
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:
            raise InvalidParameterError(f"--port {port}: already in use on {host} (another server listens there); "
                                        "choose another --port.") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise InvalidParameterError(f"--port {port}: not allowed ({reason}; ports below 1024 need privileges).") \
                from None
        raise InvalidParameterError(f"--host {host}: cannot listen there ({reason}).") from None
    return sock


def command(args) -> int:
    import uvicorn

    from pybai._secrets import mask_credentials
    from pybai.server import create_app
    from pybai.server.sessions import find_sessions

    token = args.token if args.token is not None else os.environ.get(TOKEN_VARIABLE) or None
    app = create_app(args.db, token=token)  # a missing or damaged database: one line here
    unreadable: list[tuple[str, str]] = []
    names = sorted(find_sessions(args.db, unreadable))
    sock = listening_socket(args.host, args.port)
    host = f"[{args.host}]" if ":" in args.host else args.host
    shown = mask_credentials(args.db)
    print(f"serving {len(names)} session(s) of {shown} at http://{host}:{args.port}/ "
          f"(writes {'need the token' if token else 'are open: no --token'}); Ctrl-C stops", flush=True)
    for path, reason in unreadable:
        print(f"pybai: warning: not served: {mask_credentials(reason)}", file=sys.stderr, flush=True)
    if not token and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"pybai: warning: listening on {args.host} without --token: anyone who reaches this port can ask "
              "and tell", file=sys.stderr, flush=True)
    from pybai.server.sessions import session_links

    for name in names[:10]:
        link = session_links(name)["dashboard"]
        if link is not None:
            print(f"  dashboard: http://{host}:{args.port}{link}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=args.access_log, server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
