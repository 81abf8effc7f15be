"""Run in a fresh process by the round-trip check: restore saved states and finish the runs."""

import json
import sys

import numpy as np


def main(saved_path, out_path):
    from pybai.strategies.state import restore_strategy
    from pybai.testing import build
    from pybai.testing.strategies import play

    saved = json.loads(open(saved_path, encoding="utf-8").read())
    out = {}
    for key, item in saved.items():
        env, problem = build(*item["case"][1:])
        strategy = restore_strategy(item["state"], problem)
        noise = np.random.default_rng()
        noise.bit_generator.state = item["noise"]
        out[key] = play(strategy, env, noise)
    open(out_path, "w", encoding="utf-8").write(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
