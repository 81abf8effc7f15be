"""The HTTP API of ``pybai serve``: ask, tell, cancel, status, history and export of a named session.

| route | body | answer |
| --- | --- | --- |
| ``GET /sessions`` | | ``{"sessions": [{"name", "status", "dashboard"}]}`` (links null for a name no address reaches) |
| ``POST /sessions/{name}/ask`` | none, or ``{}`` | ``{"request", "size", "sources", "rows"}`` |
| ``POST /sessions/{name}/tell`` | ``{"request", "sources", "rewards"}`` | ``{"request", "stored", "pending", "samples", "status", "stopped"}`` |
| ``POST /sessions/{name}/cancel`` | ``{"request"}`` | ``{"request", "withdrawn"}`` (``Session.cancel``) |
| ``POST /sessions/{name}/epsilon`` | ``{"epsilon"[, "epsilon_mode"]}`` | the status document after ``Session.set_epsilon`` |
| ``GET /sessions/{name}/status`` | | the document of ``pybai session status --json`` |
| ``GET /sessions/{name}/history`` | | samples per source after the answers (thinned; the dashboard's figure) |
| ``GET /sessions/{name}/export`` | | every observation as CSV (``pybai session export``) |

Writes (the ``POST`` routes) need ``Authorization: Bearer TOKEN`` when the server has a token;
reads stay open.  Errors: :mod:`pybai.server.errors`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from pybai._validation import check_int, is_finite_number, show_value
from pybai.exceptions import PybaiError
from pybai.server.errors import BadRequest, BodyTooLarge, error_response, status_of
from pybai.server.pool import Served, SessionPool
from pybai.server.sessions import session_links
from pybai.session.document import status_document
from pybai.session.rows import write_csv

__all__ = ["Api"]

Handler = Callable[[Request], Awaitable[Response]]


#: the largest request body read (bytes); a larger one is refused with 413 before it is read whole
MAX_BODY = 16 * 2**20


async def _read(request: Request, route: str) -> bytes:
    """The request body, refused (:class:`BodyTooLarge`) once it passes :data:`MAX_BODY` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise BodyTooLarge(f"the body of {route} is {int(declared)} bytes; at most {MAX_BODY} are read.")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BodyTooLarge(f"the body of {route} is larger than {MAX_BODY} bytes, the most that is read.")
        chunks.append(chunk)
    return b"".join(chunks)


class _DuplicateKey(Exception):
    """A JSON object that names a key twice (``json.loads`` would keep the last value without a word)."""


