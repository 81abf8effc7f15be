"""A strategy's whole state as a JSON-safe dict, and its exact restoration.

The state holds a format version, the strategy's registry name and parameters, the problem's
description (checked on restore), the random generator's bit-generator state, the model's
arrays, the request bookkeeping (pending request and its id, the initial plan's position), the
rule's own attributes (``Strategy._state_attrs``) and a digest of all of it.  Restoring it on
the same problem, in any process, continues exactly the run that was saved.

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

__all__ = ["STATE_FORMAT", "strategy_state", "restore_state", "restore_strategy", "state_digest"]

#: Version of the state format; a newer one is refused.  Format 2 adds ``digest``; states of
#: format 1 (sessions' snapshots written before) are restored without it, every invariant checked.
STATE_FORMAT = 2

_BASE_ATTRS = ("t_", "batches_", "status_", "statistic_", "request_id", "_pending", "_next_id", "_plan_pos",
               "_ready", "_book.limit", "_book.listing")


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
        "base": {_key(name): encode(_get(strategy, name)) for name in _BASE_ATTRS},
        "rule": {_key(path): encode(_get(strategy, path)) for path in strategy._state_attrs},
        **_stopping_section(strategy),
    }
    state["digest"] = state_digest(state)
    return state


def state_digest(state: dict) -> str:
    """SHA-256 of everything in ``state`` but its ``digest`` (canonical JSON: sorted keys, exact floats)."""
    body = {key: value for key, value in state.items() if key != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stopping_section(strategy) -> dict:
    """``{"stopping": state}`` for a stopping rule with a state of the run's own (:mod:`pybai.stopping.leader`)."""
    threshold = getattr(strategy, "threshold_", None)
    if threshold is not None and threshold.stateful:
        return {"stopping": encode(threshold.state_)}
    return {}


def _key(path: str) -> str:
    """The state key of an attribute path: its last name (``"tracker_.cumulative_"`` -> ``"cumulative_"``)."""
    return path.rpartition(".")[2]


def _get(target, path: str):
    """The attribute at ``path`` (dotted: an attribute of a component such as the rule's tracker)."""
    for name in path.split("."):
        target = getattr(target, name)
    return target


def _set(target, path: str, value) -> None:
    owner, _, name = path.rpartition(".")
    setattr(_get(target, owner) if owner else target, name, value)


def restore_state(strategy, problem, state: dict):
    """Start ``strategy`` on ``problem`` and overwrite its state with ``state``; returns it.

    A state that was not written by :func:`strategy_state` for this strategy and problem, or
    was altered since (missing or extra keys, values of another type, array shapes that do not
    fit, counts that do not add up to ``t_``), is refused with one
    :class:`~pybai.exceptions.InvalidParameterError` naming the part (``state.model.counts``)
    and nothing is half-restored: the strategy is a fresh one.
    """
    if not isinstance(state, dict) or "format" not in state:
        raise InvalidParameterError("The 'state' parameter must be a dict from Strategy.get_state().")
    if not isinstance(state["format"], int) or isinstance(state["format"], bool):
        raise _corrupted("format", "an integer", state["format"])
    if state["format"] > STATE_FORMAT:
        raise InvalidParameterError(
            f"state format {state['format']} is newer than this version of pybai reads ({STATE_FORMAT}); upgrade pybai."
        )
    try:
        digest = state_digest(state) if state["format"] >= 2 else None
    except (TypeError, ValueError, RecursionError):
        digest = ""  # not JSON: refused below (or earlier, naming the part)
    if state.get("strategy") != strategy.name:
        raise InvalidParameterError(f"state of strategy '{state.get('strategy')}' cannot restore '{strategy.name}'.")
    if encode(problem.to_dict()) != state.get("problem"):
        raise InvalidParameterError("the state was saved on a different problem.")
    missing = [key for key in _SECTIONS if key not in state]
    if missing:
        raise _corrupted(missing[0], "present", "missing")
    strategy.start(problem, rng=0)
    try:
        strategy.rng_.bit_generator.state = decode(state["rng"])
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise _corrupted("rng", "the state of a numpy PCG64 generator", exc) from None
    model = strategy.model_
    stopping = _stopping_state(strategy, state)  # checked before anything is set
    _restore_section(model, state["model"], model.state_attrs, "model", in_place=True)
    _restore_section(strategy, state["base"], _BASE_ATTRS, "base")
    _restore_section(strategy, state["rule"], strategy._state_attrs, "rule")
    if stopping is not None:
        strategy.threshold_.state_[:] = stopping
    _check_invariants(strategy)
    if digest is not None and state.get("digest") != digest:
        if "digest" not in state:
            raise _corrupted("digest", "present (format 2)", "missing")
        raise InvalidParameterError("state: altered since Strategy.get_state() wrote it (its digest does not match "
                                    "its content): a state is restored only as it was saved.")
    if strategy._pending is not None:  # handed out by ask(): read-only, as a fresh one
        strategy._pending = np.array(strategy._pending, dtype=np.intp)
        strategy._pending.setflags(write=False)
    return strategy


