"""Near ties: a running fixed-confidence session whose leading arms may take very long to separate.

On arms that are nearly tied, a fixed-confidence rule without epsilon needs about
``threshold / (gap^2 rate)`` samples, and on an exact tie it never stops before ``max_samples``.
``pybai session status`` says so while the session runs, from the current data alone:

* **the estimate.**  Keep the current estimates and the current proportions of samples, and
  scale every count by ``c``: each piece of the GLR statistic (the transportation cost of the
  leading pair, :meth:`~pybai.problems.base.Problem.closest_pair`) grows linearly in ``c``,
  while the threshold grows like ``ln ln``.  The estimate is the smallest number of further
  samples at which the problem's own stopping rule (:meth:`~pybai.problems.base.Problem.stopping_decision`,
  with the session's threshold, count-dependent ones included) would stop on those scaled
  statistics; "never" when the statistic is 0 (an exact empirical tie).  It is what the
  current empirical gap implies if it were the true gap, so it moves with the estimates.
* **the rule** (:data:`NEAR_TIE_FACTOR`, :data:`NEAR_TIE_MIN_SAMPLES`).  Once the session has
  at least ``NEAR_TIE_MIN_SAMPLES`` samples per source (before that every pair looks tied), it
  reports a near tie of the leading pair when the tie is real on both counts: their confidence
  intervals (those of the status, 95% by default) overlap, and the estimate is "never" or
  exceeds ``NEAR_TIE_FACTOR`` times the samples told so far (at the current rate the session
  would need more than ten times what it has used).  Arms whose intervals are apart are not
  tied, however long the rule still needs; a session that will reach ``max_samples`` first is
  told so by the estimate, not called a tie.

Restarting is never needed.  The proven thresholds bound a deviation of the statistics from the
*true* means that holds at all times at once (a time-uniform, Ville-type bound); it does not
involve epsilon, so an epsilon chosen after seeing the data, at any time, keeps the guarantee of
an epsilon-best-arm stopping rule built on the same threshold.  Under the heuristic threshold
there is no guarantee to keep.  Setting epsilon on a running session is the job of
:func:`epsilon_command` (the hook that the epsilon-best-arm work connects).
"""

from __future__ import annotations

import inspect
from typing import cast

import numpy as np

from pybai.exceptions import PybaiError
from pybai.naming import arm_name
from pybai.problems.base import FixedConfidence, Problem
from pybai.session.intervals import confidence_intervals

__all__ = ["NEAR_TIE_FACTOR", "NEAR_TIE_MIN_SAMPLES", "near_tie", "progress", "samples_to_separate",
           "epsilon_command", "epsilon_later"]

#: A near tie is reported when the leading pair's intervals overlap and separating them needs more
#: than this many times the samples told so far (or never).
NEAR_TIE_FACTOR = 10
#: No near tie is reported before this many samples per source (on average).
NEAR_TIE_MIN_SAMPLES = 10


def epsilon_command(problem: Problem) -> str | None:
    """How a running session is told an epsilon (None when its problem has no epsilon version)."""
    if not hasattr(problem, "with_epsilon"):
        return None
    return "`pybai session epsilon --db DB --epsilon E` (Python: `Session.set_epsilon(E)`)"


def epsilon_later(problem: Problem, strategy, proven: bool) -> tuple[bool, str]:
    """Whether giving an epsilon later keeps the session's guarantee, and why (one sentence)."""
    if "epsilon" not in inspect.signature(type(problem)).parameters:
        return False, (f"restarting would not help either, and no epsilon can be given: pybai has no epsilon "
                       f"version of this problem ({type(problem).__name__}, goal {problem.goal})")
    if not proven:
        return False, ("this session stops on the heuristic threshold, which carries no proven guarantee, so "
                       "an epsilon given later would carry none either")
    command = epsilon_command(problem)
    why = ("the proven threshold bounds a deviation from the true means at all times at once, whatever "
           "epsilon and whenever it is chosen")
    if command:
        return True, (f"restarting is not needed: an epsilon can be given to this session later with {command}, "
                      f"keeping the guarantee ({why})")
    return True, ("an epsilon given later would keep the guarantee (" + why + "), but this version cannot change a "
                  "running session yet: a session created with [problem] epsilon = ... stops on near-ties")


def _scaled_stop(problem: Problem, strategy, total: int) -> bool:
    """Whether the stopping rule stops at ``total`` samples if the estimates and proportions stay."""
    model = strategy.model_
    factor = total / strategy.t_
    scaled = model.scaled_into(problem.new_model(), factor)
    view = problem.learner_view(scaled)  # e.g. the scaled model's estimated variances
    return bool(view.stopping_decision(scaled, strategy.threshold_, total)[1])


