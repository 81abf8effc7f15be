"""A session with epsilon (epsilon-best-arm identification) on a tie: it stops, equals ``pybai run``'s
replication 0 exactly and replays exactly; the session file keeps epsilon and epsilon_mode."""

import pytest

from test_session_families import check_session_equals_run


@pytest.mark.parametrize("name,mode,env", [
    ("tas", "additive", {"kind": "gaussian", "means": [1.0, 1.0, 0.2]}),
    ("top-two", "relative", {"kind": "bernoulli", "means": [0.6, 0.6, 0.2]}),
])
def test_epsilon_session_on_a_tie_stops_and_equals_run(workdir, name, mode, env):
    problem = {"goal": "best-arm", "delta": 0.1, "epsilon": 0.3, "epsilon_mode": mode, "max_samples": 20_000}
    check_session_equals_run(workdir, problem, env, {"name": name})
