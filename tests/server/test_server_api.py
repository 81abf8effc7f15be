"""``pybai serve``'s HTTP API through Starlette's TestClient: every route and every error code."""

from __future__ import annotations

import json

import pytest

from _serve_sessions import client_for, folder, make_ab, sessions  # noqa: F401 (fixtures)
from pybai import Bernoulli, BestArmProblem, FixedConfidence, Gaussian, make_strategy
from pybai.cli import main
from pybai.session import Session


def told(client, name="checkout", reward=1.0):
    """Ask and answer one request of ``name``; the receipt."""
    asked = client.post(f"/sessions/{name}/ask")
    assert asked.status_code == 200, asked.text
    body = asked.json()
    rewards = [reward] * body["size"]
    answer = client.post(f"/sessions/{name}/tell", json={"request": body["request"], "sources": body["sources"],
                                                         "rewards": rewards})
    assert answer.status_code == 200, answer.text
    return answer.json()


def error(response, code):
    assert response.status_code == code, (response.status_code, response.text)
    message = response.json()["error"]
    assert isinstance(message, str) and "\n" not in message and message
    return message


def test_list_and_single_file(sessions, client_for):
    client = client_for(sessions)
    listed = client.get("/sessions").json()["sessions"]
    assert [s["name"] for s in listed] == ["checkout", "quick"]  # notes.txt is not a session
    assert listed[0]["status"] == "/sessions/checkout/status" and listed[0]["dashboard"] == "/sessions/checkout"
    single = client_for(sessions / "quick.db")
    assert [s["name"] for s in single.get("/sessions").json()["sessions"]] == ["quick"]
    error(single.get("/sessions/checkout/status"), 404)


def test_ask_tell_and_the_receipt(sessions, client_for):
    client = client_for(sessions)
    first = client.post("/sessions/checkout/ask").json()
    assert first["request"] == 1 and first["size"] == len(first["sources"]) == 1
    assert first["rows"] == [{"request": 1, "source": first["sources"][0]}]
    again = client.post("/sessions/checkout/ask", json={}).json()
    assert again == first  # one pending request: asking again gives it back
    receipt = client.post("/sessions/checkout/tell", json={"request": 1, "sources": first["sources"],
                                                           "rewards": [1]}).json()
    assert receipt == {"request": 1, "stored": 1, "pending": 0, "samples": 1, "status": "running", "stopped": False}
    assert client.post("/sessions/checkout/ask").json()["request"] == 2


def test_tell_refusals_and_their_codes(sessions, client_for):
    client = client_for(sessions)
    url = "/sessions/checkout/tell"
    assert "no request is pending" in error(client.post(url, json={"request": 1, "sources": [0], "rewards": [1]}), 404)
    source = client.post("/sessions/checkout/ask").json()["sources"][0]
    other = (source + 1) % 3
    assert "does not exist" in error(client.post(url, json={"request": 9, "sources": [source], "rewards": [1]}), 404)
    error(client.post(url, json={"request": 1, "sources": [other], "rewards": [1]}), 400)  # not requested
    error(client.post(url, json={"request": 1, "sources": [source], "rewards": [0.5]}), 400)  # not 0 or 1
    error(client.post(url, content=b'{"request": 1, "sources": [0], "rewards": [NaN]}'), 400)
    assert "'request'" in error(client.post(url, json={"request": "1", "sources": [source], "rewards": [1]}), 400)
    assert "'request'" in error(client.post(url, json={"request": True, "sources": [source], "rewards": [1]}), 400)
    assert "rewards" in error(client.post(url, json={"request": 1, "sources": [source]}), 400)
    assert "colour" in error(client.post(url, json={"request": 1, "sources": [source], "rewards": [1],
                                                    "colour": 2}), 400)
    assert "JSON object" in error(client.post(url, content=b"request=1"), 400)
    assert "JSON object" in error(client.post(url, json=[1, 2]), 400)
    error(client.post(url, json={"request": 1, "sources": ["A"], "rewards": [1]}), 400)
    assert client.get("/sessions/checkout/status").json()["samples"] == 0  # nothing was written
    ok = client.post(url, json={"request": 1, "sources": [source], "rewards": [1]})
    assert ok.status_code == 200
    assert "already answered" in error(client.post(url, json={"request": 1, "sources": [source], "rewards": [1]}), 409)


