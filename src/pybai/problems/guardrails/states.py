"""Where each guardrail of each arm stands: its estimate, its margin to the bound and its state.

A guardrail g binding arm k is *certified kept* ("holds") when the test that refutes its break,
break(k, g) = {h_g(lambda_k) >= 0}, passes the rule's level, and *certified broken* ("broken") when
the test of keep(k, g) = {h_g(lambda_k) <= 0} passes it; otherwise it is "undecided"
(:mod:`pybai.problems.guardrails.pieces`).  The level and the evidence are the stopping rule's:
the mixture evidence V_H against ln(m / delta) for the ``delta-correct`` rule, else the test's GLR
against threshold(t) (:mod:`pybai.stopping.guardrails`).  A relative guardrail does not bind the
control: it holds there by definition.

The estimate is what the guardrail compares with its bound: the arm's mean of the metric (absolute
guardrails) or its difference to the control's mean (relative ones); the margin is -h_g at the
empirical means, the room left on the kept side (negative: the estimate is past the bound).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pybai.naming import arm_name
from pybai.problems.guardrails.metrics import guardrail_text
from pybai.problems.guardrails.pieces import build_tests
from pybai.stopping.guardrails import GuardrailMixtureThreshold, one_test_value, tests_values
from pybai.stopping.guardrails_unknown import GuardrailUnknownVarianceThreshold, uv_tests_glr, uv_tests_margin

__all__ = ["guardrail_evidence", "guardrail_states", "arm_states", "STATES"]

#: the state of a guardrail on an arm (and of an arm: "holds" when it keeps every guardrail)
STATES = ("holds", "broken", "undecided")


def guardrail_evidence(problem, model, threshold, t: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(holds, broken, level): the evidence that each guardrail holds (refuting its break) and that it is broken
    (refuting its keep), shape (K, G), and the level a test must pass (``inf`` without a threshold: fixed budget).

    ``inf`` / ``-inf`` where g does not bind k (a relative guardrail on the control holds by definition),
    NaN while a source of its test has no sample.
    """
    scales, level = _scales_and_level(threshold, t)
    counts = np.asarray(model.counts, dtype=float)
    means = np.asarray(model.estimate, dtype=float)
    K, G = problem.n_arms, problem.guards.metric.shape[0]
    holds = np.full((K, G), math.inf)
    broken = np.full((K, G), -math.inf)
    tests = _keep_tests(problem)
    # a test with an unsampled source has no evidence either way (NaN); the others are evaluated at once
    sampled = (counts[tests.s1] > 0) & ((tests.s2 < 0) | (counts[np.maximum(tests.s2, 0)] > 0))
    holds[tests.k[~sampled], tests.g[~sampled]] = math.nan
    broken[tests.k[~sampled], tests.g[~sampled]] = math.nan
    if sampled.any():
        keep, flipped = (tests.keep, tests.flipped) if sampled.all() else \
            (tuple(a[sampled] for a in tests.keep), tuple(a[sampled] for a in tests.flipped))
        k, g = tests.k[sampled], tests.g[sampled]
        for out, (s1, a1, s2, a2, e) in ((broken, keep), (holds, flipped)):  # keep(k, g) refuted; break(k, g) refuted
            if problem.has_unknown_variance:
                out[k, g] = _unknown_values(problem, model, threshold, scales, level, (s1, a1, s2, a2, e))
            else:
                out[k, g] = tests_values(s1, a1, s2, a2, e, counts, means, problem.variances, scales)
    return holds, broken, level


def _unknown_values(problem, model, threshold, scales, level, test) -> np.ndarray:
    """The evidence of ``test``'s rows with a metric of unknown variance: with the ``delta-correct`` rule, each
    test's margin over its own level plus ``level`` (so that it exceeds ``level`` exactly when the test passes;
    :mod:`pybai.stopping.guardrails_unknown`), else its GLR."""
    s1, a1, s2, a2, e = test
    counts = np.asarray(model.counts, dtype=float)
    means = np.asarray(model.estimate, dtype=float)
    if isinstance(threshold, GuardrailUnknownVarianceThreshold):
        margins = uv_tests_margin(s1, a1, s2, a2, e, counts, means, problem.variances, scales, model.unknown,
                                  model.sq_devs, model.noise, model.tied, threshold._precisions, threshold.level,
                                  threshold.level, threshold.level_pair)
        return margins + level
    return uv_tests_glr(s1, a1, s2, a2, e, counts, means, problem.variances, problem.unknown, model.noise)


