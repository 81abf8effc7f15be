"""Session files: an experiment file whose ``[environment]`` gives only what the learner knows.

A real experiment has no hidden truth to simulate: the world answers.  Its file names the
environment ``kind`` and the public structure a learner may use, and never the means:

=========================  =================================================================
kind                       keys
=========================  =================================================================
``gaussian``               ``arms`` (K >= 2), ``sigma`` (scalar or K; default 1)
``bernoulli``              ``arms``
``binomial``, ``beta``     ``arms`` (``binomial``: ``trials``)
``subpopulation-gaussian`` ``arms``, ``subpopulations`` (default: the length of ``weights``),
                           ``weights``, ``constrained``, ``floor``, ``sigma``, ``sampling``
``linear-gaussian``        ``features`` (K x d), ``sigma``
``correlated-gaussian``    ``covariance`` or ``kernel``, ``sigma``, ``eta``, ``prior_mean``
                           (``arms`` optional, checked against the covariance)
``multi-metric``           ``arms`` (what the learner knows of each metric is in its
                           ``[[problem.metric]]`` table: ``reward_model``, ``sigma`` or
                           ``reward_range``)
=========================  =================================================================

Every kind also accepts ``labels`` (one distinct name per arm, :mod:`pybai.naming`); where a kind
asks for ``arms``, ``labels`` alone is enough (the labels are the arms), and both must agree.

Each kind has a *learner builder* (table -> the problem constructor's keywords, the same
dict as ``Environment.structure()`` of a simulated environment of that kind) and a
*description* (problem -> the environment table), so that a session created from Python
objects is stored as the session file a user would have written and reopened through this
same path.  A file with a truth key (``means``, ``theta``, ``draw``, ``truths``) is refused.

Examples
--------
>>> spec = parse_session_file({
...     "problem": {"goal": "best-arm", "delta": 0.05},
...     "environment": {"kind": "bernoulli", "arms": 3},
...     "strategy": [{"name": "tas"}]})
>>> spec.problem.n_arms, spec.problem.family.name, spec.strategy_name, spec.seed
(3, 'bernoulli', 'tas', 0)
"""

from __future__ import annotations

import math

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from pybai._validation import check_memory
from pybai.config.reward_models import REWARD_MODEL_REFUSES, point_to_reward_models
from pybai.config.keys import Table, UnknownKeyError, config_message, parameters_of, strategy_message
from pybai.config.guardrails import build_multi_metric_learner, describe_multi_metric, guardrail_problem_table
from pybai.config.problems import GOAL_KEYS, GOALS, build_problem_on
from pybai.environments import BernoulliEnvironment, BetaEnvironment, BinomialEnvironment, GaussianEnvironment
from pybai.environments.correlated import CorrelatedGaussianEnvironment
from pybai.environments.subpopulation import SubpopulationGaussianEnvironment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.naming import check_labels
from pybai.problems.guardrails import GuardrailProblem
from pybai.problems.base import FixedConfidence, Problem
from pybai.strategies.base import Strategy
from pybai.strategies.compatibility import check_max_pending
from pybai.strategies.registry import make_strategy

__all__ = [
    "LEARNER_KINDS",
    "LearnerKind",
    "SessionSpec",
    "register_learner",
    "build_learner_problem",
    "parse_session_file",
    "load_session_file",
    "session_document",
]


@dataclass(frozen=True)
class LearnerKind:
    """How a session file describes one environment kind.

    Attributes
    ----------
    build : callable (Table -> dict)
        The problem constructor's keywords from the ``[environment]`` table (reads every key).
    describe : callable (Problem -> dict or None)
        The ``[environment]`` table (without ``kind``) of a problem, or None when this kind
        cannot describe it (e.g. a Gaussian kind for a Bernoulli family).
    truth_keys : tuple of str
        Keys of the simulated kind that a session file must not give.
    """

    build: Callable[[Table], dict]
    describe: Callable[[Problem], dict | None]
    truth_keys: tuple[str, ...] = ()
    #: a problem class the kind's goal builds through a function (``GOALS`` then maps to that function), and the
    #: ``[problem]`` keys describing such a problem (goal and goal keys; the regime and batch are added)
    problem_class: type | None = None
    problem_table: Callable[[Problem], dict] | None = None


