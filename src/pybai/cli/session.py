"""``pybai session new|ask|tell|cancel|epsilon|status|export|report``: a real experiment, one command at a time.

Each command opens the session database, rebuilds the strategy by replaying the log, does one
thing and exits; user mistakes exit 2 with one line on standard error (see ``docs/sessions.md``).
"""

from __future__ import annotations

import sys

from pybai.cli._common import check_output_file, experiment_file, integer_argument, non_negative_int, write_json

_DB_HELP = "the session database: an SQLite file, or postgresql://user@host:port/dbname"
_SESSION_HELP = "the session's name (needed when the database holds several sessions)"


def _request_number(text: str) -> int:
    return integer_argument(text, "a request number")


def _positive_number(text: str) -> float:
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def _verb(verbs, name: str, summary: str, func):
    """The sub-command ``name`` of an existing session: the required ``--db`` first, then runs ``func``."""
    parser = verbs.add_parser(name, help=summary)
    parser.add_argument("--db", required=True, help=_DB_HELP)
    parser.add_argument("--session", metavar="NAME", help=_SESSION_HELP)
    parser.set_defaults(func=func)
    return parser


def add_parser(sub) -> None:
    session = sub.add_parser("session", help="persistent ask/tell sessions for real experiments (SQLite or PostgreSQL)")
    verbs = session.add_subparsers(dest="verb", required=True, parser_class=type(session))

    new = verbs.add_parser("new", help="create a session database from a session file")
    new.add_argument("file", metavar="FILE", help="session file (TOML; [environment] without the truth, e.g. arms = K)")
    new.add_argument("--db", required=True, help=_DB_HELP + " (an SQLite file must not exist yet; a PostgreSQL "
                     "database may hold other sessions)")
    new.add_argument("--session", metavar="NAME", help="the new session's name (default: the file's name)")
    new.add_argument("--seed", type=non_negative_int, help="master seed (default: the file's seed, else 0)")
    new.set_defaults(func=_new)

    ask = _verb(verbs, "ask", "the next request (CSV: request, source[, arm, subpopulation])", _ask)
    ask.add_argument("--csv", metavar="OUT", help="write the request to OUT instead of standard output")

    tell = _verb(verbs, "tell", "record the answers to a request (CSV: source, reward)", _tell)
    tell.add_argument("--request", required=True, type=_request_number, metavar="N", help="the request answered")
    tell.add_argument("--csv", required=True, metavar="IN", help="the answers: columns source, reward "
                      "(subpopulation problems: or arm, subpopulation); a 'request' column is allowed")

    cancel = _verb(verbs, "cancel", "withdraw the unanswered part of an outstanding request", _cancel)
    cancel.add_argument("--request", required=True, type=_request_number, metavar="N", help="the request withdrawn")

    epsilon = _verb(verbs, "epsilon", "give a running session an answer tolerance (epsilon-best-arm)", _epsilon)
    epsilon.add_argument("--epsilon", required=True, type=_positive_number, metavar="E",
                         help="an arm within E of the best is a correct answer")
    epsilon.add_argument("--mode", choices=("additive", "relative"), default="additive",
                         help="E added to the best mean (default) or relative to it")

    status = _verb(verbs, "status", "recommendation, stopping rule, counts and means", _status)
    status.add_argument("--json", action="store_true", help="print the status as JSON")

    export = _verb(verbs, "export", "every observation as CSV", _export)
    export.add_argument("--csv", metavar="OUT", help="write to OUT instead of standard output")

    report = _verb(verbs, "report", "a self-contained HTML page with the session's figures", _report)
    report.add_argument("--out", required=True, metavar="DIR", help="directory for session.html and the PNGs")


def _print_stopped(status) -> None:
    from pybai.session import stop_reason

    print(f"The session has stopped after {status['samples']} samples ({status['status']}): "
          f"{stop_reason(status['message'])}.")
    print(f"Recommendation: {status['answer']}")


def _write_rows(columns, rows, path, summary=None) -> None:
    """CSV rows to ``path`` with the line ``summary(text) -> path``, or to standard output when no path."""
    from pybai.session.rows import write_csv

    text = write_csv(columns, rows, path, label=f"--csv {path}" if path else None)
    if not path:
        sys.stdout.write(text)
    elif summary is not None:
        print(f"{summary(text)} -> {path}")