def _scales_and_level(threshold, t: int) -> tuple[np.ndarray, float]:
    """The mixture scales (empty: the GLR of each test) and the level a test's evidence must pass."""
    if isinstance(threshold, GuardrailMixtureThreshold):
        return threshold._scales, float(threshold.level)
    if threshold is None:  # fixed budget: no certificate, the GLR of each test for reading
        return _NO_SCALES, math.inf
    return _NO_SCALES, float(threshold(max(t, 1)))


_NO_SCALES = np.empty(0)


class _KeepTests:
    """The keep tests of every (arm, guardrail) pair that binds, one row each, and the pairs."""

    def __init__(self, problem):
        t = build_tests(-1, problem.n_arms, problem.n_metrics, problem.guards, problem.control, problem.sense)
        self.s1, self.s2 = t.s1, t.s2
        #: the test of keep(k, g), and of break(k, g): the keep half-space's complement
        self.keep = (t.s1, t.a1, t.s2, t.a2, t.e)
        self.flipped = (t.s1, -t.a1, t.s2, -t.a2, -t.e)
        pairs = [(k, g) for k in range(problem.n_arms)
                 for g in np.flatnonzero(problem.guards.applies(k, problem.control)).tolist()]
        assert len(pairs) == t.e.shape[0]  # build_tests(-1) lists them arm by arm, guardrails in order
        self.k = np.array([k for k, _ in pairs], dtype=np.int64)
        self.g = np.array([g for _, g in pairs], dtype=np.int64)


def _keep_tests(problem) -> _KeepTests:
    cached = problem._tests.get("keep-pairs")
    if cached is None:
        cached = problem._tests["keep-pairs"] = _KeepTests(problem)
    return cached


def guardrail_states(problem, model, threshold, t: int) -> dict:
    """The guardrails of every arm as a JSON-safe document, grouped per arm.

    Returns
    -------
    dict
        ``level`` (what a test's evidence must exceed; null in fixed budget, where nothing is certified),
        ``evidence`` ("mixture" or "GLR") and ``arms``: per arm, ``arm``, ``name`` ("control (arm 0)"),
        ``label`` (null without labels), ``state`` ("holds" when every guardrail is certified kept,
        "broken" when one is certified broken, else "undecided") and ``guardrails``: per guardrail,
        ``metric``, ``rule`` ("at most 250"), ``binds``, ``estimate``, ``margin``, ``state`` and the two
        evidences ``evidence_holds``, ``evidence_broken`` (null where the guardrail does not bind or has
        no sample).
    """
    holds, broken, level = guardrail_evidence(problem, model, threshold, t)
    mu = np.asarray(model.estimate, dtype=float).reshape(problem.grid_shape)
    guards, control = problem.guards, problem.control
    h = problem.guardrail_values(mu)  # -inf where g does not bind k
    arms = []
    for k in range(problem.n_arms):
        rows, states = [], []
        for g in range(guards.metric.shape[0]):
            m = int(guards.metric[g])
            binds = bool(guards.applies(k, control)[g])
            estimate = mu[k, m] - (mu[control, m] if guards.relative[g] else 0.0)
            state = _state(holds[k, g], broken[k, g], level) if binds else "holds"
            states.append(state)
            rows.append({"metric": problem.metric_names[m], "rule": guardrail_text(guards.keys[g],
                                                                                   _value(problem, g)),
                         "binds": binds, "estimate": _finite(estimate),
                         "margin": _finite(-h[k, g]) if binds else _finite(float(guards.bound[g])),
                         "state": state, "evidence_holds": _finite(holds[k, g]) if binds else None,
                         "evidence_broken": _finite(broken[k, g]) if binds else None})
        state = "broken" if "broken" in states else ("undecided" if "undecided" in states else "holds")
        label = None if problem.labels is None else problem.labels[k]
        arms.append({"arm": k, "name": arm_name(k, problem.labels), "label": label, "state": state,
                     "guardrails": rows})
    kind = "mixture" if isinstance(threshold, GuardrailMixtureThreshold) else "GLR"
    return {"level": _finite(level), "evidence": kind, "arms": arms}


