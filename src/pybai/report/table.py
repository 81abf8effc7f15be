"""Plain-text tables of result documents (terminal output of ``pybai run``)."""

from __future__ import annotations

from pybai.naming import answer_name
from pybai.strategies.certificate import kind_note

__all__ = ["format_results", "answer_text", "threshold_line"]

_COLUMNS = [
    ("strategy", "strategy", "{}"),
    ("mean_samples", "mean samples", "{:.1f}"),
    ("sd_samples", "sd", "{:.1f}"),
    ("median_samples", "median", "{:.0f}"),
    ("mean_batches", "mean batches", "{:.1f}"),
    ("correct_rate", "correct", "{:.3f}"),
    ("exact_correct_rate", "exact", "{:.3f}"),
    ("censored", "censored", "{}"),
    ("mean_simple_regret", "regret", "{:.4f}"),
    ("false_negative_rate", "FNR", "{:.3f}"),
    ("wall_seconds", "seconds", "{:.2f}"),
]


def _short(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def format_results(document: dict) -> str:
    """Aligned table with one row per strategy; columns that are null everywhere are dropped.

    For a sweep (a document with ``grid_keys``) each row starts with its grid values, one
    column per grid key (titled by the key's last segment).
    """
    rows = document["results"]
    grid_keys = document.get("grid_keys") or []
    cols = [c for c in _COLUMNS if any(r.get(c[0]) is not None for r in rows)]
    titles = [key.rsplit(".", 1)[-1] for key in grid_keys] + [title for _, title, _ in cols]
    table = [titles]
    for r in rows:
        grid = r.get("grid", {})
        table.append([_short(grid.get(key, "-")) for key in grid_keys]
                     + ["-" if r.get(key) is None else fmt.format(r[key]) for key, _, fmt in cols])
    lead = len(grid_keys) + 1  # left-aligned columns: grid values and strategy
    widths = [max(len(row[i]) for row in table) for i in range(len(titles))]
    lines = []
    for j, row in enumerate(table):
        cells = [cell.ljust(w) if i < lead else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    answer = "per point" if grid_keys else answer_text(document.get("answer"), document.get("labels"))
    head = f"{document.get('name', '')}: goal {document.get('goal', '?')}, true answer {answer}"
    if document.get("answer_unique") is False:
        head += " (not unique: tied means; any tied answer counts as correct)"
    if document.get("correctness"):
        exact = "the set is an exact top-k set" if document.get("goal") == "top-k" else "the answer is a best arm"
        head += f"\ncorrect = {document['correctness']}; exact = {exact}"
    head += threshold_line(rows)
    censored = sum(r.get("censored") or 0 for r in rows)
    foot = ""
    if censored:
        foot = (f"\n{censored} run(s) censored: stopped at max_samples without certifying an answer "
                "(counted at max_samples in the sample columns)")
    return head + "\n" + "\n".join(lines) + foot


def threshold_line(rows) -> str:
    r"""A header line (with its leading newline) naming the stopping thresholds, per strategy when they differ.

    Empty for documents without threshold information (fixed budget, or written before it existed).

    >>> print(threshold_line([
    ...     {"strategy": "tas", "threshold": {"kind": "heuristic", "proven": False, "default": True}},
    ...     {"strategy": "tas-proven", "threshold": {"kind": "delta-correct", "proven": True, "default": False}}]))
    <BLANKLINE>
    threshold: tas: heuristic (papers' default, not a proven guarantee); tas-proven: delta-correct (proven)
    """
    notes: dict[str, list[str]] = {}
    for r in rows:
        info = r.get("threshold")
        if not info:
            continue
        note = kind_note(info["kind"], info["proven"], info.get("default", False))
        labels = notes.setdefault(note, [])
        if r["strategy"] not in labels:
            labels.append(r["strategy"])
    if not notes:
        return ""
    if len(notes) == 1:
        return f"\nthreshold: {next(iter(notes))}"
    return "\nthreshold: " + "; ".join(f"{', '.join(labels)}: {note}" for note, labels in notes.items())


def answer_text(answer, labels=None) -> str:
    """The answer of a result document in words (arms counted from 0, named by their labels if any).

    >>> answer_text(0), answer_text([0, 2]), answer_text(-1), answer_text(None)
    ('arm 0', 'arms 0, 2', 'no feasible arm (-1)', 'unknown (drawn per replication)')
    >>> answer_text(1, ["control", "new-checkout"])
    'new-checkout (arm 1)'
    """
    if answer is None:
        return "unknown (drawn per replication)"
    return answer_name(answer, labels)
