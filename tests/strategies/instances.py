"""Small instances for the common checks: one factory per goal, extended by each family.

``GOAL_INSTANCES[goal]`` is a list of ``(label, make)`` where ``make(regime, batch)`` returns
``(environment, problem)``.  A new goal adds its entry here; the common checks then run every
strategy that declares the goal on it, in every regime the strategy declares.
"""

from __future__ import annotations

from pybai import (
    BatchSpec,
    BernoulliEnvironment,
    BestArmProblem,
    BetaEnvironment,
    Bounded,
    FixedBudget,
    FixedConfidence,
    GaussianEnvironment,
    GaussianUnknownVariance,
    SubpopulationGaussianEnvironment,
)
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.linear import LinearGaussianEnvironment
from pybai.problems.linear import LinearBestArmProblem
from pybai.problems.correlated import CorrelatedBestArmProblem
from pybai.problems.feasible.problem import FeasibleArmProblem
from pybai.problems.top_k import TopKProblem

REGIMES = {
    "fixed-confidence": lambda: FixedConfidence(0.1, max_samples=20_000),
    "fixed-budget": lambda: FixedBudget(60),
}
BATCH = BatchSpec(size=4, max_repeats=2)


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


def allowed_labels(cls) -> set | None:
    """The instance labels a strategy class may run on (None: any): those whose problem provides
    everything the rule requires (``cls.requires`` within ``problem.provides``)."""
    if not _PROVIDES:
        _PROVIDES.update({label: make(REGIMES["fixed-confidence"](), None)[1].provides
                          for items in GOAL_INSTANCES.values() for label, make in items})
    labels = {label for label, provides in _PROVIDES.items() if cls.requires <= provides}
    return None if labels == set(_PROVIDES) else labels


_PROVIDES: dict = {}  # instance label -> what its problem provides (built once)


def default_label(cls, goal: str) -> str:
    """An instance label of ``goal`` that ``cls`` accepts (for checks that need just one)."""
    labels = allowed_labels(cls)
    for label, _ in GOAL_INSTANCES[goal]:
        if labels is None or label in labels:
            return label
    raise LookupError(f"no instance of goal {goal!r} for {cls.__name__}")

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


GOAL_INSTANCES = {
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


def cases(registry_names, get_class):
    """Every (strategy name, goal, instance label, regime, batched) that a strategy declares."""
    out = []
    for name in registry_names:
        cls = get_class(name)
        for goal in cls.goals:
            allowed = allowed_labels(cls)
            for label, _ in GOAL_INSTANCES.get(goal, []):
                if allowed is not None and label not in allowed:
                    continue
                for regime in cls.regimes:
                    for batched in ((False, True) if cls.batched else (False,)):
                        out.append((name, goal, label, regime, batched))
    return out


def build(goal, label, regime, batched):
    make = dict(GOAL_INSTANCES[goal])[label]
    return make(REGIMES[regime](), BATCH if batched else None)


def _extra_family() -> None:
    """A family defined outside the package (``PYBAI_TEST_EXTRA_FAMILY=path/to/module.py``): its
    ``instance(regime, batch)`` joins the common checks under its problem's goal
    (tests/test_toy_family.py runs them so on docs/examples/toy_family.py)."""
    import importlib.util
    import os

    path = os.environ.get("PYBAI_TEST_EXTRA_FAMILY")
    if not path:
        return
    spec = importlib.util.spec_from_file_location("extra_family", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    goal = module.instance(REGIMES["fixed-confidence"](), None)[1].goal
    GOAL_INSTANCES.setdefault(goal, []).append(("extra", module.instance))


_extra_family()
