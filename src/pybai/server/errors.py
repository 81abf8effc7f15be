"""Library errors as HTTP answers: the same one-line message, as ``{"error": "..."}``, with a status code.

| error | status |
| --- | --- |
| a body or parameter that does not read (:class:`BadRequest`, :class:`~pybai.exceptions.InvalidParameterError`) | 400 |
| a body larger than 16 MiB (:class:`BodyTooLarge`) | 413 |
| a ``tell`` the pending request refuses (sources not requested, rewards outside the support) | 400 |
| no write token / a wrong one (``pybai serve --token``) | 401 / 403 |
| an unknown session, an unknown request | 404 |
| a request already answered, a stopped session, nothing asked yet; any other state refusal | 409 |
| an answer to a request that was cancelled or expired | 410 |
| the database server cannot be reached (restarting; nothing was recorded, try again) | 503 |
| a damaged database | 500 |
"""

from __future__ import annotations

import re

from starlette.responses import JSONResponse

from pybai._secrets import mask_credentials
from pybai.exceptions import InvalidParameterError, PybaiError, RequestError, SessionStateError, StorageUnavailableError
from pybai.server.sessions import UnknownSessionError

__all__ = ["BadRequest", "BodyTooLarge", "status_of", "error_response"]

_UNKNOWN_REQUEST = re.compile(r"\brequest -?\d+ does not exist\b")
_WITHDRAWN = re.compile(r"\brequest -?\d+ was (cancelled|expired)\b")


class BadRequest(InvalidParameterError):
    """A request body or query parameter that does not read (HTTP 400)."""


class BodyTooLarge(BadRequest):
    """A request body past the size the server reads (HTTP 413)."""


def status_of(exc: PybaiError) -> int:
    """The HTTP status code of a library error (the table of this module)."""
    message = str(exc)
    if isinstance(exc, UnknownSessionError):
        return 404
    if isinstance(exc, StorageUnavailableError):
        return 503
    if isinstance(exc, BodyTooLarge):
        return 413
    if isinstance(exc, (RequestError, SessionStateError)) and _UNKNOWN_REQUEST.search(message):
        return 404
    if isinstance(exc, RequestError) and _WITHDRAWN.search(message):
        return 410
    if isinstance(exc, RequestError):
        return 409 if "already answered" in message else 400
    if isinstance(exc, InvalidParameterError):
        return 400
    if isinstance(exc, SessionStateError):
        return 500 if "database is damaged" in message else 409
    return 500


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": message}`` (one line) with ``status``."""
    return JSONResponse({"error": " ".join(mask_credentials(message).split())}, status_code=status, headers=headers)
