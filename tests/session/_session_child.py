"""A process that answers a session's requests in a loop (for the crash and concurrency tests).

``python _session_child.py DB N [HANG_AT]``: answers N requests (rewards drawn from a fixed
generator), printing ``ACK <request> <samples>`` after each stored answer.  With HANG_AT, the
HANG_AT-th answer stops inside its transaction (rows inserted, not committed), prints
``WRITING <request>`` and sleeps, to be killed there.
"""

import sys
import time

import numpy as np

from pybai.session import Session
from pybai.session.store import Store


def main(db: str, n: int, hang_at: int | None) -> None:
    original = Store.add_answer
    answered = [0]

    def add_answer(self, request_id, sources, rewards, created):
        answer = original(self, request_id, sources, rewards, created)
        if answered[0] + 1 == hang_at:
            print(f"WRITING {request_id}", flush=True)
            time.sleep(60)
        return answer

    Store.add_answer = add_answer
    rng = np.random.default_rng(0)
    with Session.open(db) as session:
        for _ in range(n):
            if session.stopped:
                break
            request = session.ask()
            receipt = session.tell(request.id, request.requests, rng.normal(size=len(request)))
            answered[0] += 1
            print(f"ACK {receipt.request} {receipt.samples}", flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
