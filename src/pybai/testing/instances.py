"""Small instances for the common checks: one catalogue of ``(environment, problem)`` per goal.

``GOAL_INSTANCES[goal]`` is a list of ``(label, make)`` where ``make(regime, batch)`` returns
``(environment, problem)``.  Every strategy that declares a goal is checked on every instance of
that goal whose problem provides what the strategy requires, in every regime it declares, with
and without batches when it is batched (:func:`strategy_cases`).  A new goal or reward family
adds its instance with :func:`register_instance` (inside pybai: an entry below), and the checks
of :mod:`pybai.testing.strategies` then run every strategy of that goal on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from pybai.environments.bernoulli import BernoulliEnvironment
from pybai.environments.beta import BetaEnvironment
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.gaussian import GaussianEnvironment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment
from pybai.models.bounded import Bounded
from pybai.models.families import GaussianUnknownVariance
from pybai.problems.base import BatchSpec, FixedBudget, FixedConfidence
from pybai.problems.best_arm import BestArmProblem
from pybai.problems.correlated import CorrelatedBestArmProblem
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.top_k import TopKProblem
from pybai.strategies.registry import get_strategy_class, registered_names

__all__ = ["REGIMES", "BATCH", "GOAL_INSTANCES", "CHECK_PARAMS", "Case", "register_instance", "strategy_cases",
           "case_id", "build", "checked_strategy", "allowed_labels", "default_label", "cases"]

#: The regimes of the checks: small enough that every run ends in a fraction of a second.
REGIMES = {
    "fixed-confidence": lambda: FixedConfidence(0.1, max_samples=20_000),
    "fixed-budget": lambda: FixedBudget(60),
}
#: The batches of the batched cases: four samples, a source at most twice.
BATCH = BatchSpec(size=4, max_repeats=2)
#: Parameters of a registered strategy in the per-case checks (and the golden cases), where its default
#: makes every whole run needlessly long on these small instances; any other strategy runs with its
#: defaults.  fixed-horizon: the default ``mde = 0.1`` sizes a horizon of 11,388 samples on the Gaussian
#: instance and 17,544 on beta-sub-bernoulli (its gap in the learner's units on [-1, 2]); ``mde = 0.3``, still
#: below the gap of the best two arms of the gaussian, bernoulli and beta instances (0.3 to 0.4), sizes
#: about a ninth of that, and every check sees the same power-analysis horizon and round robin.
CHECK_PARAMS: dict[str, dict[str, Any]] = {"fixed-horizon": {"mde": 0.3}}


class Case(NamedTuple):
    """One case of the common checks: a strategy on an instance of one of its goals, in one regime."""

    name: str
    goal: str
    label: str
    regime: str
    batched: bool


def _best_arm(env):
    def make(regime, batch):
        return env, BestArmProblem(env.n_sources, env.family(), regime, batch)

    return make


def _unknown_variance(env, statistic="glr", k=None):
    """The learner estimates the variances (reward model "gaussian-unknown-variance")."""
    def make(regime, batch):
        family = GaussianUnknownVariance(env.n_sources, statistic)
        if k is None:
            return env, BestArmProblem(env.n_sources, family, regime, batch)
        return env, TopKProblem(env.n_sources, k, family, regime, batch)

    return make


def _best_arm_eps(env, epsilon, mode):
    """epsilon-best-arm identification in fixed confidence (epsilon is the fixed-budget tolerance otherwise)."""
    def make(regime, batch):
        if regime.kind == "fixed-confidence":
            return env, BestArmProblem(env.n_sources, env.family(), regime, batch, epsilon=epsilon, epsilon_mode=mode)
        return env, BestArmProblem(env.n_sources, env.family(), regime, batch, epsilon=epsilon)

    return make


def _top_k(env, k):
    def make(regime, batch):
        return env, TopKProblem(env.n_sources, k, env.family(), regime, batch)

    return make


def _top_k_eps(env, k, epsilon, mode, plain_env):
    """epsilon-top-k in fixed confidence without batches; ``plain_env`` (exact top-k) in the other regimes,
    where epsilon is refused (a tie there would only run to max_samples)."""
    def make(regime, batch):
        if regime.kind == "fixed-confidence" and batch is None:
            return env, TopKProblem(env.n_sources, k, env.family(), regime, epsilon=epsilon, epsilon_mode=mode)
        return plain_env, TopKProblem(plain_env.n_sources, k, plain_env.family(), regime, batch)

    return make


def _bounded(env, statistic, low=0.0, high=1.0, k=None):
    """Bounded rewards (reward_model "bounded") on a Beta environment, best arm or top-k."""
    def make(regime, batch):
        family = Bounded(env.n_sources, low, high, statistic, levels=21)  # a coarse grid: fast checks
        if k is None:
            return env, BestArmProblem(env.n_sources, family, regime, batch)
        return env, TopKProblem(env.n_sources, k, family, regime, batch)

    return make


def _feasible(sampling):
    env = SubpopulationGaussianEnvironment([[0.2, 0.6, 0.8], [0.4, 0.4, 0.3], [-0.2, 1.0, 1.5]],
                                           [0.2, 0.3, 0.5], sigma=0.5, sampling=sampling)

    def make(regime, batch):
        return env, FeasibleArmProblem(**env.structure(), regime=regime, batch=batch)

    return make


def _correlated():
    env = CorrelatedGaussianEnvironment([0.9, 1.0, 0.7, 0.2, -0.3, -0.1, 0.4, 0.5],
                                        # 1.5 / sqrt(2): exp(-d^2 / 1.5^2) as before the rbf convention changed (golden outcomes)
                                        kernel={"name": "rbf", "lengthscale": 1.0606601717798212, "points": list(range(8))},
                                        sigma=0.5)

    def make(regime, batch):
        return env, CorrelatedBestArmProblem(**env.structure(), regime=regime, batch=batch)

    return make


def _linear(features, theta, sigma):
    env = LinearGaussianEnvironment(features, theta, sigma)

    def make(regime, batch):
        return env, LinearBestArmProblem(**env.structure(), regime=regime, batch=batch)

    return make


def _guardrails(correlation):
    """Revenue (objective) and latency (at most 0) and refunds (at most the control's + 0.1) per observation."""
    from pybai.environments.multi_metric import MultiMetricEnvironment
    from pybai.problems.guardrails import GuardrailProblem, Metric

    def make(regime, batch):
        env = MultiMetricEnvironment({"revenue": GaussianEnvironment([0.0, 0.4, 1.0, 1.5]),
                                      "latency": GaussianEnvironment([-0.6, -0.5, -0.8, 0.6]),
                                      "refunds": BernoulliEnvironment([0.2, 0.2, 0.25, 0.2])},
                                     correlation=correlation)
        metrics = [Metric("revenue", sigma=1.0), Metric("latency", sigma=1.0, at_most=0.0),
                   Metric("refunds", reward_model="bernoulli", at_most_vs_control=0.15)]
        return env, GuardrailProblem(4, metrics, regime, batch)
    return make


#: goal -> [(label, make(regime, batch) -> (environment, problem))]
GOAL_INSTANCES: dict[str, list[tuple[str, Callable[[Any, Any], tuple[Any, Any]]]]] = {
    "best-arm": [
        ("gaussian", _best_arm(GaussianEnvironment([1.0, 0.6, 0.3, 0.0]))),
        ("bernoulli", _best_arm(BernoulliEnvironment([0.8, 0.4, 0.3]))),
        ("gaussian-uv", _unknown_variance(GaussianEnvironment([1.0, 0.5, 0.2, -0.2], [0.6, 1.2, 0.4, 1.0]))),
        ("gaussian-ev", _unknown_variance(GaussianEnvironment([1.0, 0.4, 0.0], [0.5, 1.0, 0.8]), "ev-glr")),
        # epsilon-best-arm identification: an exact tie at the top (additive), a near tie (relative)
        ("gaussian-eps-tie", _best_arm_eps(GaussianEnvironment([1.0, 1.0, 0.5, 0.2]), 0.25, "additive")),
        ("bernoulli-eps-rel", _best_arm_eps(BernoulliEnvironment([0.7, 0.69, 0.3]), 0.15, "relative")),
        ("beta-kl-inf", _bounded(BetaEnvironment([0.8, 0.5, 0.3], 0.1), "kl-inf")),
        ("beta-sub-bernoulli", _bounded(BetaEnvironment([0.8, 0.4, 0.3], 0.1), "sub-bernoulli", -1.0, 2.0)),
        ("correlated", _correlated()),
        # 3 arms in R^2 with a near-optimal competitor, well separated for fast runs
        ("linear", _linear([[1.0, 0.0], [0.0, 1.0], [0.6, 0.5]], [1.0, 0.3], 0.5)),
        # duplicate rows (one arm twice) and a third dimension
        ("linear-dup", _linear([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0],
                                [0.7, 0.7, 0.0]], [1.0, 0.2, -0.3], 0.5)),
    ],
    "best-feasible-arm": [("pair", _feasible("pair")), ("arm", _feasible("arm"))],
    "best-arm-guardrails": [("guardrails-independent", _guardrails(None)),  # labels are unique across goals
                            ("guardrails-correlated", _guardrails([[1.0, 0.6, -0.4], [0.6, 1.0, 0.3], [-0.4, 0.3, 1.0]]))],
    "top-k": [("gaussian-k2", _top_k(GaussianEnvironment([1.0, 0.8, 0.3, 0.1, 0.0]), 2)),
              ("bernoulli-k3", _top_k(BernoulliEnvironment([0.9, 0.1, 0.8, 0.2, 0.85, 0.3]), 3)),
              ("gaussian-uv-k2", _unknown_variance(GaussianEnvironment([1.0, 0.9, 0.2, 0.1, -0.2],
                                                                       [0.5, 1.0, 0.7, 0.4, 1.2]), k=2)),
              ("beta-kl-inf-k2", _bounded(BetaEnvironment([0.8, 0.7, 0.3, 0.2], 0.1), "kl-inf", k=2)),
              # epsilon-top-k: an exact tie at the boundary (near ties, the relative mode: test_epsilon_top_k_rules.py)
              ("gaussian-eps-tie-k2", _top_k_eps(GaussianEnvironment([1.0, 0.7, 0.7, 0.2]), 2, 0.25, "additive",
                                                 GaussianEnvironment([1.0, 0.7, 0.2, 0.0])))],
}

