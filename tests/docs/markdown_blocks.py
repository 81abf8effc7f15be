"""The fenced blocks of a markdown page, with the markers that tell the docs runner what to do.

A marker is an HTML comment on the nearest non-blank line above a fence (GitHub and the Sphinx
site do not show it):

``<!-- docs-test: output -->``
    this block is the printed output of the previous executed block (compared, and rewritten by
    ``--update``);
``<!-- docs-test: slow -->``
    run only in the slow set (``python -m tests.docs.run_markdown --slow``, ``pytest -m slow``);
``<!-- docs-test: skip: REASON -->``
    never run; the reason is required (e.g. the recorded output of a run of several hours, with its
    command and date beside it);
``<!-- docs-test: background, wait-for URL -->``
    a console block whose commands are started in the background (a server) and stopped when the
    page ends; the next block runs once URL answers;
``<!-- docs-test: figure FILE PAGE-RELATIVE-PATH -->``
    after the block, ``--update`` copies the FILE it wrote (in the scratch folder) to the path,
    relative to the page's folder, where the page shows it as an image (a check compares nothing:
    figures differ in their bytes from one matplotlib to another).

Several keywords may share one comment, separated by commas.  What runs without a marker:
``console`` blocks (``$ `` commands and their output), ``python`` blocks with ``>>>`` (doctest) and
other ``python`` blocks (executed in one namespace per page, their output not compared unless an
``output`` block follows).  Other languages (``bash``, ``toml``, ``text``, ...) are shown, not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
KEYWORDS = ("output", "slow", "skip", "background", "wait-for", "figure")


@dataclass
class Block:
    """One fenced block: its language, body lines and where they sit in the page."""

    language: str
    lines: list[str]
    start: int  #: index of the first body line in the page's lines
    end: int  #: index of the closing fence
    indent: str = ""
    markers: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.lines else "")

    @property
    def kind(self) -> str:
        """``console``, ``doctest``, ``python``, ``output`` or ``shown`` (not run)."""
        if "output" in self.markers:
            return "output"
        if self.language == "console":
            return "console"
        if self.language in ("python", "py", "pycon"):
            return "doctest" if any(line.lstrip().startswith(">>>") for line in self.lines) else "python"
        return "shown"


def parse_marker(text: str) -> dict[str, str]:
    """The keywords of one marker comment, e.g. ``{"skip": "needs a GPU"}``; ValueError if unknown."""
    found: dict[str, str] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, _, value = part.partition(":") if part.startswith("skip") else part.partition(" ")
        key = key.strip()
        if key not in KEYWORDS:
            raise ValueError(f"unknown docs-test keyword {key!r} (known: {', '.join(KEYWORDS)})")
        if key == "skip" and not value.strip():
            raise ValueError("docs-test: skip needs a reason: <!-- docs-test: skip: REASON -->")
        found[key] = value.strip()
    return found


def parse_blocks(text: str) -> tuple[list[str], list[Block]]:
    """The page's lines and its fenced blocks, in order, with their markers."""
    lines = text.split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match or match.group("info").strip().startswith("{"):  # myst directives are not code
            if match:
                i = _closing(lines, i, match) + 1
            else:
                i += 1
            continue
        end = _closing(lines, i, match)
        language = match.group("info").strip().split(" ")[0].lower()
        indent = match.group("indent")
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        blocks.append(Block(language, body, i + 1, end, indent, _markers_above(lines, i)))
        i = end + 1
    return lines, blocks


def _closing(lines: list[str], i: int, match: re.Match) -> int:
    fence = match.group("fence")
    for j in range(i + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            return j
    raise ValueError(f"line {i + 1}: a fence that is never closed")


def _markers_above(lines: list[str], i: int) -> dict[str, str]:
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    found: dict[str, str] = {}
    while j >= 0 and MARKER.match(lines[j]):
        try:
            found.update(parse_marker(MARKER.match(lines[j]).group("body")))
        except ValueError as error:
            raise ValueError(f"line {j + 1}: {error}") from None
        j -= 1
    return found
