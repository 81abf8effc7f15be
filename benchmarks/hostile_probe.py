"""A hostile outside probe of every surface: reward models x goals x surfaces, degenerate data, storage
faults, output files and bad input.

Run it from a checkout (``python benchmarks/hostile_probe.py``; ``--quick`` for a smaller sample,
``--only WORD`` for the cases whose class or input contains WORD).  It prints one line per case::

    PASS|FAIL  class  surface  input  outcome

and a summary of the counts per class at the end; the exit status is 1 when a case failed.
Seeds are fixed; every case is bounded (the whole probe takes a few minutes on 2 cores).

The contract each case is judged by:

* a call works, or refuses with one line naming what was wrong: the CLI exits 2 with one
  ``pybai: error:`` line and no traceback, HTTP answers a 4xx JSON ``{"error": ...}``, Python raises
  a :class:`pybai.exceptions.PybaiError` (bad values: ``InvalidParameterError``);
* status, export and report work on every session that accepted its answers, after 0, 1, a few
  and many answers, on every surface (Python, the CLI, HTTP and the dashboard's JSON routes);
* degenerate data (constant arms, ties, differences of 1e-300, subnormals) is never certified
  under a model that reads it as certainty; NaN and infinities are refused;
* a database fault (a deleted, read-only or locked SQLite file) gives one line, never a
  traceback or a 500, and nothing acknowledged is lost;
* an output never half-writes or replaces what is not a regular file (a directory, a path
  through a file, a read-only folder: one line, nothing left behind).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pybai.cli import main as cli_main  # noqa: E402
from pybai.config.learner import parse_session_file  # noqa: E402
from pybai.config.reward_models import REWARD_MODEL_VARIANTS  # noqa: E402
from pybai.exceptions import ConfigError, PybaiError  # noqa: E402
from pybai.session import Session  # noqa: E402

RESULTS: list[tuple[str, str, str, str, bool]] = []
ARMS = 4
SEED = 36


def record(klass: str, surface: str, what: str, outcome: str, ok: bool) -> None:
    outcome = " ".join(outcome.split())[:200]
    RESULTS.append((klass, surface, what, outcome, ok))
    print(f"{'PASS' if ok else 'FAIL'}  {klass:<12} {surface:<7} {what:<60} {outcome}", flush=True)


# ---------------------------------------------------------------- the three surfaces' calls
def cli(*argv, stdin: str | None = None) -> tuple[int, str, str]:
    """``pybai ARGV`` in this process: (exit status, stdout, stderr); an escaping exception is a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("always")
        try:
            code = cli_main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # noqa: BLE001 - a traceback is what the probe looks for
            err.write("Traceback (most recent call last):\n" + traceback.format_exc())
            code = 1
    return code, out.getvalue(), err.getvalue()


def cli_verdict(code: int, err: str, may_work: bool = True, must_name: str | None = None) -> tuple[bool, str]:
    """Works (exit 0) or one ``pybai: error:`` line with exit 2, naming ``must_name`` when given."""
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pybai: warning:")
             and not line.startswith("pybai: note:")]
    if "Traceback" in err:
        return False, f"traceback: {err.strip().splitlines()[-1]}"
    if code == 0:
        return may_work, "exit 0" if may_work else "exit 0 (accepted)"
    if code != 2:
        return False, f"exit {code}: {err.strip()[:150]}"
    if len(lines) != 1 or not lines[0].startswith("pybai: error:"):
        return False, f"exit 2 with {len(lines)} lines: {err.strip()[:150]}"
    if must_name and not any(name.lower() in lines[0].lower() for name in must_name.split("|")):
        return False, f"does not name {must_name}: {lines[0]}"
    return True, lines[0]


def python_verdict(fn, may_work: bool = True, expect=PybaiError, must_name: str | None = None):
    try:
        got = fn()
    except expect as exc:
        text = str(exc)
        if "\n" in text.strip():
            return False, f"{type(exc).__name__} in several lines", None
        if must_name and must_name.lower() not in text.lower():
            return False, f"{type(exc).__name__} does not name {must_name}: {text}", None
        return True, f"{type(exc).__name__}: {text}", None
    except BaseException as exc:  # noqa: BLE001
        return False, f"{type(exc).__name__}: {exc}"[:200], None
    return may_work, "worked" if may_work else "accepted", got