_PROVIDES: dict[str, frozenset] = {}  # instance label -> what its problem provides (built once a label)


def register_instance(goal: str, label: str, make: Callable[[Any, Any], tuple[Any, Any]]) -> None:
    """Add an instance of ``goal`` to the checks (a new goal or reward family's addition).

    Parameters
    ----------
    goal : str
        The goal of the instance's problem (``problem.goal``).
    label : str
        A name unique among the instances of every goal (it names the cases).
    make : callable
        ``make(regime, batch) -> (environment, problem)``: a small, well separated instance
        (every check plays whole runs on it), with ``regime`` a :class:`FixedConfidence` or
        :class:`FixedBudget` of :data:`REGIMES` and ``batch`` None or :data:`BATCH`.

    Raises
    ------
    ValueError
        ``label`` is taken, or the problem ``make`` returns is not of ``goal``.
    """
    if any(label == taken for items in GOAL_INSTANCES.values() for taken, _ in items):
        raise ValueError(f"register_instance: the label {label!r} is taken")
    problem = make(REGIMES["fixed-confidence"](), None)[1]
    if problem.goal != goal:
        raise ValueError(f"register_instance: the instance's problem has goal {problem.goal!r}, not {goal!r}")
    GOAL_INSTANCES.setdefault(goal, []).append((label, make))