def _compact(values: np.ndarray):
    """A scalar when every value is the same, else the nested list."""
    values = np.asarray(values, dtype=float)
    return float(values.reshape(-1)[0]) if np.all(values == values.reshape(-1)[0]) else values.tolist()


# ----------------------------------------------------------------- the kinds
def _arms(table: Table, minimum: int, cells_per_arm: int = 1) -> int:
    """``arms`` (or the number of ``labels``: the labels are the arms), refused (with the estimate)
    when the per-cell statistics would not fit in memory.  When both are given they must agree."""
    labels = table.data.get("labels")
    named = len(labels) if isinstance(labels, list) else None
    if named is not None and not table.has("arms"):
        if named < minimum:
            raise ConfigError(f"{table.key('labels')}: expected at least {minimum} labels (one per arm), got {named}.")
        k = named
    else:
        k = table.int("arms", minimum=minimum)  # labels that disagree are refused with the kind's other keys
    try:
        check_memory(8 * k * cells_per_arm, "arms", "", "the statistics of every arm (8 bytes per cell)", k)
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None
    return k


def _build_gaussian(table: Table) -> dict:
    k = _arms(table, 2)
    return table.construct(GaussianEnvironment, ("sigma", "labels"), means=np.zeros(k)).structure()


def _describe_gaussian(problem: Problem) -> dict | None:
    if problem.family.name == "gaussian-unknown-variance":
        return {"arms": problem.n_sources}  # the variances are what the learner estimates
    if problem.family.name != "gaussian":
        return None
    return {"arms": problem.n_sources, "sigma": _compact(np.sqrt(problem.family.variances))}


def _build_bernoulli(table: Table) -> dict:
    k = _arms(table, 2)
    return table.construct(BernoulliEnvironment, ("labels",), means=np.full(k, 0.5)).structure()


def _describe_bernoulli(problem: Problem) -> dict | None:
    return {"arms": problem.n_sources} if problem.family.name == "bernoulli" else None


def _build_binomial(table: Table) -> dict:
    k = _arms(table, 2)
    return table.construct(BinomialEnvironment, ("trials", "labels"), means=np.full(k, 0.5)).structure()


def _describe_binomial(problem: Problem) -> dict | None:
    if problem.family.name != "binomial":
        return None
    return {"arms": problem.n_sources, "trials": int(getattr(problem.family, "trials"))}


def _build_beta(table: Table) -> dict:
    k = _arms(table, 2)
    return table.construct(BetaEnvironment, ("labels",), means=np.full(k, 0.5), sd=0.1).structure()


def _describe_beta(problem: Problem) -> dict | None:
    # any bounded family: its range is the [problem] reward_range (reward_model_keys), the kind gives the arms
    return {"arms": problem.n_sources} if problem.family.name.startswith("bounded") else None


def _build_subpopulation(table: Table) -> dict:
    weights = table.raw("weights")
    n_weights = len(weights) if isinstance(weights, list) else 0
    sub = table.int("subpopulations", n_weights, minimum=1)
    k = _arms(table, 1, cells_per_arm=sub)
    keys = ("weights", "constrained", "floor", "sigma", "sampling", "labels")
    return table.construct(SubpopulationGaussianEnvironment, keys, means=np.zeros((k, sub))).structure()


def _describe_subpopulation(problem: Problem) -> dict | None:
    if problem.family.name != "gaussian":
        return None
    d = problem.to_dict()
    shape = (d["n_arms"], d["n_subpopulations"])
    return {"arms": d["n_arms"], "subpopulations": d["n_subpopulations"], "weights": d["weights"],
            "constrained": d["constrained"], "floor": d["floor"],
            "sigma": _compact(np.sqrt(problem.family.variances).reshape(shape)), "sampling": d["sampling"]}


