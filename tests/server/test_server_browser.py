"""The dashboard in a real browser: headless Chromium (Debian's package) driven by Playwright's Python package.

The test starts the server on 127.0.0.1 (uvicorn in a thread, a free port), answers requests
through the HTTP API, opens the dashboard, answers more and checks that the page shows them
without a reload; it saves a screenshot (``PYBAI_SCREENSHOT_DIR``, else the test's tmp folder).
Skipped, with the reason, when Chromium or Playwright is missing (``.ci/run`` installs Chromium;
``playwright install`` is never run: the system's browser is used).
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

from _serve_sessions import LiveServer, folder, sessions  # noqa: F401 (fixtures)

CHROMIUM = os.environ.get("PYBAI_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def answer(base: str, name: str, n: int, reward) -> dict:
    """Ask and tell ``n`` requests of session ``name``; ``reward(source)`` gives each reward."""
    receipt: dict = {}
    for _ in range(n):
        asked = post(f"{base}/sessions/{name}/ask", {})
        receipt = post(f"{base}/sessions/{name}/tell", {"request": asked["request"], "sources": asked["sources"],
                                                        "rewards": [reward(s) for s in asked["sources"]]})
    return receipt


def test_dashboard_shows_new_answers_without_reload(sessions, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    expect = sync_api.expect  # waits without evaluating strings (the page's CSP forbids eval)
    shots = Path(os.environ.get("PYBAI_SCREENSHOT_DIR") or tmp_path)
    with LiveServer(sessions) as server, sync_api.sync_playwright() as play:
        base = server.url
        answer(base, "checkout", 6, lambda s: float(s == 2))
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
            page.click("summary")
            page.screenshot(path=str(shots / "dashboard-running.png"), full_page=True)

            stop_quick(base)
            page.goto(f"{base}/sessions/quick?poll=0.3")
            expect(page.locator("#state")).to_have_text("certified", timeout=30_000)
            assert "arm 0" in page.inner_text("#recommendation")
            page.screenshot(path=str(shots / "dashboard-certified.png"), full_page=True)
        finally:
            browser.close()
    assert not problems, problems
    assert fetched and all(url.startswith(base) for url in fetched), [u for u in fetched if not u.startswith(base)]
    assert (shots / "dashboard-running.png").stat().st_size > 10_000


def stop_quick(base: str) -> None:
    """Answer the "quick" session until it stops (arm 0 far above arm 1)."""
    for _ in range(200):
        if answer(base, "quick", 1, lambda s: 5.0 if s == 0 else -5.0)["stopped"]:
            return
    raise AssertionError("the quick session did not stop")
