"""One self-contained HTML page from headings, paragraphs, tables and matplotlib figures.

The same renderer serves experiment reports (``pybai report``) and session reports
(``pybai session report``): callers build a list of blocks and write them once.  Figures are
embedded as base64 PNG, so the page is a single file that can be mailed or archived.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.plot([0, 1], [0, 1])
>>> page = HtmlReport("demo")
>>> _ = page.heading("Results").paragraph("a < b").table(["strategy", "samples"], [["tas", 812.4]])
>>> _ = page.figure(fig, caption="a line")
>>> html = page.render()
>>> html.count("<img"), "a &lt; b" in html, "data:image/png;base64," in html
(1, True, True)
>>> plt.close(fig)
"""

from __future__ import annotations

import base64
import html
import io
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from pybai._version import __version__
from pybai.report.intervals import format_number

__all__ = ["HtmlReport", "figure_png"]

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
h1 { border-bottom: 2px solid #4878a8; padding-bottom: .2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; } td { white-space: nowrap; }
th { background: #eef3f8; } td:first-child, th:first-child, td.text { text-align: left; }
figure { margin: 1.5em 0; } figcaption { color: #555; font-size: .9em; }
img { max-width: 100%; } footer { color: #888; font-size: .8em; margin-top: 3em; }
ul.summary { background: #eef3f8; border-left: 4px solid #4878a8; padding: .6em 1em .6em 2em; }
ul.summary li { margin: .2em 0; } ul.agreement { border-left: 4px solid #c44e52; padding-left: 2em; }
p.quick { font-weight: 600; }
"""


def figure_png(fig, dpi: int = 110) -> bytes:
    """The PNG bytes of a matplotlib figure (tight bounding box, so no label is clipped)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def _cell(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = format_number(value)
    else:
        text = "" if value is None else str(value)
    return html.escape(text)


_NUMERIC = re.compile(r"[-+0-9.,e ±\[\]%]*")


def _align(value) -> str:
    return ' class="text"' if isinstance(value, str) and not _NUMERIC.fullmatch(value) else ""


class HtmlReport:
    """A page under construction; each method appends a block and returns the report."""

    def __init__(self, title: str):
        self.title = str(title)
        self._blocks: list[str] = []

    def heading(self, text: str, level: int = 2) -> "HtmlReport":
        level = min(max(int(level), 1), 6)
        self._blocks.append(f"<h{level}>{html.escape(str(text))}</h{level}>")
        return self

    def paragraph(self, text: str) -> "HtmlReport":
        self._blocks.append(f"<p>{html.escape(str(text))}</p>")
        return self

    def bullets(self, items, css: str = "") -> "HtmlReport":
        """A list of sentences (``css``: a class for the list, e.g. ``"summary"``)."""
        cls = f' class="{html.escape(css)}"' if css else ""
        self._blocks.append(f"<ul{cls}>" + "".join(f"<li>{html.escape(str(i))}</li>" for i in items) + "</ul>")
        return self

    def table(self, header, rows) -> "HtmlReport":
        """A table; cells of words are aligned left, numbers (and ``value ± half-width``) right."""
        head = "".join(f"<th>{_cell(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td{_align(v)}>{_cell(v)}</td>" for v in row) + "</tr>" for row in rows)
        self._blocks.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        return self

    def figure(self, fig_or_png, caption: str = "", alt: str | None = None) -> "HtmlReport":
        """Embed a matplotlib figure, PNG bytes, or the path of a PNG file."""
        if isinstance(fig_or_png, (bytes, bytearray)):
            data = bytes(fig_or_png)
        elif isinstance(fig_or_png, (str, os.PathLike)):
            data = Path(fig_or_png).read_bytes()
        else:
            data = figure_png(fig_or_png)
        encoded = base64.b64encode(data).decode("ascii")
        alt_text = html.escape(alt if alt is not None else caption or "figure")
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self._blocks.append(f'<figure><img alt="{alt_text}" src="data:image/png;base64,{encoded}">{cap}</figure>')
        return self

    def render(self) -> str:
        """The whole page as a string."""
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        title = html.escape(self.title)
        return (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{title}</h1>\n"
            + "\n".join(self._blocks)
            + f"\n<footer>pybai {__version__}, {stamp}</footer></body></html>\n"
        )

    def write(self, path) -> Path:
        """Write the page (:func:`pybai._output.write_output`: atomically, a device, FIFO or symbolic link
        written through) and return its path."""
        from pybai._output import write_output

        return write_output(path, self.render())
