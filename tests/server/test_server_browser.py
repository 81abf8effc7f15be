"""The dashboard in a real browser: headless Chromium (Debian's package) driven by Playwright's Python package.

The test starts the server on 127.0.0.1 (uvicorn in a thread, a free port), answers requests
through the HTTP API, opens the dashboard, answers more and checks that the page shows them
without a reload; it checks the page at a phone's width (390 px), 1280x720 and 1400x1000 and
saves a screenshot of each page at each size (``PYBAI_SCREENSHOT_DIR``, else the test's tmp
folder).  Skipped, with the reason, when Chromium or Playwright is missing (``.ci/run`` installs
Chromium; ``playwright install`` is never run: the system's browser is used).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

import numpy as np

from _serve_sessions import (GUARDED_METRICS, LiveServer, folder, guarded_world, make_ab,  # noqa: F401 (fixtures)
                             make_guarded, sessions)

CHROMIUM = os.environ.get("PYBAI_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
#: (name, width, height): a phone, a laptop, a desktop
SIZES = [("phone", 390, 844), ("1280x720", 1280, 720), ("1400x1000", 1400, 1000)]
#: the smallest text a reader should have to read in a figure (CSS pixels, as rendered)
MIN_TEXT_PX = 11

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def answer(base: str, name: str, n: int, reward) -> dict:
    """Ask and tell ``n`` requests of session ``name``; ``reward(source)`` gives each reward."""
    receipt: dict = {}
    for _ in range(n):
        asked = post(f"{base}/sessions/{name}/ask", {})
        receipt = post(f"{base}/sessions/{name}/tell", {"request": asked["request"], "sources": asked["sources"],
                                                        "rewards": [reward(s) for s in asked["sources"]]})
    return receipt


def check_layout(page, size: str) -> None:
    """Nothing wider than the window, and every figure's text at least MIN_TEXT_PX as rendered."""
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, (size, overflow)
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('svg text')]
        .filter((t) => t.textContent.trim()).map((t) => t.getBoundingClientRect().height))""")
    assert smallest >= MIN_TEXT_PX, (size, smallest)


def shoot(page, shots: Path, stem: str, url: str, ready) -> None:
    """Screenshots of ``url`` at every size of SIZES (``ready(page)`` waits for the content)."""
    for size, width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        ready(page)
        page.wait_for_timeout(300)  # the figures are redrawn at the new width
        if page.locator("svg").count():
            check_layout(page, size)
        page.screenshot(path=str(shots / f"{stem}-{size}.png"), full_page=True)


def bar_and_line(page) -> tuple[float, float, bool]:
    """(right end of the bar, position of the threshold line, bar marked done) of the stopping card."""
    return page.evaluate("""() => {
        const bar = document.querySelector('#glr rect.bar'), line = document.querySelector('#glr line.threshold');
        return [Number(bar.getAttribute('x')) + Number(bar.getAttribute('width')), Number(line.getAttribute('x1')),
                bar.classList.contains('done')];
    }""")


def test_dashboard_shows_new_answers_without_reload(sessions, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    expect = sync_api.expect  # waits without evaluating strings (the page's CSP forbids eval)
    shots = Path(os.environ.get("PYBAI_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    make_ab(sessions / "tie.db", name="tie")  # two variants that convert alike: a real near tie
    with LiveServer(sessions) as server, sync_api.sync_playwright() as play:
        base = server.url
        answer(base, "checkout", 6, lambda s: float(s == 2))
        told = {0: 0, 1: 0, 2: 0}

        def alike(source):  # arms 0 and 1 convert every third visit, arm 2 never
            told[source] += 1
            return float(source != 2 and told[source] % 3 == 0)

        answer(base, "tie", 60, alike)
        browser = play.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems, fetched = [], []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
            page.on("request", lambda req: fetched.append(req.url))
            page.goto(f"{base}/sessions/checkout?poll=0.3")
            expect(page.locator("#samples")).to_have_text("6", timeout=30_000)
            assert page.inner_text("#state") == "running"
            page.evaluate("window.__notReloaded = true")

            answer(base, "checkout", 9, lambda s: float(s == 2))  # more answers arrive while the page is open
            expect(page.locator("#samples")).to_have_text("15", timeout=30_000)
            assert page.evaluate("window.__notReloaded === true")  # the same page, updated in place
            cells = page.eval_on_selector_all("#arms tbody tr td:nth-child(2)", "cells => cells.map(c => c.textContent)")
            assert sum(int(c) for c in cells) == 15 and len(cells) == 3
            assert page.locator("#samples-chart polyline").count() == 3
            assert page.locator("#means-chart circle").count() == 3
            assert "arm 2" in page.inner_text("#recommendation")
            assert "15 samples" in page.inner_text("#live")
            # accessible structure: language, one h1, labelled figures, a live region
            assert page.get_attribute("html", "lang") == "en" and page.locator("h1").count() == 1
            for figure in ("#samples-chart", "#means-chart", "#glr"):
                for ref in page.get_attribute(figure, "aria-labelledby").split():
                    assert page.locator(f"#{ref}").count() == 1, (figure, ref)
            assert page.get_attribute("#live", "aria-live") == "polite"
            # the stopping card: the bar stops short of the line while running; one line on samples to stop
            right, line, done = bar_and_line(page)
            assert right < line and not done
            status = json.loads(get(f"{base}/sessions/checkout/status"))
            assert status["statistic"] < status["threshold"]
            assert page.inner_text("#glr-text").startswith("Evidence of the deciding comparison")
            assert page.inner_text("#to-stop").startswith("Estimated samples to stop")
            assert len(page.inner_text("#glr-text").split()) + len(page.inner_text("#to-stop").split()) < 40
            # times in one format
            assert page.inner_text("#requests").endswith(" UTC") and " UTC" in page.inner_text("#live")
            # the controls: export CSV, set epsilon (with its one-sentence guarantee and a link)
            exported = list(csv.DictReader(io.StringIO(get(base + page.get_attribute("#export", "href")).decode())))
            assert len(exported) == 15
            expect(page.locator("#epsilon-form")).to_be_visible()
            assert "at most δ" in page.inner_text("#epsilon-form")
            assert get(base + page.get_attribute("#epsilon-form a", "href").split("#")[0]).startswith(b"<!doctype html>")
            page.click("summary")
            shoot(page, shots, "dashboard-running", f"{base}/sessions/checkout?poll=0.3",
                  lambda p: expect(p.locator("#samples")).to_have_text("15", timeout=30_000))

            stop_quick(base)
            shoot(page, shots, "dashboard-certified", f"{base}/sessions/quick?poll=0.3",
                  lambda p: expect(p.locator("#state")).to_have_text("certified", timeout=30_000))
            assert "arm 0" in page.inner_text("#recommendation")
            right, line, done = bar_and_line(page)  # stopped: the bar has reached the line
            assert right >= line and done
            assert page.inner_text("#to-stop").startswith("Stopped after")
            assert page.locator("#epsilon-form").is_hidden()
            assert page.locator("#guardrails-panel").is_hidden()  # one metric: no guardrail to show

            # a near tie is said, with what makes it one, beside the control that ends it
            shoot(page, shots, "dashboard-near-tie", f"{base}/sessions/tie?poll=0.3",
                  lambda p: expect(p.locator("#tie")).to_be_visible(timeout=30_000))
            tie = json.loads(get(f"{base}/sessions/tie/status"))["near_tie"]
            assert tie is not None and sorted(tie["arms"]) == [0, 1]
            assert page.inner_text("#tie").startswith("Near tie: arm 0 and arm 1. Their 95% intervals overlap and ")
            expect(page.locator("#epsilon-form")).to_be_visible()

            shoot(page, shots, "sessions", f"{base}/",
                  lambda p: expect(p.locator("table.sessions tbody tr")).to_have_count(3, timeout=30_000))
            rows = page.eval_on_selector_all("table.sessions tbody tr",
                                             "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))")
            assert rows[0][:4] == ["checkout", "running", "arm 2", "15"] and rows[0][4].endswith(" UTC")
            assert rows[1][:2] == ["quick", "certified"] and rows[1][2] == "arm 0"
            assert rows[2][:2] == ["tie", "running"] and rows[2][3] == "60"

            # epsilon from the page: the session takes it and says so
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(f"{base}/sessions/checkout?poll=0.3")
            expect(page.locator("#epsilon-form")).to_be_visible(timeout=30_000)
            page.fill("#epsilon", "0.5")
            page.click("#epsilon-form button")
            expect(page.locator("#summary")).to_contain_text("ε = 0.5", timeout=30_000)
        finally:
            browser.close()
    assert not problems, problems
    assert fetched and all(url.startswith(base) for url in fetched), [u for u in fetched if not u.startswith(base)]
    for stem in ("dashboard-running", "dashboard-certified", "dashboard-near-tie", "sessions"):
        for size, _, _ in SIZES:
            assert (shots / f"{stem}-{size}.png").stat().st_size > 10_000


def stop_quick(base: str) -> None:
    """Answer the "quick" session until it stops (arm 0 far above arm 1)."""
    for _ in range(200):
        if answer(base, "quick", 1, lambda s: 5.0 if s == 0 else -5.0)["stopped"]:
            return
    raise AssertionError("the quick session did not stop")


def answer_metrics(base: str, name: str, n: int, world, rng) -> dict:
    """Ask and tell up to ``n`` requests of a guardrail session, every metric of each observation told at once
    as ``{"metric": [values]}`` (stops early when the session stops)."""
    receipt: dict = {}
    for _ in range(n):
        asked = post(f"{base}/sessions/{name}/ask", {})
        _, rewards = world.respond(np.asarray(asked["sources"]), rng)
        rewards = rewards.reshape(len(asked["sources"]), len(GUARDED_METRICS))
        receipt = post(f"{base}/sessions/{name}/tell", {
            "request": asked["request"], "sources": asked["sources"],
            "rewards": {m: rewards[:, i].tolist() for i, m in enumerate(GUARDED_METRICS)}})
        if receipt["stopped"]:
            break
    return receipt


def check_guardrails_shown(page, status: dict) -> None:
    """The guardrails table says, row for row, what the status document says of each arm's guardrails."""
    rows = page.eval_on_selector_all("#guardrail-table tbody tr", """rows => rows.map(r => ({
        arm: Number(r.dataset.arm), cells: [...r.children].map(c => c.textContent.trim())}))""")
    expected = [(arm, g) for arm in status["guardrails"]["arms"] for g in arm["guardrails"]]
    assert len(rows) == len(expected) == 6
    for row, (arm, g) in zip(rows, expected):
        assert row["arm"] == arm["arm"]
        cells = row["cells"]
        if len(cells) == 6:  # the arm's first guardrail: its name and its state head the group
            assert cells[:2] == [arm["name"], arm["state"]]
            cells = cells[2:]
        rule, estimate, margin, state = cells
        assert rule == f"{g['metric']} {g['rule']}"
        for shown, value in ((estimate, g["estimate"]), (margin, g["margin"])):
            assert (shown == "–") if value is None else float(shown) == pytest.approx(value, rel=1e-3, abs=1e-9)
        assert state == (g["state"] if g["binds"] else "holds (the control is the reference)")


