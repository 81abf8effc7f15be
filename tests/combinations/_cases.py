"""The cases of the combination checks, generated from the registries.

A *definition* is what a user writes in a session or experiment file: an environment kind and a
goal (:data:`pybai.config.problems.GOALS` on :data:`pybai.config.learner.LEARNER_KINDS`), a reward
model and one of its variants (``None``: the environment's own law; else
:data:`pybai.config.reward_models.REWARD_MODEL_VARIANTS`), an epsilon (none, additive, relative;
for goals whose keys include it), a threshold kind (the default, or one of the kinds the
strategies declare), a registered strategy (its regime from the ones it declares) and
``max_pending`` (1 or 3).  A *case* adds the data stream the world answers with and the surface
that drives it.  Nothing here lists strategies, reward models or goals: a newly registered one is
drawn like the others.

The product has about a million cases; :func:`sample` draws valid definitions (the library's own
reading of the file decides validity) with a fixed seed until every value of every axis that some
valid definition takes appears, then fills up to the requested size.  Definitions the library
refuses are kept apart (:func:`sample` returns some): their refusal must be one line.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from pybai import get_strategy_class, registered_names
from pybai.config.learner import LEARNER_KINDS, parse_session_file
from pybai.config.problems import GOAL_KEYS, GOALS
from pybai.config.reward_models import REWARD_MODEL_VARIANTS
from pybai.exceptions import ConfigError

#: arms of every case (top-k takes k = 2 of them)
ARMS = 4
#: what an environment kind needs besides ``arms`` in a session file (a new kind that needs more adds it here;
#: test_every_kind_and_goal_builds says so)
EXTRA_ENVIRONMENT = {
    "binomial": {"trials": 4},
    "subpopulation-gaussian": {"weights": [0.5, 0.5]},
    "linear-gaussian": {"features": [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [0.2, 0.9]]},
    "correlated-gaussian": {"covariance": (np.eye(ARMS) * 0.5 + 0.5).tolist()},
}
#: what an environment kind needs in the [problem] table (guardrail metrics: their reward models and a guardrail)
EXTRA_PROBLEM = {
    "multi-metric": {"metric": [{"name": "objective", "sigma": 1.0}, {"name": "guarded", "sigma": 1.0, "at_most": 0.5}]},
}
#: kinds whose session file takes no ``arms`` (the size comes from their other keys)
NO_ARMS_KEY = ("linear-gaussian", "correlated-gaussian")
#: example values of goal keys other than epsilon (a new goal with a required key adds it here)
GOAL_KEY_VALUES = {"k": 2}
EPSILONS = (None, ("additive", 0.05), ("relative", 0.1))
PENDING = (1, 3)
SURFACES = ("python", "cli", "http")
#: pairs of axes whose every combination of values the sample covers (when valid ones are found)
PAIRS = (("reward", "epsilon"), ("reward", "max_pending"), ("reward", "kind-goal"))
DELTA = 0.1
MAX_SAMPLES = 2_000
BUDGET = 40


def _plain_reward(name: str) -> bool:
    return name is None


@dataclass(frozen=True)
class Definition:
    kind: str
    goal: str
    reward: tuple | None  # (name, variant index) or None
    epsilon: tuple | None
    threshold: str | None  # None: the session's default
    strategy: str
    max_pending: int

    @property
    def id(self) -> str:
        reward = "own" if self.reward is None else f"{self.reward[0]}-{_variant_label(self.reward)}"
        eps = "eps-none" if self.epsilon is None else f"eps-{self.epsilon[0]}"
        return "-".join((self.kind, self.goal, reward, eps, self.threshold or "default", self.strategy,
                         f"pending{self.max_pending}"))

    def regime(self) -> str:
        regimes = get_strategy_class(self.strategy).regimes
        return "fixed-confidence" if "fixed-confidence" in regimes else regimes[0]

    def document(self, name: str = "combo", seed: int = 3) -> dict:
        """The session file (a dict)."""
        problem: dict = {"goal": self.goal}
        if self.regime() == "fixed-confidence":
            problem.update(delta=DELTA, max_samples=MAX_SAMPLES)
        else:
            problem["budget"] = BUDGET
        for key in GOAL_KEYS.get(self.goal, ()):
            if key in GOAL_KEY_VALUES:
                problem[key] = GOAL_KEY_VALUES[key]
        problem.update(EXTRA_PROBLEM.get(self.kind, {}))
        if self.epsilon is not None:
            problem.update(epsilon=self.epsilon[1], epsilon_mode=self.epsilon[0])
        if self.reward is not None:
            problem["reward_model"] = self.reward[0]
            problem.update(REWARD_MODEL_VARIANTS[self.reward[0]][self.reward[1]])
        strategy: dict = {"name": self.strategy}
        if self.threshold is not None:
            strategy["threshold"] = self.threshold
        environment = {"kind": self.kind, **({} if self.kind in NO_ARMS_KEY else {"arms": ARMS}),
                       **EXTRA_ENVIRONMENT.get(self.kind, {})}
        return {"name": name, "seed": seed, "problem": problem, "environment": environment, "strategy": [strategy],
                "session": {"max_pending": self.max_pending}}


def _variant_label(reward) -> str:
    variant = REWARD_MODEL_VARIANTS[reward[0]][reward[1]]
    return "-".join(str(v) for v in variant.values()) or "default"


def axes() -> dict[str, list]:
    """Every value of every axis of a definition, from the registries."""
    names = registered_names()
    thresholds = sorted({kind for name in names for kind in get_strategy_class(name).threshold_kinds})
    rewards = [None] + [(model, i) for model, variants in sorted(REWARD_MODEL_VARIANTS.items())
                        for i in range(len(variants))]
    pairs = [(kind, goal) for goal, kinds in sorted(GOALS.items()) for kind in sorted(kinds) if kind in LEARNER_KINDS]
    return {"kind-goal": pairs, "reward": rewards, "epsilon": list(EPSILONS), "threshold": [None] + thresholds,
            "strategy": list(names), "max_pending": list(PENDING)}


def build(values: dict) -> Definition:
    kind, goal = values["kind-goal"]
    return Definition(kind, goal, values["reward"], values["epsilon"], values["threshold"], values["strategy"],
                      values["max_pending"])


def check(definition: Definition):
    """The library's reading of the session file: the SessionSpec, or the ConfigError that refuses it."""
    try:
        return parse_session_file(definition.document())
    except ConfigError as exc:
        return exc


