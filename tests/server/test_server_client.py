"""The standard-library client of docs/sessions.md against a live server (uvicorn in a thread)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from _serve_sessions import LiveServer, folder, sessions  # noqa: F401 (fixtures)

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_the_docs_show_the_client_file():
    docs = (EXAMPLES.parent / "sessions.md").read_text(encoding="utf-8")
    shown = re.search(r"```python\n(import json\nimport urllib.error.*?)```", docs, re.S).group(1)
    code = (EXAMPLES / "serve_client.py").read_text(encoding="utf-8").split('"""', 2)[2].lstrip()
    assert shown == code


def test_the_docs_client_asks_tells_and_reads(sessions, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    sys.modules.pop("serve_client", None)
    from serve_client import SessionClient

    with LiveServer(sessions, token="team-secret") as server:
        client = SessionClient(server.url, "checkout", token="team-secret")
        asked = client.ask()
        receipt = client.tell(asked["request"], asked["sources"], [1.0])
        assert receipt["samples"] == 1 and client.status()["samples"] == 1
        with pytest.raises(RuntimeError, match=r"^HTTP 409: request 1 was already answered"):
            client.tell(asked["request"], asked["sources"], [1.0])
        with pytest.raises(RuntimeError, match=r"^HTTP 403: wrong token"):
            SessionClient(server.url, "checkout", token="guess").ask()
        with pytest.raises(RuntimeError, match=r"^HTTP 404: no session named 'other'"):
            SessionClient(server.url, "other").status()
