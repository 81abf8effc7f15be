"""The report of stored experiments: tables beside the paper's numbers, figures as PNG, one HTML page.

:func:`write_report` takes, for each experiment file, its stored results (a
:class:`~pybai.report.figures.FigureData`) and its ``[reproduce]`` presentation, and writes into
``out``::

    report.html                 self-contained (figures embedded)
    figures/<file>-<n>-<kind>.png
    tables/<file>-summary.csv, tables/<file>-paper.csv, tables/<file>-<n>-<kind>.csv, tables/<file>--<variant>-versus.csv

It never runs a simulation (``pybai report DIR`` reads a store; ``pybai reproduce`` runs, then calls this).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from pybai._output import write_output
from pybai.report.agreement import paper_agreement
from pybai.report.figures import FIGURES, Estimate, FigureData, TableBlock, measured, same_value
from pybai.report.registry import column_label, default_columns, grid_label, metric_label, short_key
from pybai.report.verdict import summary_sentences
from pybai.report.html import HtmlReport
from pybai.report.intervals import ratio
from pybai.report.spec import VARIANT_SEPARATOR, FigureSpec, PaperTable, ReproduceSpec

__all__ = ["ReportPart", "ReportFiles", "write_report", "default_figures", "paper_comparison", "variant_comparison"]


@dataclass
class ReportPart:
    """One experiment file (or one of its variants) in a report: its data, presentation and where it came from.

    A variant's part names the file it varies (``variant_of``), the metrics to ``compare``
    with it and, when that file's store is in the report too, its data (``baseline``).
    """

    data: FigureData
    spec: ReproduceSpec | None = None
    heading: str = ""
    facts: list[str] = field(default_factory=list)
    variant_of: str | None = None
    compare: list[str] = field(default_factory=list)
    baseline: FigureData | None = None


@dataclass
class ReportFiles:
    html: Path
    figures: list[Path]
    tables: list[Path]


def default_figures(data: FigureData) -> list[FigureSpec]:
    """Figures for a file without ``[[reproduce.figure]]``: its main metric against the first grid key, else
    the allocation and the distribution of samples (fixed confidence) or of the recommendation (fixed budget).

    In fixed confidence, where the problem's complexity report gives them, the allocation is drawn
    beside the optimal proportions w*(mu) and the mean samples beside the lower bound
    T*(mu) kl(delta, 1 - delta).
    """
    metric = "correct_rate" if data.fixed_budget else "mean_samples"
    if data.grid_keys:
        return [FigureSpec("metric-vs-grid", {"x": data.grid_keys[0], "y": metric})]
    if data.fixed_budget:
        return [FigureSpec("allocation", {}), FigureSpec("histogram", {"y": "recommendation"})]
    report = data.complexity(data.points[0]) if data.points else {}
    optimal = {"reference": "optimal_weights", "reference_label": "w*(mu)"} if report.get("optimal_weights") else {}
    figures = [FigureSpec("allocation", optimal), FigureSpec("boxplot", {"y": "samples"})]
    if isinstance(report.get("lower_bound"), (int, float)) and math.isfinite(report["lower_bound"]):
        figures.append(FigureSpec("bars", {"y": "mean_samples", "hline": "lower_bound"}))
    return figures


#: what each kind of figure shows, for its caption when the file gives no title
CAPTIONS = {
    "allocation": "Mean fraction of the samples given to each arm (or cell), per strategy",
    "boxplot": "Distribution over the runs",
    "histogram": "Distribution over the runs",
    "bars": "Mean per strategy with its 95% interval",
    "metric-vs-grid": "Metric against the grid parameter, per strategy (95% intervals)",
}


def figure_caption(figure: FigureSpec, data: FigureData | None = None) -> str:
    """A figure's caption: its ``caption`` or ``title`` option, else what its kind shows (never a file name)."""
    options = figure.options
    label = (lambda k: metric_label(data, k)) if data is not None else column_label
    if options.get("caption") or options.get("title"):
        return str(options.get("caption") or options.get("title"))
    text = CAPTIONS.get(figure.kind, figure.kind.replace("-", " "))
    if figure.kind in ("boxplot", "histogram") and options.get("y"):
        text = f"{label(options['y']).capitalize()}: distribution over the runs"
    if figure.kind == "bars":
        text = f"{label(options.get('y', 'mean_samples')).capitalize()} per strategy (95% interval)"
        if options.get("hline"):
            text += f", beside the {column_label(str(options['hline']))}"
    if figure.kind == "allocation" and options.get("reference"):
        text += f", beside {options.get('reference_label', column_label(str(options['reference'])))}"
    return text + "."


