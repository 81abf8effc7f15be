"""The metrics of a guardrail problem: the objective, the guarded metrics and their guardrails.

One observation of an arm carries every metric (the objective and the guarded ones), measured
together and possibly correlated.  :class:`Metric` describes one metric as the learner knows it:
its reward model (a known-variance Gaussian, a Gaussian of unknown variance, Bernoulli rates, or rewards in
a known range) and,
for every metric but the first (the objective), its guardrails:

* ``at_most = b`` / ``at_least = b``: the arm's mean is at most / at least ``b``;
* ``at_most_vs_control = e`` / ``at_least_vs_control = e`` (margins ``e >= 0``): the arm's mean
  is at most the control's mean + ``e`` / at least the control's mean - ``e`` (the control itself
  keeps them: its difference to itself is 0).

Each guardrail ``g`` of metric ``m`` is the linear condition ``h_g(lambda) <= 0`` on the means of
an arm ``k`` (and of the control ``c`` for the relative ones)::

    h_g = s_g (lambda[k, m] - r_g lambda[c, m]) - b_g

with ``s_g = +1`` (at most) or ``-1`` (at least), ``r_g`` 1 for a relative guardrail and 0 for an
absolute one, and ``b_g`` the bound (``at_most``), minus the bound (``at_least``) or the margin.
A mean exactly on its bound keeps the guardrail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pybai._validation import fail, is_finite_number

__all__ = ["Metric", "Guardrails", "guardrail_text", "GUARDRAIL_KEYS", "METRIC_REWARD_MODELS", "UNKNOWN_VARIANCE",
           "compile_guardrails"]

#: the guardrail keys of a metric, in the order they are read
GUARDRAIL_KEYS = ("at_most", "at_least", "at_most_vs_control", "at_least_vs_control")

#: reward models a metric may have: their variance proxy is exact (Gaussian) or sub-Gaussian
#: (Hoeffding's lemma: rewards in [lo, hi] are (hi - lo)/2-sub-Gaussian), or the variance is unknown
#: (``"gaussian-unknown-variance"``: estimated per arm, tested with invariant t-test factors)
METRIC_REWARD_MODELS = ("gaussian", "bernoulli", "bounded", "gaussian-unknown-variance")

#: the reward model of a metric whose variance is unknown
UNKNOWN_VARIANCE = "gaussian-unknown-variance"


@dataclass(frozen=True)
class Metric:
    """One metric of an observation, as the learner knows it.

    Parameters
    ----------
    name : str
        The metric's name (a column of answers and exports); distinct within a problem.
    maximize : bool, default True
        For the objective (the first metric): whether larger is better.
    reward_model : {"gaussian", "bernoulli", "bounded", "gaussian-unknown-variance"}, default "gaussian"
        ``"gaussian"``: Gaussian rewards with known standard deviation ``sigma``;
        ``"bernoulli"``: rewards 0 or 1; ``"bounded"``: rewards in ``reward_range``;
        ``"gaussian-unknown-variance"``: Gaussian rewards whose variance is unknown (and may differ
        per arm), estimated from the data.
    sigma : float, optional
        The known noise standard deviation (``"gaussian"`` only, required there).
    reward_range : (float, float), optional
        ``[lo, hi]`` with lo < hi (``"bounded"`` only, required there).
    at_most, at_least : float, optional
        Absolute guardrails on the arm's mean.
    at_most_vs_control, at_least_vs_control : float, optional
        Guardrails relative to the control arm's mean, with a margin >= 0.
    """

    name: str
    maximize: bool = True
    reward_model: str = "gaussian"
    sigma: float | None = None
    reward_range: Any = None
    at_most: float | None = None
    at_least: float | None = None
    at_most_vs_control: float | None = None
    at_least_vs_control: float | None = None

    def __post_init__(self):
        owner = "Metric"
        if not isinstance(self.name, str) or not self.name.strip() or self.name != self.name.strip():
            raise fail("name", owner, "a non-empty string without surrounding spaces", self.name)
        if not isinstance(self.maximize, (bool, np.bool_)):
            raise fail("maximize", owner, "true or false", self.maximize)
        if self.reward_model not in METRIC_REWARD_MODELS:
            raise fail("reward_model", owner, "one of " + ", ".join(f'"{m}"' for m in METRIC_REWARD_MODELS)
                       + " for a metric", self.reward_model)
        if self.reward_model == "gaussian":
            if self.sigma is None or not is_finite_number(self.sigma) or not self.sigma > 0:
                raise fail("sigma", owner, 'a number > 0 (the known standard deviation of a "gaussian" metric)',
                           self.sigma)
        elif self.sigma is not None:
            why = "its variance is estimated from the data" if self.unknown_variance else 'only "gaussian" takes it'
            raise fail("sigma", owner, f'absent for a "{self.reward_model}" metric ({why})', self.sigma)
        if self.reward_model == "bounded":
            rng = self.reward_range
            ok = (isinstance(rng, (list, tuple)) and len(rng) == 2 and all(is_finite_number(v) for v in rng)
                  and rng[0] < rng[1])
            if not ok:
                raise fail("reward_range", owner, 'two finite numbers [lo, hi] with lo < hi (a "bounded" metric)', rng)
            object.__setattr__(self, "reward_range", (float(rng[0]), float(rng[1])))
        elif self.reward_range is not None:
            raise fail("reward_range", owner, f'absent for a "{self.reward_model}" metric (only "bounded" takes it)',
                       self.reward_range)
        for key in GUARDRAIL_KEYS:
            value = getattr(self, key)
            if value is None:
                continue
            if not is_finite_number(value):
                raise fail(key, owner, "a finite number", value)
            if key.endswith("_vs_control") and value < 0:
                raise fail(key, owner, "a margin >= 0 (relative to the control's mean)", value)
            object.__setattr__(self, key, float(value))

    @property
    def unknown_variance(self) -> bool:
        """Whether the variance of the metric's rewards is unknown (``"gaussian-unknown-variance"``)."""
        return self.reward_model == UNKNOWN_VARIANCE

    @property
    def variance(self) -> float:
        """The variance (Gaussian) or variance proxy (sub-Gaussian) of one reward; NaN when it is unknown
        (the learner estimates it per arm)."""
        if self.unknown_variance:
            return math.nan
        if self.reward_model == "gaussian":
            return float(self.sigma or 0.0) ** 2  # set (> 0) for a "gaussian" metric: __post_init__ checks it
        lo, hi = (0.0, 1.0) if self.reward_model == "bernoulli" else self.reward_range
        return (hi - lo) ** 2 / 4.0

    @property
    def support(self) -> tuple[float, float]:
        """The interval the rewards lie in."""
        if self.reward_model == "bernoulli":
            return (0.0, 1.0)
        if self.reward_model == "bounded":
            return self.reward_range
        return (-math.inf, math.inf)

    def guardrails(self) -> list[tuple[str, float]]:
        """``(key, value)`` of the guardrails set on this metric, in :data:`GUARDRAIL_KEYS` order."""
        return [(key, getattr(self, key)) for key in GUARDRAIL_KEYS if getattr(self, key) is not None]

    def describe(self, objective: bool = False) -> str:
        """The metric in words: ``latency_ms: gaussian rewards (sigma = 40), at most 250``, ``conversion: objective
        (maximised), bernoulli rewards``, ``refunds: bounded rewards in [0, 1], at most control + 0.01``."""
        if self.reward_model == "gaussian":
            model = f"gaussian rewards (sigma = {self.sigma:g})"
        elif self.reward_model == "bernoulli":
            model = "bernoulli rewards (0 or 1)"
        elif self.unknown_variance:
            model = "gaussian rewards, variance unknown (estimated per arm)"
        else:
            model = f"{self.reward_model} rewards in [{self.support[0]:g}, {self.support[1]:g}]"
        head = [f"objective ({'maximised' if self.maximize else 'minimised'})"] if objective else []
        rules = [guardrail_text(key, value) for key, value in self.guardrails()]
        return f"{self.name}: " + ", ".join(head + [model] + rules)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "reward_model": self.reward_model}
        if self.sigma is not None:
            out["sigma"] = float(self.sigma)
        if self.reward_range is not None:
            out["reward_range"] = list(self.reward_range)
        out["maximize"] = bool(self.maximize)
        out.update(self.guardrails())
        return out