def _build_correlated(table: Table) -> dict:
    arms = table.int("arms", None, minimum=2)
    keys = ("covariance", "kernel", "sigma", "eta", "prior_mean", "labels")
    structure = table.construct(CorrelatedGaussianEnvironment, keys, draw="prior").structure()
    if arms is not None and arms != structure["n_arms"]:
        raise ConfigError(f"{table.key('arms')}: expected {structure['n_arms']} (the size of the prior "
                          f"covariance), got {arms}.")
    return structure


def _describe_correlated(problem: Problem) -> dict | None:
    d = problem.to_dict()
    return {"covariance": d["covariance"], "sigma": d["sigma"], "eta": d["eta"], "prior_mean": d["prior_mean"]}


def _build_linear(table: Table) -> dict:
    features = table.array("features", ndim=2)
    sigma = table.float("sigma", 1.0, low=0.0, open_low=True)
    labels = table.raw("labels", None)
    table.finish()
    try:
        labels = check_labels(labels, features.shape[0], "labels")
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None
    return {"features": features, "sigma": sigma, **({} if labels is None else {"labels": list(labels)})}


def _describe_linear(problem: Any) -> dict | None:  # a LinearBestArmProblem
    return {"features": np.asarray(problem.features).tolist(), "sigma": float(problem.sigma)}


LEARNER_KINDS: dict[str, LearnerKind] = {
    "gaussian": LearnerKind(_build_gaussian, _describe_gaussian, ("means",)),
    "bernoulli": LearnerKind(_build_bernoulli, _describe_bernoulli, ("means",)),
    "binomial": LearnerKind(_build_binomial, _describe_binomial, ("means",)),
    "beta": LearnerKind(_build_beta, _describe_beta, ("means", "sd")),
    "subpopulation-gaussian": LearnerKind(_build_subpopulation, _describe_subpopulation, ("means",)),
    "linear-gaussian": LearnerKind(_build_linear, _describe_linear, ("theta",)),
    "correlated-gaussian": LearnerKind(_build_correlated, _describe_correlated, ("means", "draw", "truths")),
    "multi-metric": LearnerKind(build_multi_metric_learner, describe_multi_metric, ("correlation",),
                                problem_class=GuardrailProblem, problem_table=guardrail_problem_table),
}


def register_learner(kind: str, learner: LearnerKind) -> None:
    """Make ``environment.kind = kind`` available in session files (a family's addition)."""
    LEARNER_KINDS[kind] = learner


# ----------------------------------------------------------------- reading
def build_learner_problem(problem_table: Table, environment_table: Table) -> Problem:
    """The problem of a session file: ``[problem]`` on the learner's ``[environment]``."""
    kind = environment_table.str("kind", choices=sorted(LEARNER_KINDS))
    learner = LEARNER_KINDS[kind]
    for key in learner.truth_keys:
        if environment_table.has(key):
            raise ConfigError(
                f"{environment_table.key(key)}: a session file gives only what the learner knows "
                f"(in a real experiment the world answers); remove '{key}'."
            )
    model = problem_table.data.get("reward_model")
    for key in REWARD_MODEL_REFUSES.get(model, ()) if isinstance(model, str) else ():
        if environment_table.has(key):
            raise ConfigError(f"{environment_table.key(key)}: not used under reward_model \"{model}\" (the learner "
                              f"estimates it); remove '{key}'.")
    try:
        structure = learner.build(environment_table)
    except UnknownKeyError as exc:  # e.g. reward_range: said in [problem], with the way to say it
        raise point_to_reward_models(exc) from None
    return build_problem_on(problem_table, kind, structure)


