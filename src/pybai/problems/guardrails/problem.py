"""Best arm on an objective among the arms that keep every guardrail (goal ``"best-arm-guardrails"``).

An observation of an arm carries M metrics, measured together (possibly correlated): the first
is the objective, the others may carry guardrails (:mod:`pybai.problems.guardrails.metrics`).
The answer is the arm of best objective among those that keep every guardrail, or -1 when no
arm keeps them all ("no arm keeps every guardrail", a legitimate answer).

The stopping rule never adds evidence across the metrics of one observation: every event that
makes the recommendation wrong is refuted by one metric's statistic (an arm's mean against a
bound, or two arms' means of one metric), so the ``delta-correct`` rule holds for any correlation
between metrics (:mod:`pybai.stopping.guardrails`, docs/guardrails.md).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from pybai._validation import check_choice, check_positive_float, check_positive_int, fail
from pybai.models.families import Family, Gaussian
from pybai.naming import arm_index, arm_name
from pybai.problems.base import BatchSpec, Problem
from pybai.problems.guardrails.challenger import top_two_candidates
from pybai.problems.guardrails.metrics import Metric, compile_guardrails
from pybai.problems.guardrails.oracle import guardrail_oracle
from pybai.problems.guardrails.pieces import answer_of, build_tests, feasible_arms, guardrail_values
from pybai.problems.guardrails.space import MetricMeans, MetricSpace
from pybai.problems.guardrails.states import arm_states, guardrail_states
from pybai.problems.guardrails.unknown import MetricFamily, MetricMeansAndVariances
from pybai.problems.tolerance import EPSILON_RTOL
from pybai.stopping.base import PieceThreshold
from pybai.stopping.guardrails import GuardrailMixtureThreshold, GuardrailPieces, items_value
from pybai.stopping.guardrails_unknown import GuardrailUnknownVarianceThreshold, uv_items_glr

__all__ = ["GuardrailProblem"]

_NO_SCALES = np.empty(0)  # items_value without mixtures: the GLR of each test


class GuardrailProblem(Problem):
    """Identify the arm of best objective among those that keep every guardrail.

    Parameters
    ----------
    n_arms : int
        Number of arms K >= 1.
    metrics : sequence of Metric (or of dicts of Metric's keywords)
        The metrics of one observation; the first is the objective (it takes no guardrail).
    regime : FixedConfidence or FixedBudget
    batch : BatchSpec, optional
    control : int or str, default 0
        The control arm (index or label), the reference of the relative guardrails.
    labels : list of str, optional
        One distinct name per arm.
    epsilon : float, optional
        An answer tolerance on the objective (fixed confidence, in the objective's units): an answer is
        correct when it keeps every guardrail and its objective is within ``epsilon`` of the best feasible
        arm's.  Guardrails are not relaxed.  A running session takes one with
        :meth:`~pybai.session.Session.set_epsilon` (:meth:`with_epsilon`).
    epsilon_mode : {"additive"}
        Only an additive tolerance (a relative one, a fraction of the best objective, is not available
        with guardrail metrics).

    Notes
    -----
    Sources are the (arm, metric) pairs (``source_shape = (K, M)``); a request is an arm and its
    answer is one observation, all M metrics (:class:`~pybai.problems.guardrails.space.MetricSpace`).
    Rewards of a ``"bernoulli"`` or ``"bounded"`` metric are handled with their sub-Gaussian
    variance proxy ((hi - lo)^2 / 4, Hoeffding's lemma), under which the mixture tests are
    supermartingales: the rule stays ``delta-correct``, conservatively.

    Examples
    --------
    >>> from pybai import FixedConfidence
    >>> from pybai.problems.guardrails import GuardrailProblem, Metric
    >>> p = GuardrailProblem(3, [Metric("conversion", reward_model="bernoulli"),
    ...                          Metric("latency", sigma=10.0, at_most=250.0)], FixedConfidence(0.05))
    >>> p.answer([[0.10, 240.0], [0.12, 260.0], [0.11, 245.0]])
    2
    """

    goal = "best-arm-guardrails"
    provides = frozenset()  # the metrics of an observation are not independent sources
    # Track-and-Stop solves the oracle lazily (when t has grown by 25%).  Solved at every step (the strategy's
    # oracle_growth = 0) it needs 8% fewer samples on guardrails-latency with the heuristic threshold and 5% with the
    # proven one, but the oracle (about 0.3 ms) then dominates a simulated run: the guardrail test files took 10x the
    # CPU (52 -> 516 s), so the default stays lazy (docs/guardrails.md, "Track-and-Stop against T* x beta")
    tracking_oracle_growth = 0.25

    def __init__(self, n_arms, metrics, regime=None, batch: BatchSpec | None = None, control: Any = 0, *,
                 labels=None, epsilon=None, epsilon_mode: str = "additive"):
        owner = type(self).__name__
        K = check_positive_int(n_arms, "n_arms", owner)
        self.metrics = _check_metrics(metrics, owner)
        M = len(self.metrics)
        self.n_arms, self.n_metrics = K, M
        self.metric_names = tuple(m.name for m in self.metrics)
        variances = np.array([m.variance for m in self.metrics])
        self.variances = np.tile(variances, K)  # NaN for a metric of unknown variance (the learner's view estimates it)
        #: per source: whether its metric's variance is unknown (``"gaussian-unknown-variance"``)
        self.unknown = np.tile(np.array([m.unknown_variance for m in self.metrics], dtype=np.bool_), K)
        lows, highs = zip(*(m.support for m in self.metrics))
        self._low, self._high = np.tile(lows, K).astype(float), np.tile(highs, K).astype(float)
        family: Family
        if self.unknown.any():
            family = MetricFamily(self.variances, self.unknown, self._low, self._high, tuple(m.name for m in self.metrics))
        else:
            family = Gaussian(np.sqrt(self.variances), n_sources=K * M)
        super().__init__(family, regime, batch)
        self._set_labels(labels, K)
        self.control = _check_control(control, K, self.labels, owner)
        self.sense = 1.0 if self.metrics[0].maximize else -1.0
        self.guards = compile_guardrails(self.metrics)
        if K == 1 and self.guards.metric.shape[0] == 0:
            raise fail("n_arms", owner, "an int >= 2 when no metric has a guardrail", K)
        self.grid_shape = (K, M)
        self._tests: dict[Any, Any] = {}
        self._set_epsilon(epsilon, epsilon_mode)

    def _set_epsilon(self, epsilon, epsilon_mode) -> None:
        owner = type(self).__name__
        check_choice(epsilon_mode, ("additive", "relative"), "epsilon_mode", owner)
        if epsilon_mode != "additive":
            raise fail("epsilon_mode", owner, '"additive" with guardrail metrics (the tolerance is in the '
                       "objective's units; a relative one is not available)", epsilon_mode)
        self.epsilon, self.epsilon_mode = None, None
        if epsilon is None:
            return
        if self.regime.kind != "fixed-confidence":
            raise fail("epsilon", owner, "None with a fixed budget (the tolerance of fixed confidence)", epsilon)
        epsilon = check_positive_float(epsilon, "epsilon", owner)
        self.family.check_additive_epsilon(epsilon, owner)  # the objective's tests would overflow beyond it
        self.epsilon, self.epsilon_mode = epsilon, "additive"

    def with_epsilon(self, epsilon: float, epsilon_mode: str = "additive") -> "GuardrailProblem":
        """The same problem with the additive tolerance ``epsilon`` on the objective (fixed confidence).

        What a running session is given by :meth:`pybai.session.Session.set_epsilon`: the objective
        tests of the alternative move by ``epsilon`` (:func:`~pybai.problems.guardrails.pieces.build_tests`);
        the guardrails stay as they are.  The values are checked as by the constructor.
        """
        if self.regime.kind != "fixed-confidence" or epsilon is None:
            raise fail("epsilon", type(self).__name__, "a float > 0 (fixed confidence)", epsilon)
        new = copy.copy(self)
        new._set_epsilon(epsilon, epsilon_mode)
        new._tests = {}  # the objective tests depend on epsilon
        return new

    # --- structure -------------------------------------------------------
    @property
    def n_sources(self) -> int:
        return self.n_arms * self.n_metrics

    def _make_request_space(self) -> MetricSpace:
        return MetricSpace(self.n_arms, self.n_metrics, self.metric_names,
                           binary=[m.reward_model == "bernoulli" for m in self.metrics])

    @property
    def has_unknown_variance(self) -> bool:
        """Whether some metric's variance is unknown (``"gaussian-unknown-variance"``)."""
        return bool(self.unknown.any())

    def new_model(self) -> MetricMeans | MetricMeansAndVariances:
        """Empirical means per (arm, metric), refusing rewards outside a metric's range; with a metric of unknown
        variance, also the sums of squared deviations and the ties (:mod:`pybai.problems.guardrails.unknown`)."""
        if self.has_unknown_variance:
            return MetricMeansAndVariances(self.n_sources, self._low, self._high, self.metric_names * self.n_arms,
                                           self.unknown, self.variances)
        return MetricMeans(self.n_sources, self._low, self._high, self.metric_names * self.n_arms)

    def _with_family(self, family):
        """The view of :meth:`~pybai.problems.base.Problem.learner_view` / ``truth_view``, whose variances are the
        family's (the learner's plug-in ones, or the truth's, for a metric of unknown variance)."""
        view = super()._with_family(family)
        if view is not self:
            view.variances = np.asarray(family.variances, dtype=float)
        return view

    def describe_rewards(self) -> list[str]:
        """What one observation carries, in words (the session header): ``"3 metrics per observation:"``, then
        one line per metric (:meth:`Metric.describe <pybai.problems.guardrails.metrics.Metric.describe>`)."""
        return [f"{self.n_metrics} metrics per observation:"] + [
            m.describe(objective=i == 0) for i, m in enumerate(self.metrics)]

    def source_support(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) per source: the range of its metric's rewards (``-inf``, ``inf`` for a Gaussian metric)."""
        return self._low, self._high

    @property
    def has_relative(self) -> bool:
        return bool(self.guards.relative.any())

    @property
    def n_alternatives(self) -> int:
        """``m`` = K - 1 + G_max: the martingales a wrong stop can come from (docs/guardrails.md)."""
        g_max = max((int(self.guards.applies(k, self.control).sum()) for k in range(self.n_arms)), default=0)
        return max(self.n_arms - 1 + g_max, 1)

    @property
    def n_terms(self) -> int:
        """Sources per test: at most 2 (two arms' means of one metric)."""
        return 2

    def tests(self, answer: int):
        """The tests of the alternative to ``answer`` (:func:`~pybai.problems.guardrails.pieces.build_tests`), cached."""
        tests = self._tests.get(answer)
        if tests is None:
            tests = build_tests(answer, self.n_arms, self.n_metrics, self.guards, self.control, self.sense,
                                self.epsilon or 0.0)
            self._tests[answer] = tests
        return tests

    # --- the math of the goal -------------------------------------------
    def _matrix(self, means, name="means") -> np.ndarray:
        if type(means) is np.ndarray and means.dtype == np.float64 and means.size == self.n_sources:
            return means.reshape(self.grid_shape)
        mu = np.asarray(means, dtype=float)
        if mu.size != self.n_sources:
            raise fail(name, type(self).__name__, f"{self.n_sources} values (K x M = {self.n_arms} x "
                       f"{self.n_metrics})", f"shape {mu.shape}")
        return mu.reshape(self.grid_shape)

    def answer(self, means) -> int:
        """The feasible arm of best objective (lowest index on ties), -1 when no arm keeps every guardrail."""
        return answer_of(self._matrix(means), self.guards, self.control, self.sense)

    def feasible(self, means) -> np.ndarray:
        """Which arms keep every guardrail under ``means`` (a mean on its bound keeps it)."""
        return feasible_arms(self._matrix(means), self.guards, self.control)

    def guardrail_values(self, means) -> np.ndarray:
        """h_g of every arm and guardrail (K, G): <= 0 keeps it; -inf where g does not bind the arm."""
        return guardrail_values(self._matrix(means), self.guards, self.control)

    def glr(self, counts, means) -> float:
        """The guardrail statistic: min over the items of the alternative of the max over its
        single-metric tests of their GLR (:mod:`pybai.stopping.guardrails`)."""
        mu = self._matrix(means)
        tests = self.tests(answer_of(mu, self.guards, self.control, self.sense))
        return float(items_value(tests.s1, tests.a1, tests.s2, tests.a2, tests.e, tests.starts,
                                 np.asarray(counts, dtype=float).ravel(), mu.ravel(), self.variances, _NO_SCALES))

    def statistic(self, model) -> float:
        """:meth:`glr` at ``model``; with a metric of unknown variance, its tests' GLR is the unknown-variance
        transportation cost at the model's variance estimates (:mod:`pybai.stopping.guardrails_unknown`)."""
        if not self.has_unknown_variance:
            return self.glr(model.counts, model.estimate)
        mu = self._matrix(model.estimate)
        tests = self.tests(answer_of(mu, self.guards, self.control, self.sense))
        return float(uv_items_glr(tests.s1, tests.a1, tests.s2, tests.a2, tests.e, tests.starts,
                                  np.asarray(model.counts, dtype=float), mu.ravel(), self.variances, self.unknown,
                                  model.noise))

    def threshold(self, kind: str, delta: float):
        """``"delta-correct"``: :class:`~pybai.stopping.guardrails.GuardrailMixtureThreshold` (with a metric of unknown
        variance :class:`~pybai.stopping.guardrails_unknown.GuardrailUnknownVarianceThreshold`); other kinds as
        for every problem (t-only thresholds on :meth:`glr`)."""
        base = super().threshold(kind, delta)
        if isinstance(kind, str) and kind.strip().lower() == "delta-correct":
            if self.has_unknown_variance:
                return GuardrailUnknownVarianceThreshold(delta, self.n_alternatives, base)
            return GuardrailMixtureThreshold(delta, self.n_alternatives, base)
        if isinstance(base, PieceThreshold):  # its pieces are pairs of arms, not the guardrail tests
            raise fail("threshold", type(self).__name__, '"delta-correct" (the guardrail rule) or a threshold of t '
                       "alone (e.g. \"heuristic\"); a per-piece rule of pairs of arms does not test guardrails", kind)
        return base

    def pieces(self, model) -> GuardrailPieces:
        """The tests of the alternative to the empirical answer at ``model``'s estimate, with the variances."""
        mu = self._matrix(model.estimate)
        return GuardrailPieces(self.tests(answer_of(mu, self.guards, self.control, self.sense)), self.variances)

    def guardrail_status(self, model, threshold, t: int) -> np.ndarray:
        """Per arm: +1 when every guardrail binding it is certified kept, -1 when one is certified broken, else 0.

        A guardrail is certified kept (broken) when its break (keep) test passes the rule's level: the mixture
        evidence against ``ln(m/delta)`` for the ``delta-correct`` rule, else the test's GLR against
        ``threshold(t)`` (what the two-stage baseline of :mod:`pybai.strategies.two_stage` reads;
        :func:`pybai.problems.guardrails.states.arm_states`).
        """
        return arm_states(self, model, threshold, t)

    def guardrail_states(self, model, threshold, t: int) -> dict:
        """Each arm's guardrails: estimate, margin to the bound, state (holds, broken, undecided) and evidence
        (:func:`pybai.problems.guardrails.states.guardrail_states`; the session status's ``guardrails``)."""
        return guardrail_states(self, model, threshold, t)

    def oracle(self, means, hint: Any = None):
        """T*(mu) and w*(mu) of the guardrail rule (:mod:`pybai.problems.guardrails.oracle`), w* per source
        (an arm's weight split evenly over its metrics)."""
        mu = self._matrix(means)
        a = answer_of(mu, self.guards, self.control, self.sense)
        t_star, w = guardrail_oracle(self.tests(a), a, self.control, self.has_relative, mu.ravel(),
                                     self.variances, self.n_arms, self.n_metrics)
        return t_star, self.request_space().expand(w)

    def top_two(self, counts, means, tci: bool = True) -> tuple[int, int, float]:
        """``(leader, challenger, leader_share)``: the arms a top-two rule chooses between at the empirical answer
        of ``means``, and the leader's information-directed share
        (:func:`~pybai.problems.guardrails.challenger.top_two_candidates`; ``tci``: the ln N penalty).

        With a metric of unknown variance, an arm observed fewer than sqrt(t) times (t the observations so far)
        is sampled first, the least-sampled one (the forced exploration of Garivier & Kaufmann's D-tracking):
        the plug-in variance of an arm seen a few times can be near 0, which would make its tests look
        settled and the arm never be challenged again."""
        n = np.asarray(counts, dtype=float).ravel()
        if self.has_unknown_variance:
            arms = n[::self.n_metrics]
            if arms.min() < math.sqrt(arms.sum()):
                arm = int(np.argmin(arms))
                return arm, arm, 1.0
        mu = self._matrix(means)
        tests = self.tests(answer_of(mu, self.guards, self.control, self.sense))
        return top_two_candidates(tests, n, mu.ravel(), self.variances, self.n_metrics, tci)

    def answer_is_unique(self, means) -> bool:
        """False when the answer's mean is exactly on a bound or ties another feasible arm's objective (whatever the
        variances: a variance still unknown counts as 1 here)."""
        mu = self._matrix(self.check_means(means))
        a = answer_of(mu, self.guards, self.control, self.sense)
        variances = np.where(np.isfinite(self.variances), self.variances, 1.0)
        return math.isfinite(guardrail_oracle(self.tests(a), a, self.control, self.has_relative, mu.ravel(), variances,
                                              self.n_arms, self.n_metrics)[0])

    def is_correct(self, answer, means) -> bool:
        """Whether ``answer`` is a feasible arm of best objective (any of tied ones; within ``epsilon`` of the best
        with a tolerance), or -1 when none is feasible."""
        mu = self._matrix(self.check_means(means))
        ok = self.feasible(mu)
        answer = int(answer)
        if not ok.any():
            return answer == -1
        if not 0 <= answer < self.n_arms or not ok[answer]:
            return False
        score = self.sense * mu[:, 0]
        if self.epsilon is None:
            return bool(score[answer] == score[ok].max())
        best = score[ok].max()
        return bool(score[answer] >= best - self.epsilon - EPSILON_RTOL * max(abs(best), abs(score[answer]), self.epsilon))

    def answer_metrics(self, answer, means) -> dict:
        """With a tolerance on the objective: ``{"exact_correct": the answer is a feasible arm of best objective}``;
        else none."""
        if self.epsilon is None or answer is None:
            return {}
        mu = self._matrix(self.check_means(means))
        ok = self.feasible(mu)
        a = int(answer)
        if not ok.any():
            return {"exact_correct": a == -1}
        score = self.sense * mu[:, 0]
        return {"exact_correct": bool(0 <= a < self.n_arms and ok[a] and score[a] == score[ok].max())}

    def simple_regret(self, answer, means) -> float:
        """Objective of the best feasible arm minus the answer's (NaN when the answer breaks a guardrail
        or is -1 while an arm is feasible: a guardrail error, counted by the correct rate)."""
        mu = self._matrix(means)
        truth, answer = self.answer(mu), int(answer)
        if answer == truth:
            return 0.0
        if answer < 0 or not self.feasible(mu)[answer]:
            return float("nan")
        return float(self.sense * (mu[truth, 0] - mu[answer, 0]))

    def complexity(self, truth) -> dict:
        """The report of ``pybai complexity``, with the weights per arm and each guardrail's state."""
        out = super().complexity(truth)
        mu = self._matrix(self.check_means(truth))
        w = np.asarray(self.oracle(mu)[1]).reshape(self.grid_shape).sum(axis=1)
        out["optimal_weights"] = np.round(w, 8).tolist()
        if out["answer"] == -1:
            out["answer_note"] = "no arm keeps every guardrail"
        out["characteristic_time_note"] = ("of the single-metric rule (tests that never add evidence across the "
                                           "metrics of an observation); lower_bound is T* kl(delta, 1 - delta)")
        h = self.guardrail_values(mu)
        out["guardrails"] = "; ".join(
            f"{self.metric_names[int(m)]} {key} {getattr(self.metrics[int(m)], key):g}: kept by "
            + (", ".join(arm_name(k, self.labels) for k in range(self.n_arms) if h[k, g] <= 0.0) or "no arm")
            for g, (m, key) in enumerate(zip(self.guards.metric, self.guards.keys)))
        out["stopping_union"] = self.n_alternatives
        return out

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update(n_arms=self.n_arms, metrics=[m.to_dict() for m in self.metrics], control=self.control)
        if self.epsilon is not None:
            out.update(epsilon=self.epsilon, epsilon_mode=self.epsilon_mode)
        return out


def _check_metrics(metrics, owner) -> tuple[Metric, ...]:
    if isinstance(metrics, (str, bytes, dict)) or not hasattr(metrics, "__iter__"):
        raise fail("metrics", owner, "a list of Metric (the first is the objective)", metrics)
    out = []
    for i, m in enumerate(metrics):
        if isinstance(m, dict):
            try:
                m = Metric(**m)
            except TypeError:
                raise fail("metrics", owner, "Metric keywords (name, maximize, reward_model, sigma, reward_range, "
                           "at_most, at_least, at_most_vs_control, at_least_vs_control)", m) from None
        if not isinstance(m, Metric):
            raise fail("metrics", owner, "a list of Metric (the first is the objective)", metrics)
        out.append(m)
    if not out:
        raise fail("metrics", owner, "at least one metric (the objective)", metrics)
    names = [m.name for m in out]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise fail("metrics", owner, f"distinct metric names ('{name}' appears twice)", names)
    if out[0].guardrails():
        key = out[0].guardrails()[0][0]
        raise fail(key, owner, f"absent on the objective '{out[0].name}' (the first metric; a guardrail goes on "
                   "another metric)", getattr(out[0], key))
    return tuple(out)


def _check_control(control, n_arms, labels, owner) -> int:
    expected = f"an arm: an index in [0, {n_arms - 1}]" + (" or one of the labels" if labels else "")
    if isinstance(control, str):
        try:
            return arm_index(control, labels)
        except Exception:
            raise fail("control", owner, expected, control) from None
    if isinstance(control, (bool, np.bool_)) or not isinstance(control, (int, np.integer)) or not (
            0 <= control < n_arms):
        raise fail("control", owner, expected, control)
    return int(control)
