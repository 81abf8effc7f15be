"""A stored strategy state that disagrees with the log is ignored and reported; the log wins.

A session stores its strategy's state every few answers; reopening restores the newest one.
Each case edits that snapshot in the database the way a hand, a bug or a copy could (counts, NaN,
estimates, the threshold in the parameters, the status, the random state, the row's cursors, a
state from another point of the run) and reopens: the edit is reported once (a PybaiWarning),
the status and every later request equal those of the untouched session, and ``restore_strategy``
refuses the edited state on its own in one line.
"""

from __future__ import annotations

import copy
import json
import shutil
import warnings

import numpy as np
import pytest

from pybai import restore_strategy
from pybai.exceptions import InvalidParameterError, PybaiWarning
from pybai.session import Session

DOC = {"name": "snap", "seed": 5, "problem": {"goal": "best-arm", "delta": 0.01},
       "environment": {"kind": "gaussian", "arms": 3, "sigma": 1.0},
       "strategy": [{"name": "tas", "threshold": "delta-correct"}]}
EVERY = 7


def _drive(session, rng, answers: int) -> None:
    for _ in range(answers):
        request = session.ask()
        session.tell(request.id, request.requests, rng.normal([0.3, 0.0, -0.2], 1.0)[request.requests])


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    db = tmp_path_factory.mktemp("snap") / "s.db"
    with Session.create(db, DOC) as session:
        session.state_every = EVERY
        _drive(session, np.random.default_rng(1), 3 * EVERY + 2)
    return db


def _edit_state(edit):
    def apply(row, state):
        edit(state)
        return row, state
    return apply


def _set(path, value):
    def edit(state):
        node = state
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return _edit_state(edit)


def _rehash(edit):
    """An edit with the digest written again (what a forger could do): the invariants must still catch it."""
    from pybai.strategies.state import state_digest

    def rehashed(state):
        edit(state)
        state["digest"] = state_digest(state)
    return _edit_state(rehashed)


def _earlier_state(row, state):  # a whole, valid state from an earlier snapshot, under the newest row
    return row, None


def _row(column, delta):
    def apply(row, state):
        return {**row, column: row[column] + delta}, state
    return apply


def _counts(state):
    state["model"]["counts"]["data"][0] += 1
    state["base"]["t_"] += 1


def _nan_sums(state):
    state["model"]["sums"]["data"][1] = "nan"


def _negative(state):
    state["model"]["counts"]["data"][0] -= 1
    state["model"]["counts"]["data"][1] += 1


def _estimate(state):
    state["model"]["estimate"]["data"][0] += 1e-12


def _stopped(state):
    state["base"]["status_"] = "stopped"


CASES = {
    "counts and t_ raised": _edit_state(_counts),
    "a sum made NaN": _edit_state(_nan_sums),
    "counts moved between arms": _edit_state(_negative),
    "an estimate off the sums": _edit_state(_estimate),
    "the threshold swapped": _set(("params", "threshold"), "heuristic"),
    "stopped while the rule runs": _edit_state(_stopped),
    "another random state": _set(("rng", "state", "state"), lambda v: v + 1),
    "a tracking sum nudged": _set(("rule", "cumulative_", "data", 0), lambda v: v + 0.5),
    "an estimate off the sums, digest redone": _rehash(_estimate),
    "stopped while the rule runs, digest redone": _rehash(_stopped),
    "counts and t_ raised, digest redone": _rehash(_counts),
    "an earlier snapshot's state": _earlier_state,
    "the row's samples": _row("samples", 1),
    "the row's request": _row("request", -1),
    "the row's journal row": _row("event", -1),
}


def _snapshots(db):
    import sqlite3

    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT answer, request, event, samples, state FROM snapshots "
                                  "ORDER BY answer").fetchall()


def _future(db, rng_seed=9, answers=15):
    """The status, then the next requests and statuses of a session copy driven the same way."""
    with Session.open(db) as session:
        out = [session.status()]
        rng = np.random.default_rng(rng_seed)
        for _ in range(answers):
            request = session.ask()
            out.append(request.requests.tolist())
            session.tell(request.id, request.requests, rng.normal(0.0, 1.0, len(request)))
        out.append({k: v for k, v in session.status().items() if k != "last_answer"})  # the time of the last tell
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_edited_snapshot_is_ignored_and_reported(case, original, tmp_path):
    import sqlite3

    untouched = tmp_path / "untouched.db"
    shutil.copy(original, untouched)
    expected = _future(untouched)
    edited = tmp_path / "edited.db"
    shutil.copy(original, edited)
    rows = _snapshots(edited)
    answer, request, event, samples, text = rows[-1]
    row, state = CASES[case]({"answer": answer, "request": request, "event": event, "samples": samples},
                             json.loads(text))
    if state is None:
        state = json.loads(rows[0][4])
    with sqlite3.connect(edited) as connection:
        connection.execute("UPDATE snapshots SET request = ?, event = ?, samples = ?, state = ? WHERE answer = ?",
                           (row["request"], row["event"], row["samples"], json.dumps(state), answer))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _future(edited)
    reports = [w for w in caught if issubclass(w.category, PybaiWarning) and "disagrees with the log" in str(w.message)]
    assert len(reports) == 1, [str(w.message) for w in caught]
    assert "\n" not in str(reports[0].message)
    assert got == expected  # the journal won: the same status and the same future as the untouched session


def test_restore_strategy_refuses_each_edited_state_in_one_line(original):
    from pybai.config.learner import parse_session_file

    rows = _snapshots(original)
    problem = parse_session_file(DOC).problem
    saved = json.loads(rows[-1][4])
    assert restore_strategy(copy.deepcopy(saved), problem).get_state() == saved
    for case, edit in CASES.items():
        if case.startswith("the row") or case.startswith("an earlier"):
            continue  # the row's columns and a whole earlier state are checked against the log, not here
        _, state = edit({}, copy.deepcopy(saved))
        with pytest.raises(InvalidParameterError) as info:
            restore_strategy(state, problem)
        message = str(info.value)
        assert "\n" not in message and message.startswith("state"), (case, message)
