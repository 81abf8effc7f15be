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

__all__ = ["STATIC", "Pages", "POLL_SECONDS"]

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
      <p id="requests" class="muted small"></p></article>
    <article class="card wide"><h3 id="h-glr">GLR statistic vs threshold</h3>
      <div id="glr" role="img" aria-labelledby="h-glr glr-text"></div>
      <p id="glr-text" class="small"></p></article>
  </section>
  <section aria-labelledby="h-pending" class="panel">
    <h2 id="h-pending">Pending requests</h2>
    <div id="pending"><p class="muted">none</p></div>
  </section>
  <section aria-labelledby="h-samples" class="panel">
    <h2 id="h-samples">Samples per arm over time</h2>
    <figure id="samples-chart" class="chart" role="img" aria-labelledby="h-samples samples-caption"></figure>
    <p id="samples-caption" class="muted small"></p>
  </section>
  <section aria-labelledby="h-means" class="panel">
    <h2 id="h-means">Means with <span id="level">95%</span> intervals</h2>
    <figure id="means-chart" class="chart" role="img" aria-labelledby="h-means means-caption"></figure>
    <p id="means-caption" class="muted small"></p>
    <details><summary>The numbers (table)</summary><div id="table"></div></details>
  </section>
  <p id="live" class="muted small" aria-live="polite"></p>
  <p id="problem" class="error" role="alert" hidden></p>
</main>
<footer class="muted small">pybai {version} &middot; <a href="/sessions/{quoted}/status">status JSON</a> &middot;
  <a href="/sessions/{quoted}/export">export CSV</a></footer>
<script src="/static/dashboard.js?v={version}" defer></script>"""

_INDEX = """<header class="top"><h1>pybai sessions</h1><p class="muted">served from {db}</p></header>
<main id="main"><h2 class="visually-hidden">Sessions</h2>{items}</main>
<footer class="muted small">pybai {version} &middot; <a href="/sessions">the list as JSON</a></footer>"""


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
            links = "".join(f'<li><a href="{session_links(n)["dashboard"]}">{html.escape(n)}</a></li>'
                            if session_links(n)["dashboard"] else f"<li>{html.escape(n)} (no address reaches this name)</li>"
                            for n in names)
            items = f'<ul class="sessions">{links}</ul>'
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
