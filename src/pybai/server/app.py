"""The Starlette application of ``pybai serve`` (run it with uvicorn, or any ASGI server)."""

from __future__ import annotations

from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from pybai.server.dashboard import STATIC, Pages
from pybai.server.errors import error_response
from pybai.server.pool import SessionPool
from pybai.server.routes import Api
from pybai.server.sessions import check_db

__all__ = ["create_app"]


async def _http_error(request: Request, exc: Exception):
    assert isinstance(exc, HTTPException)
    return error_response(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}.",
                          dict(exc.headers or {}))


def create_app(db: str, token: str | None = None) -> Starlette:
    """The ASGI application serving the sessions of ``db``.

    Parameters
    ----------
    db : str
        A session database file, or a directory of them (:mod:`pybai.server.sessions`).
    token : str, optional
        When given, the writes (ask, tell, cancel) need ``Authorization: Bearer <token>``.

    Returns
    -------
    starlette.applications.Starlette
        ``app.state.pool`` holds the open sessions (closed when the application shuts down).
    """
    check_db(db)
    if token is not None and not token.strip():
        from pybai.exceptions import InvalidParameterError

        raise InvalidParameterError("The 'token' parameter of pybai serve must not be empty.")
    pool = SessionPool(db)
    api = Api(pool, token)
    pages = Pages(pool)
    get, post = ["GET"], ["POST"]
    routes = [
        Route("/", api.endpoint(pages.index), methods=get),
        Route("/sessions", api.endpoint(api.list_sessions), methods=get),
        Route("/sessions/{name}", api.endpoint(pages.session), methods=get),
        Route("/sessions/{name}/ask", api.endpoint(api.ask, writes=True), methods=post),
        Route("/sessions/{name}/tell", api.endpoint(api.tell, writes=True), methods=post),
        Route("/sessions/{name}/cancel", api.endpoint(api.cancel, writes=True), methods=post),
        Route("/sessions/{name}/epsilon", api.endpoint(api.epsilon, writes=True), methods=post),
        Route("/sessions/{name}/status", api.endpoint(api.status), methods=get),
        Route("/sessions/{name}/history", api.endpoint(api.history), methods=get),
        Route("/sessions/{name}/export", api.endpoint(api.export), methods=get),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]

    @asynccontextmanager
    async def lifespan(app):
        try:
            yield
        finally:
            pool.close()

    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error}, lifespan=lifespan)
    app.state.pool = pool
    return app
