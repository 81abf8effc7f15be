"""The status document of a session: what ``pybai session status --json`` prints and ``pybai serve`` sends.

One function builds it (:func:`status_document`), so the command line and the HTTP API
(``GET /sessions/{name}/status``) give the same keys and the same numbers.
"""

from __future__ import annotations

__all__ = ["status_document", "rounded"]


def rounded(value, digits: int = 6):
    """``value`` with every float to ``digits`` significant figures, for people reading the status
    document (exact values: ``Session.status()`` in Python, every reward: ``pybai session export``).

    >>> rounded({"means": [0.5424650032215891, 2.0], "samples": 576, "statistic": 2.7995073769955057})
    {'means': [0.542465, 2.0], 'samples': 576, 'statistic': 2.79951}
    """
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value


def status_document(session, status: dict | None = None) -> dict:
    """The status document of ``session``: :meth:`Session.status` with numbers to 6 significant figures.

    Parameters
    ----------
    session : Session
    status : dict, optional
        ``session.status()`` when the caller has it already.

    Returns
    -------
    dict
        JSON-safe (non-finite numbers are null).
    """
    return rounded(session.status() if status is None else status)
