"""The format of a strategy's whole state as a JSON-safe dict, and the checks of its restoration.

The state holds a format version, the strategy's registry name and parameters, the problem's
description (checked on restore), the random generator's bit-generator state, the model's
arrays, the base's request bookkeeping (``Strategy._base_state``: pending request and its id, the
initial plan's position, the outstanding requests), the rule's own attributes
(``Strategy._state_attrs``), the stopping rule's own state when it keeps one (``stopping``:
the leader rule) and a digest of all of it.  Restoring it on the same problem, in any process,
continues exactly the run that was saved: :meth:`Strategy.set_state <pybai.strategies.base.Strategy.set_state>`
does it (the strategy sets its own fields), with the checks of this module; :func:`restore_strategy`
builds the strategy first.

What a restore checks, in order (each failure one line naming the part, nothing half-restored):
the format, the strategy's name, the problem; every section's keys, types and shapes; the
invariants of the model (counts non-negative whole numbers, no NaN, estimates equal to
sums / counts where the model keeps means) and of the run (counts adding up to ``t_``, the
outstanding requests, a ``"stopped"`` status only where the stopping rule stops on the saved
statistics, with the saved statistic; ``"censored"`` only at the sample limit); last the digest
(format 2): a state changed in any other way since :func:`strategy_state` wrote it (another
threshold in the parameters, another random state) is refused too.

Examples
--------
>>> import json
>>> from pybai import BestArmProblem, FixedConfidence, Gaussian, make_strategy
>>> problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1))
>>> s = make_strategy("tas").start(problem, rng=0)
>>> s.tell(s.ask(), [0.5])
>>> text = json.dumps(s.get_state())          # JSON-safe
>>> r = restore_strategy(json.loads(text), problem)
>>> r.ask().tolist() == s.ask().tolist() and r.t_ == s.t_ == 1
True
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from pybai._serialize import decode, encode
from pybai.exceptions import InvalidParameterError

__all__ = ["STATE_FORMAT", "strategy_state", "restore_strategy", "check_header", "decoded_section",
           "corrupted", "kind_of", "state_key", "get_path", "state_digest", "expected_digest", "check_digest",
           "check_status", "stopping_section", "stopping_is_foreign", "stopping_state"]

#: Version of the state format; a newer one is refused.  Format 2 adds ``digest``; states of
#: format 1 (sessions' snapshots written before) are restored without it, every invariant checked.
STATE_FORMAT = 2

#: the sections of a state besides its header
SECTIONS = ("params", "rng", "model", "base", "rule")


def strategy_state(strategy) -> dict:
    """The JSON-safe state of a started ``strategy``."""
    model = strategy.model_
    state = {
        "format": STATE_FORMAT,
        "strategy": strategy.name,
        "params": encode(strategy.get_params()),
        "problem": encode(strategy.problem_.to_dict()),
        "rng": encode(strategy.rng_.bit_generator.state),
        "model": {name: encode(getattr(model, name)) for name in model.state_attrs},
        "base": {state_key(path): encode(get_path(strategy, path)) for path in strategy._base_state},
        "rule": {state_key(path): encode(get_path(strategy, path)) for path in strategy._state_attrs},
        **stopping_section(strategy),
    }
    state["digest"] = state_digest(state)
    return state


def state_digest(state: dict) -> str:
    """SHA-256 of everything in ``state`` but its ``digest`` (canonical JSON: sorted keys, exact floats)."""
    body = {key: value for key, value in state.items() if key != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_digest(state: dict) -> str | None:
    """The digest ``state`` must carry (computed before anything is restored), None for format 1, ``""`` when
    the state is not JSON (then refused while its parts are checked)."""
    try:
        return state_digest(state) if state["format"] >= 2 else None
    except (TypeError, ValueError, RecursionError):
        return ""


def check_digest(state: dict, digest: str | None) -> None:
    """Refuse a state whose digest is not :func:`expected_digest`'s (checked last: the parts name themselves first)."""
    if digest is not None and state.get("digest") != digest:
        if "digest" not in state:
            raise corrupted("digest", "present (format 2)", "missing")
        raise InvalidParameterError("state: altered since Strategy.get_state() wrote it (its digest does not match "
                                    "its content): a state is restored only as it was saved.")


