"""The dashboard pages of ``pybai serve``: the list of sessions and one live page per session.

The pages are small HTML shells; ``static/dashboard.js`` (served by the package, no CDN) polls
the session's status and history documents and redraws the figures as answers arrive, without
reloading the page.  Every page is sent with a Content-Security-Policy that allows nothing but
the server itself.
"""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from pybai._secrets import mask_credentials
from pybai._version import __version__
from pybai.server.errors import error_response
from pybai.server.pool import SessionPool
from pybai.server.sessions import session_links
from pybai.session.document import status_document

__all__ = ["STATIC", "Pages", "POLL_SECONDS", "stamp"]

#: the dashboard's JavaScript, style sheet and icon (package data)
STATIC = Path(__file__).resolve().parent / "static"

#: how often the page asks for the status (seconds; ``?poll=`` overrides it, 0.2 to 60)
POLL_SECONDS = 2.0

_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'", "X-Content-Type-Options": "nosniff"}

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/static/dashboard.css?v={version}">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body>
{body}
</body>
</html>
"""

_SESSION = """<a class="skip" href="#main">Skip to the session</a>
<header class="top">
  <p class="crumbs"><a href="/">pybai sessions</a></p>
  <h1><span class="muted">Session</span> {name}</h1>
  <p class="badges"><span id="state" class="badge" role="status">loading&hellip;</span>
     <span id="summary" class="muted"></span></p>
</header>
<main id="main" data-session="{name}" data-poll="{poll}">
  <section aria-labelledby="h-now" class="cards">
    <h2 id="h-now" class="visually-hidden">Where the session stands</h2>
    <article class="card"><h3>Recommendation</h3><p id="recommendation" class="big">&ndash;</p>
      <p id="message" class="muted small"></p></article>
    <article class="card"><h3>Samples</h3><p id="samples" class="big">&ndash;</p>
      <p id="requests" class="muted small"></p>
      <div id="pending" class="small pending-line"></div></article>
    <article class="card wide"><h3 id="h-glr">Evidence towards stopping</h3>
      <div id="glr" role="img" aria-labelledby="h-glr glr-text"></div>
      <p id="glr-text" class="small"></p>
      <p id="to-stop" class="small"></p>
      <p id="tie" class="small tie" hidden></p></article>
  </section>
  <section aria-labelledby="h-actions" class="panel actions">
    <h2 id="h-actions">Actions</h2>
    <form id="epsilon-form" hidden>
      <p class="small">Setting &epsilon; lets the session stop on an arm within &epsilon; of the best; the chance
        that it is not is still at most &delta;, whenever &epsilon; is given
        (<a href="/static/help.html#epsilon">how epsilon works</a>).</p>
      <div class="row">
        <label for="epsilon">&epsilon;</label>
        <input id="epsilon" name="epsilon" type="number" min="0" step="any" inputmode="decimal" placeholder="e.g. 0.05" required>
        <label for="epsilon-mode" class="visually-hidden">mode</label>
        <select id="epsilon-mode" name="mode"><option value="additive">additive (&mu;* &minus; &epsilon;)</option>
          <option value="relative">relative ((1 &minus; &epsilon;) &mu;*)</option></select>
        <span id="token-box" hidden><label for="token">token</label>
          <input id="token" name="token" type="password" autocomplete="off"></span>
        <button type="submit">Set epsilon</button>
      </div>
      <p id="epsilon-result" class="small" role="status"></p>
    </form>
    <p id="epsilon-state" class="small muted"></p>
    <p class="row"><a class="button" id="export" href="/sessions/{quoted}/export" download>Export CSV</a>
      <a href="/sessions/{quoted}/status">status JSON</a>
      <a href="/static/help.html">help</a></p>
  </section>
  <section aria-labelledby="h-samples" class="panel">
    <h2 id="h-samples">Samples per arm over time</h2>
    <figure id="samples-chart" class="chart" role="img" aria-labelledby="h-samples samples-caption"></figure>
    <p id="samples-caption" class="muted small"></p>
  </section>
  <section aria-labelledby="h-means" class="panel">
    <h2 id="h-means"><span id="means-what">Means</span> with <span id="level">95%</span> intervals</h2>
    <figure id="means-chart" class="chart" role="img" aria-labelledby="h-means means-caption"></figure>
    <p id="means-caption" class="muted small"></p>
    <details><summary>The numbers (table)</summary><div id="table"></div></details>
  </section>
  <section id="guardrails-panel" aria-labelledby="h-guardrails" class="panel" hidden>
    <h2 id="h-guardrails">Guardrails of each arm</h2>
    <p id="guardrails-caption" class="muted small"></p>
    <div id="guardrails"></div>
  </section>
  <p id="live" class="muted small" aria-live="polite"></p>
  <p id="problem" class="error" role="alert" hidden></p>