@dataclass
class SessionSpec:
    """A validated session file.

    Attributes
    ----------
    name : str
    seed : int
        Master seed; the strategy's stream derives from it as in replication 0 of ``pybai run``.
    problem : Problem
    strategy : Strategy
        Validated on ``problem``, not started.
    strategy_name : str
    params : dict
        The strategy's parameters as given in the file.
    label : str
    document : dict
        The parsed file (stored in the session database; the session is rebuilt from it).
    max_pending : int
        ``[session] max_pending``: requests that may be outstanding at once (default 1).
    expire_after : float or None
        ``[session] expire_after``: seconds after which an outstanding request counts as cancelled.
    """

    name: str
    seed: int
    problem: Problem
    strategy: Strategy
    strategy_name: str
    params: dict[str, Any]
    label: str
    document: dict[str, Any] = field(repr=False)
    max_pending: int = 1
    expire_after: float | None = None


def parse_session_file(data: dict[str, Any], default_name: str = "session", *,
                       unchosen_threshold: str | None = None) -> SessionSpec:
    """Validate a parsed session file; raises :class:`ConfigError` naming the key.

    With ``unchosen_threshold``, a fixed-confidence strategy that leaves ``threshold`` unchosen
    (no key, or None) gets that kind, written into the
    returned :attr:`SessionSpec.document` (a new session stores its threshold, so that a replay
    never depends on a default).
    """
    top = Table(data, "")
    if top.has("grid"):
        raise ConfigError("grid: a session runs one experiment; remove the [grid] table.")
    name = top.str("name", default_name)
    seed = top.int("seed", 0, minimum=0)
    top.raw("replications", None)  # an experiment file's key: allowed, unused by a session
    top.raw("reproduce", None)
    problem = build_learner_problem(cast(Table, top.table("problem")), cast(Table, top.table("environment")))  # required: table() raises when missing
    entries = top.raw("strategy")
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
        count = len(entries) if isinstance(entries, list) else 0
        raise ConfigError(f"strategy: a session runs exactly one strategy; expected one [[strategy]] table, "
                          f"got {count}.")
    params = dict(entries[0])
    if "name" not in params:
        raise ConfigError("strategy[0].name: missing required key.")
    sname = params.pop("name")
    label = params.pop("label", sname)
    if not isinstance(sname, str) or not isinstance(label, str):
        raise ConfigError(f"strategy[0].name: expected a string, got {sname!r}.")
    if unchosen_threshold is not None and isinstance(problem.regime, FixedConfidence) and \
            params.get("threshold") is None:
        params["threshold"] = unchosen_threshold
        data = {**data, "strategy": [{**entries[0], "threshold": unchosen_threshold}]}
    try:
        strategy = make_strategy(sname, params, where="strategy[0]").validate(problem)
    except ConfigError:
        raise
    except InvalidParameterError as exc:
        raise ConfigError(strategy_message("strategy[0]", str(exc))) from None
    if strategy.reference:
        raise ConfigError(f"strategy[0].name: '{sname}' is a reference point that is told the truth in simulations "
                          "(not a real strategy); a session needs a learning strategy.")
    max_pending, expire_after = _session_table(top, strategy, problem)
    top.finish()
    return SessionSpec(name, seed, problem, strategy, sname, params, label, data, max_pending, expire_after)


def _session_table(top: Table, strategy: Strategy, problem: Problem) -> tuple[int, float | None]:
    """``[session] max_pending`` (default 1) and ``expire_after`` (seconds, optional)."""
    table = top.table("session", None)
    if table is None:
        return 1, None
    max_pending = table.int("max_pending", 1, minimum=1)
    expire_after = table.float("expire_after", low=0.0, open_low=True) if table.has("expire_after") else None
    table.finish()
    try:
        check_max_pending(strategy, max_pending, problem)
    except InvalidParameterError as exc:
        raise ConfigError(f"session.max_pending: {exc}") from None
    return max_pending, expire_after


def load_session_file(path: str | Path) -> SessionSpec:
    """Read and validate a session file (TOML)."""
    from pybai.config.experiment import read_document

    return parse_session_file(read_document(path), default_name=Path(path).stem)


