"""A new session's definition: the session file a :meth:`pybai.session.Session.create` call describes.

:func:`session_spec` merges a session file (or a problem and a strategy) with the arguments of
``create`` (seed, name, labels, ``max_pending``, ``expire_after``), checks it as a session file
and gives the parsed specification, whose ``document`` is what the database stores.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pybai._validation import check_int
from pybai.config.experiment import read_document
from pybai.config.learner import SessionSpec, parse_session_file, session_document
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.naming import check_session_name

__all__ = ["SESSION_THRESHOLD", "session_spec"]

#: The threshold of a session whose strategy does not choose one (``pybai run`` keeps the papers'
#: heuristic): proven delta-correct, so that a stop certifies the answer.
SESSION_THRESHOLD = "delta-correct"


def session_spec(file=None, *, problem=None, strategy=None, seed=None, name=None, labels=None, max_pending=None,
                 expire_after=None) -> SessionSpec:
    """The checked specification of a new session (the parameters of :meth:`pybai.session.Session.create`).

    Numbers may be numpy numbers (``np.int64(3)``); the seed is an int in [0, 2^63 - 1]; the
    name must be a session name (:func:`pybai.naming.check_session_name`); an unchosen
    fixed-confidence threshold becomes :data:`SESSION_THRESHOLD`, written into the document.
    """
    if seed is not None:
        seed = check_int(seed, "seed", "Session.create", 0)
    if file is not None:
        if problem is not None or strategy is not None:
            raise InvalidParameterError("Session.create takes a session file or problem and strategy, not both.")
        document = dict(file) if isinstance(file, dict) else read_document(file)
        default = "session" if isinstance(file, dict) else Path(file).stem
        if seed is not None:
            document["seed"] = int(seed)
        if name is not None:
            document["name"] = name
    else:
        if problem is None or strategy is None:
            raise InvalidParameterError("Session.create needs a session file, or both a problem and a strategy.")
        document = session_document(problem, strategy, name=name or "session", seed=int(seed or 0))
        default = "session"
    if labels is not None:
        document["environment"] = {**document.get("environment", {}), "labels": labels}
    for key, value in (("max_pending", max_pending), ("expire_after", expire_after)):
        if value is not None:
            document["session"] = {**document.get("session", {}), key: value}
    try:  # numpy numbers (np.int64(3) for max_pending) are numbers: written as plain ones
        document = json.loads(json.dumps(document, allow_nan=False, default=_plain_number))
    except (TypeError, ValueError):
        raise ConfigError(f"session file: {_unplain(document) or 'a value'}: expected a string, number, boolean, "
                          "array or table (no dates, times or non-finite numbers).") from None
    # sessions certify: an unchosen fixed-confidence threshold (None) is the proven one, written into the stored
    # file so that replay never depends on a default (databases without the key keep theirs); one parse
    spec = parse_session_file(document, default_name=default, unchosen_threshold=SESSION_THRESHOLD)
    check_session_name(spec.name, "Session.create")
    return spec


def _unplain(node, path: str = "") -> str | None:
    """The dotted path of the first value JSON cannot write (a date, a time, NaN, an object), or None."""
    if isinstance(node, dict):
        items = [(f"{path}.{key}" if path else str(key), value) for key, value in node.items()]
    elif isinstance(node, (list, tuple)):
        items = [(f"{path}[{i}]", value) for i, value in enumerate(node)]
    else:
        try:
            json.dumps(node, allow_nan=False, default=_plain_number)
        except (TypeError, ValueError):
            return path or "the document"
        return None
    for where, value in items:
        found = _unplain(value, where)
        if found:
            return found
    return None


def _plain_number(value):
    """A numpy number or array as the plain Python value JSON writes (``json.dumps(default=...)``)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(type(value).__name__)