def test_a_stopped_session_refuses_with_409(sessions, client_for):
    client = client_for(sessions)
    for _ in range(200):
        asked = client.post("/sessions/quick/ask")
        if asked.status_code != 200:
            break
        body = asked.json()
        rewards = [5.0 if s == 0 else -5.0 for s in body["sources"]]
        client.post("/sessions/quick/tell", json={"request": body["request"], "sources": body["sources"],
                                                  "rewards": rewards})
    assert "has stopped" in error(asked, 409)
    status = client.get("/sessions/quick/status").json()
    assert status["stopped"] and status["certified"] and status["recommendation"] == 0
    last = status["requests"]
    message = error(client.post("/sessions/quick/tell", json={"request": last, "sources": [0], "rewards": [1.0]}), 409)
    assert "recommendation: arm 0" in message


def test_status_is_the_document_of_session_status_json(sessions, client_for, capsys):
    client = client_for(sessions)
    for reward in (1, 0, 1, 1):
        told(client, reward=reward)
    served = client.get("/sessions/checkout/status").json()
    assert main(["session", "status", "--db", str(sessions / "checkout.db"), "--json"]) == 0
    assert served == json.loads(capsys.readouterr().out)
    assert served["samples"] == 4 and sum(served["counts"]) == 4


def test_export_is_the_csv_of_session_export(sessions, client_for, capsys):
    client = client_for(sessions)
    for reward in (1, 0):
        told(client, reward=reward)
    response = client.get("/sessions/checkout/export")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert 'filename="checkout.csv"' in response.headers["content-disposition"]
    assert main(["session", "export", "--db", str(sessions / "checkout.db")]) == 0
    assert response.text == capsys.readouterr().out
    assert response.text.count("\n") == 3


def test_history_counts_follow_the_answers(sessions, client_for):
    client = client_for(sessions)
    assert client.get("/sessions/checkout/history").json() == {"shape": [3], "answers": [0], "samples": [0],
                                                               "counts": [[0, 0, 0]]}
    for _ in range(5):
        told(client)
    history = client.get("/sessions/checkout/history").json()
    assert history["answers"][-1] == 5 and history["samples"][-1] == 5
    assert history["counts"][-1] == client.get("/sessions/checkout/status").json()["counts"]


def test_writes_of_another_process_are_seen(sessions, client_for):
    client = client_for(sessions)
    told(client)
    with Session.open(sessions / "checkout.db") as other:  # another process, another connection
        request = other.ask()
        other.tell(request.id, request.requests, [0.0])
    status = client.get("/sessions/checkout/status").json()
    assert status["samples"] == 2 and status["requests"] == 2
    assert told(client)["samples"] == 3


def test_several_outstanding_requests_answered_in_any_order_and_cancelled(folder, client_for):
    problem = BestArmProblem(3, Bernoulli(n_sources=3), FixedConfidence(0.05))
    Session.create(folder / "ab.db", problem=problem, strategy=make_strategy("tas"), seed=2, name="ab",
                   max_pending=4).close()
    client = client_for(folder / "ab.db")
    asks = [client.post("/sessions/ab/ask").json() for _ in range(5)]
    ids = [a["request"] for a in asks]
    assert len(set(ids[:4])) == 4 and ids[4] == ids[0]  # four outstanding; the fifth ask repeats the oldest
    status = client.get("/sessions/ab/status").json()
    assert status["max_pending"] == 4 and [p["request"] for p in status["pending"]] == ids[:4]
    third, first = asks[2], asks[0]
    for a in (third, first):  # answers in any order
        assert client.post("/sessions/ab/tell", json={"request": a["request"], "sources": a["sources"],
                                                       "rewards": [1.0] * len(a["sources"])}).status_code == 200
    done = client.post("/sessions/ab/cancel", json={"request": ids[1]}).json()
    assert done == {"request": ids[1], "withdrawn": len(asks[1]["sources"])}
    late = client.post("/sessions/ab/tell", json={"request": ids[1], "sources": asks[1]["sources"],
                                                  "rewards": [0.0] * len(asks[1]["sources"])})
    assert "cancelled" in error(late, 410)
    error(client.post("/sessions/ab/cancel", json={}), 400)
    error(client.post("/sessions/ab/cancel", json={"request": "one"}), 400)
    status = client.get("/sessions/ab/status").json()
    assert status["withdrawn"] == 1 and [p["request"] for p in status["pending"]] == [ids[3]]
    assert status["samples"] == len(first["sources"]) + len(third["sources"])