def _open(args):
    from pybai.session import Session

    return Session.open(args.db, args.session)


def _describe(session) -> list[str]:
    import numpy as np

    problem = session.problem
    regime = problem.regime
    family = problem.family
    if problem.goal == "best-feasible-arm":
        shape = f"{problem.n_arms} arms x {problem.n_subpopulations} subpopulations ({problem.sampling} sampling)"
    else:
        shape = f"{problem.source_shape[0]} arms"
    if problem.labels is not None:
        shown = ", ".join(problem.labels[:8]) + (", ..." if len(problem.labels) > 8 else "")
        shape += f" ({shown})"
    described: list[str] = getattr(problem, "describe_rewards", lambda: [])()  # sources that are not one family's rewards
    if described:
        noise = described[0]
    elif family.name == "gaussian":
        sigma = np.sqrt(family.variances)
        noise = f"gaussian rewards (sigma = {sigma[0]:g})" if np.all(sigma == sigma[0]) else "gaussian rewards"
    elif family.name == "gaussian-unknown-variance":
        noise = "gaussian rewards, variances unknown (estimated per arm)"
    else:
        noise = f"{family.name} rewards"
    what = (f"fixed confidence, delta = {regime.delta:g}" if regime.kind == "fixed-confidence"
            else f"fixed budget of {regime.budget} {problem.budget_unit}")
    if getattr(problem, "epsilon_mode", None):  # epsilon-best-arm or epsilon-top-k identification
        what += f", {problem.epsilon_mode} epsilon = {problem.epsilon:g}"
    batch = "" if problem.batch is None else (
        f", batches of {problem.batch.size} (at most {problem.batch.max_repeats} per source)")
    lines = [f"  goal {problem.goal} ({what}), {shape}, {noise}", *(f"    {line}" for line in described[1:]),
             f"  strategy {session.spec.label}{batch}, seed {session.seed}"]
    if regime.kind == "fixed-confidence":
        from pybai.strategies.certificate import is_proven, kind_note, threshold_kind

        strategy = session.spec.strategy
        lines.append(f"  threshold {kind_note(threshold_kind(strategy, problem), is_proven(strategy, problem))}")
    return lines


def _new(args) -> int:
    from pybai._secrets import mask_credentials
    from pybai.session import Session

    with Session.create(args.db, experiment_file(args.file), seed=args.seed, name=args.session) as session:
        print(f'created session "{session.spec.name}" in {session.path}')
        for line in _describe(session):
            print(line)
        print(f"next: pybai session ask --db {mask_credentials(args.db)} --csv request.csv")
    return 0


def _ask(args) -> int:
    check_output_file(args.csv, "--csv")  # before a request is recorded that no one would see
    with _open(args) as session:
        columns = session.layout.ask_columns
        if session.stopped:
            status = session.status()
            if args.csv:
                _write_rows(columns, [], args.csv)  # an empty plate: never mistaken for an old request
            _print_stopped(status)
            return 0
        request = session.ask()
        _write_rows(columns, request.rows, args.csv, lambda text: f"request {request.id}: {len(request)} samples")
    return 0


def _tell(args) -> int:
    with _open(args) as session:
        receipt = session.tell_csv(args.request, args.csv)
        line = f"request {receipt.request}: stored {receipt.stored} answers ({receipt.samples} samples in all)"
        if receipt.pending:
            line += (f"; {receipt.pending} samples of request {receipt.request} still pending "
                     "(pybai session ask gives them again, same request number)")
        print(line)
        if receipt.stopped:
            _print_stopped(session.status())
    return 0


def _cancel(args) -> int:
    with _open(args) as session:
        withdrawn = session.cancel(args.request)
        print(f"request {args.request}: withdrew {withdrawn} unanswered samples (the next asks may ask them again)")
    return 0


def _epsilon(args) -> int:
    with _open(args) as session:
        status = session.set_epsilon(args.epsilon, args.mode)
        print(f"epsilon {args.epsilon:g} ({args.mode}) given: {status['message']}")
        if status["stopped"]:
            _print_stopped(status)
    return 0


def _status(args) -> int:
    with _open(args) as session:
        status = session.status()
        if args.json:
            from pybai.session.document import status_document

            write_json(status_document(session, status), "-")
            return 0
        for line in _status_lines(session, status):
            print(line)
    return 0