class Server:
    """``pybai serve`` as a real process on a free port, driven with urllib."""

    def __init__(self, db: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([sys.executable, "-m", "pybai", "serve", "--db", str(db), "--port",
                                      str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"pybai serve exited: {self.proc.stderr.read().decode()[-300:]}")
                time.sleep(0.2)
        raise RuntimeError("pybai serve did not start within 60 s")

    def call(self, method: str, route: str, body=None, raw: bytes | None = None) -> tuple[int, object]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{route}", data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                code, text, ctype = r.status, r.read().decode(), r.headers.get("content-type", "")
        except urllib.error.HTTPError as e:
            code, text, ctype = e.code, e.read().decode(), e.headers.get("content-type", "")
        try:
            return code, json.loads(text) if ctype.startswith("application/json") else text
        except ValueError:
            return code, text

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def http_verdict(code: int, body, may_work: bool = True, must_name: str | None = None,
                 unavailable: bool = False) -> tuple[bool, str]:
    """200, or a 4xx JSON error of one line (503 too with ``unavailable``: a database that cannot be written)."""
    if code == 200:
        return may_work, "200" if may_work else "200 (accepted)"
    if (code >= 500 and not (unavailable and code == 503)) or code < 400:
        return False, f"HTTP {code}: {str(body)[:150]}"
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return False, f"HTTP {code} without a JSON error: {str(body)[:150]}"
    if "\n" in body["error"].strip():
        return False, f"HTTP {code}: error in several lines"
    if must_name and must_name.lower() not in body["error"].lower():
        return False, f"HTTP {code} does not name {must_name}: {body['error']}"
    return True, f"HTTP {code}: {body['error']}"


# ---------------------------------------------------------------- the definitions: reward model x goal
def _document(name: str, goal: str, kind: str, reward: dict | None, extra_problem: dict, strategy: str,
              regime: str, extra_env: dict | None = None) -> dict:
    problem: dict = {"goal": goal}
    if regime == "fixed-confidence":
        problem.update(delta=0.1, max_samples=400)
    else:
        problem["budget"] = 40
    problem.update(extra_problem)
    if reward:
        problem.update(reward)
    env = {"kind": kind, "arms": ARMS, **(extra_env or {})}
    if kind == "linear-gaussian":
        env.pop("arms")
    return {"name": name, "seed": SEED, "problem": problem, "environment": env, "strategy": [{"name": strategy}]}


REWARDS = {"gaussian": ("gaussian", None), "bernoulli": ("bernoulli", None)}
for _model, _variants in REWARD_MODEL_VARIANTS.items():
    for _v in _variants:
        _label = _model + ("" if not _v else "-" + "-".join(str(x) for x in _v.values()))
        REWARDS[_label] = ("beta" if _model == "bounded" else "gaussian", {"reward_model": _model, **_v})

GOALS = {  # goal label -> (goal, [problem] keys, environment kind override or None, extra environment keys)
    "best-arm": ("best-arm", {}, None, None),
    "top-k": ("top-k", {"k": 2}, None, None),
    "epsilon-add": ("best-arm", {"epsilon": 0.1, "epsilon_mode": "additive"}, None, None),
    "epsilon-rel": ("best-arm", {"epsilon": 0.1, "epsilon_mode": "relative"}, None, None),
    "top-k-eps": ("top-k", {"k": 2, "epsilon": 0.1}, None, None),
    "fixed-budget": ("best-arm", {}, None, None),
    "best-feasible": ("best-feasible-arm", {}, "subpopulation-gaussian", {"weights": [0.5, 0.5]}),
    "linear": ("best-arm", {}, "linear-gaussian",
               {"features": [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]}),
    "guardrails": ("best-arm", {"metric": [{"name": "objective", "sigma": 1.0},
                                           {"name": "guarded", "sigma": 1.0, "at_most": 0.5}]}, "multi-metric", None),
    "guardrails-uv": ("best-arm", {"metric": [{"name": "objective", "sigma": 1.0},
                                              {"name": "guarded", "reward_model": "gaussian-unknown-variance",
                                               "at_most": 0.5}]}, "multi-metric", None),
    "leader-settled": ("best-arm", {}, None, None),
    "top-k-leader": ("top-k", {"k": 2}, None, None),
}
#: strategy keys of a goal label (a threshold kind asked for by name)
STRATEGY_KEYS = {"leader-settled": {"threshold": "leader-settled"}, "top-k-leader": {"threshold": "delta-correct"}}
STRATEGIES = ("top-two", "tas", "uniform", "lucb", "racing", "sequential-halving", "successive-rejects")


def definitions() -> list[tuple[str, dict, object]]:
    """(label, session document, SessionSpec) for every reward model x goal some strategy accepts."""
    out = []
    for rlabel, (kind, reward) in REWARDS.items():
        for glabel, (goal, keys, kind_override, env) in GOALS.items():
            if kind_override is not None and reward is not None and reward["reward_model"] == "bounded":
                continue  # bounded rewards on a Gaussian-only kind: the refusal is probed in the bad-input class
            if kind_override is not None and rlabel == "bernoulli":
                continue
            regime = "fixed-budget" if glabel == "fixed-budget" else "fixed-confidence"
            for strategy in STRATEGIES:
                doc = _document(f"{rlabel}-{glabel}".replace(".", "_"), goal, kind_override or kind, reward, keys,
                                strategy, regime, env)
                doc["strategy"][0].update(STRATEGY_KEYS.get(glabel, {}))
                if GOAL_FILTER and not any(word in f"{rlabel} x {glabel}" for word in GOAL_FILTER):
                    break
                try:
                    spec = parse_session_file(doc)
                except ConfigError:
                    continue
                out.append((f"{rlabel} x {glabel} ({strategy})", doc, spec))
                break
            else:
                if not GOAL_FILTER:
                    record("combination", "python", f"{rlabel} x {glabel}", "no strategy reads it (refused)", True)
    return out


#: words of --combos: only the definitions whose "reward model x goal" label holds one of them
GOAL_FILTER: list[str] = []


# ---------------------------------------------------------------- the world's answers
def support(problem) -> tuple[float, float]:
    lo, hi = problem.family.support
    return float(lo), float(hi)


def _unit(lo, hi, x):
    return lo + (hi - lo) * x if math.isfinite(lo) and math.isfinite(hi) else x


STREAMS = {  # name -> reward(arm, step, rng, lo, hi)
    "ordinary": lambda a, i, rng, lo, hi: (_unit(lo, hi, float(rng.random() < 0.3 + 0.1 * a))
                                           if math.isfinite(hi) else 0.3 * a + rng.normal()),
    "ties": lambda a, i, rng, lo, hi: (_unit(lo, hi, float(rng.random() < 0.5)) if math.isfinite(hi)
                                       else rng.normal()),
    "constant": lambda a, i, rng, lo, hi: _unit(lo, hi, (a + 1) / (ARMS + 1)),
    "equal-constant": lambda a, i, rng, lo, hi: _unit(lo, hi, 0.5),
    "top-of-range": lambda a, i, rng, lo, hi: _unit(lo, hi, 1.0),
    "two-at-top": lambda a, i, rng, lo, hi: _unit(lo, hi, 1.0 if a < 2 else float(rng.random() < 0.35)),
    "tiny-1e-300": lambda a, i, rng, lo, hi: _unit(lo, hi, 0.0) + a * 1e-300,
    "subnormal": lambda a, i, rng, lo, hi: _unit(lo, hi, 0.0) + (a + i % 2) * 5e-324,
    "huge-1e300": lambda a, i, rng, lo, hi: 1e300 * (a + 1) * (-1) ** i,
    "near-max": lambda a, i, rng, lo, hi: 1.7e308 * (-1) ** (i + a),
    "repeated-pair": lambda a, i, rng, lo, hi: _unit(lo, hi, (0.25, 0.75)[(i + a) % 2]),
}
#: streams after which a certified stop would be reading noise-free data as certainty (under every model)
NEVER_CERTIFIED = ("ties", "equal-constant", "top-of-range", "tiny-1e-300", "subnormal", "repeated-pair")
#: answers per stream: 0, 1, a few, many
SIZES = (0, 1, 6, 80)


def _tell_one(session, problem, req, stream, step, rng, lo, hi, layout_metrics):
    sources = np.asarray(req.requests).ravel()
    if layout_metrics:  # guardrail sessions: an arm per observation, {metric: values}
        rewards = {m: [STREAMS[stream](int(a), step, rng, lo, hi) for a in sources] for m in layout_metrics}
        return session.tell(req.id, sources.tolist(), rewards)
    rewards = [STREAMS[stream](int(s) % ARMS, step, rng, lo, hi) for s in sources]
    return session.tell(req.id, sources.tolist(), rewards)


def _metrics(session):
    return list(getattr(session.layout, "metrics", None) or [])


def plan(index: int, streams, sizes) -> list[tuple[str, int]]:
    """(stream, answers) of definition ``index``: the whole product with ``--full``; else every size on ordinary
    data and the degenerate streams in rotation (four at a few answers, one at many), so that each stream meets
    every reward model and goal over the definitions."""
    if FULL:
        return [(st, n) for st in streams for n in sizes if n or st == "ordinary"]
    others = [st for st in streams if st != "ordinary"]
    if not others:
        return [("ordinary", n) for n in sizes]
    few, many = sizes[len(sizes) // 2], sizes[-1]
    picked = [others[(index * 4 + j) % len(others)] for j in range(min(4, len(others)))]
    return ([("ordinary", n) for n in sizes] + [(st, few) for st in picked]
            + [(others[(index * 3 + 1) % len(others)], many)])


FULL = False


def probe_sessions(folder: Path, defs, streams, sizes, reports: int) -> list[tuple[str, Path, str]]:
    """Tell each definition each stream through Python; check status, export and report on Python and the CLI.

    Returns (label, database, session name) of some sessions for the HTTP round."""
    served = []
    n_report = 0
    for index, (label, doc, spec) in enumerate(defs):
        extra = []
        if "x linear" in label:  # a linear rule extrapolates: constant rewards certified it after 96 samples
            extra = [(st, 160) for st in ("top-of-range", "equal-constant", "two-at-top") if st in streams]
        for stream, size in plan(index, streams, sizes) + extra:
            what = f"{label} / {stream} x {size}"
            db = folder / f"s{len(RESULTS)}.db"
            try:
                session = Session.create(db, doc)
            except BaseException as exc:  # noqa: BLE001
                record("combination", "python", what, f"create: {type(exc).__name__}: {exc}", False)
                continue
            rng = np.random.default_rng(SEED)
            problem = session.problem
            lo, hi = support(problem) if hasattr(problem, "family") else (-math.inf, math.inf)
            metrics = _metrics(session)
            told = refused = 0
            broken = None
            for step in range(size):
                try:
                    req = session.ask()
                except PybaiError:
                    break  # stopped
                except BaseException as exc:  # noqa: BLE001
                    broken = f"ask: {type(exc).__name__}: {exc}"
                    break
                try:
                    _tell_one(session, problem, req, stream, step, rng, lo, hi, metrics)
                    told += 1
                except PybaiError as exc:
                    if "\n" in str(exc).strip():
                        broken = f"tell refused in several lines: {exc}"
                        break
                    refused += 1
                    if refused > 2:
                        break
                    try:
                        session.cancel(req.id)
                    except PybaiError:
                        pass
                except BaseException as exc:  # noqa: BLE001
                    broken = f"tell: {type(exc).__name__}: {exc}"
                    break
            if broken:
                record("combination", "python", what, broken, False)
                session.close()
                continue
            ok, outcome, status = python_verdict(session.status, may_work=True, expect=())
            if ok:
                # degenerate data certified: a stop that is not censored/budget, on data that cannot tell arms apart
                if (stream in NEVER_CERTIFIED and status.get("status") == "stopped"
                        and status.get("certified", True)):
                    ok, outcome = False, (f"certified {status.get('answer')} on {stream} after "
                                          f"{status.get('samples')} samples")
                else:
                    bad = [k for k, v in status.items() if isinstance(v, float) and math.isnan(v)
                           and k not in ("statistic", "threshold")]
                    outcome = f"status {status.get('status')} after {told} told, {refused} refused" + (
                        f"; NaN in {bad}" if bad else "")
            record("degenerate" if stream in NEVER_CERTIFIED or stream.startswith(("huge", "near", "tiny", "sub"))
                   else "combination", "python", what + " status", outcome, ok)
            ok, outcome, _ = python_verdict(session.observations, expect=())
            record("combination", "python", what + " export", outcome, ok)
            session.close()
            for verb, extra in (("status", ["--json"]), ("status", []), ("export", [])):
                code, out, err = cli("session", verb, "--db", db, *extra)
                ok, outcome = cli_verdict(code, err)
                if ok and code != 0:
                    ok, outcome = False, f"refused a session that accepted its answers: {outcome}"
                record("combination", "cli", what + f" {verb} {' '.join(extra)}", outcome, ok)
            if size == sizes[len(sizes) // 2]:
                cli_rounds(folder, db, what, stream, lo, hi, metrics)
            if n_report < reports and size in (1, sizes[-1]):
                n_report += 1
                code, out, err = cli("session", "report", "--db", db, "--out", folder / f"report{n_report}")
                ok, outcome = cli_verdict(code, err)
                record("combination", "cli", what + " report", outcome, ok and code == 0)
            if size == sizes[-1] or (size == 1 and stream == "ordinary"):
                served.append((what, db, doc["name"], stream, lo, hi, metrics))
    return served


def _spike(a, i, rng, lo, hi):
    """Arm 0 pays its top rarely (mean 0.05 of the range, or 0.5 on the real line), the others less: a run of equal
    rewards at first, then arm 0 is the unique best."""
    if math.isfinite(hi):
        return _unit(lo, hi, float(rng.random() < (0.05 if a == 0 else 0.02)))
    return (10.0 if rng.random() < 0.05 else 0.0) if a == 0 else 0.3 + 0.1 * rng.normal()


def probe_runs(folder: Path, defs, streams=("constant", "tiny-differences", "range-ends", "ordinary")) -> None:
    """``pybai run`` (with ``--out`` and ``--json``), ``pybai report`` and ``pybai complexity`` on a tiny experiment of
    each definition whose truth is degenerate (equal means, means 1e-300 apart, means at the ends of the range):
    each works or refuses in one line."""
    sys.path[:0] = [str(ROOT / "tests" / "combinations"), str(ROOT / "tests")]
    try:
        import _cases
    except ImportError as exc:
        record("combination", "cli", "pybai run", f"skipped: {exc}", True)
        return
    from _toml import write_toml  # tests/_toml.py

    for index, (label, doc, spec) in enumerate(defs):
        stream = streams[index % len(streams)]
        exp = {k: v for k, v in doc.items() if k != "session"}
        env = {k: v for k, v in doc["environment"].items() if k != "arms"}
        env.update(_cases.truth(spec.problem, doc["environment"]["kind"], stream))
        exp.update(environment=env, replications=2)
        if "delta" in exp["problem"]:
            exp["problem"] = {**exp["problem"], "max_samples": 300}
        path = folder / f"run{index}.toml"
        write_toml(path, exp)
        out = folder / f"run{index}"
        what = f"{label} / truth {stream}"
        code, _, err = cli("run", path, "--quiet", "--out", out, "--json", folder / f"run{index}.json")
        ok, outcome = cli_verdict(code, err)
        record("combination", "cli", f"{what} run", outcome, ok)
        if code == 0:
            code, _, err = cli("report", out, "--out", folder / f"report-run{index}")
            ok, outcome = cli_verdict(code, err)
            record("combination", "cli", f"{what} report", outcome, ok and code == 0)
        code, _, err = cli("complexity", path)
        ok, outcome = cli_verdict(code, err)
        record("combination", "cli", f"{what} complexity", outcome, ok)


def probe_spike(folder: Path, defs, runs: int = 6, answers: int = 150) -> None:
    """Repeated zeros from the best arm (a rare spike) against steady others: how often each best-arm definition
    certifies a wrong arm in ``runs`` sessions (seeds 0..runs-1).  At delta = 0.1 three wrong certificates in six
    runs has probability below 0.01 for a delta-correct rule; more is a failure."""
    for label, doc, spec in defs:
        if " x best-arm " not in label and " x epsilon-add " not in label:
            continue
        wrong = certified = 0
        error = None
        for seed in range(runs):
            db = folder / f"spike{len(RESULTS)}-{seed}.db"
            with Session.create(db, {**doc, "seed": seed}) as session:
                rng = np.random.default_rng(seed)
                lo, hi = support(session.problem)
                for step in range(answers):
                    try:
                        req = session.ask()
                    except PybaiError:
                        break
                    sources = np.asarray(req.requests).ravel()
                    try:
                        session.tell(req.id, sources.tolist(), [_spike(int(a), step, rng, lo, hi) for a in sources])
                    except PybaiError:
                        break
                    except BaseException as exc:  # noqa: BLE001
                        error = f"tell: {type(exc).__name__}: {exc}"
                        break
                status = session.status()
            if status["certified"]:
                certified += 1
                wrong += status["recommendation"] != 0
        ok = error is None and wrong < 3
        record("degenerate", "python", f"{label} / spike x {answers}, {runs} seeds",
               error or f"{certified} certified, {wrong} wrong", ok)


def cli_rounds(folder: Path, db: Path, what: str, stream: str, lo: float, hi: float, metrics: list) -> None:
    """Three more rounds through the command line (ask --csv, a CSV of the stream's values, tell), then an
    epsilon of each mode and a cancel: each works or refuses in one line."""
    import csv as csv_module

    rng = np.random.default_rng(SEED + 1)
    plate, answer = folder / "plate.csv", folder / "answer.csv"
    for step in range(3):
        code, out, err = cli("session", "ask", "--db", db, "--csv", plate)
        ok, outcome = cli_verdict(code, err)
        if not ok:
            record("combination", "cli", f"{what} ask {step}", outcome, ok)
            return
        rows = list(csv_module.DictReader(plate.open()))
        if not rows:
            break
        rid = rows[0]["request"]
        if metrics:
            lines = ["arm," + ",".join(metrics)] + [
                r["arm"] + "," + ",".join(repr(STREAMS[stream](int(r["arm"]), step, rng, lo, hi)) for _ in metrics)
                for r in rows]
        else:
            lines = ["source,reward"] + [f"{r['source']},{STREAMS[stream](int(r['source']) % ARMS, step, rng, lo, hi)!r}"
                                         for r in rows]
        if metrics and step == 0:  # a metric cell left empty: refused in one line, nothing stored
            broken = [lines[0]] + [line.rsplit(",", 1)[0] + "," for line in lines[1:]]
            answer.write_text("\n".join(broken) + "\n")
            code, out, err = cli("session", "tell", "--db", db, "--request", rid, "--csv", answer)
            ok, outcome = cli_verdict(code, err, may_work=False)
            record("bad-input", "cli", f"{what} tell with an empty metric cell", outcome, ok)
        answer.write_text("\n".join(lines) + "\n")
        code, out, err = cli("session", "tell", "--db", db, "--request", rid, "--csv", answer)
        ok, outcome = cli_verdict(code, err)
        record("degenerate" if stream not in ("ordinary", "constant") else "combination", "cli",
               f"{what} tell {step} ({lines[1][:30]})", outcome, ok)
    for mode in ("additive", "relative"):
        code, out, err = cli("session", "epsilon", "--db", db, "--epsilon", "0.05", "--mode", mode)
        ok, outcome = cli_verdict(code, err)
        record("combination", "cli", f"{what} epsilon 0.05 {mode}", outcome, ok)
    code, out, err = cli("session", "cancel", "--db", db, "--request", "1")
    ok, outcome = cli_verdict(code, err)
    record("combination", "cli", f"{what} cancel 1", outcome, ok)
    for verb, extra in (("status", ["--json"]), ("export", [])):
        code, out, err = cli("session", verb, "--db", db, *extra)
        ok, outcome = cli_verdict(code, err)
        record("combination", "cli", f"{what} {verb} after the CLI rounds", outcome, ok and code == 0)


def probe_http_sessions(folder: Path, served) -> None:
    """The HTTP routes and the dashboard's JSON routes of sessions told through Python (one server per database)."""
    for what, db, name, stream, lo, hi, metrics in served:
        server = Server(db)
        rng = np.random.default_rng(SEED + 2)
        try:
            for step in range(3):  # answers of the stream over HTTP
                code, body = server.call("POST", f"/sessions/{name}/ask", {})
                ok, outcome = http_verdict(code, body)
                if code != 200:
                    record("combination", "http", f"{what} POST ask {step}", outcome, ok)
                    break
                sources = body["sources"]
                if metrics:
                    rewards = {m: [STREAMS[stream](int(a), step, rng, lo, hi) for a in sources] for m in metrics}
                else:
                    rewards = [STREAMS[stream](int(a) % ARMS, step, rng, lo, hi) for a in sources]
                code, answer = server.call("POST", f"/sessions/{name}/tell", {"request": body["request"],
                                                                               "sources": sources, "rewards": rewards})
                ok, outcome = http_verdict(code, answer)
                record("combination", "http", f"{what} POST tell {step}", outcome, ok)
            for route in ("status", "history", "export", ""):
                url = f"/sessions/{name}" + (f"/{route}" if route else "")
                code, body = server.call("GET", url)
                ok, outcome = http_verdict(code, body)
                record("combination", "http", f"{what} GET {route or 'dashboard'}", outcome, ok and code == 200)
            code, body = server.call("GET", "/sessions")
            ok, outcome = http_verdict(code, body)
            record("combination", "http", f"{what} GET /sessions", outcome, ok and code == 200)
            # bad answers over HTTP: NaN, inf, strings, a huge integer request id
            code, body = server.call("POST", f"/sessions/{name}/ask", {})
            rid = body.get("request", 1) if isinstance(body, dict) else 1
            sources = body.get("sources", [0]) if isinstance(body, dict) else [0]
            for label, raw in (
                ("reward NaN", b'{"request": %d, "sources": %s, "rewards": [NaN]}' % (rid, json.dumps(sources[:1]).encode())),
                ("reward Infinity", b'{"request": %d, "sources": %s, "rewards": [Infinity]}' % (rid, json.dumps(sources[:1]).encode())),
                ("reward 1e999", b'{"request": %d, "sources": %s, "rewards": [1e999]}' % (rid, json.dumps(sources[:1]).encode())),
                ("reward string", b'{"request": %d, "sources": %s, "rewards": ["x"]}' % (rid, json.dumps(sources[:1]).encode())),
                ("request 2^64", b'{"request": 18446744073709551616, "sources": [0], "rewards": [0.5]}'),
                ("request -1", b'{"request": -1, "sources": [0], "rewards": [0.5]}'),
                ("request 1.5", b'{"request": 1.5, "sources": [0], "rewards": [0.5]}'),
                ("request true", b'{"request": true, "sources": [0], "rewards": [0.5]}'),
                ("sources 2^70", b'{"request": %d, "sources": [1180591620717411303424], "rewards": [0.5]}' % rid),
                ("sources nested", b'{"request": %d, "sources": [[0]], "rewards": [0.5]}' % rid),
                ("rewards null", b'{"request": %d, "sources": [0], "rewards": null}' % rid),
            ):
                code, body = server.call("POST", f"/sessions/{name}/tell", raw=raw)
                ok, outcome = http_verdict(code, body, may_work=False)
                record("bad-input", "http", f"{what} POST tell {label}", outcome, ok)
            if metrics:  # guardrail answers: a missing metric cell, an unknown metric, a short column, bad JSON
                one = json.dumps(sources[:1]).encode()
                cells = {m: [0.5] for m in metrics}
                for label, payload in (
                    ("metric cell missing", {m: v for m, v in list(cells.items())[1:]}),
                    ("metric unknown", {**cells, "nonsense": [0.5]}),
                    ("metric column short", {**cells, metrics[-1]: []}),
                    ("metric cell null", {**cells, metrics[-1]: [None]}),
                    ("metric cell NaN", None),
                ):
                    raw = (b'{"request": %d, "sources": %s, "rewards": %s}' % (rid, one, json.dumps(payload).encode())
                           if payload is not None else
                           b'{"request": %d, "sources": %s, "rewards": {"%s": [NaN]}}' % (rid, one, metrics[-1].encode()))
                    code, body = server.call("POST", f"/sessions/{name}/tell", raw=raw)
                    ok, outcome = http_verdict(code, body, may_work=False)
                    record("bad-input", "http", f"{what} POST tell {label}", outcome, ok)
            for label, raw in (("bad JSON", b'{"request": 1, "sources": [0], "rew'), ("JSON array", b"[1, 2]"),
                               ("empty body", b"")):
                code, body = server.call("POST", f"/sessions/{name}/tell", raw=raw)
                ok, outcome = http_verdict(code, body, may_work=False)
                record("bad-input", "http", f"{what} POST tell {label}", outcome, ok)
            for label, payload in (("epsilon NaN", b'{"epsilon": NaN}'), ("epsilon -1", b'{"epsilon": -1}'),
                                   ("epsilon 1e400", b'{"epsilon": 1e400}'), ("epsilon 10^401", b'{"epsilon": 1' + b"0" * 401 + b"}"),
                                   ("epsilon_mode bad", b'{"epsilon": 0.1, "epsilon_mode": "sideways"}'),
                                   ("epsilon list", b'{"epsilon": [0.1]}')):
                code, body = server.call("POST", f"/sessions/{name}/epsilon", raw=payload)
                ok, outcome = http_verdict(code, body, may_work=False)
                record("bad-input", "http", f"{what} POST epsilon {label}", outcome, ok)
        finally:
            server.stop()


# ---------------------------------------------------------------- bad input through the CLI and Python
def probe_bad_input(folder: Path) -> None:
    good = folder / "good.toml"
    good.write_text('name = "g"\nseed = 1\n[problem]\ngoal = "best-arm"\ndelta = 0.1\n[environment]\n'
                    'kind = "bernoulli"\narms = 3\n[[strategy]]\nname = "top-two"\n')
    db = folder / "bad.db"
    cli("session", "new", good, "--db", db)

    def write_exp(problem: str, env: str, extra: str = "") -> Path:
        exp = folder / f"exp{len(list(folder.glob('exp*.toml')))}.toml"
        extra += "" if "replications" in extra else "replications = 2\n"
        extra += "" if "seed" in extra else "seed = 1\n"
        exp.write_text(f'name = "e"\n{extra}\n[problem]\n{problem}\n[environment]\n{env}\n'
                       '[[strategy]]\nname = "uniform"\n')
        return exp

    gauss = 'kind = "gaussian"\nmeans = [0.5, 0.4]\nsigma = 1.0'
    cases = [
        ("run file seed 2^64", ["run", write_exp('goal = "best-arm"\ndelta = 0.1', gauss,
                                                  f"seed = {2**64}\n")], "seed"),
        ("run file seed -1", ["run", write_exp('goal = "best-arm"\ndelta = 0.1', gauss, "seed = -1\n")], "seed"),
        ("run replications 0", ["run", write_exp('goal = "best-arm"\ndelta = 0.1', gauss, "replications = 0\n")],
         "replications"),
        ("run replications 2^63", ["run", write_exp('goal = "best-arm"\ndelta = 0.1', gauss,
                                                     f"replications = {2**63}\n")], "replications"),
        ("run jobs 10^20", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 100', gauss), "--jobs", str(10**20)], "jobs"),
        ("run jobs 0", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 100', gauss), "--jobs", "0"], "jobs"),
        ("run delta nan", ["run", write_exp('goal = "best-arm"\ndelta = nan', gauss)], "delta"),
        ("run delta inf", ["run", write_exp('goal = "best-arm"\ndelta = inf', gauss)], "delta"),
        ("run delta 1", ["run", write_exp('goal = "best-arm"\ndelta = 1.0', gauss)], "delta"),
        ("run budget 2^63", ["run", write_exp('goal = "best-arm"\nbudget = 9223372036854775808', gauss)], "budget"),
        ("run budget 1e300 float", ["run", write_exp('goal = "best-arm"\nbudget = 1e300', gauss)], "budget"),
        ("run max_samples 2^62", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 4611686018427387904',
                                                   gauss)], "max_samples"),
        ("run means nan", ["run", write_exp('goal = "best-arm"\ndelta = 0.1',
                                            'kind = "gaussian"\nmeans = [nan, 0.4]\nsigma = 1.0')], "means"),
        ("run means inf", ["run", write_exp('goal = "best-arm"\ndelta = 0.1',
                                            'kind = "gaussian"\nmeans = [inf, 0.4]\nsigma = 1.0')], "means"),
        ("run means 1e300", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200',
                                              'kind = "gaussian"\nmeans = [1e300, -1e300]\nsigma = 1.0')],
         "means|sigma"),
        ("run means 1.7e308", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200',
                                                'kind = "gaussian"\nmeans = [1.7e308, -1.7e308]\nsigma = 1.0')],
         "means|sigma"),
        ("run sigma 1e-320", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200',
                                               'kind = "gaussian"\nmeans = [0.5, 0.4]\nsigma = 1e-320')], "sigma"),
        ("run sigma 1e200", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200',
                                              'kind = "gaussian"\nmeans = [0.5, 0.4]\nsigma = 1e200')], "sigma"),
        ("run means subnormal diff", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200',
                                                       'kind = "gaussian"\nmeans = [5e-324, 0.0]\nsigma = 1.0')], None),
        # every arm is within 1e300 of the best: a trivial problem, which may run
        ("run epsilon 1e300", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nmax_samples = 200\nepsilon = 1e300',
                                                gauss)], None),
        ("run epsilon nan", ["run", write_exp('goal = "best-arm"\ndelta = 0.1\nepsilon = nan', gauss)], "epsilon"),
        ("run bounded range [0, 1e308]", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nmax_samples = 200\nreward_model = "bounded"\nreward_range = [0.0, 1e308]',
            'kind = "beta"\nmeans = [0.5, 0.4]\nsd = 0.05')], "reward_range"),
        ("run bounded range [-1.7e308, 1.7e308]", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nmax_samples = 200\nreward_model = "bounded"\n'
            'reward_range = [-1.7e308, 1.7e308]', 'kind = "beta"\nmeans = [0.5, 0.4]\nsd = 0.05')], "reward_range"),
        ("run bounded range [0, 5e-324]", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nmax_samples = 200\nreward_model = "bounded"\nreward_range = [0.0, 5e-324]',
            'kind = "beta"\nmeans = [0.5, 0.4]\nsd = 0.05')], "reward_range"),
        ("run bounded range nan", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nreward_model = "bounded"\nreward_range = [nan, 1.0]',
            'kind = "beta"\nmeans = [0.5, 0.4]\nsd = 0.05')], "reward_range"),
        ("run bounded max_values 2^63", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nreward_model = "bounded"\nmax_values = 9223372036854775808',
            'kind = "beta"\nmeans = [0.5, 0.4]\nsd = 0.05')], "max_values"),
        ("run bounded on linear", ["run", write_exp(
            'goal = "best-arm"\ndelta = 0.1\nreward_model = "bounded"',
            'kind = "linear-gaussian"\nfeatures = [[1.0, 0.0], [0.0, 1.0]]\ntheta = [1.0, 0.5]')], None),
        ("run top-k k 2^63", ["run", write_exp('goal = "top-k"\ndelta = 0.1\nk = 9223372036854775808', gauss)], "k"),
        ("run top-k k = arms", ["run", write_exp('goal = "top-k"\ndelta = 0.1\nk = 2', gauss)], "k"),
        ("complexity means nan", ["complexity", write_exp('goal = "best-arm"\ndelta = 0.1',
                                                          'kind = "gaussian"\nmeans = [nan, 0.4]\nsigma = 1.0')], "means"),
        ("complexity means 1e300", ["complexity", write_exp('goal = "best-arm"\ndelta = 0.1',
                                                            'kind = "gaussian"\nmeans = [1e300, -1e300]\nsigma = 1.0')],
         None),
        ("complexity equal means", ["complexity", write_exp('goal = "best-arm"\ndelta = 0.1',
                                                            'kind = "gaussian"\nmeans = [0.5, 0.5]\nsigma = 1.0')],
         None),
        ("complexity subnormal gap", ["complexity", write_exp('goal = "best-arm"\ndelta = 0.1',
                                                              'kind = "gaussian"\nmeans = [5e-324, 0.0]\nsigma = 1.0')],
         None),
        ("session new seed 2^64", ["session", "new", good, "--db", folder / "n1.db", "--seed", str(2**64)], "seed"),
        ("session tell request 2^64", ["session", "tell", "--db", db, "--request", str(2**64), "--csv", good],
         "request"),
        ("session tell request 10^400", ["session", "tell", "--db", db, "--request", "1" + "0" * 400, "--csv", good],
         "request"),
        ("session tell csv missing", ["session", "tell", "--db", db, "--request", "1", "--csv", folder / "nope.csv"],
         "csv"),
        ("session epsilon nan", ["session", "epsilon", "--db", db, "--epsilon", "nan"], "epsilon"),
        ("session epsilon 1e400", ["session", "epsilon", "--db", db, "--epsilon", "1e400"], "epsilon"),
        ("session status db dir", ["session", "status", "--db", folder], "db"),
        ("session status db missing", ["session", "status", "--db", folder / "missing.db"], None),
        ("session status postgres bad port", ["session", "status", "--db", "postgresql://u:secret@127.0.0.1:99999/x"],
         None),
        ("session status postgres port text", ["session", "status", "--db", "postgresql://u:secret@127.0.0.1:abc/x"],
         None),
        ("session status session missing", ["session", "status", "--db", db, "--session", "nope"], "nope"),
    ]
    # commands that would run for long (or for ever) if they accepted the value: a process with a time limit
    for what, argv, name in (("validate seed 2^64", ["validate", "--seed", str(2**64)], "seed"),
                             ("validate seed -1", ["validate", "--seed", "-1"], "seed"),
                             ("serve port 70000", ["serve", "--db", db, "--port", "70000"], "port"),
                             ("serve port -1", ["serve", "--db", db, "--port", "-1"], "port"),
                             ("serve host bad", ["serve", "--db", db, "--host", "no such host.invalid"], "host"),
                             ("serve db garbage", ["serve", "--db", good], None)):
        try:
            done = subprocess.run([sys.executable, "-m", "pybai", *map(str, argv)], capture_output=True, text=True,
                                  timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            ok, outcome = cli_verdict(done.returncode, done.stderr, may_work=False, must_name=name)
        except subprocess.TimeoutExpired:
            ok, outcome = False, "still running after 60 s (accepted)"
        record("bad-input", "cli", what, outcome, ok)
    for what, argv, name in cases:
        code, out, err = cli(*argv)
        may_work = name is None
        ok, outcome = cli_verdict(code, err, may_work=may_work, must_name=name)
        if "secret" in err or "secret" in out:
            ok, outcome = False, "prints the password: " + outcome
        record("bad-input", "cli", what, outcome, ok)

    # tells with bad answers: CSV files with NaN, inf, 1e999, blank, huge source numbers
    code, out, err = cli("session", "ask", "--db", db)
    for label, text in (("NaN", "source,reward\n0,nan\n"), ("inf", "source,reward\n0,inf\n"),
                        ("1e999", "source,reward\n0,1e999\n"), ("blank", "source,reward\n0,\n"),
                        ("0.5 bernoulli", "source,reward\n0,0.5\n"), ("source 2^64", "source,reward\n18446744073709551616,1\n"),
                        ("source -2^63", "source,reward\n-9223372036854775808,1\n"),
                        ("source 1e3", "source,reward\n1e3,1\n"), ("no header", "0,1\n"),
                        ("binary", "\x00\xff\xfe"), ("empty", "")):
        path = folder / "answer.csv"
        path.write_text(text, errors="surrogateescape") if label != "binary" else path.write_bytes(b"\x00\xff\xfe\x80")
        code, out, err = cli("session", "tell", "--db", db, "--request", "1", "--csv", path)
        ok, outcome = cli_verdict(code, err, may_work=False)
        record("bad-input", "cli", f"session tell csv {label}", outcome, ok)

    # the same through Python
    with Session.open(db) as s:
        from pybai.exceptions import InvalidParameterError

        req = s.ask()
        for label, args in (("reward nan", (req.id, [int(req.requests[0])], [math.nan])),
                            ("reward inf", (req.id, [int(req.requests[0])], [math.inf])),
                            ("reward string", (req.id, [int(req.requests[0])], ["x"])),
                            ("reward None", (req.id, [int(req.requests[0])], [None])),
                            ("request 2^64", (2**64, [0], [1.0])), ("request 1.5", (1.5, [0], [1.0])),
                            ("request True", (True, [0], [1.0])), ("request numpy uint64 2^63", (np.uint64(2**63), [0], [1.0])),
                            ("source 2^70", (req.id, [2**70], [1.0])), ("source -1", (req.id, [-1], [1.0])),
                            ("source 1.5", (req.id, [1.5], [1.0])), ("lengths differ", (req.id, [0, 1], [1.0])),
                            ("source numpy float nan", (req.id, [np.float64("nan")], [1.0]))):
            ok, outcome, _ = python_verdict(lambda: s.tell(*args), may_work=False)
            record("bad-input", "python", f"Session.tell {label}", outcome, ok)
        for label, args in (("epsilon nan", (math.nan,)), ("epsilon -1", (-1.0,)), ("epsilon 10**400", (10**400,)),
                            ("epsilon inf", (math.inf,)), ("epsilon string", ("0.1",)),
                            ("epsilon_mode bad", (0.1, "sideways"))):
            ok, outcome, _ = python_verdict(lambda: s.set_epsilon(*args), may_work=False, expect=InvalidParameterError)
            record("bad-input", "python", f"Session.set_epsilon {label}", outcome, ok)
        for label, level in (("level nan", math.nan), ("level 2", 2.0), ("level 0", 0.0), ("level string", "x")):
            ok, outcome, _ = python_verdict(lambda: s.status(level), may_work=False, expect=InvalidParameterError)
            record("bad-input", "python", f"Session.status {label}", outcome, ok)
    for label, kwargs in (("seed 2^64", {"seed": 2**64}), ("seed -1", {"seed": -1}), ("seed 1.5", {"seed": 1.5}),
                          ("seed numpy int64", {"seed": np.int64(3)}), ("name ..", {"name": ".."}),
                          ("name a/b", {"name": "a/b"}), ("name empty", {"name": ""})):
        path = folder / f"py-{len(RESULTS)}.db"
        may = label == "seed numpy int64"
        ok, outcome, got = python_verdict(lambda: Session.create(path, str(good), **kwargs), may_work=may,
                                          expect=PybaiError)
        if got is not None:
            got.close()
        record("bad-input", "python", f"Session.create {label}", outcome, ok)


# ---------------------------------------------------------------- outputs
def probe_outputs(folder: Path) -> None:
    good = folder / "out-good.toml"
    good.write_text('name = "o"\nseed = 1\n[problem]\ngoal = "best-arm"\ndelta = 0.1\n[environment]\n'
                    'kind = "bernoulli"\narms = 3\n[[strategy]]\nname = "top-two"\n')
    db = folder / "out.db"
    cli("session", "new", good, "--db", db)
    ro = folder / "readonly"
    ro.mkdir()
    a_file = folder / "a-file"
    a_file.write_text("keep me\n")
    existing = folder / "existing.json"
    target = folder / "target.txt"
    target.write_text("target\n")
    link = folder / "link.json"
    os.symlink(target, link)
    fifo_ok = hasattr(os, "mkfifo")
    tiny = folder / "tiny-run.toml"
    tiny.write_text('name = "tiny"\nreplications = 2\nseed = 1\n[problem]\ngoal = "best-arm"\ndelta = 0.1\n'
                    'max_samples = 200\n[environment]\nkind = "gaussian"\nmeans = [1.0, 0.0]\nsigma = 1.0\n'
                    '[[strategy]]\nname = "uniform"\n')
    commands = {
        "run --json": lambda p: ["run", tiny, "--quiet", "--json", p],
        "complexity --json": lambda p: ["complexity", "bai-gaussian-5", "--json", p],
        "session ask --csv": lambda p: ["session", "ask", "--db", db, "--csv", p],
        "session export --csv": lambda p: ["session", "export", "--db", db, "--csv", p],
        "session report --out": lambda p: ["session", "report", "--db", db, "--out", p],
    }
    os.chmod(ro, 0o555)
    root = os.geteuid() == 0
    try:
        for cmd, argv in commands.items():
            for label, path, must_fail in (("a directory", folder, cmd != "session report --out"),
                                           ("inside a read-only folder", ro / "x.out", not root),
                                           ("through a file", a_file / "x.out", True)):
                if cmd == "session report --out" and label == "a directory":
                    path = folder / "report-dir"
                code, out, err = cli(*argv(path))
                ok, outcome = cli_verdict(code, err, may_work=not must_fail)
                if a_file.read_text() != "keep me\n":
                    ok, outcome = False, "replaced the file in the way"
                if list(ro.iterdir()) and not root:
                    ok, outcome = False, f"left {[p.name for p in ro.iterdir()]} in the read-only folder"
                record("output", "cli", f"{cmd} {label}", outcome, ok)
            if cmd == "session report --out":
                continue
            existing.write_text("old\n")
            code, out, err = cli(*argv(existing))
            ok, outcome = cli_verdict(code, err)
            text = existing.read_text()
            if code == 0 and (text == "old\n" or not text.strip()):
                ok, outcome = False, "exit 0 but the file was not written"
            leftovers = [p.name for p in folder.iterdir() if p.name.startswith(("existing.json.", ".existing"))]
            if leftovers:
                ok, outcome = False, f"left temporary files {leftovers}"
            record("output", "cli", f"{cmd} onto an existing file", outcome, ok)
            target.write_text("target\n")
            code, out, err = cli(*argv(link))
            ok, outcome = cli_verdict(code, err)
            if not link.is_symlink():
                ok, outcome = False, "replaced the symbolic link by a regular file"
            record("output", "cli", f"{cmd} onto a symlink", outcome, ok)
            if fifo_ok:
                fifo = folder / f"fifo-{cmd.replace(' ', '_').replace('-', '')}"
                os.mkfifo(fifo)
                # a reader, so that writing into the FIFO does not block
                reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.DEVNULL)
                code, out, err = cli(*argv(fifo))
                ok, outcome = cli_verdict(code, err)
                if code != 0:
                    with contextlib.suppress(OSError):  # unblock the reader
                        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                        os.close(fd)
                try:
                    reader.wait(10)
                except subprocess.TimeoutExpired:
                    reader.kill()
                    ok, outcome = False, "the FIFO's reader never saw an end"
                import stat

                if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
                    ok, outcome = False, "replaced the FIFO by a regular file"
                record("output", "cli", f"{cmd} onto a FIFO", outcome, ok)
    finally:
        os.chmod(ro, 0o755)


