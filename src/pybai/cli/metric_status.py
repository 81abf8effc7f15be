"""The per-arm table of ``pybai session status`` when one observation carries several metrics.

One block per arm: its samples and guardrail state, then one line per metric with its mean and
95% interval and, for each guardrail on that metric, the estimate compared with the bound, the
margin left (negative: past the bound) and the state (holds, broken, undecided), as in the status
document's ``guardrails`` (:mod:`pybai.problems.guardrails.states`).
"""

from __future__ import annotations

__all__ = ["metric_lines"]

_ARM_STATE = {"holds": "keeps every guardrail (certified)", "broken": "breaks a guardrail (certified)",
              "undecided": "guardrails not all decided"}


def _number(value) -> str:
    return "-" if value is None else f"{value:.4g}"


def metric_lines(status: dict) -> list[str]:
    """Lines of the per-arm table from a session status with ``metrics`` (and ``guardrails``)."""
    metrics = status["metrics"]
    guards = status.get("guardrails") or {"level": None, "arms": []}
    lines = []
    if guards["level"] is not None and guards["arms"] and guards["arms"][0]["guardrails"]:
        lines.append(f"guardrails: a state is certified when its test's {guards['evidence']} evidence exceeds "
                     f"{guards['level']:.4g}; margin = room left to the bound (negative: past it)")
    width = max(len(m) for m in metrics)
    rows = []
    for k, counts in enumerate(status["counts"]):
        arm = guards["arms"][k] if guards["arms"] else None
        name = arm["name"] if arm is not None else f"arm {k}"
        head = f"{name}: {int(counts[0])} samples"
        if arm is not None and arm["guardrails"]:
            head += f", {_ARM_STATE[arm['state']]}"
        rows.append([head])
        for m, metric in enumerate(metrics):
            low, high = status["ci_low"][k][m], status["ci_high"][k][m]
            interval = "" if low is None else f"[{low:.4g}, {high:.4g}]"
            cells = [f"  {metric:<{width}}", f"mean {_number(status['means'][k][m]):>9}", interval]
            rules = [g for g in (arm["guardrails"] if arm is not None else []) if g["metric"] == metric]
            if not rules:
                rows.append(cells)
            for i, g in enumerate(rules):
                if not g["binds"]:
                    what = f"{g['rule']}: holds (the control is the reference)"
                else:
                    what = f"{g['rule']}: {g['state']} (estimate {_number(g['estimate'])}, margin {_number(g['margin'])})"
                rows.append((cells if i == 0 else ["", "", ""]) + [what])
    widths = [max((len(r[i]) for r in rows if len(r) > i and len(r) > 1), default=0) for i in range(3)]
    for r in rows:
        if len(r) == 1:
            lines.append(r[0])
        else:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + ("  " + r[3] if len(r) > 3 else "")
                         .rstrip())
    return [line.rstrip() for line in lines]
