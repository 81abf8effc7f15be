"""Experiment-file keys of guardrail problems: ``[environment] kind = "multi-metric"`` and ``[[problem.metric]]``.

```toml
[environment]
kind = "multi-metric"
labels = ["control", "new"]
correlation = [[1.0, -0.3], [-0.3, 1.0]]     # optional (Gaussian copula)
[[environment.metric]]
name = "conversion"
kind = "bernoulli"                            # gaussian / bernoulli / binomial / beta, with that kind's keys
means = [0.10, 0.12]
[[environment.metric]]
name = "latency_ms"
kind = "gaussian"
means = [240.0, 245.0]
sigma = 30.0

[problem]
goal = "best-arm"
delta = 0.05
control = "control"                           # default: arm 0
[[problem.metric]]                            # the first metric is the objective
name = "conversion"
[[problem.metric]]
name = "latency_ms"
at_most = 250.0                               # at_least, at_most_vs_control, at_least_vs_control
# reward_model = "gaussian-unknown-variance"  # a Gaussian metric whose variance is estimated (no sigma)
```

Every refusal is one line naming the key (``problem.metric[1].at_most_vs_control: ...``).
"""

from __future__ import annotations

from typing import Any

from pybai._validation import check_memory
from pybai.config.keys import Table, config_message
from pybai.environments.multi_metric import METRIC_KINDS, MultiMetricEnvironment
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.problems.base import Problem
from pybai.problems.guardrails import GuardrailProblem, Metric
from pybai.problems.guardrails.metrics import GUARDRAIL_KEYS, METRIC_REWARD_MODELS

__all__ = ["build_multi_metric_environment", "guardrail_problem", "build_multi_metric_learner", "describe_multi_metric",
           "guardrail_problem_table"]

#: keys of each metric kind of ``[[environment.metric]]`` (besides name and kind)
_KIND_KEYS = {"gaussian": ("means", "sigma"), "bernoulli": ("means",), "binomial": ("means", "trials"),
              "beta": ("means", "sd")}
_METRIC_KEYS = ("name", "maximize", "reward_model", "sigma", "reward_range", *GUARDRAIL_KEYS)


def _metric_tables(raw: Any, where: str) -> list[Table]:
    if not isinstance(raw, list) or not raw or not all(isinstance(t, dict) for t in raw):
        raise ConfigError(f"{where}: expected one or more [[{where}]] tables (one per metric).")
    return [Table(t, f"{where}[{i}]") for i, t in enumerate(raw)]


def build_multi_metric_environment(table: Table) -> MultiMetricEnvironment:
    """``multi-metric`` (one ``[[environment.metric]]`` table per metric): keys metric, correlation."""
    metrics: dict[str, Any] = {}
    for t in _metric_tables(table.raw("metric"), table.key("metric")):
        name = t.str("name")
        if name in metrics:
            raise ConfigError(f"{t.key('name')}: expected distinct metric names, got \"{name}\" twice.")
        kind = t.str("kind", choices=sorted(METRIC_KINDS))
        metrics[name] = t.construct(METRIC_KINDS[kind], _KIND_KEYS[kind], also_valid=("name", "kind"))
    extra = {k: table.raw(k) for k in ("correlation", "labels") if table.has(k)}
    return table.construct(MultiMetricEnvironment, (), also_valid=("metric", "correlation", "labels"),
                           metrics=metrics, **extra)


