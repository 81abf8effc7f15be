"""Indented JSON text, character for character that of ``json.dumps(obj, indent=...)``, fast on long
lists of numbers: :func:`dumps_indented`.

With ``indent`` set, the standard library encodes in pure Python, one generator step per value:
a result document holding the mean allocation over 522,062 arms of four strategies (the Twitter
top-k reproduction) took seconds of CPU to write.  Here the containers are walked the same way,
but a list of plain numbers (``int``, ``float``, ``bool``, ``None``) is encoded at once by the C
encoder (compact, ``", "`` between items, which no number's text contains) and its items put one
per line, as the indented encoder puts them.  Everything else (strings, keys, other values) is
encoded by :func:`json.dumps` itself, so the text is the same, ``NaN`` and ``Infinity`` included.
"""

from __future__ import annotations

import json

__all__ = ["dumps_indented"]

_NUMBERS = (int, float, bool, type(None))


def dumps_indented(obj, indent: int = 2) -> str:
    """``json.dumps(obj, indent=indent)``, the same text (tested against it), faster on long lists of numbers.

    Parameters
    ----------
    obj : JSON-serialisable value (dicts, lists, tuples, str, int, float, bool, None)
    indent : int, default 2
        Spaces per level.

    Returns
    -------
    str

    Examples
    --------
    >>> print(dumps_indented({"a": [1, 2.5], "b": {}}))
    {
      "a": [
        1,
        2.5
      ],
      "b": {}
    }
    """
    parts: list[str] = []
    _encode(obj, 0, " " * int(indent), parts)
    return "".join(parts)


def _key(key) -> str:
    """A dict key as the encoder writes it (str as is; numbers, bools and None as their JSON text)."""
    if isinstance(key, str):
        return json.dumps(key)
    if isinstance(key, (bool, type(None), int, float)):
        return json.dumps(json.dumps(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _encode(obj, level: int, pad: str, parts: list[str]) -> None:
    if isinstance(obj, (list, tuple)):
        if not obj:
            parts.append("[]")
            return
        inner = "\n" + pad * (level + 1)
        parts.append("[" + inner)
        if all(type(x) in _NUMBERS for x in obj):
            parts.append(("," + inner).join(json.dumps(list(obj))[1:-1].split(", ")))
        else:
            for i, value in enumerate(obj):
                if i:
                    parts.append("," + inner)
                _encode(value, level + 1, pad, parts)
        parts.append("\n" + pad * level + "]")
    elif isinstance(obj, dict):
        if not obj:
            parts.append("{}")
            return
        inner = "\n" + pad * (level + 1)
        parts.append("{" + inner)
        for i, (key, value) in enumerate(obj.items()):
            if i:
                parts.append("," + inner)
            parts.append(_key(key) + ": ")
            _encode(value, level + 1, pad, parts)
        parts.append("\n" + pad * level + "}")
    else:
        parts.append(json.dumps(obj))
