"""Credentials never printed: :func:`mask_credentials` hides passwords in any text pybai shows.

Every message of a :class:`~pybai.exceptions.PybaiError` passes through it (its ``str``), as do
the command line's hints and notes, the server's answers, dashboard pages and log lines, so a
database URL with a password (``postgresql://user:PASSWORD@host/db``) or a ``password=`` option
is shown as ``postgresql://user:***@host/db`` wherever it is repeated.
"""

from __future__ import annotations

import re

__all__ = ["mask_credentials", "MASK"]

#: What a password is replaced with.
MASK = "***"

#: ``scheme://user:password@``: the password runs to the last ``@`` before a space (a password holding
#: ``@`` or ``/`` unescaped is still hidden whole; at worst some of the host is hidden with it)
_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:)(?P<secret>\S*)@")
#: ``password=...`` in a URL's query or a libpq keyword string
_OPTION_PASSWORD = re.compile(r"(?P<head>\b(?:password|passwd|pwd|token|secret)=)(?P<secret>[^&\s;,'\"]*)",
                              re.IGNORECASE)


def mask_credentials(text) -> str:
    """``text`` with every password of a URL (``scheme://user:PASSWORD@``) and every
    ``password=VALUE`` option replaced by ``***``.

    Parameters
    ----------
    text : str or object
        Any message (converted with ``str``).

    Returns
    -------
    str

    Examples
    --------
    >>> mask_credentials("cannot connect to postgresql://ann:s3cr@t@db.example:5432/lab")
    'cannot connect to postgresql://ann:***@db.example:5432/lab'
    >>> mask_credentials("postgresql://ann@db/lab?password=s3cret&sslmode=require")
    'postgresql://ann@db/lab?password=***&sslmode=require'
    >>> mask_credentials("http://127.0.0.1:8000/sessions")
    'http://127.0.0.1:8000/sessions'
    """
    text = str(text)
    if "://" not in text and "=" not in text:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{MASK}@" if m["secret"] != MASK else m[0], text)
    return _OPTION_PASSWORD.sub(lambda m: f"{m['head']}{MASK}" if m["secret"] else m[0], text)
