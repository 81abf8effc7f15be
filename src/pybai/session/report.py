"""The HTML page of ``pybai session report``: status, figures and per-source table.

Built with the shared renderer (:class:`pybai.report.html.HtmlReport`) from the session's log
replayed answer by answer (:func:`pybai.session.replay_history`); the figures are also
written as PNG files beside the page.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from pybai._output import write_output
from pybai.exceptions import InvalidParameterError
from pybai.naming import arm_names
from pybai.session.history import replay_history
from pybai.session.session import Session

__all__ = ["write_session_report"]


def _highlight(recommendation) -> list[int]:
    if recommendation is None:
        return []
    values = [int(a) for a in np.atleast_1d(recommendation)]
    return [a for a in values if a >= 0]


def write_session_report(session: Session, out_dir) -> Path:
    """Write ``out_dir/session.html`` (self-contained) and its figures as PNG; returns the page's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybai.report.html import HtmlReport, figure_png
    from pybai.report.session_plots import (
        plot_means_with_intervals,
        plot_samples_over_time,
        plot_statistic_vs_threshold,
    )

    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError(f"{out}: cannot create the report directory ({exc.strerror}).") from None
    status = session.status()
    history = replay_history(session)
    problem = session.problem
    layout = session.layout
    shape = problem.source_shape
    n_arms = shape[0]
    highlight = _highlight(history.recommendation)
    names = arm_names(n_arms, problem.labels)

    page = HtmlReport(f"Session {status['name']}")
    regime = (f"fixed confidence, delta = {status['delta']:g}" if status["delta"] is not None
              else f"fixed budget of {status['budget']} {problem.budget_unit}")
    last = _when(status["last_answer"]) if status["last_answer"] else "none yet"
    page.paragraph(f"Goal {status['goal']} ({regime}); strategy {status['strategy']}; seed {status['seed']}. "
                   f"Created {_when(status['created'])}; last answer {last}.")
    page.heading("Where the session stands")
    message = status["message"]  # e.g. "stopped: the answer is certified ...": it already names the status
    said = message if message.split(":")[0] == status["status"] else f"{status['status']} ({message})"
    page.paragraph(f"Status: {said}. Recommendation: {status['answer']}.")
    facts = [["samples", status["samples"]], ["requests made", status["requests"]],
             ["answers stored", status["answers"]], ["completed requests (batches)", status["batches"]],
             ["pending", _pending(status["pending"])]]
    if status["threshold"] is not None:
        facts += [[status["statistic_name"], status["statistic"]], ["threshold", status["threshold"]]]
    if status["threshold_kind"] is not None:
        facts += [["threshold kind", status["threshold_kind"] + (" (proven)" if status["proven"] else
                                                                 " (not a proven guarantee)")],
                  ["certified", "yes" if status["certified"] else "no"]]
    page.table(["", "value"], facts)
    if status["near_tie"] is not None:
        page.paragraph("Near tie: " + status["near_tie"]["message"])
    if status.get("reward_model_note"):  # the data contradict the reward model: said once, as in status
        page.paragraph("Reward model: " + status["reward_model_note"] + ".")
    if status.get("guardrails") is not None:
        _guardrail_table(page, status["guardrails"])

    figures = []
    if history.samples.size:
        per_arm = history.counts.reshape(-1, n_arms, int(np.prod(shape[1:], dtype=int)) or 1).sum(axis=2)
        fig, ax = plt.subplots(figsize=(8, 4.2))
        plot_samples_over_time(history.samples, per_arm, ax, labels=names, highlight=highlight)
        figures.append(("samples.png", fig, "Samples of each arm as the session went on (x: samples told in all). "
                        "An adaptive strategy spends more on the arms that decide the answer."))
        fig, ax = plt.subplots(figsize=(8, 4.2))
        floors = None
        if hasattr(problem, "constrained") and hasattr(problem, "floor"):
            floors = {int(l): float(problem.floor[l]) for l in problem.constrained}
        plot_means_with_intervals(history.means.reshape(shape), history.ci_low.reshape(shape),
                                  history.ci_high.reshape(shape), ax, labels=names, highlight=highlight,
                                  floors=floors)
        figures.append(("means.png", fig, "Each arm's estimated mean with its 95% interval (marginal; "
                        "the stopping rule uses the statistic below, valid over time and arms)."))
        if np.isfinite(history.threshold).any():
            fig, ax = plt.subplots(figsize=(8, 4.2))
            plot_statistic_vs_threshold(history.samples, history.statistic, history.threshold, ax,
                                        stopped=history.status == "stopped",
                                        count_dependent=status["threshold_count_dependent"])
            rule = (" The rule tests each comparison of the answer with a rival with its own counts; the curve "
                    "is the evidence of the comparison that decides." if status["threshold_count_dependent"] else "")
            figures.append(("statistic.png", fig, "What decides the stop against the level it must reach; the "
                            "session stops when it reaches it." + rule))
    else:
        page.paragraph("No answers yet: the figures appear after the first tell.")
    if figures:
        page.heading("Figures")
    for name, fig, caption in figures:
        png = figure_png(fig)
        plt.close(fig)
        write_output(out / name, png)
        page.figure(png, caption=caption, alt=name)
    if not np.isfinite(history.threshold).any() and history.samples.size:
        page.paragraph("Fixed budget: there is no stopping threshold; the session ends when the budget is spent.")

    page.heading("Per source")
    counts = np.asarray(history.counts[-1] if history.samples.size else np.zeros(problem.n_sources))
    values = [history.means, history.ci_low, history.ci_high]
    headers = ["source", "samples", "mean", "95% low", "95% high"]
    if status.get("sd") is not None:  # a reward model that estimates each source's spread
        spread = np.asarray(status["sd"], dtype=object).reshape(-1)
        values.insert(1, np.array([np.nan if v is None else float(v) for v in spread]))
        headers.insert(3, "sd")
    columns = [_same_decimals(v) for v in values]
    rows = [[layout.label(s), int(counts[s])] + [c[s] for c in columns] for s in range(problem.n_sources)]
    page.table(headers, rows)
    return page.write(out / "session.html")