def test_epsilon_given_over_http(folder, client_for):
    problem = BestArmProblem(2, Gaussian(1.0, n_sources=2), FixedConfidence(0.05))
    Session.create(folder / "tie.db", problem=problem, strategy=make_strategy("tas"), seed=4, name="tie").close()
    client = client_for(folder / "tie.db")
    for _ in range(40):
        asked = client.post("/sessions/tie/ask").json()
        client.post("/sessions/tie/tell", json={"request": asked["request"], "sources": asked["sources"],
                                                 "rewards": [0.0] * len(asked["sources"])})
    assert "epsilon" in error(client.post("/sessions/tie/epsilon", json={"epsilon": "big"}), 400)
    assert "unknown key" in error(client.post("/sessions/tie/epsilon", json={"epsilon": 1, "x": 1}), 400)
    assert "epsilon" in error(client.post("/sessions/tie/epsilon", json={"epsilon": -1.0}), 400)
    status = client.post("/sessions/tie/epsilon", json={"epsilon": 2.0, "epsilon_mode": "additive"}).json()
    assert status["stopped"] and status["certified"]  # equal rewards: within 2 of each other at once


def test_token_guards_writes_only(sessions, client_for):
    client = client_for(sessions, token="s3cret")
    ask = "/sessions/checkout/ask"
    refused = client.post(ask)
    assert "token" in error(refused, 401) and refused.headers["www-authenticate"].startswith("Bearer")
    error(client.post(ask, headers={"Authorization": "Bearer wrong"}), 403)
    error(client.post(ask, headers={"Authorization": "Basic s3cret"}), 403)
    for route in ("tell", "cancel"):
        error(client.post(f"/sessions/checkout/{route}", json={"request": 1}), 401)
    assert client.post(ask, headers={"Authorization": "Bearer s3cret"}).status_code == 200
    for path in ("/sessions", "/sessions/checkout/status", "/sessions/checkout/export", "/sessions/checkout/history",
                 "/sessions/checkout", "/"):
        assert client.get(path).status_code == 200, path  # reads stay open
    assert client_for(sessions).post(ask).status_code == 200  # no token: writes are open


@pytest.mark.parametrize("method, route", [("post", "ask"), ("post", "tell"), ("post", "cancel"), ("get", "status"),
                                           ("get", "export"), ("get", "history"), ("get", "")])
def test_unknown_session_is_404(sessions, client_for, method, route):
    client = client_for(sessions)
    body = {"request": 1, "sources": [0], "rewards": [1]} if route == "tell" else (
        {"request": 1} if route == "cancel" else None)
    path = "/sessions/nope" + (f"/{route}" if route else "")
    message = error(getattr(client, method)(path, **({"json": body} if body else {})), 404)
    assert "no session named 'nope'" in message and "checkout, quick" in message


def test_unknown_routes_and_methods(sessions, client_for):
    client = client_for(sessions)
    error(client.get("/nothing"), 404)
    error(client.get("/sessions/checkout/ask"), 405)
    error(client.post("/sessions/checkout/status"), 405)


