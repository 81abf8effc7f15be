"""Result objects: dicts with attribute access and a readable repr (as scipy's)."""

from __future__ import annotations

import numpy as np

__all__ = ["RunResult"]


class RunResult(dict):
    """Outcome of one run of a strategy.

    Keys: ``recommendation``, ``stopped``, ``status`` (``"running"``, ``"stopped"``,
    ``"censored"``, ``"budget-spent"``), ``success``, ``message``, ``samples``,
    ``batches``, ``counts``, ``means``, ``statistic`` (last GLR value).
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __dir__(self):
        return list(self.keys())

    def __repr__(self) -> str:
        width = max(map(len, self.keys())) + 1
        lines = []
        for key, value in self.items():
            if isinstance(value, np.ndarray):
                value = np.array2string(value, precision=4, threshold=12)
            lines.append(f"{key.rjust(width)}: {value}")
        return "\n".join(lines)
