"""A client of the concurrency test (run in a spawned process): ask -> tell in a loop on one shared session."""

from __future__ import annotations

import numpy as np


def warm_up(_=None) -> int:
    """Import the session code and load the compiled kernels before the clients race."""
    import os

    from pybai.session import Session  # noqa: F401

    return os.getpid()


def client(db: str, name: str, index: int, rounds: int) -> dict:
    """Ask and tell up to ``rounds`` times; what was acknowledged and what was refused.

    Rewards depend on the client and the round only, so each acknowledged tell is known exactly.
    """
    from pybai.exceptions import RequestError, SessionStateError
    from pybai.session import Session

    rng = np.random.default_rng(index)
    acknowledged, refused, stopped = [], 0, False
    with Session.open(db, name) as session:
        for _ in range(rounds):
            try:
                request = session.ask()
            except SessionStateError:
                stopped = True
                break
            rewards = (rng.random(len(request)) < 0.3 + 0.2 * request.requests).astype(float)
            try:
                session.tell(request.id, request.requests, rewards)
            except RequestError as exc:
                assert "already answered" in str(exc) or "not pending" in str(exc), str(exc)
                refused += 1
                continue
            except SessionStateError as exc:  # another client's answer stopped it
                assert "stopped" in str(exc), str(exc)
                stopped = True
                break
            acknowledged.append((request.id, request.requests.tolist(), rewards.tolist()))
    return {"acknowledged": acknowledged, "refused": refused, "stopped": stopped}
