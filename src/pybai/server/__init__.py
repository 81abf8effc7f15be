"""``pybai serve``: sessions over HTTP (ask, tell, cancel, status, export) and a live dashboard.

>>> from pybai.server import create_app
>>> # uvicorn.run(create_app("sessions/"), host="127.0.0.1", port=8000)

Modules: :mod:`~pybai.server.sessions` (which sessions a ``--db`` holds and how one is
opened), :mod:`~pybai.server.pool` (open sessions, one worker thread each),
:mod:`~pybai.server.errors` (library errors as HTTP status codes),
:mod:`~pybai.server.routes` (the API), :mod:`~pybai.server.dashboard` (the pages) and
:mod:`~pybai.server.app` (the Starlette application).  See ``docs/sessions.md``,
"Sessions as a service".
"""

from pybai.server.app import create_app

__all__ = ["create_app"]