def _guardrail_table(page, guardrails: dict) -> None:
    """Each arm's guardrails (the status's ``guardrails``): estimate, margin to the bound, state."""
    page.heading("Guardrails")
    level = guardrails["level"]
    page.paragraph("A guardrail holds (or is broken) once the test refuting the other side passes the stopping "
                   "rule's level" + (f" ({guardrails['evidence']} evidence above {level:.4g})" if level is not None
                                     else " (fixed budget: nothing is certified)")
                   + "; the estimate is the arm's mean of the metric, or its difference to the control's for a "
                   "relative guardrail; the margin is the room left to the bound (negative: past it).")
    rows = []
    for arm in guardrails["arms"]:
        for g in arm["guardrails"]:
            state = g["state"] if g["binds"] else "holds (the control is the reference)"
            rows.append([arm["name"], arm["state"], f"{g['metric']} {g['rule']}",
                         "-" if g["estimate"] is None else f"{g['estimate']:.4g}",
                         "-" if g["margin"] is None else f"{g['margin']:.4g}", state])
    page.table(["arm", "every guardrail", "guardrail", "estimate", "margin", "state"], rows)


def _same_decimals(values, significant: int = 4) -> list[str]:
    """Numbers of one column with the same decimals: the largest in magnitude gets ``significant`` figures.

    >>> _same_decimals([2.02511, 0.46391, -1.5, float("nan")])
    ['2.025', '0.464', '-1.500', '-']
    """
    x = np.asarray(values, dtype=float).ravel()
    finite = np.abs(x[np.isfinite(x)])
    top = float(finite.max()) if finite.size else 0.0
    decimals = max(0, significant - 1 - int(np.floor(np.log10(top)))) if top > 0 else significant - 1
    return [f"{v:,.{decimals}f}" if np.isfinite(v) else "-" for v in x]


def _when(stamp: str) -> str:
    """An ISO time stamp of the log for readers: ``2026-11-23 12:06:16 UTC``.

    >>> _when("2026-11-23T12:06:16.879106+00:00")
    '2026-11-23 12:06:16 UTC'
    """
    try:
        moment = datetime.fromisoformat(str(stamp)).astimezone(timezone.utc)
    except ValueError:
        return str(stamp)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _pending(pending) -> str:
    """The status's ``pending`` in words: one request (``max_pending = 1``) or the list of outstanding ones."""
    if isinstance(pending, list):
        if not pending:
            return "none"
        shown = ", ".join(f"{p['request']} ({p['size']})" for p in pending[:20])
        return f"{len(pending)} requests: {shown}" + (" ..." if len(pending) > 20 else "")
    return "none" if pending is None else f"request {pending['request']}: {pending['size']} samples"