</main>
<footer class="muted small">pybai {version}</footer>
<script src="/static/dashboard.js?v={version}" defer></script>"""

_INDEX = """<header class="top"><h1>pybai sessions</h1><p class="muted">served from {db}</p></header>
<main id="main"><h2 class="visually-hidden">Sessions</h2>{items}</main>
<footer class="muted small">pybai {version} &middot; <a href="/sessions">the list as JSON</a> &middot;
  <a href="/static/help.html">help</a></footer>"""

_ROW = ('<tr><th scope="row"><a href="/sessions/{quoted}">{name}</a></th><td><span class="badge {cls}">{state}</span>'
        '</td><td>{answer}</td><td>{samples}</td><td>{last}</td></tr>')


def stamp(iso: str | None) -> str:
    """A stored time (ISO 8601, UTC) as every page shows it: ``2026-11-25 01:40:54 UTC`` ("-" when none)."""
    if not iso:
        return "–"
    return iso.replace("T", " ")[:19] + " UTC"


def _badge_class(status: dict) -> str:
    return {"certified": "certified", "running": "running"}.get(status["state"], "stopped")


def _session_rows(names: list[str], statuses: list) -> str:
    rows = []
    for name, status in zip(names, statuses):
        quoted = quote(name, safe="")
        if session_links(name)["dashboard"] is None:  # an older database's name no address reaches
            rows.append(f'<tr><th scope="row">{html.escape(name)}</th>'
                        '<td colspan="4">no address reaches this name</td></tr>')
            continue
        if isinstance(status, BaseException):  # a session that cannot be read is listed, with why
            rows.append(f'<tr><th scope="row"><a href="/sessions/{quoted}">{html.escape(name)}</a></th>'
                        f'<td colspan="4" class="error">cannot be read: {html.escape(str(status))}</td></tr>')
            continue
        rows.append(_ROW.format(quoted=quoted, name=html.escape(name), cls=_badge_class(status),
                                state=html.escape(status["state"]), answer=html.escape(status["answer"]),
                                samples=f"{status['samples']:,}", last=stamp(status["last_answer"])))
    head = ('<table class="sessions"><caption class="visually-hidden">Sessions</caption><thead><tr>'
            '<th scope="col">session</th><th scope="col">state</th><th scope="col">recommendation</th>'
            '<th scope="col">samples</th><th scope="col">last answer</th></tr></thead><tbody>')
    return head + "".join(rows) + "</tbody></table>"


def _poll(request: Request) -> float:
    try:
        value = float(request.query_params.get("poll", POLL_SECONDS))
    except ValueError:
        return POLL_SECONDS
    return min(max(value, 0.2), 60.0) if value == value else POLL_SECONDS


class Pages:
    """The HTML pages over a :class:`SessionPool`."""

    def __init__(self, pool: SessionPool):
        self.pool = pool

    async def index(self, request: Request) -> Response:
        names = await asyncio.to_thread(self.pool.names)
        if names:
            statuses = await asyncio.gather(*(self.pool.call(n, lambda served: status_document(served.session))
                                              for n in names), return_exceptions=True)
            items = _session_rows(names, list(statuses))
        else:
            items = '<p>No session yet: <code>pybai session new FILE --db PATH</code> creates one.</p>'
        body = _INDEX.format(db=html.escape(mask_credentials(self.pool.db)), items=items, version=__version__)
        return HTMLResponse(_PAGE.format(title="pybai sessions", body=body, version=__version__), headers=_HEADERS)

    async def session(self, request: Request) -> Response:
        name = request.path_params["name"]
        names = await asyncio.to_thread(self.pool.names)
        if name not in names:
            return error_response(404, f"no session named {name!r} in {self.pool.db} "
                                       f"(sessions: {', '.join(names) or 'none'}).")
        body = _SESSION.format(name=html.escape(name), quoted=quote(name, safe=""), poll=_poll(request),
                               version=__version__)
        return HTMLResponse(_PAGE.format(title=f"{html.escape(name)} · pybai session", body=body, version=__version__),
                            headers=_HEADERS)
