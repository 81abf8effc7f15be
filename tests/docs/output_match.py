"""Compare printed output with the output a page shows, and merge the two when it has changed.

The shown output may stand for text that legitimately varies (times, paths, dates, thread
interleavings) with ``...``: inside a line it matches any text on that line; a line that is only
``...`` matches any number of lines (none included).  Trailing spaces and trailing blank lines
are ignored.

:func:`merge` aligns the shown lines with the printed ones (a minimum edit alignment in which a
shown line matches a printed one when its pattern does, and a ``...`` line absorbs any run of
printed lines) and keeps every shown line that still matches, markers included, replacing only
what changed.  So ``--update`` rewrites numbers and keeps the ``...`` an author put in.
"""

from __future__ import annotations

import re
from functools import lru_cache

ELLIPSIS = "..."


def normalise(text: str) -> list[str]:
    """Lines without trailing spaces, without leading and trailing blank lines."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


@lru_cache(maxsize=4096)
def _pattern(shown: str) -> re.Pattern:
    return re.compile("[^\n]*?".join(re.escape(part) for part in shown.split(ELLIPSIS)) + r"\Z")


def line_matches(shown: str, printed: str) -> bool:
    return shown == printed or (ELLIPSIS in shown and _pattern(shown).match(printed) is not None)


ABSORB = 1.0 - 1e-3  # a "..." line taking one more printed line: just cheaper than inserting it
REPLACE = 1.0 + 1e-3  # a shown line printed differently: just dearer than an insertion alone


def _align(shown: list[str], printed: list[str]) -> list[tuple[str, int, int]]:
    """Minimum-cost alignment: a list of (move, shown index, printed index) moves.

    Matching lines cost nothing; inserting a printed line or dropping a shown one costs 1,
    replacing a shown line by a printed one slightly more, and a ``...`` line absorbs printed lines
    at slightly less than inserting them, so the alignment keeps the shown lines that still match
    rather than letting a ``...`` swallow them.
    """
    n, m = len(shown), len(printed)
    inf = float(n + m + 1) * 2
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    cost[n][m] = 0.0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            best = inf
            if i < n and shown[i] == ELLIPSIS:
                best = min(best, cost[i + 1][j])
                if j < m:
                    best = min(best, cost[i][j + 1] + ABSORB)
            if i < n and j < m and line_matches(shown[i], printed[j]):
                best = min(best, cost[i + 1][j + 1])
            if i < n and j < m:
                best = min(best, cost[i + 1][j + 1] + REPLACE)
            if i < n:
                best = min(best, cost[i + 1][j] + 1)
            if j < m:
                best = min(best, cost[i][j + 1] + 1)
            cost[i][j] = best
    moves, i, j = [], 0, 0
    close = lambda a, b: abs(a - b) < 1e-9  # noqa: E731
    while (i, j) != (n, m):
        here = cost[i][j]
        if i < n and j < m and line_matches(shown[i], printed[j]) and close(cost[i + 1][j + 1], here):
            moves.append(("match", i, j))
            i, j = i + 1, j + 1
        elif i < n and shown[i] == ELLIPSIS and j < m and close(cost[i][j + 1] + ABSORB, here):
            moves.append(("absorb", i, j))
            j += 1
        elif i < n and shown[i] == ELLIPSIS and close(cost[i + 1][j], here):
            moves.append(("ellipsis", i, j))
            i += 1
        elif i < n and j < m and close(cost[i + 1][j + 1] + REPLACE, here):
            moves.append(("replace", i, j))
            i, j = i + 1, j + 1
        elif i < n and close(cost[i + 1][j] + 1, here):
            moves.append(("drop", i, j))
            i += 1
        else:
            moves.append(("insert", i, j))
            j += 1
    return moves


def _block_pattern(shown: list[str]) -> re.Pattern:
    parts = []
    for line in shown:
        if line == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*?".join(re.escape(part) for part in line.split(ELLIPSIS)) + r"\n")
    return re.compile("".join(parts) + r"\Z")


def matches(shown: str, printed: str) -> bool:
    """Whether the printed output is what the page shows (markers applied)."""
    shown_lines, printed_lines = normalise(shown), normalise(printed)
    if shown_lines == printed_lines:
        return True
    text = "".join(line + "\n" for line in printed_lines)
    return _block_pattern(shown_lines).match(text) is not None


def merge(shown: str, printed: str) -> list[str]:
    """The shown output updated to the printed one, keeping every shown line that still matches."""
    shown_lines, printed_lines = normalise(shown), normalise(printed)
    result: list[str] = []
    for move, i, j in _align(shown_lines, printed_lines):
        if move == "match":
            result.append(shown_lines[i])
        elif move == "ellipsis":
            result.append(ELLIPSIS)
        elif move in ("insert", "replace"):
            result.append(printed_lines[j])
    return result