def _unique_keys(pairs: list) -> dict:
    """``object_pairs_hook`` of the body reader: a dict, refusing a key given twice at any depth."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(repr(key))
        out[key] = value
    return out


def _body(raw: bytes, route: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """The JSON object of a request body, with its ``required`` keys and maybe ``optional`` ones
    (one :class:`BadRequest` line otherwise)."""
    if not raw.strip():
        body = {}
    else:
        try:
            body = json.loads(raw, object_pairs_hook=_unique_keys)
        except _DuplicateKey as exc:
            raise BadRequest(f"the body of {route} gives the key {exc} twice; give each key once.") from None
        except (ValueError, RecursionError) as exc:
            raise BadRequest(f"the body of {route} must be a JSON object ({exc}).") from None
    if not isinstance(body, dict):
        raise BadRequest(f"the body of {route} must be a JSON object. Got {type(body).__name__}.")
    missing = [key for key in required if key not in body]
    if missing:
        raise BadRequest(f"the body of {route} needs the key(s) {', '.join(missing)}; keys: {', '.join(required)}.")
    extra = sorted(set(body) - set(required) - set(optional))
    if extra:
        raise BadRequest(f"the body of {route} has unknown key(s) {', '.join(extra)}; keys: "
                         f"{', '.join(required + optional)}.")
    return body


def _request_id(value, route: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"The 'request' field of {route} must be an int (a request number). Got {show_value(value)}.")
    return check_int(value, "request", route)


class Api:
    """The API routes over a :class:`SessionPool`; ``token`` guards the writes when given."""

    def __init__(self, pool: SessionPool, token: str | None = None):
        self.pool = pool
        self.token = token

    # ------------------------------------------------------------ plumbing
    def _authorized(self, request: Request) -> Response | None:
        """None when the request may write, else the 401/403 answer."""
        if self.token is None:
            return None
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if not header:
            return error_response(401, "this server needs a token to write: send 'Authorization: Bearer TOKEN'.",
                                  {"WWW-Authenticate": 'Bearer realm="pybai"'})
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            return error_response(403, "wrong token: this server refuses writes with it.")
        return None

    def endpoint(self, handler: Handler, writes: bool = False) -> Handler:
        """``handler`` with the token check (``writes``) and library errors as JSON answers."""

        async def guarded(request: Request) -> Response:
            if writes:
                refused = self._authorized(request)
                if refused is not None:
                    return refused
            try:
                return await handler(request)
            except PybaiError as exc:
                status = status_of(exc)
                return error_response(status, str(exc), {"Retry-After": "1"} if status == 503 else None)

        guarded.__name__ = handler.__name__
        return guarded

    # ------------------------------------------------------------ routes
    async def list_sessions(self, request: Request) -> Response:
        names = await asyncio.to_thread(self.pool.names)
        return JSONResponse({"sessions": [{"name": n, **session_links(n)} for n in names]})

    async def ask(self, request: Request) -> Response:
        _body(await _read(request, "ask"), "ask", ())

        def work(served: Served) -> dict:
            asked = served.session.ask()
            return {"request": asked.id, "size": len(asked), "sources": asked.requests.tolist(), "rows": asked.rows}

        return JSONResponse(await self.pool.call(request.path_params["name"], work))

    async def tell(self, request: Request) -> Response:
        body = _body(await _read(request, "tell"), "tell", ("request", "sources", "rewards"))
        rid = _request_id(body["request"], "tell")

        def work(served: Served) -> dict:
            receipt = served.session.tell(rid, body["sources"], body["rewards"])
            return {**asdict(receipt), "stopped": receipt.stopped}

        return JSONResponse(await self.pool.call(request.path_params["name"], work))

    async def cancel(self, request: Request) -> Response:
        body = _body(await _read(request, "cancel"), "cancel", ("request",))
        rid = _request_id(body["request"], "cancel")

        def work(served: Served):
            return {"request": rid, "withdrawn": int(served.session.cancel(rid))}

        return JSONResponse(await self.pool.call(request.path_params["name"], work))

    async def epsilon(self, request: Request) -> Response:
        body = _body(await _read(request, "epsilon"), "epsilon", ("epsilon",), ("epsilon_mode",))
        value, mode = body["epsilon"], body.get("epsilon_mode", "additive")
        if not is_finite_number(value) or not isinstance(mode, str):
            raise BadRequest(f"The 'epsilon' field of epsilon must be a finite number > 0 and 'epsilon_mode' a string. "
                             f"Got {show_value(value)} and {show_value(mode)}.")

        def work(served: Served):
            served.session.set_epsilon(float(value), mode)
            return status_document(served.session)

        return JSONResponse(await self.pool.call(request.path_params["name"], work))

    async def status(self, request: Request) -> Response:
        document = await self.pool.call(request.path_params["name"], lambda served: status_document(served.session))
        return JSONResponse(document)

    async def history(self, request: Request) -> Response:
        def work(served: Served) -> dict:
            timeline = served.timeline()
            return {"shape": list(served.session.problem.source_shape), **timeline.document()}

        return JSONResponse(await self.pool.call(request.path_params["name"], work))

    async def export(self, request: Request) -> Response:
        def work(served: Served) -> str:
            session = served.session
            return write_csv(session.layout.export_columns, session.observations())

        name = request.path_params["name"]
        text = await self.pool.call(name, work)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "session"
        return PlainTextResponse(text, media_type="text/csv; charset=utf-8",
                                 headers={"Content-Disposition": f'attachment; filename="{safe}.csv"'})