def _status_lines(session, status) -> list[str]:
    import numpy as np

    from pybai.session import stop_reason

    lines = [f'session "{status["name"]}" ({session.path})'] + _describe(session)
    lines.append(f"status: {status['status']}, {stop_reason(status['message'])}")
    pending = status["pending"]
    if isinstance(pending, list):  # max_pending > 1
        listed = ", ".join(f"{p['request']} ({p['size']})" for p in pending[:10]) + (" ..." if len(pending) > 10 else "")
        lines.append(f"samples: {status['samples']} in {status['requests']} requests; outstanding: {len(pending)} of "
                     f"at most {status['max_pending']}" + (f": requests {listed}" if pending else ""))
    else:
        lines.append(f"samples: {status['samples']} in {status['requests']} requests; pending: "
                     + ("none" if pending is None else f"request {pending['request']} ({pending['size']} samples)"))
    if status["threshold"] is not None:
        stat = "undefined (some source has no sample yet)" if status["statistic"] is None else f"{status['statistic']:.4g}"
        lines.append(f"{status['statistic_name']} {stat} vs threshold {status['threshold']:.4g} (the session stops when it reaches it)")
    if status["estimated_samples_to_stop"] is not None:
        lines.append(f"at the current estimates the rule would stop after about {status['estimated_samples_to_stop']} "
                     "more samples")
    if status["stopped"] and status["threshold_kind"] is not None:
        lines.append("certified: " + ("yes, a proven stopping rule stopped the session" if status["certified"] else
                                      "no, " + stop_reason(status["message"])))
    if status["near_tie"] is not None:
        lines.append(f"near tie: {status['near_tie']['message']}")
    if status.get("reward_model_note"):
        lines.append(f"reward model: {status['reward_model_note']}")
    lines.append(f"recommendation: {status['answer']}")
    if status.get("metrics") is not None:
        from pybai.cli.metric_status import metric_lines

        return lines + metric_lines(status)
    counts = np.asarray(status["counts"], dtype=float).ravel()
    means = np.array([np.nan if v is None else v for v in np.asarray(status["means"], dtype=object).ravel()], float)
    low = np.array([np.nan if v is None else v for v in np.asarray(status["ci_low"], dtype=object).ravel()], float)
    high = np.array([np.nan if v is None else v for v in np.asarray(status["ci_high"], dtype=object).ravel()], float)
    order = np.argsort(np.where(np.isnan(means), np.inf, -means), kind="stable")
    shown = order if order.size <= 20 else order[:10]
    labels = [session.layout.label(s) for s in range(counts.size)]
    width = max(len(labels[s]) for s in shown)
    sds = None if status.get("sd") is None else np.array(
        [np.nan if v is None else v for v in np.asarray(status["sd"], dtype=object).ravel()], float)
    sd_head = f"  {'sd':>9}" if sds is not None else ""
    lines.append(f"{'source':<{width}}  {'samples':>7}  {'mean':>9}{sd_head}  95% interval")
    for s in shown:
        interval = "" if np.isnan(low[s]) else f"[{low[s]:.4g}, {high[s]:.4g}]"
        mean = "-" if np.isnan(means[s]) else f"{means[s]:.4g}"
        sd = "" if sds is None else f"  {'-' if np.isnan(sds[s]) else format(sds[s], '.4g'):>9}"
        lines.append(f"{labels[s]:<{width}}  {int(counts[s]):>7}  {mean:>9}{sd}  {interval}")
    if order.size > shown.size:
        lines.append(f"... {order.size - shown.size} more sources (highest means shown; all in --json)")
    return lines


def _export(args) -> int:
    from pybai.session import stop_reason

    check_output_file(args.csv, "--csv")
    with _open(args) as session:
        status = session.status()
        note = ""
        if status["stopped"] and status["threshold_kind"] is not None:
            note = (" (certified answer)" if status["certified"] else
                    f" (not certified: {stop_reason(status['message'])})")
        _write_rows(session.layout.export_columns, session.observations(), args.csv,
                    lambda text: f"{text.count(chr(10)) - 1} observations{note}")
    return 0


def _report(args) -> int:
    from pybai.session.report import write_session_report

    with _open(args) as session:
        path = write_session_report(session, args.out)
    print(f"report: {path}")
    return 0