def test_dashboard_shows_each_arms_guardrails(folder, tmp_path):  # noqa: F811 (fixture)
    """A session on guardrail metrics: the objective's means in the figure, every metric in the table, and each
    arm's guardrails (rule, estimate, margin, state) as the status gives them, running and once certified."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    expect = sync_api.expect
    shots = Path(os.environ.get("PYBAI_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    make_guarded(folder / "guarded.db")
    world, rng = guarded_world(), np.random.default_rng(5)
    with LiveServer(folder) as server, sync_api.sync_playwright() as play:
        base = server.url
        url = f"{base}/sessions/guarded?poll=0.3"
        answer_metrics(base, "guarded", 12, world, rng)
        browser = play.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
            page.goto(url)
            expect(page.locator("#samples")).to_have_text("12", timeout=30_000)
            status = json.loads(get(f"{base}/sessions/guarded/status"))
            assert status["metrics"] == list(GUARDED_METRICS) and status["state"] == "running"
            expect(page.locator("#guardrails-panel")).to_be_visible()
            check_guardrails_shown(page, status)
            assert "undecided" in page.inner_text("#guardrail-table")  # 12 observations settle little
            expect(page.locator("#epsilon-form")).to_be_visible()  # a tolerance on the objective: additive only
            assert page.eval_on_selector("#epsilon-mode option[value=relative]", "o => o.disabled")
            # one point per arm for the objective (not one per metric); samples counted per observation
            assert page.locator("#means-chart circle").count() == 3
            assert page.inner_text("#h-means").startswith("Means of the objective, revenue,")
            per_arm = [int(c[0]) for c in status["counts"]]
            assert page.inner_text("#samples-caption") == "Samples so far: " + ", ".join(
                f"{n} {k}" for n, k in zip(["control", "fast", "slow"], per_arm)) + "."
            page.click("summary")
            heads = page.eval_on_selector_all("#arms thead th", "cells => cells.map(c => c.textContent)")
            assert heads == ["arm", "samples"] + [f"{m} {w}" for m in GUARDED_METRICS for w in ("mean", "interval")]
            counts = page.eval_on_selector_all("#arms tbody tr td:nth-child(2)", "cells => cells.map(c => c.textContent)")
            assert [int(c) for c in counts] == per_arm
            shoot(page, shots, "dashboard-guardrails-running", url,
                  lambda p: expect(p.locator("#guardrail-table")).to_be_visible(timeout=30_000))

            receipt = answer_metrics(base, "guarded", 4000, world, rng)
            assert receipt["stopped"], "the guardrail session did not stop"
            shoot(page, shots, "dashboard-guardrails-certified", url,
                  lambda p: expect(p.locator("#state")).to_have_text("certified", timeout=30_000))
            status = json.loads(get(f"{base}/sessions/guarded/status"))
            check_guardrails_shown(page, status)
            answer = status["guardrails"]["arms"][status["recommendation"]]
            assert answer["state"] == "holds"  # a certified answer keeps every guardrail, certified
            assert page.inner_text("#recommendation") == status["answer"]
            caption = page.inner_text("#guardrails-caption")
            assert f"passes {status['guardrails']['level']:.4g} (mixture evidence" in caption
            held = [a["name"] for a in status["guardrails"]["arms"] if a["state"] == "holds"]
            assert answer["name"] in held and f"Every guardrail holds for: {', '.join(held)};" in caption
        finally:
            browser.close()
    assert not problems, problems
    for stem in ("dashboard-guardrails-running", "dashboard-guardrails-certified"):
        for size, _, _ in SIZES:
            assert (shots / f"{stem}-{size}.png").stat().st_size > 10_000


def test_dashboard_shows_a_metric_of_unknown_variance(folder):  # noqa: F811 (fixture)
    """A guardrail session whose latency has an unknown variance: the table gives its mean and Student-t interval per
    arm as the status does, and the guardrails panel its state; no script error."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    from pybai import FixedConfidence, make_strategy
    from pybai.problems.guardrails import GuardrailProblem, Metric
    from pybai.session import Session

    problem = GuardrailProblem(3, [Metric("revenue", sigma=1.0), Metric("latency", reward_model="gaussian-unknown-variance",
                                                                         at_most=0.0),
                                   Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.1)],
                               FixedConfidence(0.1), control="control", labels=["control", "fast", "slow"])
    Session.create(folder / "uv.db", problem=problem, strategy=make_strategy("tas"), seed=2, name="uv").close()
    world, rng = guarded_world(), np.random.default_rng(6)
    with LiveServer(folder) as server, sync_api.sync_playwright() as play:
        base = server.url
        answer_metrics(base, "uv", 12, world, rng)
        browser = play.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
            page.goto(f"{base}/sessions/uv?poll=0.3")
            sync_api.expect(page.locator("#samples")).to_have_text("12", timeout=30_000)
            status = json.loads(get(f"{base}/sessions/uv/status"))
            sync_api.expect(page.locator("#guardrails-panel")).to_be_visible()
            check_guardrails_shown(page, status)
            page.click("summary")
            cells = page.eval_on_selector_all("#arms tbody tr", "rows => rows.map(r => [...r.children].map("
                                                                "c => c.textContent))")
            for a, row in enumerate(cells):
                low, high = status["ci_low"][a][1], status["ci_high"][a][1]  # the latency's interval
                assert float(row[4]) == pytest.approx(status["means"][a][1], rel=6e-3, abs=1e-9)
                assert low is not None and low < high
                shown_low, shown_high = (float(v) for v in row[5].strip("[]").split(", "))
                assert shown_low == pytest.approx(low, rel=6e-3, abs=1e-9)  # shown to 3 digits
                assert shown_high == pytest.approx(high, rel=6e-3, abs=1e-9)
        finally:
            browser.close()
    assert not problems, problems