# ---------------------------------------------------------------- storage faults (SQLite)
def probe_storage(folder: Path) -> None:
    good = folder / "st-good.toml"
    good.write_text('name = "st"\nseed = 1\n[problem]\ngoal = "best-arm"\ndelta = 0.1\n[environment]\n'
                    'kind = "gaussian"\narms = 3\nsigma = 1.0\n[[strategy]]\nname = "top-two"\n')

    def fresh(tag):
        db = folder / f"st-{tag}.db"
        s = Session.create(db, str(good))
        for i in range(5):
            r = s.ask()
            s.tell(r.id, r.requests.tolist(), [0.1 * i] * len(r.requests))
        return db, s

    # the file deleted under an open session
    db, s = fresh("deleted")
    db.unlink()
    for wal in folder.glob("st-deleted.db-*"):
        wal.unlink()
    for verb, fn in (("ask", s.ask), ("status", s.status)):
        ok, outcome, _ = python_verdict(fn, may_work=False)  # an unlinked file: what is told there is lost
        record("storage", "python", f"SQLite file deleted, then {verb}", outcome, ok)
    with contextlib.suppress(Exception):
        s.close()
    code, out, err = cli("session", "status", "--db", db)
    ok, outcome = cli_verdict(code, err)
    record("storage", "cli", "SQLite file deleted, then status", outcome, ok)

    # read-only file and folder
    db, s = fresh("readonly")
    s.close()
    sub = folder / "ro-db"
    sub.mkdir()
    shutil.copy(db, sub / "st.db")
    os.chmod(sub / "st.db", 0o444)
    os.chmod(sub, 0o555)
    try:
        for verb, argv in (("status", ["session", "status", "--db", sub / "st.db"]),
                           ("export", ["session", "export", "--db", sub / "st.db"]),
                           ("ask", ["session", "ask", "--db", sub / "st.db"]),
                           ("tell", ["session", "tell", "--db", sub / "st.db", "--request", "6", "--csv", good])):
            code, out, err = cli(*argv)
            ok, outcome = cli_verdict(code, err)
            record("storage", "cli", f"read-only SQLite file, {verb}", outcome, ok)
        with Session.open(sub / "st.db") as ro:
            before = ro.status()["samples"]
            r = None
            ok, outcome, r = python_verdict(ro.ask)
            record("storage", "python", "read-only SQLite file, ask", outcome, ok)
            if r is not None:
                ok, outcome, _ = python_verdict(lambda: ro.tell(r.id, r.requests.tolist(), [0.0] * len(r.requests)))
                record("storage", "python", "read-only SQLite file, tell", outcome, ok)
            ok, outcome, st = python_verdict(ro.status)
            if ok and st["samples"] != before and os.geteuid() != 0:  # root writes read-only files
                ok, outcome = False, "samples changed on a read-only file"
            record("storage", "python", "read-only SQLite file, status after", outcome, ok)
        server = Server(sub / "st.db")
        try:
            for method, route, body in (("GET", "/sessions/st/status", None), ("POST", "/sessions/st/ask", {}),
                                        ("POST", "/sessions/st/tell", {"request": 99, "sources": [0], "rewards": [0.0]}),
                                        ("POST", "/sessions/st/epsilon", {"epsilon": 0.1})):
                code, body = server.call(method, route, body)
                ok, outcome = http_verdict(code, body, unavailable=True)
                record("storage", "http", f"read-only SQLite file, {method} {route.rsplit('/', 1)[-1]}", outcome, ok)
        finally:
            server.stop()
    finally:
        os.chmod(sub, 0o755)
        os.chmod(sub / "st.db", 0o644)

    # locked: another connection holds an exclusive transaction
    db, s = fresh("locked")
    lock = sqlite3.connect(db, timeout=0.1, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        t0 = time.monotonic()
        for verb, fn in (("ask", s.ask),):
            ok, outcome, _ = python_verdict(fn)
            record("storage", "python", f"SQLite file locked, {verb}", outcome + f" ({time.monotonic() - t0:.1f} s)", ok)
        code, out, err = cli("session", "status", "--db", db)
        ok, outcome = cli_verdict(code, err)
        record("storage", "cli", "SQLite file locked, status", outcome, ok)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    ok, outcome, r = python_verdict(s.ask)
    record("storage", "python", "SQLite lock released, ask", outcome, ok and r is not None)
    if r is not None:
        ok, outcome, _ = python_verdict(lambda: s.tell(r.id, r.requests.tolist(), [0.0] * len(r.requests)))
        record("storage", "python", "SQLite lock released, tell", outcome, ok)
    s.close()

    # a damaged file: truncated, garbage
    for label, mutate in (("truncated", lambda p: p.write_bytes(p.read_bytes()[:1000])),
                          ("garbage", lambda p: p.write_bytes(b"not a database" * 100)),
                          ("empty", lambda p: p.write_bytes(b""))):
        db, s = fresh(label)
        s.close()
        mutate(db)
        for verb in ("status", "export", "ask"):
            code, out, err = cli("session", verb, "--db", db)
            ok, outcome = cli_verdict(code, err, may_work=label == "empty" and False)
            record("storage", "cli", f"SQLite file {label}, {verb}", outcome, ok)
        ok, outcome, _ = python_verdict(lambda: Session.open(db), may_work=False)
        record("storage", "python", f"SQLite file {label}, Session.open", outcome, ok)


def probe_postgres(folder: Path) -> None:
    """A real PostgreSQL server (tests/session/_postgres.py) restarted under an open session, a served one and the
    command line; then stopped: every call works once it is back, or refuses in one line (HTTP 503) meanwhile."""
    sys.path.insert(0, str(ROOT / "tests" / "session"))
    try:
        import _postgres
    except ImportError as exc:
        record("storage", "python", "PostgreSQL", f"skipped: {exc}", True)
        return
    binaries = _postgres.server_binaries()
    if binaries is None:
        record("storage", "python", "PostgreSQL", "skipped: no initdb/pg_ctl", True)
        return
    try:
        pg = _postgres.Server(binaries).start()
    except Exception as exc:  # noqa: BLE001
        record("storage", "python", "PostgreSQL", f"skipped: the server does not start ({exc})", True)
        return
    doc = {"name": "pg", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.01},
           "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0}, "strategy": [{"name": "top-two"}],
           "session": {"max_pending": 3}}
    server = None
    try:
        session = Session.create(pg.url, doc)
        rng = np.random.default_rng(SEED)
        told = 0

        def rounds(n, label):
            nonlocal told
            for _ in range(n):
                ok, outcome, req = python_verdict(session.ask)
                if req is None:
                    record("storage", "python", f"{label}: ask", outcome, ok)
                    return
                ok, outcome, _ = python_verdict(lambda: session.tell(req.id, req.requests.tolist(),
                                                                     rng.normal(size=len(req.requests)).tolist()))
                if not ok or outcome != "worked":
                    record("storage", "python", f"{label}: tell", outcome, ok)
                    return
                told += len(req.requests)
            record("storage", "python", f"{label}: {n} rounds", "worked", True)

        rounds(5, "PostgreSQL before a restart")
        server = Server(pg.url)
        for mode in ("fast", "immediate"):
            pg.restart(mode)
            rounds(5, f"PostgreSQL after a {mode} restart (open session)")
            for method, route, body in (("GET", "/sessions/pg/status", None), ("POST", "/sessions/pg/ask", {}),
                                        ("GET", "/sessions/pg/export", None)):
                code, answer = server.call(method, route, body)
                ok, outcome = http_verdict(code, answer, unavailable=False)
                record("storage", "http", f"PostgreSQL after a {mode} restart, {method} {route.rsplit('/', 1)[-1]}",
                       outcome, ok)
            code, out, err = cli("session", "status", "--db", pg.url)
            ok, outcome = cli_verdict(code, err)
            record("storage", "cli", f"PostgreSQL after a {mode} restart, status", outcome, ok and code == 0)
        ok, outcome, status = python_verdict(session.status)
        if ok and status["samples"] != told:
            ok, outcome = False, f"{told} samples acknowledged, {status['samples']} stored"
        record("storage", "python", "PostgreSQL: nothing acknowledged lost or doubled", outcome, ok)
        pg._run(str(pg.bin / "pg_ctl"), "-D", str(pg.data), "-m", "fast", "-w", "stop")  # down for good
        t0 = time.monotonic()
        ok, outcome, _ = python_verdict(session.ask, may_work=False)
        record("storage", "python", "PostgreSQL down: ask", outcome + f" ({time.monotonic() - t0:.0f} s)", ok)
        code, answer = server.call("GET", "/sessions/pg/status")
        ok, outcome = http_verdict(code, answer, may_work=False, unavailable=True)
        record("storage", "http", "PostgreSQL down: GET status", outcome, ok)
        code, out, err = cli("session", "status", "--db", pg.url.replace("pybai@", "pybai:hunter2@"))
        ok, outcome = cli_verdict(code, err, may_work=False)
        if "hunter2" in err + out:
            ok, outcome = False, "prints the password: " + outcome
        record("storage", "cli", "PostgreSQL down: status (URL with a password)", outcome, ok)
        with contextlib.suppress(Exception):
            session.close()
    finally:
        if server is not None:
            server.stop()
        pg.stop()