def check_status(strategy, foreign_rule: bool = False) -> None:
    """A restored status must be the one the run reached: "stopped" where the stopping rule stops on the saved
    statistics (rules that decide with the base rule, ``stops_on_statistics``), with the saved statistic;
    "censored" and "budget-spent" only at the sample or batch limit.  ``foreign_rule``: the state's stopping rule
    kept rejections of another process (:func:`stopping_is_foreign`, a state saved under another version's
    ``"delta-correct"``), so a stop it made is not decided again (the digest still guards the state)."""
    status = strategy.status_
    if status in ("censored", "budget-spent"):
        limit = strategy._max_samples is not None and strategy.t_ >= strategy._max_samples
        if not (limit or (strategy._max_batches is not None and strategy.batches_ >= strategy._max_batches)):
            raise corrupted("base.status_", f"'{status}' only at the sample or batch limit", status)
        return
    if status != "stopped" or strategy.threshold_ is None or not strategy.stops_on_statistics or foreign_rule:
        return
    if not strategy._ready:
        raise corrupted("base.status_", "'stopped' only after the initial phase (_ready)", status)
    statistic, stop = strategy.threshold_.decide(strategy.problem_, strategy.model_, strategy.t_)
    if not stop:
        raise corrupted("base.status_", "'stopped' only where the stopping rule stops on the saved statistics", status)
    saved = strategy.statistic_
    if not (saved == statistic or (np.isnan(saved) and np.isnan(statistic))):
        raise corrupted("base.statistic_", f"the statistic of the saved model ({statistic!r})", saved)


def stopping_section(strategy) -> dict:
    """``{"stopping": state}`` for a stopping rule with a state of the run's own (:mod:`pybai.stopping.leader`)."""
    threshold = getattr(strategy, "threshold_", None)
    if threshold is not None and threshold.stateful:
        section = {"stopping": encode(threshold.state_)}
        process = threshold.process_id()
        if process is not None:
            section["stopping_rule"] = process
        return section
    return {}


def stopping_is_foreign(strategy, state: dict) -> bool:
    """Whether ``state`` was saved under another process than the strategy's stateful stopping rule (another
    class, leader weight, tolerance or delta: :meth:`~pybai.stopping.base.Threshold.process_id`; a state saved
    before the process was recorded counts as another).  Its leaders and segments are kept, its remembered
    rejections are not (:func:`stopping_state`)."""
    threshold = getattr(strategy, "threshold_", None)
    if threshold is None or not threshold.stateful or "stopping" not in state:
        return False
    return state.get("stopping_rule") != threshold.process_id()


def stopping_state(strategy, state: dict):
    """The stopping rule's own state from ``state``, checked (present exactly when the rule has one), or None;
    nothing is set here."""
    threshold = getattr(strategy, "threshold_", None)
    if threshold is None or not threshold.stateful:
        if "stopping" in state:
            raise corrupted("stopping", "absent (this strategy's stopping rule has no state)", "present")
        return None
    if "stopping" not in state:
        raise corrupted("stopping", "present", "missing")
    try:
        value = np.asarray(decode(state["stopping"]), dtype=float)
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError, MemoryError) as exc:
        raise corrupted("stopping", "an encoded array", exc) from None
    if value.shape != threshold.state_.shape or not np.isfinite(value).all():
        raise corrupted("stopping", f"finite numbers of shape {threshold.state_.shape}", value.shape)
    if stopping_is_foreign(strategy, state):
        # saved under another rule (an older "delta-correct", another delta): its leaders and segments stay valid
        # for this rule's e-process (any predictable leader sequence is), its remembered rejections do not
        value = threshold.forget_rejections(value)
    return value


def state_key(path: str) -> str:
    """The state key of an attribute path: its last name (``"tracker_.cumulative_"`` -> ``"cumulative_"``)."""
    return path.rpartition(".")[2]


def get_path(target, path: str):
    """The attribute at ``path`` (dotted: an attribute of a component such as the rule's tracker)."""
    for name in path.split("."):
        target = getattr(target, name)
    return target


