"""``[problem] reward_model``: what the learner assumes about the rewards, one builder per model.

Absent, the learner's family is the environment's own (Gaussian with the environment's known
``sigma``, or Bernoulli).  A reward model replaces it with the family its name stands for; each
reads its own keys of the ``[problem]`` table (a model's addition: :func:`register_reward_model`).

* ``"gaussian-unknown-variance"``: :class:`~pybai.models.families.GaussianUnknownVariance`, with
  ``statistic = "glr"`` (default, the unknown-variance transportation costs) or ``"ev-glr"`` (the
  empirical variances plugged into the known-variance costs).  The environment's rewards must be
  Gaussian; in a session file ``sigma`` is refused (the variances are what the model estimates).
* ``"bounded"``: :class:`~pybai.models.bounded.Bounded` on ``reward_range = [low, high]`` (default
  [0, 1]) with ``statistic = "kl-inf"`` (default) or ``"sub-bernoulli"``.  The environment's rewards
  must lie in the range (Bernoulli or Beta arms in [0, 1]; Gaussian rewards are refused).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pybai._validation import SIGMA_RELATIVE_RANGE
from pybai.config.keys import Table, UnknownKeyError
from pybai.exceptions import ConfigError, InvalidParameterError
from pybai.models.betting import DEFAULT_MAX_VALUES
from pybai.models.bounded import BOUNDED_STATISTICS, Bounded
from pybai.models.families import UNKNOWN_VARIANCE_STATISTICS, Family, GaussianUnknownVariance

__all__ = ["REWARD_MODELS", "REWARD_MODEL_KEYS", "REWARD_MODEL_REFUSES", "REWARD_MODEL_VARIANTS", "register_reward_model",
           "apply_reward_model", "RANGE_KEYS", "point_to_reward_models"]

#: name -> builder(table, environment family) -> the learner's family
REWARD_MODELS: dict[str, Callable[[Table, Family], Family]] = {}
#: name -> the [problem] keys its builder reads
REWARD_MODEL_KEYS: dict[str, tuple[str, ...]] = {}
#: name -> keys of a session file's [environment] that the model estimates (refused there)
REWARD_MODEL_REFUSES: dict[str, tuple[str, ...]] = {}
#: name -> the settings it offers, each a table of [problem] keys (e.g. one per ``statistic``); ({},): its defaults
REWARD_MODEL_VARIANTS: dict[str, tuple[dict, ...]] = {}


def register_reward_model(name: str, builder: Callable[[Table, Family], Family], keys: tuple[str, ...] = (),
                          session_refuses: tuple[str, ...] = (), variants: tuple[dict, ...] = ()) -> None:
    """Make ``[problem] reward_model = name`` available; ``builder(table, family)`` returns the learner's family.

    ``keys``: the [problem] keys the builder reads; ``session_refuses``: [environment] keys of a
    session file that contradict the model (e.g. a known ``sigma`` under unknown variances);
    ``variants``: the distinct settings the model offers, as tables of [problem] keys (one per
    statistic): what the combination checks (tests/combinations) drive through every surface.
    """
    REWARD_MODELS[name] = builder
    REWARD_MODEL_KEYS[name] = tuple(keys)
    REWARD_MODEL_REFUSES[name] = tuple(session_refuses)
    REWARD_MODEL_VARIANTS[name] = tuple(dict(v) for v in variants) or ({},)


#: ``[environment]`` keys written for rewards in a known range (e.g. a revenue between 0 and 100):
#: the range is what the learner assumes, a ``[problem]`` reward model, not a key of the environment
RANGE_KEYS = ("reward_range", "range", "bounds", "low", "high", "lower", "upper", "min", "max", "support")

#: where bounded rewards are said, and the environment kinds whose rewards stay in a range
BOUNDED_POINTER = ('[problem] reward_model = "bounded" with reward_range = [low, high], and an environment whose '
                   'rewards stay in that range: kind = "beta" or "bernoulli" (a session file: kind = "beta" with '
                   'arms or labels only); docs/reward_models.md')


def point_to_reward_models(exc: UnknownKeyError) -> ConfigError:
    """``exc`` itself, or for a range key in ``[environment]`` (:data:`RANGE_KEYS`) the same line with the way to say it."""
    if exc.key not in RANGE_KEYS or not exc.where.startswith("environment."):
        return exc
    return ConfigError(f"{exc.where}: not a key of the environment; rewards in a known range are {BOUNDED_POINTER}.")


def all_keys() -> tuple[str, ...]:
    """Every [problem] key a reward model may read (for the unknown-key suggestions)."""
    return ("reward_model", *sorted({k for keys in REWARD_MODEL_KEYS.values() for k in keys}))


def apply_reward_model(table: Table, structure: dict) -> dict:
    """The problem constructor's keywords with the family the ``reward_model`` key names (if any)."""
    if not table.has("reward_model"):
        for name, keys in REWARD_MODEL_KEYS.items():
            for key in keys:
                if table.has(key):
                    raise ConfigError(f"{table.key(key)}: only with a reward_model that reads it "
                                      f"(e.g. reward_model = \"{name}\").")
        return structure
    name = table.str("reward_model", choices=sorted(REWARD_MODELS))
    for other, keys in REWARD_MODEL_KEYS.items():
        for key in keys:
            if table.has(key) and key not in REWARD_MODEL_KEYS[name]:
                raise ConfigError(f"{table.key(key)}: not a key of reward_model \"{name}\".")
    family = structure.get("family")
    if not isinstance(family, Family):
        raise ConfigError(f"{table.key('reward_model')}: this environment kind has no reward family to replace.")
    try:
        learner_family = REWARD_MODELS[name](table, family)
    except ConfigError:  # already names its key
        raise
    except InvalidParameterError as exc:
        raise ConfigError(f"{table.key('reward_model')}: {exc}") from None
    return {**structure, "family": learner_family}