# ----------------------------------------------------------------- objects -> file
def _problem_table(problem: Problem, learner: LearnerKind) -> dict:
    table: dict[str, Any] = {"goal": problem.goal}
    regime = problem.regime
    if isinstance(regime, FixedConfidence):
        table.update(delta=float(regime.delta), max_samples=int(regime.max_samples))
    else:
        table["budget"] = int(regime.budget)
    if problem.batch is not None:
        table["batch"] = {"size": problem.batch.size, "max_repeats": problem.batch.max_repeats}
    if learner.problem_table is not None:  # the kind says its problem (e.g. one table per metric)
        table.update(learner.problem_table(problem))
        return table
    accepted = parameters_of(type(problem))  # e.g. no epsilon on linear best arm
    for key in GOAL_KEYS.get(problem.goal, ()):
        value = getattr(problem, key, None)
        if key == "epsilon" and value is None:  # fixed budget: the file's epsilon is the error metric's tolerance
            value = getattr(problem, "error_tolerance", None)
        if key in accepted and value is not None:
            table[key] = _plain(value)
    table.update(problem.family.reward_model_keys())
    return table


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            x, y = float(a), float(b)
        except (TypeError, ValueError):
            return False
        # numpy.isclose(x, y, rtol=1e-12, atol=0) with plain floats (it cost ~0.1 ms a call here)
        if math.isfinite(x) and math.isfinite(y):
            return abs(x - y) <= 1e-12 * abs(y)
        return x == y
    return a == b


def session_document(problem: Problem, strategy: Strategy, *, name: str = "session", seed: int = 0) -> dict:
    """The session file (as a dict) that describes ``problem`` and ``strategy``.

    Raises :class:`~pybai.exceptions.InvalidParameterError` when no registered kind can
    describe the problem exactly (then a session cannot be stored for it).
    """
    if not isinstance(problem, Problem):
        raise InvalidParameterError(f"The 'problem' parameter of Session.create must be a Problem. Got {problem!r}.")
    if not isinstance(strategy, Strategy) or not strategy.name:
        raise InvalidParameterError(
            f"The 'strategy' parameter of Session.create must be a registered Strategy. Got {strategy!r}.")
    params = _plain(strategy.get_params())
    candidates = [kind for kind, cls in GOALS.get(problem.goal, {}).items()
                  if type(problem) is cls and kind in LEARNER_KINDS]
    candidates += [kind for kind, learner in LEARNER_KINDS.items() if type(problem) is learner.problem_class]
    for kind in candidates:
        env = LEARNER_KINDS[kind].describe(problem)
        if env is None:
            continue
        if problem.labels is not None:
            env["labels"] = list(problem.labels)
        document = {"name": name, "seed": int(seed), "problem": _problem_table(problem, LEARNER_KINDS[kind]),
                    "environment": {"kind": kind, **env}, "strategy": [{"name": strategy.name, **params}]}
        rebuilt = parse_session_file(_plain(document))
        if _close(rebuilt.problem.to_dict(), problem.to_dict()):
            return _plain(document)
    if not candidates:
        raise InvalidParameterError(
            f"The 'problem' parameter of Session.create must be a problem a session file can describe "
            f"(goal and environment kind registered in pybai.config). Got {type(problem).__name__} "
            f"with goal '{problem.goal}', which no session environment kind serves."
        )
    raise InvalidParameterError(
        f"The 'problem' parameter of Session.create must have a reward family a session file can describe. "
        f"Got {type(problem).__name__} with family '{problem.family.name}' {_family_facts(problem.family)}, which "
        f"none of the session kinds for goal '{problem.goal}' ({', '.join(candidates)}) describes exactly."
    )


def _family_facts(family: Any) -> str:
    """``(support [0, 1], 3 sources)``: what tells one family of a name from another."""
    low, high = family.support
    return f"(rewards in [{low:g}, {high:g}], {family.size} sources)"