def check_header(strategy, problem, state) -> None:
    """Refuse a ``state`` that is not one of ``strategy``'s on ``problem``: format, name, problem, sections."""
    if not isinstance(state, dict) or "format" not in state:
        raise InvalidParameterError("The 'state' parameter must be a dict from Strategy.get_state().")
    if not isinstance(state["format"], int) or isinstance(state["format"], bool):
        raise corrupted("format", "an integer", state["format"])
    if state["format"] > STATE_FORMAT:
        raise InvalidParameterError(
            f"state format {state['format']} is newer than this version of pybai reads ({STATE_FORMAT}); upgrade pybai."
        )
    if state.get("strategy") != strategy.name:
        raise InvalidParameterError(f"state of strategy '{state.get('strategy')}' cannot restore '{strategy.name}'.")
    if encode(problem.to_dict()) != state.get("problem"):
        raise InvalidParameterError("the state was saved on a different problem.")
    missing = [key for key in SECTIONS if key not in state]
    if missing:
        raise corrupted(missing[0], "present", "missing")


def corrupted(where: str, expected: str, got) -> InvalidParameterError:
    """The one-line refusal of a state whose part ``where`` is not what a fresh strategy holds."""
    shown = " ".join(str(got).split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return InvalidParameterError(f"state.{where}: expected {expected} (a state from Strategy.get_state(), unaltered), "
                                 f"got {shown}.")


def kind_of(value) -> str:
    """The type class a restored value must share with the fresh strategy's (numbers together)."""
    if isinstance(value, np.ndarray):
        return f"an array of {value.ndim} dimension(s) of kind '{value.dtype.kind}'"
    if isinstance(value, (bool, np.bool_)):
        return "a boolean"
    if isinstance(value, (int, np.integer)):
        return "an integer"
    if isinstance(value, (float, np.floating)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):  # dict subclasses (e.g. LinearOracleHint) restore as plain dicts
        return "a table"
    return f"a {type(value).__name__}"


def decoded_section(saved, current: dict, section: str, *, in_place: bool = False) -> dict:
    """The values of ``saved`` (a state's section) for the attribute paths of ``current`` (path -> the fresh
    strategy's value), decoded and checked; nothing is set here.

    A value must have the kind of the fresh attribute (an attribute that starts as ``None`` takes any
    value); with ``in_place`` (the model's arrays, which the strategy holds views of) arrays keep their
    shape.
    """
    keys = {state_key(path): path for path in current}
    if not isinstance(saved, dict) or set(saved) != set(keys):
        raise corrupted(section, f"a table with the keys {', '.join(sorted(keys))}",
                        sorted(saved) if isinstance(saved, dict) else type(saved).__name__)
    decoded = {}
    for name, path in keys.items():
        fresh = current[path]
        try:
            value = decode(saved[name])
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError, MemoryError) as exc:
            raise corrupted(f"{section}.{name}", "an encoded value", exc) from None
        if fresh is not None and kind_of(value) != kind_of(fresh) and not (
                kind_of(fresh) == "a number" and kind_of(value) == "an integer"):
            raise corrupted(f"{section}.{name}", kind_of(fresh), kind_of(value))
        if in_place and isinstance(fresh, np.ndarray) and value.shape != fresh.shape:
            raise corrupted(f"{section}.{name}", f"shape {fresh.shape}", value.shape)
        decoded[path] = value
    return decoded


def restore_strategy(state: dict, problem):
    """A new strategy rebuilt from ``state`` (its registry name and parameters) on ``problem``."""
    from pybai.strategies.registry import make_strategy

    if not isinstance(state, dict) or not isinstance(state.get("strategy"), str):
        raise InvalidParameterError("The 'state' parameter must be a dict from Strategy.get_state().")
    try:
        params = decode(state.get("params", {}))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise corrupted("params", "an encoded table", exc) from None
    if not isinstance(params, dict):
        raise corrupted("params", "a table", type(params).__name__)
    return make_strategy(state["strategy"], params).set_state(problem, state)