def guardrail_problem(n_arms, environment_metrics, regime, batch=None, metric=None, control=0, *, labels=None,
                      epsilon=None, epsilon_mode=None):
    """The :class:`GuardrailProblem` of ``[[problem.metric]]`` on a multi-metric environment.

    The metric tables name the environment's metrics in its order (the first is the objective);
    a metric's reward model defaults to what the environment says of it.
    """
    if metric is None:
        raise ConfigError("problem.metric: missing: one [[problem.metric]] table per metric of the environment "
                          "(the first is the objective).")
    tables = _metric_tables(metric, "problem.metric")
    if environment_metrics is None:  # a session: the metric tables say what the learner knows of each metric
        environment_metrics = [{"name": t.data.get("name")} for t in tables]
    names = [m["name"] for m in environment_metrics]
    if len(tables) != len(names):
        raise ConfigError(f"problem.metric: expected {len(names)} [[problem.metric]] tables, one per metric of the "
                          f"environment ({', '.join(names)}), got {len(tables)}.")
    metrics = []
    for i, (t, known) in enumerate(zip(tables, environment_metrics)):
        name = t.str("name")
        if name in [m.name for m in metrics]:
            raise ConfigError(f"{t.key('name')}: expected distinct metric names, got \"{name}\" twice.")
        if name != known["name"]:
            raise ConfigError(f"{t.key('name')}: expected \"{known['name']}\" (the environment's metric {i}, in the "
                              f"same order), got \"{name}\".")
        if i == 0:
            for key in GUARDRAIL_KEYS:
                if t.has(key):
                    raise ConfigError(f"{t.key(key)}: the first metric is the objective; a guardrail goes on another "
                                      "metric.")
        kwargs = {k: v for k, v in known.items() if k != "name"}
        if t.has("reward_model"):
            model = t.str("reward_model")
            if model not in METRIC_REWARD_MODELS:
                listed = ", ".join(f'"{m}"' for m in METRIC_REWARD_MODELS)
                raise ConfigError(f"{t.key('reward_model')}: expected one of {listed} for a metric, got \"{model}\".")
            if model == "bernoulli" and known.get("reward_model", "bernoulli") != "bernoulli":
                raise ConfigError(f"{t.key('reward_model')}: \"bernoulli\" takes rewards 0 or 1, but the environment's "
                                  f"metric \"{name}\" gives other rewards; expected \"bounded\" or \"gaussian\".")
            if model == "gaussian-unknown-variance" and known.get("reward_model", "gaussian") != "gaussian":
                raise ConfigError(f"{t.key('reward_model')}: \"gaussian-unknown-variance\" needs Gaussian rewards, but "
                                  f"the environment's metric \"{name}\" gives {known['reward_model']} rewards; expected "
                                  "\"bounded\" or \"bernoulli\".")
            kwargs = {}
        if t.has("maximize") and i > 0:
            raise ConfigError(f"{t.key('maximize')}: only on the objective (the first metric).")
        given = {k: t.raw(k) for k in _METRIC_KEYS if t.has(k)}
        t.finish(_METRIC_KEYS)
        try:
            metrics.append(Metric(**{**kwargs, **given}))
        except InvalidParameterError as exc:
            raise ConfigError(_metric_message(t, str(exc))) from None
    try:
        return GuardrailProblem(n_arms, metrics, regime, batch, control=control, labels=labels, epsilon=epsilon,
                                epsilon_mode="additive" if epsilon_mode is None else epsilon_mode)
    except InvalidParameterError as exc:
        raise ConfigError(_metric_message(Table({}, "problem"), str(exc))) from None


def _metric_message(t: Table, message: str) -> str:
    return config_message(t.prefix, message)


# ----------------------------------------------------------------- sessions (pybai.config.learner)
def build_multi_metric_learner(table: Table) -> dict:
    """The ``[environment]`` of a session on guardrail metrics: ``arms`` or ``labels`` only.

    What the learner knows of each metric (its reward model, ``sigma`` or ``reward_range``) is said in its
    ``[[problem.metric]]`` table; the ``[[environment.metric]]`` tables of a simulation hold the truth.
    """
    if table.has("metric"):
        raise ConfigError(f"{table.key('metric')}: a session file says what the learner knows of each metric in its "
                          "[[problem.metric]] table (reward_model, sigma or reward_range); remove [[environment.metric]].")
    labels = table.raw("labels", None)
    if isinstance(labels, list) and not table.has("arms"):
        k = len(labels)  # the labels are the arms (checked with the problem)
    else:
        k = table.int("arms", minimum=1)
    try:
        check_memory(8 * k, "arms", "", "the statistics of every arm (8 bytes per cell)", k)
    except InvalidParameterError as exc:
        raise ConfigError(config_message(table.prefix, str(exc))) from None
    table.finish()
    return {"n_arms": k, "environment_metrics": None, **({} if labels is None else {"labels": labels})}


def describe_multi_metric(problem) -> dict | None:
    """The session ``[environment]`` table of a :class:`GuardrailProblem` (None for other problems)."""
    return {"arms": problem.n_arms} if isinstance(problem, GuardrailProblem) else None


def guardrail_problem_table(problem: Problem) -> dict:
    """The goal keys of the session ``[problem]`` table of ``problem`` (a :class:`GuardrailProblem`): goal,
    control and one metric table each."""
    assert isinstance(problem, GuardrailProblem)
    tables = []
    for i, m in enumerate(problem.metrics):
        t = m.to_dict()
        if i > 0 or t["maximize"]:
            t.pop("maximize")  # the default, and refused on a guarded metric
        tables.append(t)
    control = problem.labels[problem.control] if problem.labels is not None else problem.control
    table: dict[str, Any] = {"goal": "best-arm", "control": control, "metric": tables}
    if problem.epsilon is not None:
        table.update(epsilon=problem.epsilon, epsilon_mode=problem.epsilon_mode)
    return table
