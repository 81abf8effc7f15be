"""A second hostile probe, of inputs :mod:`hostile_probe` and ``tests/combinations`` do not send.

Run it from a checkout (``python benchmarks/hostile_probe_fresh.py``; ``--only WORD`` for the classes
whose name contains WORD).  Same output and contract as ``benchmarks/hostile_probe.py`` (one
``PASS|FAIL class surface input outcome`` line per case, a summary, exit 1 when a case failed):
each call works or refuses with one line naming what was wrong, never a traceback, an HTTP 500, a
hang, a half-written result or a silently wrong one.  The classes:

* ``toml``: experiment and session files whose values have odd TOML types (dates, times, tables
  or arrays where a scalar belongs, booleans for numbers, huge integers), through ``pybai run``,
  ``pybai complexity`` and ``Session.create``;
* ``flags``: command-line values NaN, inf, negative, fractional or beyond 64 bits for every
  command that takes a number, and bad names for ``validate``, ``reproduce`` and ``report``;
* ``epsilon``: ``session epsilon`` on guardrail, top-k, linear and leader-settled sessions, over
  Python, the CLI and HTTP, then status, export and report;
* ``metrics``: guardrail sessions (known and unknown variances) fed degenerate metrics (constant,
  tied, at the bound, 1e200 and subnormal values): status, export and report on each, and no
  certified stop on ties under unknown variances;
* ``http``: request bodies with huge arrays, deep nesting, unicode and control-character labels,
  duplicate keys, invalid UTF-8 and odd routes;
* ``restore``: saved states of the newer strategies (``top-two-guardrails``, leader-settled
  thresholds) altered and re-signed: refused in one line, or restored to the same run;
* ``concurrent``: CLI processes telling one SQLite session at once: every acknowledged answer
  stored once.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_probe import (ROOT, RESULTS, Server, cli, cli_verdict, http_verdict, python_verdict,  # noqa: E402
                           record, summary)

from pybai.exceptions import InvalidParameterError, PybaiError  # noqa: E402
from pybai.session import Session  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
GUARDED = [{"name": "objective", "sigma": 1.0}, {"name": "guarded", "sigma": 1.0, "at_most": 0.5}]
GUARDED_UV = [{"name": "objective", "reward_model": "gaussian-unknown-variance"},
              {"name": "guarded", "reward_model": "gaussian-unknown-variance", "at_most": 0.5}]
FEATURES = [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]
MM_ENV = ("kind = 'multi-metric'\n[[environment.metric]]\nname = 'objective'\nkind = 'gaussian'\n"
          "means = [0.5, 0.4]\nsigma = 1.0\n[[environment.metric]]\nname = 'g'\nkind = 'gaussian'\n"
          "means = [0.1, 0.2]\nsigma = 1.0")


def subprocess_cli(argv, timeout=90, stdin=None):
    """``python -m pybai ARGV`` as a process with a time limit: (exit status, stderr) or None on a hang."""
    try:
        done = subprocess.run([sys.executable, "-m", "pybai", *map(str, argv)], capture_output=True, text=True,
                              timeout=timeout, env=ENV, input=stdin)
    except subprocess.TimeoutExpired:
        return None
    return done.returncode, done.stderr


def session_doc(kind: str, name: str = "s", strategy: str = "top-two", **problem) -> dict:
    """A session document of one of the kinds the probe drives."""
    table = {"goal": "best-arm", "delta": 0.1, "max_samples": 300, **problem}
    env: dict = {"kind": "gaussian", "arms": 3}
    strat: dict = {"name": strategy}
    if kind == "guardrails":
        table["metric"], env = GUARDED, {"kind": "multi-metric", "arms": 3}
        strat = {"name": "top-two-guardrails"}
    elif kind == "guardrails-uv":
        table["metric"], env = GUARDED_UV, {"kind": "multi-metric", "arms": 3}
        strat = {"name": "top-two-guardrails"}
    elif kind == "top-k":
        table.update(goal="top-k", k=2)
        env["arms"] = 4
        strat = {"name": "lucb"}
    elif kind == "linear":
        env = {"kind": "linear-gaussian", "features": FEATURES}
        strat = {"name": "tas"}
    elif kind == "leader-settled":
        strat["threshold"] = "leader-settled"
    return {"name": name, "seed": 36, "problem": table, "environment": env, "strategy": [strat]}


def feed(session, reward, answers: int):
    """Answer up to ``answers`` requests with ``reward(arm, step)`` (a dict of metric values for guardrails)."""
    metrics = list(getattr(session.layout, "metrics", None) or [])
    for step in range(answers):
        try:
            req = session.ask()
        except PybaiError:
            return
        sources = [int(a) for a in np.asarray(req.requests).ravel()]
        if metrics:
            rewards = {m: [reward(a, step)[m] for a in sources] for m in metrics}
        else:
            rewards = [reward(a, step) for a in sources]
        session.tell(req.id, sources, rewards)


def check_readers(klass: str, what: str, db: Path, folder: Path) -> None:
    """status, export and report of the session in ``db`` through the CLI: each works."""
    for argv in (["session", "status", "--db", db], ["session", "status", "--db", db, "--json"],
                 ["session", "export", "--db", db, "--csv", folder / "x.csv"],
                 ["session", "report", "--db", db, "--out", folder / "r.html"]):
        code, out, err = cli(*argv)
        ok, outcome = cli_verdict(code, err)
        record(klass, "cli", f"{what}: {' '.join(map(str, argv[:2]))}{' --json' if '--json' in argv else ''}",
               outcome, ok and code == 0)


# ---------------------------------------------------------------- odd TOML types
TOML_CASES = [  # (label, [problem] lines, [environment] lines, top-level lines, the parameter to name)
    ("delta date", "delta = 1979-05-27", None, "", "delta"),
    ("delta datetime", "delta = 1979-05-27T07:32:00Z", None, "", "delta"),
    ("delta time", "delta = 07:32:00", None, "", "delta"),
    ("delta inline table", "delta = {value = 0.1}", None, "", "delta"),
    ("delta array", "delta = [0.1]", None, "", "delta"),
    ("delta bool", "delta = true", None, "", "delta"),
    ("delta string", 'delta = "0.1"', None, "", "delta"),
    ("delta huge int", f"delta = {2**64}", None, "", "delta"),
    ("max_samples float", "delta = 0.1\nmax_samples = 100.5", None, "", "max_samples"),
    ("max_samples bool", "delta = 0.1\nmax_samples = true", None, "", "max_samples"),
    ("max_samples date", "delta = 0.1\nmax_samples = 2020-01-01", None, "", "max_samples"),
    ("max_samples 10^30", f"delta = 0.1\nmax_samples = {10**30}", None, "", "max_samples"),
    ("goal int", "goal = 3\ndelta = 0.1", None, "", "goal"),
    ("goal table", "goal = {name = 'best-arm'}\ndelta = 0.1", None, "", "goal"),
    ("epsilon date", "delta = 0.1\nepsilon = 2020-01-01", None, "", "epsilon"),
    ("epsilon table", "delta = 0.1\nepsilon = {x = 1}", None, "", "epsilon"),
    ("epsilon_mode int", "delta = 0.1\nepsilon = 0.1\nepsilon_mode = 1", None, "", "epsilon_mode"),
    ("epsilon_mode list", "delta = 0.1\nepsilon = 0.1\nepsilon_mode = ['additive']", None, "", "epsilon_mode"),
    ("k float", "goal = 'top-k'\ndelta = 0.1\nk = 2.0", None, "", "k"),
    ("k bool", "goal = 'top-k'\ndelta = 0.1\nk = true", None, "", "k"),
    ("k date", "goal = 'top-k'\ndelta = 0.1\nk = 1979-05-27", None, "", "k"),
    ("means dates", "delta = 0.1", "kind = 'gaussian'\nmeans = [1979-05-27, 1980-01-01]", "", "means"),
    ("means bools", "delta = 0.1", "kind = 'gaussian'\nmeans = [true, false]", "", "means"),
    ("means strings", "delta = 0.1", "kind = 'gaussian'\nmeans = ['0.5', '0.4']", "", "means"),
    ("means nested", "delta = 0.1", "kind = 'gaussian'\nmeans = [[0.5], [0.4]]", "", "means"),
    ("means table", "delta = 0.1", "kind = 'gaussian'\nmeans = {a = 0.5}", "", "means"),
    ("means mixed", "delta = 0.1", "kind = 'gaussian'\nmeans = [0.5, 'x']", "", "means"),
    ("means 10^400 int", "delta = 0.1", f"kind = 'gaussian'\nmeans = [{10**40}, 0]", "", "means"),
    ("means empty", "delta = 0.1", "kind = 'gaussian'\nmeans = []", "", "means"),
    ("sigma date", "delta = 0.1", "kind = 'gaussian'\nmeans = [0.5, 0.4]\nsigma = 1979-05-27", "", "sigma"),
    ("sigma table", "delta = 0.1", "kind = 'gaussian'\nmeans = [0.5, 0.4]\nsigma = {a = 1}", "", "sigma"),
    ("sigma bool", "delta = 0.1", "kind = 'gaussian'\nmeans = [0.5, 0.4]\nsigma = true", "", "sigma"),
    ("kind int", "delta = 0.1", "kind = 3\nmeans = [0.5, 0.4]", "", "kind"),
    ("kind table", "delta = 0.1", "kind = {a = 1}\nmeans = [0.5, 0.4]", "", "kind"),
    ("features strings", "delta = 0.1", "kind = 'linear-gaussian'\nfeatures = [[1, 'x'], [0, 1]]\ntheta = [1, 0]",
     "", "features"),
    ("features ragged", "delta = 0.1", "kind = 'linear-gaussian'\nfeatures = [[1, 0], [0]]\ntheta = [1, 0]",
     "", "features"),
    ("features dates", "delta = 0.1",
     "kind = 'linear-gaussian'\nfeatures = [[1979-05-27, 0], [0, 1]]\ntheta = [1, 0]", "", "features"),
    ("theta table", "delta = 0.1", "kind = 'linear-gaussian'\nfeatures = [[1, 0], [0, 1]]\ntheta = {a = 1}",
     "", "theta"),
    ("seed date", "delta = 0.1", None, "seed = 1979-05-27", "seed"),
    ("seed float", "delta = 0.1", None, "seed = 1.5e0", "seed"),
    ("seed bool", "delta = 0.1", None, "seed = true", "seed"),
    ("seed table", "delta = 0.1", None, "seed = {a = 1}", "seed"),
    ("replications date", "delta = 0.1", None, "replications = 1979-05-27", "replications"),
    ("replications float", "delta = 0.1", None, "replications = 2.5", "replications"),
    ("replications bool", "delta = 0.1", None, "replications = true", "replications"),
    ("name int", "delta = 0.1", None, "name = 5", "name"),
    ("name table", "delta = 0.1", None, "name = {a = 1}", "name"),
    ("reward_model int", "delta = 0.1\nreward_model = 1", "kind = 'beta'\nmeans = [0.5, 0.4]\nsd = 0.05", "",
     "reward_model"),
    ("reward_range dates", "delta = 0.1\nreward_model = 'bounded'\nreward_range = [1979-05-27, 1980-05-27]",
     "kind = 'beta'\nmeans = [0.5, 0.4]\nsd = 0.05", "", "reward_range"),
    ("reward_range three", "delta = 0.1\nreward_model = 'bounded'\nreward_range = [0, 0.5, 1]",
     "kind = 'beta'\nmeans = [0.5, 0.4]\nsd = 0.05", "", "reward_range"),
    ("reward_range string", "delta = 0.1\nreward_model = 'bounded'\nreward_range = '0,1'",
     "kind = 'beta'\nmeans = [0.5, 0.4]\nsd = 0.05", "", "reward_range"),
    ("metric table not list", "delta = 0.1\nmetric = {name = 'objective', sigma = 1.0}", MM_ENV, "", "metric"),
    ("metric sigma date", "delta = 0.1\n[[problem.metric]]\nname = 'objective'\nsigma = 1979-05-27\n"
     "[[problem.metric]]\nname = 'g'\nsigma = 1.0\nat_most = 0.5", MM_ENV, "", "sigma"),
    ("metric at_most table", "delta = 0.1\n[[problem.metric]]\nname = 'objective'\nsigma = 1.0\n"
     "[[problem.metric]]\nname = 'g'\nsigma = 1.0\nat_most = {x = 1}", MM_ENV, "", "at_most"),
    ("metric at_most bool", "delta = 0.1\n[[problem.metric]]\nname = 'objective'\nsigma = 1.0\n"
     "[[problem.metric]]\nname = 'g'\nsigma = 1.0\nat_most = true", MM_ENV, "", "at_most"),
    ("metric name int", "delta = 0.1\n[[problem.metric]]\nname = 7\nsigma = 1.0\n"
     "[[problem.metric]]\nname = 'g'\nsigma = 1.0\nat_most = 0.5", MM_ENV, "", "name"),
    ("env metric means bools", "delta = 0.1\n[[problem.metric]]\nname = 'objective'\nsigma = 1.0\n"
     "[[problem.metric]]\nname = 'g'\nsigma = 1.0\nat_most = 0.5",
     MM_ENV.replace("means = [0.5, 0.4]", "means = [true, false]"), "", "means"),
    ("strategy string", "delta = 0.1", None, "strategy = 'uniform'", "strategy"),
    ("strategy option date", "delta = 0.1", None, "STRATEGY:beta = 1979-05-27", "beta"),
    ("strategy option table", "delta = 0.1", None, "STRATEGY:beta = {a = 1}", "beta"),
    ("strategy name int", "delta = 0.1", None, "STRATEGYNAME:5", "name"),
    ("grid dates", "delta = 0.1", None, "[grid]\ndelta = [1979-05-27]", "grid"),
    ("grid scalar", "delta = 0.1", None, "[grid]\ndelta = 0.1", "grid"),
    ("problem array of tables", None, None, "", "problem"),
]


def experiment_text(problem, env, top) -> str:
    env = env if env is not None else "kind = 'gaussian'\nmeans = [0.5, 0.4]\nsigma = 1.0"
    strategy = "[[strategy]]\nname = 'top-two'\n"
    lines = [line for line in top.splitlines() if not line.startswith("STRATEGY")]
    for line in top.splitlines():
        if line.startswith("STRATEGY:"):
            strategy += line.split(":", 1)[1] + "\n"
        elif line.startswith("STRATEGYNAME:"):
            strategy = f"[[strategy]]\nname = {line.split(':', 1)[1]}\n"
    if "strategy = " in top:
        strategy = ""
    cut = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
    head, tail = lines[:cut], "\n".join(lines[cut:])
    if not any(line.startswith("name") for line in head):
        head.insert(0, "name = 'odd'")
    if not any(line.startswith("replications") for line in head):
        head.append("replications = 2")
    if problem is None:  # [[problem]]: an array of tables where a table belongs
        problem_block = "[[problem]]\ngoal = 'best-arm'\ndelta = 0.1\n"
    else:
        goal = "" if problem.startswith("goal") else "goal = 'best-arm'\n"
        problem_block = f"[problem]\n{goal}{problem}\nmax_samples = 200\n" if "max_samples" not in problem and \
            "[[problem.metric]]" not in problem else f"[problem]\n{goal}{problem}\n"
        if "[[problem.metric]]" in problem:
            first, rest = problem.split("[[problem.metric]]", 1)
            problem_block = f"[problem]\n{goal}{first}max_samples = 200\n[[problem.metric]]{rest}\n"
    return "\n".join(head) + "\n" + problem_block + f"[environment]\n{env}\n" + strategy + tail + "\n"


def probe_toml(folder: Path) -> None:
    for label, problem, env, top, name in TOML_CASES:
        path = folder / f"odd-{len(RESULTS)}.toml"
        path.write_text(experiment_text(problem, env, top))
        for command in ("run", "complexity"):
            if command == "complexity" and (label.startswith(("replications", "seed", "name", "grid"))):
                continue
            code, out, err = cli(command, path, *(["--quiet"] if command == "run" else []))
            ok, outcome = cli_verdict(code, err, may_work=False, must_name=name)
            record("toml", "cli", f"{command} {label}", outcome, ok)
    # the same odd types in session documents (Python dicts, as a TOML reader hands them over)
    import datetime

    odd_values = {"date": datetime.date(1979, 5, 27), "time": datetime.time(7, 32), "table": {"a": 1},
                  "list": [0.1], "bool": True, "2^64": 2**64, "nan": math.nan}
    for key in ("delta", "max_samples", "epsilon", "max_pending", "expire_after"):
        for vlabel, value in odd_values.items():
            if key in ("max_pending", "expire_after"):
                doc = session_doc("gaussian")
                doc.setdefault("session", {})[key] = value
            else:
                doc = session_doc("gaussian", **{key: value})
            may = vlabel == "2^64" and key in ("epsilon", "expire_after")  # a tolerance or a wait beyond all data
            ok, outcome, got = python_verdict(lambda: Session.create(folder / f"odd-{len(RESULTS)}.db", doc),
                                              may_work=may, must_name=key)
            if got is not None:
                got.close()
            record("toml", "python", f"Session.create {key} = {vlabel}", outcome, ok)


# ---------------------------------------------------------------- command-line values
BAD_NUMBERS = ("nan", "inf", "-inf", "-1", "1.5", "1e3", str(2**64), "1" + "0" * 400, "0x10", "")


def probe_flags(folder: Path) -> None:
    good = folder / "flags.toml"
    good.write_text("name = 'f'\nseed = 1\nreplications = 2\n[problem]\ngoal = 'best-arm'\ndelta = 0.1\n"
                    "max_samples = 100\n[environment]\nkind = 'gaussian'\nmeans = [0.5, 0.3]\nsigma = 1.0\n"
                    "[[strategy]]\nname = 'uniform'\n")
    sess = folder / "flags-session.toml"
    sess.write_text("name = 'f'\nseed = 1\n[problem]\ngoal = 'best-arm'\ndelta = 0.1\n[environment]\n"
                    "kind = 'gaussian'\narms = 3\n[[strategy]]\nname = 'top-two'\n")
    db = folder / "flags.db"
    cli("session", "new", sess, "--db", db)
    in_process = [  # (label, argv, name), the value spliced in for {}
        ("run --jobs {}", ["run", good, "--quiet", "--jobs", "{}"], "jobs"),
        ("run --cluster local:{}", ["run", good, "--quiet", "--cluster", "local:{}"], "cluster"),
        ("session new --seed {}", ["session", "new", sess, "--db", "NEWDB", "--seed", "{}"], "seed"),
        ("session tell --request {}", ["session", "tell", "--db", db, "--request", "{}", "--csv", good], "request"),
        ("session cancel --request {}", ["session", "cancel", "--db", db, "--request", "{}"], "request"),
        ("session epsilon --epsilon {}", ["session", "epsilon", "--db", db, "--epsilon", "{}"], "epsilon"),
    ]
    for label, argv, name in in_process:
        for value in BAD_NUMBERS:
            if label.startswith("session epsilon") and value in ("1.5", "1e3"):
                continue  # a valid tolerance (every arm within it: a trivial question)
            args = [str(a).replace("{}", value) if a == "{}" or a == "local:{}" else a for a in argv]
            args = [folder / f"new-{len(RESULTS)}.db" if a == "NEWDB" else a for a in args]
            code, out, err = cli(*args)
            ok, outcome = cli_verdict(code, err, may_work=False, must_name=name)
            record("flags", "cli", label.replace("{}", value[:12] or "''"), outcome, ok)
    processes = [  # commands that could run long if they accepted a value: a process with a time limit
        ("validate --seed {}", ["validate", "--quick", "--seed", "{}"], "seed", ("nan", "inf", "-1", "1.5", "")),
        ("validate --family {}", ["validate", "--quick", "--family", "{}"], "family", ("nope", "", "../x")),
        ("validate --strategy {}", ["validate", "--quick", "--strategy", "{}"], "strategy", ("nope", "")),
        ("serve --port {}", ["serve", "--db", db, "--port", "{}"], "port", ("nan", "1e3", "-0", "65536", "")),
        ("reproduce {}", ["reproduce", "{}", "--quick"], "reproduction|name|unknown",
         ("nope", "../etc/passwd", "", "\u00e9\u00e9")),
        ("reproduce --jobs {}", ["reproduce", "gk16", "--quick", "--jobs", "{}"], "jobs", ("nan", "-1", "0")),
        ("report {}", ["report", "{}"], "dir|folder|store|report", ("/nonexistent/x", "FILE")),
        ("complexity {}", ["complexity", "{}"], "file|experiment", ("nope", "/dev/null", "")),
    ]
    for label, argv, name, values in processes:
        for value in values:
            value = str(good) if value == "FILE" else value
            args = [a.replace("{}", value) if isinstance(a, str) else a for a in argv]
            got = subprocess_cli(args, timeout=60)
            if got is None:
                ok, outcome = False, "still running after 60 s (accepted)"
            else:
                ok, outcome = cli_verdict(got[0], got[1], may_work=False, must_name=name)
            record("flags", "cli", label.replace("{}", value[:14] or "''"), outcome, ok)


# ---------------------------------------------------------------- session epsilon on other goals
def probe_epsilon(folder: Path) -> None:
    for kind in ("guardrails", "guardrails-uv", "top-k", "linear", "leader-settled"):
        for surface in ("python", "cli", "http"):
            db = folder / f"eps-{kind}-{surface}.db"
            s = Session.create(db, session_doc(kind, name="e"))
            rng = np.random.default_rng(1)
            feed(s, lambda a, i: ({"objective": rng.normal(0.3 * a), "guarded": rng.normal(0.2)}
                                  if kind.startswith("guardrails") else float(rng.normal(0.3 * a))), 12)
            s.close()
            for value, mode in ((0.1, "additive"), (0.1, "relative"), (0.0, "additive"), (1e300, "additive")):
                what = f"{kind} epsilon {value:g} {mode}"
                if surface == "python":
                    with Session.open(db) as s:
                        ok, outcome, _ = python_verdict(lambda: s.set_epsilon(value, mode), may_work=True,
                                                        must_name="epsilon")
                elif surface == "cli":
                    code, out, err = cli("session", "epsilon", "--db", db, "--epsilon", repr(value), "--mode", mode)
                    ok, outcome = cli_verdict(code, err, may_work=True, must_name="epsilon")
                else:
                    server = Server(db)
                    try:
                        code, body = server.call("POST", "/sessions/e/epsilon", {"epsilon": value, "epsilon_mode": mode})
                        ok, outcome = http_verdict(code, body, may_work=True, must_name="epsilon")
                        for route in ("status", "export", ""):
                            c2, b2 = server.call("GET", f"/sessions/e/{route}".rstrip("/"))
                            if c2 != 200:
                                ok, outcome = False, f"GET {route or 'dashboard'} after epsilon: HTTP {c2} {str(b2)[:80]}"
                    finally:
                        server.stop()
                record("epsilon", surface, what, outcome, ok)
            check_readers("epsilon", f"{kind} after epsilon ({surface})", db, folder)


# ---------------------------------------------------------------- guardrail metrics on degenerate data
METRIC_STREAMS = {  # name -> (arm, step, rng) -> {metric: value}
    "objective tied": lambda a, i, r: {"objective": 0.5, "guarded": r.normal(0.0)},
    "guarded constant at the bound": lambda a, i, r: {"objective": r.normal(0.3 * a), "guarded": 0.5},
    "both constant": lambda a, i, r: {"objective": float(a), "guarded": 0.0},
    "repeated pair": lambda a, i, r: {"objective": (0.0, 1.0)[(i + a) % 2], "guarded": (0.25, 0.75)[i % 2]},
    "ties two values": lambda a, i, r: {"objective": float(r.random() < 0.5), "guarded": float(r.random() < 0.2)},
    "1e200": lambda a, i, r: {"objective": 1e200 * (a + 1) * (-1) ** i, "guarded": r.normal()},
    "1e-300 apart": lambda a, i, r: {"objective": a * 1e-300, "guarded": 0.0},
    "subnormal": lambda a, i, r: {"objective": (a + i % 2) * 5e-324, "guarded": 5e-324 * (i % 2)},
    "guarded 1e154": lambda a, i, r: {"objective": r.normal(0.3 * a), "guarded": 1e154 * (-1) ** i},
}
NO_CERTIFIED_STOP = ("objective tied", "both constant", "1e-300 apart", "subnormal", "repeated pair")


def probe_metrics(folder: Path) -> None:
    for kind in ("guardrails", "guardrails-uv"):
        for stream, fn in METRIC_STREAMS.items():
            what = f"{kind} / {stream}"
            db = folder / f"m-{len(RESULTS)}.db"
            rng = np.random.default_rng(2)
            try:
                with Session.create(db, session_doc(kind, name="m")) as s:
                    ok, outcome, _ = python_verdict(lambda: feed(s, lambda a, i: fn(a, i, rng), 120))
                    status = s.status()
                if ok and kind == "guardrails-uv" and stream in NO_CERTIFIED_STOP and status.get("certified"):
                    ok, outcome = False, f"certified {status.get('recommendation')} on {stream}"
            except BaseException as exc:  # noqa: BLE001
                ok, outcome = False, f"{type(exc).__name__}: {exc}"
            record("metrics", "python", what, outcome, ok)
            check_readers("metrics", what, db, folder)


# ---------------------------------------------------------------- HTTP bodies and routes
def probe_http(folder: Path) -> None:
    db = folder / "http.db"
    doc = session_doc("gaussian", name="h")
    doc["environment"]["labels"] = ["caf\u00e9", "\u2603 snow", "plain"]
    Session.create(db, doc).close()
    gdb = folder / "http-g.db"
    Session.create(gdb, session_doc("guardrails", name="g")).close()
    server = Server(db)
    try:
        code, body = server.call("POST", "/sessions/h/ask", {})
        rid = body["request"] if code == 200 else 1
        one = body["sources"][:1] if code == 200 else [0]
        deep = b"[" * 100_000 + b"]" * 100_000
        cases = [  # (label, method, route, raw body, may work)
            ("sources 10^6 items", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": [0] * 1_000_000, "rewards": [0.5] * 1_000_000}).encode(), False),
            ("rewards 10^6 items", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": one, "rewards": [0.5] * 1_000_000}).encode(), False),
            ("deep nesting 10^5", "POST", "/sessions/h/tell", deep, False),
            ("deep nesting in rewards", "POST", "/sessions/h/tell",
             b'{"request": %d, "sources": [0], "rewards": ' % rid + b"[" * 50_000 + b"]" * 50_000 + b"}", False),
            ("deep nesting epsilon", "POST", "/sessions/h/epsilon", b'{"epsilon": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
             False),
            ("duplicate request key", "POST", "/sessions/h/tell",
             b'{"request": 999999, "request": %d, "sources": %s, "rewards": [0.5]}' % (rid, json.dumps(one).encode()),
             False),
            ("duplicate rewards key", "POST", "/sessions/h/tell",
             b'{"request": %d, "sources": %s, "rewards": [0.5], "rewards": [0.7]}' % (rid, json.dumps(one).encode()),
             False),
            ("duplicate epsilon key", "POST", "/sessions/h/epsilon", b'{"epsilon": 0.1, "epsilon": -5}', False),
            ("label NUL", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": ["caf\u00e9\u0000"], "rewards": [0.5]}).encode(), False),
            ("label lone surrogate", "POST", "/sessions/h/tell",
             b'{"request": %d, "sources": ["\\ud800"], "rewards": [0.5]}' % rid, False),
            ("label NFD form", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": ["cafe\u0301"], "rewards": [0.5]}).encode(), False),
            ("label 1 MB", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": ["x" * 1_000_000], "rewards": [0.5]}).encode(), False),
            ("invalid UTF-8", "POST", "/sessions/h/tell", b'{"request": 1, "sources": ["\xff\xfe"], "rewards": [1]}',
             False),
            ("UTF-16 body", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": one, "rewards": [0.5]}).encode("utf-16"), True),  # RFC 8259 reads it
            ("BOM then JSON", "POST", "/sessions/h/epsilon", b'\xef\xbb\xbf{"epsilon": 0.1}', True),
            ("JSON string body", "POST", "/sessions/h/tell", b'"tell"', False),
            ("JSON number body", "POST", "/sessions/h/epsilon", b"0.1", False),
            ("JSON null body", "POST", "/sessions/h/ask", b"null", True),
            ("rewards object for plain session", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": one, "rewards": {"objective": [0.5]}}).encode(), False),
            ("reward bool", "POST", "/sessions/h/tell",
             json.dumps({"request": rid, "sources": one, "rewards": [True]}).encode(), False),
            ("reward 1e-400 (underflow)", "POST", "/sessions/h/tell",
             b'{"request": %d, "sources": %s, "rewards": [1e-400]}' % (rid, json.dumps(one).encode()), True),
            ("request 1e2 float", "POST", "/sessions/h/tell",
             json.dumps({"request": float(rid), "sources": one, "rewards": [0.5]}).encode(), False),
            ("epsilon huge exponent", "POST", "/sessions/h/epsilon", b'{"epsilon": 1e99999999999}', False),
            ("epsilon -0.0", "POST", "/sessions/h/epsilon", b'{"epsilon": -0.0}', True),
            ("unknown session unicode", "GET", "/sessions/%E2%98%83/status", None, False),
            ("session %00", "GET", "/sessions/h%00/status", None, False),
            ("session %2e%2e", "GET", "/sessions/%2e%2e/status", None, False),
            ("route 100 kB", "GET", "/sessions/" + "a" * 100_000 + "/status", None, False),
            ("query junk", "GET", "/sessions/h/status?level=nan&x=%ff", None, True),
            ("status level 2", "GET", "/sessions/h/status?level=2", None, True),
            ("POST status", "POST", "/sessions/h/status", b"{}", False),
            ("GET tell", "GET", "/sessions/h/tell", None, False),
            ("PUT ask", "PUT", "/sessions/h/ask", b"{}", False),
            ("DELETE session", "DELETE", "/sessions/h", None, False),
        ]
        for label, method, route, raw, may in cases:
            try:
                code, body = server.call(method, route, raw=raw) if raw is not None else server.call(method, route)
                ok, outcome = http_verdict(code, body, may_work=may)
                if label == "route 100 kB" and code in (400, 414):  # uvicorn's request-line limit, before the app
                    ok, outcome = True, f"HTTP {code} from the HTTP layer (request line over its 16 kB limit)"
            except Exception as exc:  # noqa: BLE001 - a dropped connection or a hang
                ok, outcome = False, f"{type(exc).__name__}: {exc}"
            record("http", "http", label, outcome, ok)
        code, body = server.call("GET", "/sessions/h/status")
        record("http", "http", "status after the hostile bodies", f"HTTP {code}", code == 200)
        code, body = server.call("GET", "/sessions/h/export")
        record("http", "http", "export after the hostile bodies", f"HTTP {code}", code == 200)
    finally:
        server.stop()
    server = Server(gdb)
    try:
        code, body = server.call("POST", "/sessions/g/ask", {})
        rid, src = (body["request"], body["sources"]) if code == 200 else (1, [0])
        for label, rewards in (("metric key duplicated", None), ("metric unicode name", {"objectivé": [0.5]}),
                               ("metric values nested", {"objective": [[0.5]], "guarded": [[0.1]]}),
                               ("metric values bools", {"objective": [True], "guarded": [False]}),
                               ("metric values 1e999", None)):
            if rewards is None and "duplicated" in label:
                raw = (b'{"request": %d, "sources": %s, "rewards": {"objective": [0.5], "objective": [0.6], '
                       b'"guarded": [0.1]}}' % (rid, json.dumps(src[:1]).encode()))
            elif rewards is None:
                raw = (b'{"request": %d, "sources": %s, "rewards": {"objective": [1e999], "guarded": [0.1]}}'
                       % (rid, json.dumps(src[:1]).encode()))
            else:
                raw = json.dumps({"request": rid, "sources": src[:1], "rewards": rewards}).encode()
            code, body = server.call("POST", "/sessions/g/tell", raw=raw)
            ok, outcome = http_verdict(code, body, may_work=False)
            record("http", "http", f"guardrails {label}", outcome, ok)
    finally:
        server.stop()


# ---------------------------------------------------------------- altered saved states of the newer strategies
def _leaves(node, prefix=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, prefix + (i,))
    else:
        yield prefix, node


def _set(state, path, value):
    node = state
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def probe_restore(folder: Path) -> None:
    from pybai import restore_strategy
    from pybai.config import parse_experiment
    from pybai.strategies.state import state_digest

    multi = {"kind": "multi-metric", "metric": [
        {"name": "objective", "kind": "gaussian", "means": [0.5, 0.3, 0.6], "sigma": 1.0},
        {"name": "guarded", "kind": "gaussian", "means": [0.1, 0.2, 0.9], "sigma": 1.0}]}
    specs = {
        "top-two-guardrails": ({"goal": "best-arm", "delta": 0.1, "metric": GUARDED}, multi,
                               {"name": "top-two-guardrails"}),
        "top-two-guardrails uv": ({"goal": "best-arm", "delta": 0.1, "metric": GUARDED_UV}, multi,
                                  {"name": "top-two-guardrails"}),
        "top-two leader-settled": ({"goal": "best-arm", "delta": 0.1}, {"kind": "gaussian", "means": [1.0, 0.5, 0.2]},
                                   {"name": "top-two", "threshold": "leader-settled"}),
        "tas leader-settled": ({"goal": "best-arm", "delta": 0.1}, {"kind": "gaussian", "means": [1.0, 0.5, 0.2]},
                               {"name": "tas", "threshold": "leader-settled"}),
    }
    for label, (problem, env, strat) in specs.items():
        try:
            exp = parse_experiment({"problem": problem, "environment": env, "strategy": [strat]})
        except PybaiError as exc:
            record("restore", "python", f"{label}: build", f"{type(exc).__name__}: {exc}", False)
            continue
        strategy = exp.strategies[0][1]
        strategy.start(exp.problem, rng=1)
        env_rng = np.random.default_rng(1)
        truth = exp.environment.realize(env_rng)
        for _ in range(30):
            if strategy.stopped:
                break
            strategy.tell(*truth.respond(np.asarray(strategy.ask()), env_rng))
        if not strategy.stopped:
            strategy.ask()  # a pending request in the state
        original = json.loads(json.dumps(strategy.get_state()))
        # edits that break an invariant a saved state keeps (a free float, such as a sum, cannot be told from the
        # journal's: sessions check those against it): counts that are negative, fractional or NaN, batches
        # beyond t_, the leader rule's state out of its layout, a status the statistics do not support
        county = ("counts", "t_", "batches_", "rounds", "pulls", "cumulative", "target")
        numeric = [(p, v) for p, v in _leaves(original) if p[0] in ("model", "base", "rule")
                   and isinstance(v, (int, float)) and not isinstance(v, bool)
                   and any(word in str(q) for q in p for word in county)]
        picked = numeric[:: max(1, len(numeric) // 8)][:8]
        edits = [(p, -1 if isinstance(v, int) else -abs(v) - 1.0) for p, v in picked]
        edits += [(p, v + 0.5) for p, v in picked[:4] if not str(p[-2]).startswith(("cumulative", "target"))
                  and isinstance(v, float)]
        edits += [(p, "nan") for p, v in picked[:4] if isinstance(v, float)]
        edits += [(("base", "batches_"), original["base"]["t_"] + 1)]
        edits += [(("base", "status_"), "stopped")]
        if "stopping" in original:
            k = len(original["model"]["counts"]["data"])
            for index, value in ((0, 0.0), (0, float(k)), (0, 0.5), (k, -1.0), (3 * k, 99.0), (4 * k, 0.5),
                                 (5 * k + 3 * 31 + 1, 7.0)):
                edits.append((("stopping", "data", index), value))
        for path, value in edits:
            state = copy.deepcopy(original)
            _set(state, path, value)
            state["digest"] = state_digest(state)  # re-signed, as an editor of the file would
            what = f"{label}: {'.'.join(map(str, path))} = {value!r}"[:90]
            try:
                restored = restore_strategy(state, exp.problem)
            except InvalidParameterError as exc:
                text_ = str(exc)
                record("restore", "python", what, text_[:150], "\n" not in text_)
                continue
            except BaseException as exc:  # noqa: BLE001
                record("restore", "python", what, f"{type(exc).__name__}: {exc}", False)
                continue
            # accepted: it must continue exactly as the saved run
            twin = restore_strategy(copy.deepcopy(original), exp.problem)
            same = True
            same = restored.get_state() == twin.get_state()  # a restored state reads back as it was given
            r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
            for _ in range(20):
                if not same or twin.stopped or restored.stopped:
                    same = same and twin.stopped == restored.stopped
                    break
                a, b = np.asarray(twin.ask()), np.asarray(restored.ask())
                if not np.array_equal(a, b):
                    same = False
                    break
                twin.tell(*truth.respond(a, r1))
                restored.tell(*truth.respond(b, r2))
            record("restore", "python", what, "accepted, same run" if same else "accepted, a DIFFERENT run", same)


# ---------------------------------------------------------------- concurrent CLI tells
def probe_concurrent(folder: Path) -> None:
    sess = folder / "conc.toml"
    sess.write_text("name = 'c'\nseed = 1\n[problem]\ngoal = 'best-arm'\ndelta = 0.01\n[environment]\n"
                    "kind = 'gaussian'\narms = 4\n[[strategy]]\nname = 'uniform'\n[session]\nmax_pending = 8\n")
    db = folder / "conc.db"
    cli("session", "new", sess, "--db", db)
    script = (
        "import csv, io, subprocess, sys\n"
        "db, k = sys.argv[1], int(sys.argv[2])\n"
        "acked = 0\n"
        "for i in range(k):\n"
        "    a = subprocess.run([sys.executable, '-m', 'pybai', 'session', 'ask', '--db', db], capture_output=True, text=True)\n"
        "    if a.returncode: print('ASKFAIL', a.returncode, a.stderr.strip()[-200:]); continue\n"
        "    rows = list(csv.DictReader(io.StringIO(a.stdout)))\n"
        "    path = db + f'.{sys.argv[3]}.csv'\n"
        "    with open(path, 'w') as f:\n"
        "        f.write('source,reward\\n' + ''.join(f\"{r['source']},0.5\\n\" for r in rows))\n"
        "    t = subprocess.run([sys.executable, '-m', 'pybai', 'session', 'tell', '--db', db, '--request', rows[0]['request'], '--csv', path], capture_output=True, text=True)\n"
        "    if t.returncode: print('TELLFAIL', t.returncode, t.stderr.strip()[-200:]); continue\n"
        "    acked += len(rows)\n"
        "print('ACKED', acked)\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(db), "4", str(j)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=ENV) for j in range(4)]
    acked, failures = 0, []
    for j, p in enumerate(procs):
        try:
            out, _ = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            failures.append(f"client {j} hung")
            continue
        for line in out.splitlines():
            if line.startswith("ACKED"):
                acked += int(line.split()[1])
            elif line.strip():
                failures.append(line[:200])
    bad = [f for f in failures if "Traceback" in f or "TELLFAIL 1" in f or "ASKFAIL 1" in f or "hung" in f]
    record("concurrent", "cli", "4 processes x 4 ask/tell rounds: one-line refusals only",
           "; ".join(failures)[:200] or "all worked", not bad)
    with Session.open(db) as s:
        stored = int(np.asarray(s.status()["counts"]).sum()) if "counts" in s.status() else -1
    record("concurrent", "cli", "every acknowledged answer stored once", f"acknowledged {acked}, stored {stored}",
           stored in (acked, -1))


CLASSES = {"toml": probe_toml, "flags": probe_flags, "epsilon": probe_epsilon, "metrics": probe_metrics,
           "http": probe_http, "restore": probe_restore, "concurrent": probe_concurrent}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run only the classes whose name contains this word (" + ", ".join(CLASSES) + ")")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pybai-probe-fresh-") as tmp:
        for name, fn in CLASSES.items():
            if not args.only or args.only in name:
                fn(Path(tmp))
    print(f"\n{len(RESULTS)} cases in {time.monotonic() - start:.0f} s")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