def header_label(header: str, data: FigureData | None = None) -> str:
    """A table header for readers: ``mean_samples (paper)`` -> ``mean samples (paper)``; with ``data``, a
    derived metric in words and a grid key by its name (``size`` -> ``batch size b``)."""
    key, sep, rest = str(header).partition(" (")
    if data is not None:
        grid = next((k for k in data.grid_keys if key in (k, short_key(k))), None)
        label = grid_label(grid) if grid is not None else metric_label(data, key)
    else:
        label = column_label(key)
    return label + (sep + rest if sep else "")


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text).strip("-") or "experiment"


def _write_csv(path: Path, header, rows) -> Path:
    """CSV of a table; a column of :class:`Estimate` cells becomes three: value, low95, high95."""
    spread = [any(isinstance(row[i], Estimate) for row in rows) for i in range(len(header))]
    head = []
    for name, wide in zip(header, spread):
        head += [name, f"{name} low95", f"{name} high95"] if wide else [name]
    body = []
    for row in rows:
        line = []
        for cell, wide in zip(row, spread):
            if wide:
                line += [cell.value, cell.low, cell.high] if isinstance(cell, Estimate) else [cell, "", ""]
            else:
                line.append(cell)
        body.append(line)
    body = [[float(f"{v:.6g}") if isinstance(v, float) else v for v in line] for line in body]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(head)
    writer.writerows(body)
    write_output(path, buffer.getvalue())
    return path


def paper_comparison(data: FigureData, paper: PaperTable) -> TableBlock:
    """The paper's rows with the measured value beside each published one.

    Columns named ``strategy`` or after a grid key (dotted or its last segment) select the
    measured row (without a ``strategy`` column, the file's only strategy); a column of words (a
    published finding) is shown as it is; every other column
    is a metric (of the results, derived, or of the complexity report): ``<metric> (paper)`` and
    ``<metric> (pybai)``.
    """
    keys: list[tuple[str, str | None]] = []
    metrics: list[str] = []
    for i, column in enumerate(paper.columns):
        if column == "strategy" or all(isinstance(row[i], str) for row in paper.rows):
            keys.append((column, None))  # a label, or a published finding in words: shown as it is
            continue
        try:
            keys.append((column, data.key(column)))
        except KeyError:
            metrics.append(column)
    header = [c for c, _ in keys] + [f"{m} {who}" for m in metrics for who in ("(paper)", "(pybai)")]
    labels = data.strategies()
    only = labels[0] if len(labels) == 1 and "strategy" not in paper.columns else None
    rows = []
    for values in paper.rows:
        row = dict(zip(paper.columns, values))
        strategy = row.get("strategy", only)
        point = next((p for p in data.points
                      if all(same_value(p["grid"].get(k), row[c]) for c, k in keys if k is not None)), None)
        cells = [row[c] for c, _ in keys]
        for m in metrics:
            value = None if point is None or strategy is None else measured(data, point, strategy, m)
            cells += [row[m], "-" if value is None else value]
        rows.append(cells)
    note = paper.note.strip()
    caption = f"Published: {paper.source}." + (f" {note[0].upper() + note[1:]}" if note else "")
    caption += "" if caption.endswith(".") else "."
    return TableBlock(header, rows, caption + " pybai: mean ± 95% half-width, rates with their 95% Wilson interval,"
                      " from the stored replications.")


def _is_mean(value) -> bool:
    """A mean or a plain number (a ratio of rates is not shown: compare them side by side)."""
    if isinstance(value, Estimate):
        return value.kind == "mean"
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def variant_comparison(data: FigureData, baseline: FigureData, metrics: list[str], label: str) -> TableBlock:
    """A variant's metrics beside the file's own run, per (grid point, strategy) they share, with their ratio.

    Both ran the same seeded replications, so the ratio compares the two settings on the same
    truths and noise (its interval treats them as independent: conservative); rates are shown
    side by side without a ratio.
    """
    header = [short_key(k) for k in data.grid_keys] + ["strategy"]
    header += [f"{m} {who}" for m in metrics for who in (f"({baseline.name})", f"({label})", "ratio")]
    rows = []
    for point in data.points:
        other = next((p for p in baseline.points if p["grid"].keys() == point["grid"].keys()
                      and all(same_value(p["grid"][k], v) for k, v in point["grid"].items())), None)
        if other is None:
            continue
        for strategy in data.strategies():
            if data.result(point, strategy) is None or baseline.result(other, strategy) is None:
                continue
            cells = [point["grid"].get(k) for k in data.grid_keys] + [strategy]
            for metric in metrics:
                mine, theirs = measured(data, point, strategy, metric), measured(baseline, other, strategy, metric)
                cells += [theirs, mine, ratio(mine, theirs) if _is_mean(mine) and _is_mean(theirs) else None]
            rows.append(cells)
    return TableBlock(header, rows, f"{label} beside {baseline.name} (same seeded replications; ratio = "
                      f"{label} / {baseline.name}, 95% interval by the delta method).")