def _unknown_variance(table: Table, family: Family) -> Family:
    if family.name not in ("gaussian", "gaussian-unknown-variance"):
        raise ConfigError(f"{table.key('reward_model')}: \"gaussian-unknown-variance\" needs Gaussian rewards "
                          f"(environment kind \"gaussian\"); the environment's are \"{family.name}\".")
    statistic = table.str("statistic", "glr", choices=UNKNOWN_VARIANCE_STATISTICS)
    return GaussianUnknownVariance(family.size, statistic)


register_reward_model("gaussian-unknown-variance", _unknown_variance, ("statistic",), session_refuses=("sigma",),
                      variants=tuple({"statistic": s} for s in UNKNOWN_VARIANCE_STATISTICS))


def _bounded(table: Table, family: Family) -> Family:
    raw = table.raw("reward_range", [0.0, 1.0])
    if (not isinstance(raw, list) or len(raw) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in raw)):
        raise ConfigError(f"{table.key('reward_range')}: expected [low, high], two finite numbers; got {raw!r}.")
    low, high = float(raw[0]), float(raw[1])
    if not low < high:
        raise ConfigError(f"{table.key('reward_range')}: expected low < high; got [{low:g}, {high:g}].")
    statistic = table.str("statistic", "kl-inf", choices=BOUNDED_STATISTICS)
    max_values = table.int("max_values", DEFAULT_MAX_VALUES, minimum=0, maximum=100_000)
    lo, hi = family.support
    if lo < low or hi > high:
        raise InvalidParameterError(f"\"bounded\" on [{low:g}, {high:g}] needs rewards in that range; the environment's "
                                    f"\"{family.name}\" rewards lie in [{lo:g}, {hi:g}] (bounded rewards: {BOUNDED_POINTER}).")
    if hi - lo < SIGMA_RELATIVE_RANGE[0] * (high - low):  # rescaled, the environment's rewards would be one point
        raise ConfigError(f"{table.key('reward_range')}: expected a range the environment's rewards fill at least "
                          f"{SIGMA_RELATIVE_RANGE[0]:g} of (numerically safe range); the \"{family.name}\" rewards "
                          f"lie in [{lo:g}, {hi:g}], the range is [{low:g}, {high:g}].")
    try:
        return Bounded(family.size, low, high, statistic, max_values=max_values)
    except InvalidParameterError as exc:  # a range no arithmetic can hold (its width overflows, or is lost)
        reason = str(exc).split(" must be ", 1)[-1].rsplit(". Got", 1)[0]
        raise ConfigError(f"{table.key('reward_range')}: expected {reason}; got [{low:g}, {high:g}].") from None


register_reward_model("bounded", _bounded, ("reward_range", "statistic", "max_values"),
                      variants=tuple({"statistic": s} for s in BOUNDED_STATISTICS))
