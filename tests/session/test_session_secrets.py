"""A password in a database URL is never shown: every command's output, hint, error and the server's answers.

The test server trusts every connection, so a URL with any password connects: each command is run
with ``postgresql://pybai:PASSWORD@...`` and nothing it prints (standard output, standard error,
HTTP bodies, the dashboard) holds the password.  Also a PostgreSQL URL with a bad port is one line.
"""

from __future__ import annotations

import pytest

from pybai._secrets import mask_credentials
from pybai.cli import main

SECRET = "Sw0rdfish-42"
SESSION = """name = "vault"
seed = 1
[problem]
goal = "best-arm"
delta = 0.1
[environment]
kind = "bernoulli"
arms = 2
[[strategy]]
name = "uniform"
"""


def _run(argv, capsys) -> tuple[int, str]:
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("text, shown", [
    ("postgresql://ann:pw@db:5432/lab", "postgresql://ann:***@db:5432/lab"),
    ("x postgres://ann:p@ss/w@rd@db/lab y", "x postgres://ann:***@db/lab y"),
    ("postgresql+psycopg://a:b@h/d?sslmode=require", "postgresql+psycopg://a:***@h/d?sslmode=require"),
    ("postgresql://a@h/d?password=b&x=1", "postgresql://a@h/d?password=***&x=1"),
    ("host=h password=b dbname=d", "host=h password=*** dbname=d"),
    ("http://127.0.0.1:8000/sessions/x", "http://127.0.0.1:8000/sessions/x"),
    ("postgresql://a:***@h/d", "postgresql://a:***@h/d"),
])
def test_mask_credentials(text, shown):
    assert mask_credentials(text) == shown


def test_no_command_shows_the_password(postgres_server, tmp_path, capsys):
    url = postgres_server.new_database("secrets").replace("postgresql://pybai@", f"postgresql://pybai:{SECRET}@")
    file = tmp_path / "vault.toml"
    file.write_text(SESSION)
    outputs = []
    for argv in (["session", "new", file, "--db", url],
                 ["session", "new", file, "--db", url],  # refused: the name is taken
                 ["session", "ask", "--db", url, "--csv", tmp_path / "r.csv"],
                 ["session", "status", "--db", url], ["session", "status", "--db", url, "--json"],
                 ["session", "status", "--db", url, "--session", "nope"],
                 ["session", "tell", "--db", url, "--request", "9", "--csv", tmp_path / "r.csv"],
                 ["session", "export", "--db", url],
                 ["session", "status", "--db", url.replace(f":{postgres_server.port}/", ":1/")],
                 ["session", "status", "--db", url.replace(f":{postgres_server.port}/", ":99999/")],
                 ["session", "status", "--db", url + "?port=abc"]):
        code, text = _run(argv, capsys)
        assert code in (0, 2), (argv, text)
        outputs.append(text)
        assert SECRET not in text, (argv, text)
    assert "next: pybai session ask --db postgresql://pybai:***@" in outputs[0]
    assert all(len(t.strip().splitlines()) == 1 for t in outputs[-3:]), outputs[-3:]


def test_the_server_never_shows_the_password(postgres_server, monkeypatch):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from pybai.server import create_app

    url = postgres_server.new_database("secrets_http").replace("postgresql://pybai@", f"postgresql://pybai:{SECRET}@")
    with TestClient(create_app(url)) as client:
        for response in (client.get("/"), client.get("/sessions"), client.get("/sessions/nope/status"),
                         client.post("/sessions/nope/ask"), client.get("/sessions/nope")):
            assert SECRET not in response.text, response.text