@dataclass
class Sample:
    valid: list = field(default_factory=list)  # (Definition, SessionSpec)
    refused: list = field(default_factory=list)  # (Definition, ConfigError)
    uncovered: list = field(default_factory=list)  # (axis, value) no valid definition was found for


def sample(size: int, seed: int = 36, tries: int = 400) -> Sample:
    """Valid definitions covering every axis value (when some valid definition takes it), every pair of values
    of the axes of :data:`PAIRS` that some drawn definition takes, then random ones.

    Deterministic for a given ``size`` and ``seed``.  With ``size`` = 0 every definition of the
    product is enumerated (hours to run: the full audit).
    """
    ax = axes()
    out = Sample()
    seen: set = set()

    def pick(rng, options):
        return options[rng.integers(len(options))]

    def draw(rng, fixed=None, plain=False) -> Definition:
        """Random values; the strategy first, then goals and threshold kinds among those it declares.

        ``plain``: the environment's own law, no epsilon, the default threshold, one request at a time
        (the definition most likely to be valid), except for the ``fixed`` axis.
        """
        fixed = dict(fixed) if fixed is not None else {}
        values = {name: fixed[name] if name in fixed else pick(rng, options) for name, options in ax.items()}
        if plain:
            values.update({k: v for k, v in (("reward", None), ("epsilon", None), ("max_pending", 1))
                           if k not in fixed})
        cls = get_strategy_class(values["strategy"])
        if "kind-goal" not in fixed:
            values["kind-goal"] = pick(rng, [p for p in ax["kind-goal"] if p[1] in cls.goals] or ax["kind-goal"])
        if "threshold" not in fixed:
            kinds = [None] + list(cls.threshold_kinds) if "fixed-confidence" in cls.regimes and not plain else [None]
            values["threshold"] = pick(rng, kinds)
        elif values["threshold"] is not None:
            users = [n for n in ax["strategy"] if values["threshold"] in get_strategy_class(n).threshold_kinds]
            if "strategy" not in fixed and users:
                values["strategy"] = pick(rng, users)
        return build(values)

    def consider(d: Definition) -> bool:
        if d in seen:
            return False
        seen.add(d)
        result = check(d)
        if isinstance(result, ConfigError):
            if len(out.refused) < max(4, size // 4):
                out.refused.append((d, result))
            return False
        out.valid.append((d, result))
        return True

    if size == 0:
        for combo in itertools.product(*ax.values()):
            consider(build(dict(zip(ax, combo))))
        return out
    rng = np.random.default_rng(seed)
    for name, values in ax.items():
        for value in values:
            if any(_value(d, name) == value for d, _ in out.valid):
                continue
            for attempt in range(tries):
                if consider(draw(rng, [(name, value)], plain=attempt >= 3 * tries // 4)):
                    break
            else:
                out.uncovered.append((name, value))
    for first, second in PAIRS:  # then every pair of these axes' values that some valid definition takes
        for pair in itertools.product(ax[first], ax[second]):
            if any((_value(d, first), _value(d, second)) == pair for d, _ in out.valid):
                continue
            for _ in range(tries // 8):
                if consider(draw(rng, list(zip((first, second), pair)))):
                    break
    budget = tries * size
    while len(out.valid) < size and budget > 0:
        consider(draw(rng))
        budget -= 1
    return out


def _value(d: Definition, axis: str):
    if axis == "kind-goal":
        return (d.kind, d.goal)
    return getattr(d, {"reward": "reward", "epsilon": "epsilon", "threshold": "threshold", "strategy": "strategy",
                       "max_pending": "max_pending"}[axis])


# ---------------------------------------------------------------- the world's answers
def support(problem) -> tuple[float, float]:
    """The interval the learner accepts rewards in (the real line for Gaussian families)."""
    lo, hi = problem.family.support
    return float(lo), float(hi)


def _unit(lo: float, hi: float, x: float) -> float:
    """x in [0, 1] placed in [lo, hi] (itself on the real line)."""
    return lo + (hi - lo) * x if math.isfinite(lo) and math.isfinite(hi) else x


def _spike(a, i, rng, lo, hi):
    if a == 0:  # pays its top rarely: a run of equal rewards at first
        return _unit(lo, hi, 1.0) * 10.0 ** (not math.isfinite(hi)) if rng.random() < 0.05 else _unit(lo, hi, 0.0)
    return _unit(lo, hi, 0.3) + (0.01 * rng.normal() if not math.isfinite(hi) else 0.0)


#: stream name -> reward(arm, step, rng, low, high) before the learner's checks
STREAMS = {
    "ordinary": lambda a, i, rng, lo, hi: (_unit(lo, hi, float(rng.random() < 0.3 + 0.1 * a))
                                           if math.isfinite(hi) else 0.2 * a + rng.normal()),
    "constant": lambda a, i, rng, lo, hi: _unit(lo, hi, (a + 1) / (ARMS + 1)),
    "range-ends": lambda a, i, rng, lo, hi: (_unit(lo, hi, 1.0 if a < 2 else 0.0) if math.isfinite(hi)
                                             else (1e100 if a < 2 else -1e100)),
    "tiny-differences": lambda a, i, rng, lo, hi: _unit(lo, hi, 0.0) + a * 1e-300,
    "subnormal": lambda a, i, rng, lo, hi: _unit(lo, hi, 0.0) + (a + i % 2) * 5e-324,
    "repeated": lambda a, i, rng, lo, hi: _unit(lo, hi, (0.25, 0.75)[(i + a) % 2]),
    "huge": lambda a, i, rng, lo, hi: 1e300 * (a + 1) * (-1) ** i,
    "spike": _spike,
}


def fallback(problem, x: float) -> list[float]:
    """Rewards to try after ``x`` was refused, in order (the nearest end of the support, then 0 and 1)."""
    lo, hi = support(problem)
    out = []
    if math.isfinite(lo) and math.isfinite(hi):
        out.append(lo if not x > 0.5 * (lo + hi) else hi)
    out += [0.0, 1.0]
    return out


def truth(problem, kind: str, stream: str) -> dict:
    """The [environment] truth keys of an experiment file on ``problem`` (what ``pybai run`` samples from)."""
    lo, hi = support(problem)
    shape = problem.source_shape
    n = int(np.prod(shape))
    rng = np.random.default_rng(1)
    if stream == "range-ends":
        unit = np.where(np.arange(n) < 2, 1.0, 0.0)
    elif stream == "constant":
        unit = np.full(n, 0.5)
    elif stream == "tiny-differences":
        unit = np.arange(n) * 1e-300
    else:
        unit = np.linspace(0.8, 0.2, n) + 0.01 * rng.random(n)
    means = np.array([_unit(lo, hi, u) if math.isfinite(hi) else u for u in unit]).reshape(shape)
    out: dict = {}
    if kind == "multi-metric":  # one [[environment.metric]] table per metric, its means per arm
        return {"metric": [{"name": name, "kind": "gaussian", "means": means[:, m].tolist(), "sigma": 1.0}
                           for m, name in enumerate(problem.request_space().observation_names)]}
    for key in LEARNER_KINDS[kind].truth_keys:
        if key == "means":
            out["means"] = means.tolist()
        elif key == "sd":
            out["sd"] = 0.05
        elif key == "theta":
            out["theta"] = np.linspace(1.0, 0.2, np.asarray(problem.features).shape[1]).tolist()
    return out


def experiment(definition: Definition, stream: str, name: str = "combo") -> dict | None:
    """A tiny experiment file (2 replications, at most 300 samples) of ``definition`` on a truth of ``stream``.

    None when the environment kind and goal do not read as a session file even with ``uniform``
    (the truth needs the learner's problem: its support and shape).
    """
    plain = Definition(definition.kind, definition.goal, definition.reward, definition.epsilon, None,
                       "uniform", 1)
    spec = check(plain)
    if isinstance(spec, ConfigError):
        return None
    doc = definition.document(name=name)
    doc.pop("session")
    env = {k: v for k, v in doc["environment"].items() if k != "arms"}
    env.update(truth(spec.problem, definition.kind, stream))
    doc.update(environment=env, replications=2)
    if "delta" in doc["problem"]:
        doc["problem"]["max_samples"] = 300
    return doc


def sample_experiments(strategies, seed: int = 36, tries: int = 200) -> list[Definition]:
    """For each of ``strategies`` (those no session took, e.g. reference rules), a definition ``pybai run`` reads."""
    from pybai.config.experiment import parse_experiment

    rng = np.random.default_rng(seed)
    ax = axes()
    out = []
    for name in strategies:
        cls = get_strategy_class(name)
        pairs = [p for p in ax["kind-goal"] if p[1] in cls.goals]
        if not pairs:  # its goals come from kinds sessions do not take: shipped_experiment() gives one
            continue
        kinds = [None] + list(cls.threshold_kinds) if "fixed-confidence" in cls.regimes else [None]
        for _ in range(tries):
            d = Definition(*pairs[rng.integers(len(pairs))], ax["reward"][rng.integers(len(ax["reward"]))],
                           EPSILONS[rng.integers(len(EPSILONS))], kinds[rng.integers(len(kinds))], name, 1)
            doc = experiment(d, "ordinary")
            if doc is None:
                continue
            try:
                parse_experiment(doc)
            except ConfigError:
                continue
            out.append(d)
            break
    return out


def shipped_experiment(strategy: str, name: str = "combo") -> tuple[Definition, dict] | None:
    """A tiny run of ``strategy`` on the first shipped experiment whose problem it solves (2 replications, at most
    300 samples): for strategies whose goals no session kind takes (e.g. guardrails on multi-metric environments).
    None when no shipped experiment has such a problem."""
    import tomllib

    from pybai.config.experiment import parse_experiment
    from pybai.experiments import experiment_names, experiment_path

    cls = get_strategy_class(strategy)
    for stem in experiment_names():
        doc = tomllib.loads(experiment_path(stem).read_text())
        doc.update(name=name, replications=2, strategy=[{"name": strategy}])
        if "delta" in doc["problem"]:
            doc["problem"]["max_samples"] = 300
        try:
            exp = parse_experiment(doc)
        except ConfigError:
            continue
        if exp.problem.goal in cls.goals:
            return Definition(doc["environment"]["kind"], doc["problem"]["goal"], None, None, None, strategy, 1), doc
    return None
