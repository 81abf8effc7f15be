"""Every example of README.md and docs/*.md runs and prints what the page shows.

Each page runs in its own process through the docs runner (``python -m tests.docs.run_markdown``);
a difference fails with a diff.  After a change of what the code prints, regenerate the shown
outputs with ``.venv/bin/python -m tests.docs.run_markdown --slow --update README.md docs/*.md``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from markdown_blocks import parse_blocks  # rootdir-relative import of this folder (no __init__)
from output_match import matches, merge

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _runnable(page: Path) -> tuple[bool, bool]:
    """Whether the page has blocks that run, and whether some of them are slow."""
    _, blocks = parse_blocks(page.read_text(encoding="utf-8"))
    run = [b for b in blocks if b.kind != "shown" and "skip" not in b.markers]
    return bool(run), any("slow" in b.markers for b in run)


def _params():
    for page in PAGES:
        runs, slow = _runnable(page)
        if not runs:
            continue
        name = page.relative_to(ROOT).as_posix()
        yield pytest.param(name, False, id=name)
        if slow:
            yield pytest.param(name, True, id=name + "+slow", marks=pytest.mark.slow)


@pytest.mark.parametrize(("page", "slow"), list(_params()))
def test_page_prints_what_it_shows(page, slow):
    command = [sys.executable, "-m", "tests.docs.run_markdown", page] + (["--slow"] if slow else [])
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_page_parses_and_markers_are_known():
    for page in PAGES:
        parse_blocks(page.read_text(encoding="utf-8"))  # raises on an unknown keyword or a skip without reason


def test_ellipsis_markers():
    assert matches("a\n...\nd", "a\nb\nc\nd")
    assert matches("a\n...\nd", "a\nd")
    assert matches("took ... s", "took 1.2 s")
    assert not matches("took ... s", "took 1.2 ms")
    assert not matches("a\nb", "a\nc")
    assert matches("a  \n\n", "a")


def test_update_keeps_markers_and_changes_only_what_differs():
    shown = "header\nat ...\nrow 1\n...\nlast 9\nend"
    printed = "header\nat 12:00\nrow 1\nrow 2\nrow 3\nlast 7\nend"
    assert merge(shown, printed) == ["header", "at ...", "row 1", "...", "last 7", "end"]
    assert matches("\n".join(merge(shown, printed)), printed)


def test_update_does_not_let_an_ellipsis_swallow_a_line_that_still_matches():
    shown = "session\n...\ncertified: yes"
    printed = "session\nstrategy\nstatus\ncertified: yes\nrecommendation\narm 0\narm 1"
    assert merge(shown, printed) == ["session", "...", "certified: yes", "recommendation", "arm 0", "arm 1"]