def arm_states(problem, model, threshold, t: int) -> np.ndarray:
    """Per arm: +1 when every guardrail binding it is certified kept, -1 when one is certified broken, else 0.

    The states :func:`guardrail_evidence` gives (the two-stage baseline reads them after every observation), in
    one compiled pass (:func:`_arm_states_kernel`) that computes a test's mixture evidence only when its GLR
    passes the level (the mixture evidence is at most the GLR: :mod:`pybai.stopping.guardrails`).
    """
    if problem.has_unknown_variance:  # from the evidence of every test (no compiled pass for these tests)
        holds, broken, level = guardrail_evidence(problem, model, threshold, t)
        out = np.where((holds > level).all(axis=1), 1, np.where((broken > level).any(axis=1), -1, 0))
        return out.astype(np.int64)
    scales, level = _scales_and_level(threshold, t)
    tests = _keep_tests(problem)
    s1, a1, s2, a2, e = tests.keep
    ms1, ma1, ms2, ma2, me = tests.flipped
    return _arm_states_kernel(s1, a1, s2, a2, e, ms1, ma1, ms2, ma2, me, tests.k, problem.n_arms,
                              problem.guards.metric.shape[0], np.asarray(model.counts, dtype=float),
                              np.asarray(model.estimate, dtype=float), problem.variances, scales, level)


@njit(cache=True)
def _passes(j, s1, a1, s2, a2, e, counts, means, variances, scales, level, glr_scales, table):
    """Whether test ``j`` has evidence above ``level`` (its GLR first: no mixture evidence passes where it does not)."""
    if not one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, glr_scales, table) > level:
        return False
    if scales.shape[0] == 0:
        return True
    return one_test_value(j, s1, a1, s2, a2, e, counts, means, variances, scales, table) > level


@njit(cache=True)
def _arm_states_kernel(s1, a1, s2, a2, e, ms1, ma1, ms2, ma2, me, arm, n_arms, n_guards, counts, means, variances,
                       scales, level):
    """:func:`arm_states` from the keep tests ``s1 .. e`` (one per binding (arm, guardrail), arm by arm) and their
    complements ``ms1 .. me``, the break tests: ``holds > level`` on every guardrail of the arm gives +1, else
    ``broken > level`` on one gives -1, else 0.  A guardrail that does not bind the arm has holds = inf,
    broken = -inf; a test with an unsampled source has no evidence (NaN: never above the level)."""
    n_tests = e.shape[0]
    all_hold = np.ones(n_arms, dtype=np.bool_)
    any_broken = np.zeros(n_arms, dtype=np.bool_)
    binding = np.zeros(n_arms, dtype=np.int64)
    table = np.empty(max(scales.shape[0], 1))
    glr_scales = np.empty(0)
    for j in range(n_tests):
        k = arm[j]
        binding[k] += 1
        q = s2[j]
        if not (counts[s1[j]] > 0 and (q < 0 or counts[q] > 0)):
            all_hold[k] = False
            continue
        if all_hold[k] and not _passes(j, ms1, ma1, ms2, ma2, me, counts, means, variances, scales, level,
                                       glr_scales, table):
            all_hold[k] = False
        if not any_broken[k] and _passes(j, s1, a1, s2, a2, e, counts, means, variances, scales, level,
                                         glr_scales, table):
            any_broken[k] = True
    out = np.zeros(n_arms, dtype=np.int64)
    for k in range(n_arms):
        hold = all_hold[k] and (binding[k] == n_guards or math.inf > level)
        if hold:
            out[k] = 1
        elif any_broken[k]:
            out[k] = -1
    return out


def _state(holds: float, broken: float, level: float) -> str:
    if holds > level:
        return "holds"
    if broken > level:
        return "broken"
    return "undecided"


def _value(problem, g: int) -> float:
    return float(getattr(problem.metrics[int(problem.guards.metric[g])], problem.guards.keys[g]))


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