_SECTIONS = ("params", "rng", "model", "base", "rule")


def _stopping_state(strategy, state: dict):
    """The stopping rule's own state from ``state``, checked (present exactly when the rule has one), or None."""
    threshold = getattr(strategy, "threshold_", None)
    if threshold is None or not threshold.stateful:
        if "stopping" in state:
            raise _corrupted("stopping", "absent (this strategy's stopping rule has no state)", "present")
        return None
    if "stopping" not in state:
        raise _corrupted("stopping", "present", "missing")
    try:
        value = np.asarray(decode(state["stopping"]), dtype=float)
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError, MemoryError) as exc:
        raise _corrupted("stopping", "an encoded array", exc) from None
    if value.shape != threshold.state_.shape or not np.isfinite(value).all():
        raise _corrupted("stopping", f"finite numbers of shape {threshold.state_.shape}", value.shape)
    return value
_STATUSES = ("running", "stopped", "censored", "budget-spent")


def _corrupted(where: str, expected: str, got) -> InvalidParameterError:
    shown = " ".join(str(got).split())
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return InvalidParameterError(f"state.{where}: expected {expected} (a state from Strategy.get_state(), unaltered), "
                                 f"got {shown}.")


def _kind(value) -> str:
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


def _restore_section(target, saved, names, section: str, *, in_place: bool = False) -> None:
    """Decode ``saved`` (the attributes ``names`` of ``target``) and set them, checking each first.

    A value must have the kind of the fresh attribute (an attribute that starts as ``None`` takes
    any value); with ``in_place`` (the model's arrays, which the strategy holds views of) arrays
    keep their shape and are overwritten in place.
    """
    keys = {_key(path): path for path in names}
    if not isinstance(saved, dict) or set(saved) != set(keys):
        raise _corrupted(section, f"a table with the keys {', '.join(sorted(keys))}",
                         sorted(saved) if isinstance(saved, dict) else type(saved).__name__)
    decoded = {}
    for name, path in keys.items():
        current = _get(target, path)
        try:
            value = decode(saved[name])
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError, MemoryError) as exc:
            raise _corrupted(f"{section}.{name}", "an encoded value", exc) from None
        if current is not None and _kind(value) != _kind(current) and not (
                _kind(current) == "a number" and _kind(value) == "an integer"):
            raise _corrupted(f"{section}.{name}", _kind(current), _kind(value))
        if in_place and isinstance(current, np.ndarray) and value.shape != current.shape:
            raise _corrupted(f"{section}.{name}", f"shape {current.shape}", value.shape)
        decoded[path] = value
    for path, value in decoded.items():  # all checked: now set
        current = _get(target, path)
        if in_place and isinstance(current, np.ndarray):
            current[...] = value
        else:
            try:
                _set(target, path, value)
            except (TypeError, ValueError) as exc:  # a component that checks what it is given (outstanding requests)
                raise _corrupted(f"{section}.{_key(path)}", str(exc), value) from None


