"""The three ways a user drives a session, behind one interface: Python, the command line, HTTP.

Every call returns what it gave or a :class:`Refused` holding the one line the user saw; anything
else (a traceback, a message of several lines, an HTTP 500, an exception that is no
:class:`~pybai.exceptions.PybaiError`) fails the test at once, naming the call.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybai.cli import main
from pybai.exceptions import PybaiError
from pybai.session import Session

from _toml import write_toml  # tests/_toml.py


@dataclass
class Refused:
    message: str


def one_line(message: str, what: str) -> Refused:
    assert message and "\n" not in message.strip(), f"{what}: refused in more than one line: {message!r}"
    assert "Traceback" not in message, f"{what}: a traceback: {message!r}"
    return Refused(message.strip())


class PythonSurface:
    """The ``Session`` API."""

    name = "python"

    def __init__(self, folder: Path):
        self.db = folder / "python.db"
        self.folder = folder
        self.session: Session | None = None

    def _call(self, what, fn, *args):
        try:
            return fn(*args)
        except PybaiError as exc:
            return one_line(str(exc), what)

    def new(self, doc):
        made = self._call("Session.create", Session.create, self.db, doc)
        if not isinstance(made, Refused):
            self.session = made
        return made

    def ask(self):
        got = self._call("ask", self.session.ask)
        return got if isinstance(got, Refused) else (int(got.id), np.asarray(got.requests))

    def tell(self, rid, sources, rewards):
        return self._call("tell", self.session.tell, rid, list(map(int, sources)), list(map(float, rewards)))

    def status(self):
        return self._call("status", self.session.status)

    def export(self):
        return self._call("observations", self.session.observations)

    def report(self):
        from pybai.session.report import write_session_report

        return self._call("report", write_session_report, self.session, self.folder / "report")

    def epsilon(self, value, mode):
        return self._call("set_epsilon", self.session.set_epsilon, value, mode)

    def reopen(self):
        self.session.close()
        self.session = self._call("Session.open", Session.open, self.db)
        return self.session

    def close(self):
        if isinstance(self.session, Session):
            self.session.close()


class CliSurface:
    """``pybai session ...`` through the command's main function (in-process)."""

    name = "cli"

    def __init__(self, folder: Path):
        self.db = folder / "cli.db"
        self.folder = folder

    def run(self, *argv) -> str | Refused:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("always")
            code = main([str(a) for a in argv])
        text = err.getvalue()
        what = "pybai " + " ".join(str(a) for a in argv[:2])
        assert "Traceback" not in text, f"{what}: a traceback: {text}"
        assert all(line.startswith("pybai: ") for line in text.splitlines()), f"{what}: stderr {text!r}"
        if code == 0:
            return out.getvalue()
        assert code == 2, f"{what}: exit status {code}: {text!r}"
        errors = [line for line in text.splitlines() if line.startswith("pybai: error: ")]
        assert len(errors) == 1, f"{what}: expected one error line, got {text!r}"
        return one_line(errors[0], what)

    def new(self, doc):
        path = self.folder / "session.toml"
        write_toml(path, doc)
        return self.run("session", "new", path, "--db", self.db)

    def ask(self):
        path = self.folder / "request.csv"
        got = self.run("session", "ask", "--db", self.db, "--csv", path)
        if isinstance(got, Refused):
            return got
        rows = list(csv.DictReader(path.open()))
        if not rows:  # a stopped session: exit status 0, a header only, and the stop explained on stdout
            assert "stopped" in got, got
            return Refused(got.strip().splitlines()[0])
        requests = [int(r["source"]) if r.get("source") not in (None, "") else int(r["arm"]) for r in rows]
        return int(rows[0]["request"]), np.array(requests, dtype=np.int64)

    def tell(self, rid, sources, rewards):
        path = self.folder / "answer.csv"
        path.write_text("source,reward\n" + "".join(f"{int(s)},{float(r)!r}\n" for s, r in zip(sources, rewards)))
        return self.run("session", "tell", "--db", self.db, "--request", rid, "--csv", path)

    def status(self):
        got = self.run("session", "status", "--db", self.db, "--json")
        self.run("session", "status", "--db", self.db)  # the terminal form too
        return got if isinstance(got, Refused) else json.loads(got)

    def export(self):
        path = self.folder / "export.csv"
        got = self.run("session", "export", "--db", self.db, "--csv", path)
        return got if isinstance(got, Refused) else list(csv.DictReader(path.open()))

    def report(self):
        return self.run("session", "report", "--db", self.db, "--out", self.folder / "report")

    def epsilon(self, value, mode):
        return self.run("session", "epsilon", "--db", self.db, "--epsilon", value, "--mode", mode)

    def reopen(self):
        return self.status()

    def close(self):
        pass


class HttpSurface:
    """``pybai serve``'s Starlette application through its test client (session files made by the CLI)."""

    name = "http"

    def __init__(self, folder: Path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # newer Starlette prefers httpx2; httpx works
            from starlette.testclient import TestClient
        from pybai.server import create_app

        self.folder = folder
        self.cli = CliSurface(folder)
        self.db = self.cli.db
        self._client_class, self._create_app = TestClient, create_app
        self.client = None
        self.name_ = None

    def _answer(self, response, what):
        assert response.status_code != 500 and response.status_code < 600, f"{what}: HTTP {response.status_code}"
        if response.status_code == 200:
            return response.json() if response.headers.get("content-type", "").startswith("application/json") \
                else response.text
        body = response.json()
        return one_line(body["error"], f"{what} (HTTP {response.status_code})")

    def new(self, doc):
        made = self.cli.new(doc)  # sessions are created with the command line; served afterwards
        if not isinstance(made, Refused):
            self.name_ = doc["name"]
            self.client = self._client_class(self._create_app(str(self.db)))
            self.client.__enter__()
        return made

    def _url(self, route):
        return f"/sessions/{self.name_}/{route}"

    def ask(self):
        got = self._answer(self.client.post(self._url("ask")), "POST ask")
        if isinstance(got, Refused):
            return got
        return int(got["request"]), np.asarray(got["sources"], dtype=np.int64)

    def tell(self, rid, sources, rewards):
        body = {"request": rid, "sources": [int(s) for s in sources], "rewards": [float(r) for r in rewards]}
        return self._answer(self.client.post(self._url("tell"), content=json.dumps(body),
                                             headers={"content-type": "application/json"}), "POST tell")

    def status(self):
        got = self._answer(self.client.get(self._url("status")), "GET status")
        self._answer(self.client.get(self._url("history")), "GET history")  # the dashboard's other data route
        self._answer(self.client.get(f"/sessions/{self.name_}"), "GET dashboard")
        return got

    def export(self):
        got = self._answer(self.client.get(self._url("export")), "GET export")
        return got if isinstance(got, Refused) else list(csv.DictReader(io.StringIO(got)))

    def report(self):
        return self.cli.report()

    def epsilon(self, value, mode):
        return self._answer(self.client.post(self._url("epsilon"), json={"epsilon": value, "epsilon_mode": mode}),
                            "POST epsilon")

    def reopen(self):
        self.close()
        self.client = self._client_class(self._create_app(str(self.db)))
        self.client.__enter__()
        return self.status()

    def close(self):
        if self.client is not None:
            self.client.__exit__(None, None, None)
            self.client = None


SURFACE_CLASSES = {cls.name: cls for cls in (PythonSurface, CliSurface, HttpSurface)}
