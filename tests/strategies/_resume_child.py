"""Run in a fresh process by the round-trip check: restore saved states and finish the runs."""

import json
import sys

import numpy as np

from pybai import restore_strategy

sys.path.insert(0, sys.argv[3])
from instances import build  # noqa: E402

from test_common import finish  # noqa: E402

saved = json.loads(open(sys.argv[1], encoding="utf-8").read())
out = {}
for key, item in saved.items():
    env, problem = build(*item["case"][1:])
    strategy = restore_strategy(item["state"], problem)
    noise = np.random.default_rng()
    noise.bit_generator.state = item["noise"]
    out[key] = finish(strategy, env, noise)
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(out))