def samples_to_separate(problem: Problem, strategy, statistic: float, limit: float) -> int | None:
    """Further samples until the stopping rule would stop if the estimates and proportions stayed.

    None when it never would (statistic 0: an exact empirical tie) or not within ``limit``
    further samples times 4 (then ``limit`` is already exceeded: "beyond").
    """
    t = strategy.t_
    if not statistic > 0.0:
        return None

    def stops(total: int) -> bool:
        try:
            return _scaled_stop(problem, strategy, total)
        except (PybaiError, TypeError, ValueError, NotImplementedError):  # a model that cannot be scaled
            return statistic * total / t > strategy.threshold_.at(total, strategy.model_)

    high = max(t + 1, 2 * t)
    cap = t + 4 * max(limit, t)
    while not stops(high):
        if high >= cap:
            return None
        high = min(2 * high, cap)
    low = t  # does not stop at t (the session is running)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if not stops(mid) else (low, mid)
    return int(high - t)


def progress(problem: Problem, strategy) -> tuple[float, int | None] | None:
    """(GLR statistic, further samples until the rule would stop at the current estimates), or None.

    None unless a fixed-confidence session is running on the problem's GLR stopping rule with
    every estimate defined (a rule with its own stopping, :attr:`Strategy.proven_rule` or
    :attr:`Strategy.stopping_rule`, has none).  The samples are those of :func:`samples_to_separate`,
    searched at least as far as :data:`NEAR_TIE_FACTOR` times the samples so far and the samples left
    before ``max_samples`` (None: never, or beyond 4 times that).
    """
    regime = problem.regime
    if not isinstance(regime, FixedConfidence) or strategy.status_ != "running" or strategy.proven_rule or strategy.stopping_rule:
        return None
    model = strategy.model_
    if strategy.t_ == 0 or (model.estimate != model.estimate).any():
        return None
    statistic = float(problem.learner_view(model).statistic(model))
    reach = max(regime.max_samples - strategy.t_, NEAR_TIE_FACTOR * strategy.t_)
    return statistic, samples_to_separate(problem, strategy, statistic, reach)


def _overlap(pair, intervals) -> bool:
    """Whether the two sources' intervals overlap (True when there is no pair to look at)."""
    if pair is None or intervals is None:
        return True
    low, high = (np.asarray(v, dtype=float).ravel() for v in intervals)
    i, j = pair
    return bool(low[i] <= high[j] and low[j] <= high[i])


def near_tie(problem: Problem, strategy, proven: bool, estimate: tuple | None = None,
             intervals: tuple | None = None, level: float = 0.95) -> dict | None:
    """The near-tie report of a running fixed-confidence session without epsilon, or None.

    Keys: ``arms`` (the leading pair, or null when the problem names none), ``statistic``, ``factor``
    (:data:`NEAR_TIE_FACTOR`),
    ``estimated_samples_to_separate`` (further samples; null = never, or beyond the search),
    ``samples_left`` (to max_samples), ``rule``, ``epsilon_later`` (bool) and ``message``.
    ``estimate``: :func:`progress`, when already computed; ``intervals``: the status's
    ``(low, high)`` per source at ``level`` (computed when not given).
    """
    estimate = progress(problem, strategy) if estimate is None else estimate
    if (estimate is None or strategy.t_ < NEAR_TIE_MIN_SAMPLES * problem.n_sources
            or getattr(problem, "epsilon", None) is not None):
        return None
    model = strategy.model_
    t = strategy.t_
    statistic, more = estimate
    if more is not None and more <= NEAR_TIE_FACTOR * t:
        return None
    pair = problem.learner_view(model).closest_pair(model)
    if intervals is None:
        intervals = confidence_intervals(problem, model, level)
    if not _overlap(pair, intervals):
        return None
    left = cast(FixedConfidence, problem.regime).max_samples - t
    keeps, why = epsilon_later(problem, strategy, proven)
    who = ("the leading answers" if not pair else f"arms {pair[0]} and {pair[1]}" if problem.labels is None
           else " and ".join(arm_name(a, problem.labels) for a in pair))
    overlap = "" if pair is None else f"their {100 * level:g}% intervals overlap and "
    if more is None:
        when = ("never at the current estimates (an exact empirical tie)" if statistic <= 0.0
                else f"more than {4 * max(left, NEAR_TIE_FACTOR * t):,} further samples")
    else:
        when = f"about {more:,} more samples at the current estimates"
    beyond = "" if more is not None and more <= left else f", beyond the {left:,} samples left before max_samples"
    message = (f"{who} are nearly tied: {overlap}separating them needs {when} (more than {NEAR_TIE_FACTOR} times "
               f"the {t:,} samples so far){beyond}; {why}.")
    return {
        "arms": None if pair is None else [int(pair[0]), int(pair[1])],
        "statistic": statistic,
        "estimated_samples_to_separate": more,
        "samples_left": int(left),
        "factor": NEAR_TIE_FACTOR,
        "rule": (f"after {NEAR_TIE_MIN_SAMPLES} samples per source: the two arms' intervals overlap and separating "
                 f"them needs more than {NEAR_TIE_FACTOR} times the samples so far ({t}), or never"),
        "epsilon_later": keeps,
        "message": message,
    }
