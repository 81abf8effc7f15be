"""Writing a parsed experiment or session file (a dict) back as TOML, for tests that drive the command line.

Scalars, arrays (nested too), tables one level deep under the top (``[problem.batch]``) and arrays of
tables (``[[strategy]]``, ``[[problem.metric]]``); non-finite floats as TOML's ``nan`` and ``inf``.
"""

from __future__ import annotations


def _value(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return repr(v)


def _tables(v) -> bool:
    """Whether ``v`` is an array of tables (a non-empty list of dicts)."""
    return isinstance(v, list) and bool(v) and isinstance(v[0], dict)


def write_toml(path, doc: dict) -> None:
    """Write ``doc`` to ``path`` as TOML."""
    lines = []
    for key, v in doc.items():
        if not isinstance(v, (dict, list)) or (isinstance(v, list) and v and not isinstance(v[0], dict)):
            lines.append(f"{key} = {_value(v)}")
    for key, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {_value(x)}" for k, x in v.items() if not isinstance(x, dict) and not _tables(x)]
            for k, x in v.items():
                if isinstance(x, dict):
                    lines.append(f"[{key}.{k}]")
                    lines += [f"{kk} = {_value(xx)}" for kk, xx in x.items()]
                elif _tables(x):
                    for entry in x:
                        lines.append(f"[[{key}.{k}]]")
                        lines += [f"{kk} = {_value(xx)}" for kk, xx in entry.items()]
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for entry in v:
                lines.append(f"[[{key}]]")
                lines += [f"{k} = {_value(x)}" for k, x in entry.items()]
    path.write_text("\n".join(lines) + "\n")