def summary() -> int:
    classes: dict[str, list[int]] = {}
    for klass, _, _, _, ok in RESULTS:
        c = classes.setdefault(klass, [0, 0])
        c[0] += 1
        c[1] += not ok
    print()
    for klass, (n, bad) in sorted(classes.items()):
        print(f"{klass:<12} {n:5d} cases, {bad:4d} failed")
    total = sum(c[0] for c in classes.values())
    failed = sum(c[1] for c in classes.values())
    print(f"{'total':<12} {total:5d} cases, {failed:4d} failed")
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer streams and sizes")
    parser.add_argument("--full", action="store_true", help="every stream at every size for every definition "
                        "(about four times longer)")
    parser.add_argument("--only", help="run only the classes whose name contains this word "
                        "(combination, bad-input, output, storage, http)")
    parser.add_argument("--combos", nargs="*", default=[], help="only the reward model x goal definitions whose "
                        "label holds one of these words (e.g. guardrails-uv leader-settled)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    global FULL
    FULL = args.full
    GOAL_FILTER[:] = args.combos
    start = time.monotonic()
    streams = list(STREAMS) if not args.quick else ["ordinary", "constant", "top-of-range", "tiny-1e-300"]
    sizes = SIZES if not args.quick else (0, 1, 30)
    only = args.only or ""
    with tempfile.TemporaryDirectory(prefix="pybai-probe-") as tmp:
        folder = Path(tmp)
        if only in ("", "bad-input"):
            probe_bad_input(folder)
        if only in ("", "output"):
            probe_outputs(folder)
        if only in ("", "storage"):
            probe_storage(folder)
        if only in ("", "storage", "postgres"):
            probe_postgres(folder)
        if only in ("", "combination", "http"):
            defs = definitions()
            served = probe_sessions(folder, defs, streams, sizes, reports=4 if not args.quick else 2)
            probe_spike(folder, defs, runs=6 if not args.quick else 3)
            probe_runs(folder, defs)
            if only in ("", "http"):
                picked = served[:: max(1, len(served) // 8)]
                labels = {x[0].split(" / ")[0] for x in picked}
                for x in served:  # and one session of each guardrail and leader-settled definition
                    label = x[0].split(" / ")[0]
                    if label not in labels and (x[6] or "leader-settled" in label):
                        labels.add(label)
                        picked.append(x)
                probe_http_sessions(folder, picked)
    print(f"\n{len(RESULTS)} cases in {time.monotonic() - start:.0f} s")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