def _provides(label: str) -> frozenset:
    if label not in _PROVIDES:
        make = next(make for items in GOAL_INSTANCES.values() for name, make in items if name == label)
        _PROVIDES[label] = make(REGIMES["fixed-confidence"](), None)[1].provides
    return _PROVIDES[label]


def allowed_labels(cls) -> set | None:
    """The instance labels a strategy class may run on (None: any): those whose problem provides
    everything the rule requires (``cls.requires`` within ``problem.provides``)."""
    every = [label for items in GOAL_INSTANCES.values() for label, _ in items]
    labels = {label for label in every if cls.requires <= _provides(label)}
    return None if labels == set(every) else labels


def default_label(cls, goal: str) -> str:
    """An instance label of ``goal`` that ``cls`` accepts (for checks that need just one)."""
    labels = allowed_labels(cls)
    for label, _ in GOAL_INSTANCES[goal]:
        if labels is None or label in labels:
            return label
    raise LookupError(f"no instance of goal {goal!r} for {cls.__name__}")


def cases(registry_names: Iterable[str], get_class: Callable[[str], Any]) -> list[Case]:
    """Every case of the named strategies: each goal it declares, each allowed instance of that goal,
    each regime it declares, sequential and (when it is batched) batched."""
    out = []
    for name in registry_names:
        cls = get_class(name)
        allowed = allowed_labels(cls)
        for goal in cls.goals:
            for label, _ in GOAL_INSTANCES.get(goal, []):
                if allowed is not None and label not in allowed:
                    continue
                for regime in cls.regimes:
                    for batched in ((False, True) if cls.batched else (False,)):
                        out.append(Case(name, goal, label, regime, batched))
    return out


def strategy_cases(names: Iterable[str] | None = None, labels: Iterable[str] | None = None) -> list[Case]:
    """The cases of the registered strategies ``names`` (default: all), on the instances ``labels``
    (default: all).

    >>> [(c.regime, c.batched) for c in strategy_cases(["uniform"], ["bernoulli"])]
    [('fixed-confidence', False), ('fixed-confidence', True), ('fixed-budget', False), ('fixed-budget', True)]
    """
    out = cases(registered_names() if names is None else list(names), get_strategy_class)
    keep = None if labels is None else set(labels)
    return [case for case in out if keep is None or case.label in keep]


def case_id(case) -> str:
    """A case's name in test reports: ``tas-best-arm-gaussian-fixed-confidence-seq``."""
    name, goal, label, regime, batched = case
    return "-".join((name, goal, label, regime, "batch" if batched else "seq"))


def checked_strategy(name: str):
    """A new, unstarted strategy of the registered ``name`` with its :data:`CHECK_PARAMS` (else its defaults)."""
    return get_strategy_class(name)(**CHECK_PARAMS.get(name, {}))


def build(goal: str, label: str, regime: str, batched: bool):
    """``(environment, problem)`` of instance ``label`` of ``goal`` in ``regime``, batched or not."""
    make = dict(GOAL_INSTANCES[goal])[label]
    return make(REGIMES[regime](), BATCH if batched else None)