def _summary(data: FigureData) -> TableBlock:
    return FIGURES["table"].function(data, {"columns": default_columns(data)})


def _cells(rows):
    def cell(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "-"
        return str(v) if isinstance(v, Estimate) else v

    return [[cell(v) for v in row] for row in rows]


def write_report(parts: list[ReportPart], out: str | Path, title: str) -> ReportFiles:
    """Write the tables, figures and HTML page of ``parts`` into ``out``; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.html import figure_png

    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    page = HtmlReport(title)
    figures, tables = [], []
    agreements = [paper_agreement(part.data, part.spec.paper) if part.spec is not None and part.spec.paper else None
                  for part in parts]
    page.heading("Summary", 2)
    for part, agreement in zip(parts, agreements):
        lines = summary_sentences(part.data) + [fact.split(". ")[0] + "." for fact in part.facts
                                                if fact.startswith("Quick run")]
        if agreement is not None:
            lines += agreement.sentences()[:2]
        if len(parts) > 1:
            page.paragraph(part.heading or part.data.name)
        page.bullets(lines, "summary")
    for part, agreement in zip(parts, agreements):
        data, spec = part.data, part.spec
        slug = _slug(data.name)
        heading = part.heading or data.name
        if len(parts) > 1 or heading != title:  # a one-part report: the page title is its heading
            page.heading(heading, 2)
        if spec is not None and spec.description:
            page.paragraph(spec.description)
        for fact in part.facts:
            page.paragraph(fact)
        summary = _summary(data)
        tables.append(_write_csv(out / "tables" / f"{slug}-summary.csv", summary.header, summary.rows))
        page.heading("Measured (means ± 95% half-width; rates [95% interval])", 3).table(
            [header_label(h, data) for h in summary.header], _cells(summary.rows))
        if spec is not None and spec.paper is not None:
            comparison = paper_comparison(data, spec.paper)
            tables.append(_write_csv(out / "tables" / f"{slug}-paper.csv", comparison.header, comparison.rows))
            page.heading("Beside the paper", 3).table([header_label(h, data) for h in comparison.header],
                                                      _cells(comparison.rows))
            page.paragraph(comparison.caption)
            if agreement is not None and agreement.sentences():
                page.bullets(agreement.sentences(), "agreement" if not agreement.agrees else "")
        if part.baseline is not None and part.compare:
            label = data.name.removeprefix(part.baseline.name + VARIANT_SEPARATOR)
            versus = variant_comparison(data, part.baseline, part.compare, label)
            tables.append(_write_csv(out / "tables" / f"{slug}-versus.csv", versus.header, versus.rows))
            page.heading(f"Beside {part.baseline.name}", 3).table([header_label(h, data) for h in versus.header],
                                                                  _cells(versus.rows))
            page.paragraph(versus.caption)
        wanted = spec.figures if spec is not None and spec.figures else default_figures(data)
        for n, figure in enumerate(wanted, start=1):
            kind = FIGURES[figure.kind]
            try:
                made = kind.function(data, figure.options)
            except KeyError as exc:  # an option naming a key or strategy the results do not have
                page.paragraph(f"figure {n} ({figure.kind}) not drawn: {exc.args[0]}")
                continue
            if isinstance(made, TableBlock):
                tables.append(_write_csv(out / "tables" / f"{slug}-{n}-{figure.kind}.csv", made.header, made.rows))
                if made.caption:
                    page.heading(made.caption, 3)
                page.table([header_label(h, data) for h in made.header], _cells(made.rows))
                continue
            path = out / "figures" / f"{slug}-{n}-{figure.kind}.png"
            png = figure_png(made)
            plt.close(made)
            write_output(path, png)
            figures.append(path)
            page.figure(png, caption=figure_caption(figure, data), alt=path.name)
    html = page.write(out / "report.html")
    return ReportFiles(html, figures, tables)