def _check_invariants(strategy) -> None:
    if strategy.status_ not in _STATUSES:
        raise _corrupted("base.status_", "one of " + ", ".join(_STATUSES), strategy.status_)
    t = strategy.t_
    if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or t < 0:
        raise _corrupted("base.t_", "an integer >= 0", t)
    pending = strategy._pending
    if pending is not None and not (isinstance(pending, np.ndarray) and pending.ndim == 1 and pending.dtype.kind in "iu"):
        raise _corrupted("base._pending", "none or a list of requests", _kind(pending))
    if strategy.request_id is not None and _kind(strategy.request_id) != "an integer":
        raise _corrupted("base.request_id", "none or an integer", strategy.request_id)
    book = strategy._book
    if _kind(book.limit) != "an integer" or book.limit < 1 or len(book) > book.limit:
        raise _corrupted("base.limit", "an integer >= 1, at least the outstanding requests", book.limit)
    if (pending is None) != (strategy.request_id not in book) or (
            pending is not None and not np.array_equal(pending, book.get(strategy.request_id))):
        raise _corrupted("base._pending", "the unanswered part of the outstanding request_id", _kind(pending))
    counts = strategy.model_.counts
    if isinstance(counts, np.ndarray) and (np.any(counts < 0) or strategy.requests_.counts(counts).sum() != t):
        # t_ counts requests answered: one per source, or one per observation of several sources
        raise _corrupted("model.counts", f"non-negative counts adding up to t_ = {t}", counts.sum())
    problem = strategy.model_.check_state()
    if problem:
        where, expected = problem.split(": ", 1)
        raise _corrupted(f"model.{where}", expected.removeprefix("expected "), "an inconsistent value")
    _check_status(strategy)


def _check_status(strategy) -> None:
    """A saved status must be the one the run reached: "stopped" where the stopping rule stops on the saved
    statistics (rules that decide with the base rule, ``stops_on_statistics``: the problem's stopping decision), with the saved
    statistic; "censored" and "budget-spent" only at the sample or batch limit."""
    status = strategy.status_
    if status in ("censored", "budget-spent"):
        limit = strategy._max_samples is not None and strategy.t_ >= strategy._max_samples
        if not (limit or (strategy._max_batches is not None and strategy.batches_ >= strategy._max_batches)):
            raise _corrupted("base.status_", f"'{status}' only at the sample or batch limit", status)
        return
    if status != "stopped" or strategy.threshold_ is None or not strategy.stops_on_statistics:
        return
    if not strategy._ready:
        raise _corrupted("base.status_", "'stopped' only after the initial phase (_ready)", status)
    statistic, stop = strategy.problem_.stopping_decision(strategy.model_, strategy.threshold_, strategy.t_)
    if not stop:
        raise _corrupted("base.status_", "'stopped' only where the stopping rule stops on the saved statistics",
                         status)
    saved = strategy.statistic_
    if not (saved == statistic or (np.isnan(saved) and np.isnan(statistic))):
        raise _corrupted("base.statistic_", f"the statistic of the saved model ({statistic!r})", saved)


def restore_strategy(state: dict, problem):
    """A new strategy rebuilt from ``state`` (its registry name and parameters) on ``problem``."""
    from pybai.strategies.registry import make_strategy

    if not isinstance(state, dict) or not isinstance(state.get("strategy"), str):
        raise InvalidParameterError("The 'state' parameter must be a dict from Strategy.get_state().")
    try:
        params = decode(state.get("params", {}))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise _corrupted("params", "an encoded table", exc) from None
    if not isinstance(params, dict):
        raise _corrupted("params", "a table", type(params).__name__)
    return restore_state(make_strategy(state["strategy"], params), problem, state)