def guardrail_text(key: str, value: float) -> str:
    """A guardrail in words: ``at most 250``, ``at least 0.1``, ``at most control + 0.01``, ``at least control - 0``.

    >>> guardrail_text("at_most_vs_control", 0.005), guardrail_text("at_least", 2.0)
    ('at most control + 0.005', 'at least 2')
    """
    side = "at most" if key.startswith("at_most") else "at least"
    if key.endswith("_vs_control"):
        return f"{side} control {'+' if side == 'at most' else '-'} {value:g}"
    return f"{side} {value:g}"


class Guardrails(NamedTuple):
    """The guardrails of a problem as arrays (one entry per guardrail g).

    Attributes
    ----------
    metric : ndarray of int64
        The metric m_g (>= 1).
    sign : ndarray of float
        s_g: +1 (at most), -1 (at least).
    relative : ndarray of bool
        r_g: relative to the control.
    bound : ndarray of float
        b_g of ``h_g = s_g (lambda[k, m] - r_g lambda[c, m]) - b_g <= 0``.
    keys : tuple of str
        The key of each guardrail ("at_most", ...), for reports.
    """

    metric: np.ndarray
    sign: np.ndarray
    relative: np.ndarray
    bound: np.ndarray
    keys: tuple[str, ...]

    def applies(self, arm: int, control: int) -> np.ndarray:
        """Which guardrails bind ``arm`` (the relative ones never bind the control)."""
        return ~self.relative | (arm != control)


def compile_guardrails(metrics) -> Guardrails:
    """The :class:`Guardrails` arrays of a list of :class:`Metric` (the first is the objective)."""
    metric, sign, relative, bound, keys = [], [], [], [], []
    for m, spec in enumerate(metrics):
        for key, value in spec.guardrails():
            metric.append(m)
            keys.append(key)
            at_most = key.startswith("at_most")
            sign.append(1.0 if at_most else -1.0)
            rel = key.endswith("_vs_control")
            relative.append(rel)
            bound.append(value if (rel or at_most) else -value)
    return Guardrails(np.array(metric, dtype=np.int64), np.array(sign, dtype=float),
                      np.array(relative, dtype=np.bool_), np.array(bound, dtype=float), tuple(keys))