def test_dashboard_page_and_assets(sessions, client_for):
    make_ab(sessions / "odd.db", name='a<b>"&c')
    client = client_for(sessions)
    page = client.get("/sessions/checkout")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'data-session="checkout"' in page.text and "/static/dashboard.js" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN, nothing from elsewhere
    odd = client.get("/sessions/" + 'a<b>"&c'.replace("<", "%3C").replace(">", "%3E").replace('"', "%22")
                     .replace("&", "%26"))
    assert odd.status_code == 200 and 'a&lt;b&gt;&quot;&amp;c' in odd.text and 'a<b>' not in odd.text
    index = client.get("/")
    assert index.status_code == 200 and "/sessions/checkout" in index.text
    script = client.get("/static/dashboard.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "http" not in script.text.replace("http://www.w3.org/2000/svg", "")
    assert client.get("/static/dashboard.css").headers["content-type"].startswith("text/css")
    error(client.get("/sessions/nope"), 404)


def test_serve_command_refuses_bad_arguments(tmp_path, capsys):
    assert main(["serve", "--db", str(tmp_path / "missing.db")]) == 2
    assert "no such session database" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--db", str(tmp_path), "--port", "0"])
    assert exit_.value.code == 2 and "1..65535" in capsys.readouterr().err
    assert main(["serve", "--db", str(tmp_path), "--token", " "]) == 2
    assert "'token'" in capsys.readouterr().err


def test_a_body_past_the_limit_is_413(sessions, client_for, monkeypatch):
    from pybai.server import routes

    monkeypatch.setattr(routes, "MAX_BODY", 64)
    client = client_for(sessions)
    big = {"request": 1, "sources": [0] * 40, "rewards": [1] * 40}
    assert "at most 64" in error(client.post("/sessions/checkout/tell", json=big), 413)

    def chunks():  # no Content-Length: refused while streaming
        yield b'{"request": 1, "sources": [' + b"0, " * 30
        yield b"0]}"

    assert "larger than 64" in error(client.post("/sessions/checkout/tell", content=chunks()), 413)


def test_a_replaced_session_file_is_opened_again(sessions, client_for):
    client = client_for(sessions)
    told(client)
    assert client.get("/sessions/checkout/status").json()["samples"] == 1
    for suffix in ("", "-wal", "-shm"):
        (sessions / f"checkout.db{suffix}").unlink(missing_ok=True)
    make_ab(sessions / "checkout.db")  # the same name, a new session
    assert client.get("/sessions/checkout/status").json()["samples"] == 0
    assert client.get("/sessions/checkout/history").json()["samples"] == [0]


def test_serve_command_runs_uvicorn_on_the_app(sessions, capsys, monkeypatch):
    import uvicorn

    seen = {}

    def run(server, sockets=None):  # the socket the command bound, instead of serving
        seen.update(app=server.config.app, access_log=server.config.access_log, address=sockets[0].getsockname())
        for sock in sockets:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setenv("PYBAI_SERVE_TOKEN", "from-env")
    port = free_port()
    assert main(["serve", "--db", str(sessions), "--host", "0.0.0.0", "--port", str(port)]) == 0
    out = capsys.readouterr()
    assert "serving 2 session(s)" in out.out and f"http://0.0.0.0:{port}/sessions/checkout" in out.out
    assert "writes need the token" in out.out and "warning" not in out.err
    assert seen["address"] == ("0.0.0.0", port) and seen["access_log"] is False
    import warnings

    with warnings.catch_warnings():  # newer Starlette prefers the httpx2 package; httpx works with every version
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    with TestClient(seen["app"]) as client:  # the token came from the environment
        assert client.post("/sessions/checkout/ask").status_code == 401
    monkeypatch.delenv("PYBAI_SERVE_TOKEN")
    assert main(["serve", "--db", str(sessions), "--host", "0.0.0.0", "--port", str(free_port())]) == 0
    assert "without --token" in capsys.readouterr().err


def test_the_session_list_shows_state_recommendation_and_samples(sessions, client_for):
    client = client_for(sessions)
    told(client, "checkout")
    for _ in range(200):
        if told(client, "quick", reward=1.0)["stopped"]:
            break
    page = client.get("/").text
    rows = page.split("<tbody>")[1].split("</tr>")[:2]
    assert ">checkout</a>" in rows[0] and ">running<" in rows[0] and "<td>1</td>" in rows[0]
    assert rows[0].count(" UTC") == 1  # the last answer, in the one format of every page
    quick = client.get("/sessions/quick/status").json()
    assert f">{quick['state']}<" in rows[1] and f"<td>{quick['answer']}</td>" in rows[1]
    (sessions / "broken.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)  # not a readable session
    assert client.get("/").status_code == 200


def test_the_status_statistic_reaches_its_threshold_exactly_when_the_session_stops(sessions, client_for):
    client = client_for(sessions)
    seen = []
    for i in range(600):
        asked = client.post("/sessions/checkout/ask").json()
        rewards = [float(s == 2 or (s == 1 and i % 3 == 0)) for s in asked["sources"]]  # arm 2 best
        receipt = client.post("/sessions/checkout/tell", json={"request": asked["request"], "sources": asked["sources"],
                                                               "rewards": rewards}).json()
        status = client.get("/sessions/checkout/status").json()
        if status["statistic"] is not None:
            seen.append((status["statistic"] >= status["threshold"], status["stopped"]))
        if receipt["stopped"]:
            break
    assert seen and all(reached == stopped for reached, stopped in seen)
    assert seen[-1] == (True, True) and status["state"] == "certified"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_on_a_busy_port_or_a_bad_host_is_one_line(sessions, capsys, monkeypatch):
    import socket

    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: pytest.fail("served"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--db", str(sessions), "--port", str(port)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"--port {port}: already in use" in err[0], err
    for host in ("999.1.1.1", "203.0.113.7"):  # not an address, not this machine's
        assert main(["serve", "--db", str(sessions), "--host", host, "--port", str(free_port())]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"pybai: error: --host {host}:"), err


def test_serve_on_a_damaged_file_says_so(sessions, tmp_path, capsys, monkeypatch):
    import shutil

    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: [s.close() for s in sockets])
    damaged = tmp_path / "d.db"
    shutil.copy(sessions / "checkout.db", damaged)
    with open(damaged, "r+b") as handle:  # the SQLite header stays, the pages after it are garbage
        handle.seek(100)
        handle.write(b"\xff" * 4000)
    assert main(["serve", "--db", str(damaged), "--port", str(free_port())]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged" in err[0], err
    folder = tmp_path / "many"
    folder.mkdir()
    shutil.copy(damaged, folder / "d.db")
    shutil.copy(sessions / "checkout.db", folder / "checkout.db")
    assert main(["serve", "--db", str(folder), "--port", str(free_port())]) == 0
    out = capsys.readouterr()
    assert "serving 1 session(s)" in out.out
    assert "warning: not served:" in out.err and "d.db" in out.err and "damaged" in out.err, out.err


def test_labels_match_exactly_and_sources_are_a_list(folder, client_for):
    doc = {"name": "lab", "seed": 1, "problem": {"goal": "best-arm", "delta": 0.1},
           "environment": {"kind": "bernoulli", "arms": 2, "labels": ["control", "treatment"]},
           "strategy": [{"name": "uniform"}]}
    Session.create(folder / "lab.db", doc).close()
    client = client_for(folder)
    asked = client.post("/sessions/lab/ask").json()
    label = ["control", "treatment"][asked["sources"][0]]
    for sources in ([label + " "], [" " + label], label, str(asked["sources"][0])):
        message = error(client.post("/sessions/lab/tell", json={"request": asked["request"], "sources": sources,
                                                                "rewards": [1]}), 400)
        assert "'sources'" in message
    ok = client.post("/sessions/lab/tell", json={"request": asked["request"], "sources": [label], "rewards": [1]})
    assert ok.status_code == 200, ok.text


def test_numbers_beyond_64_bits_are_400_not_500(sessions, client_for):
    client = client_for(sessions)
    told(client)
    for route, body in (("tell", {"request": 2**63, "sources": [0], "rewards": [1]}),
                        ("tell", {"request": -(2**63) - 1, "sources": [0], "rewards": [1]}),
                        ("tell", {"request": 10**30, "sources": [0], "rewards": [1]}),
                        ("cancel", {"request": 2**64}),
                        ("epsilon", {"epsilon": 10**400}),
                        ("epsilon", {"epsilon": 1e308, "epsilon_mode": 7})):
        error(client.post(f"/sessions/checkout/{route}", content=json.dumps(body)), 400)
    asked = client.post("/sessions/checkout/ask").json()
    for source in (2**63, 2**64, 10**30):
        message = error(client.post("/sessions/checkout/tell", content=json.dumps(
            {"request": asked["request"], "sources": [source], "rewards": [1]})), 400)
        assert str(source) in message and "-" not in message.split("Got")[1], message


def test_names_no_address_reaches_are_listed_without_links(folder, client_for):
    import sqlite3

    make_ab(folder / "ok.db", name="ok")
    make_ab(folder / "old.db", name="old")
    with sqlite3.connect(folder / "old.db") as db:  # as an older pybai could create it
        db.execute("UPDATE definition SET name = 'a/b'")
    listed = {s["name"]: s for s in client_for(folder).get("/sessions").json()["sessions"]}
    assert listed["ok"]["status"] == "/sessions/ok/status" and listed["a/b"]["status"] is None
    assert listed["a/b"]["dashboard"] is None
    for name in ("a/b", ".", "..", " x", "x\n", "a\\b"):
        with pytest.raises(Exception, match="'name' parameter of Session.create must be a session name"):
            make_ab(folder / f"n{len(name)}{name.count('.')}.db", name=name)
        assert not (folder / f"n{len(name)}{name.count('.')}.db").exists()
