"""Where the CPU of the AutoML experiment goes: the strategies, or the reward function (model fits).

Runs ``bayesgap-automl`` (src/pybai/experiments/) in this process (jobs = 1) with the
reward function timed apart, for a few replications per budget, and prints the CPU in all, in
the reward function, and the strategies' (and bookkeeping's) share.  A timing study, not a
reproduction: ``pybai reproduce bayesgap-automl`` runs the experiment itself.

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/bench_automl_share.py --replications 8,3
"""

from __future__ import annotations

import argparse
import time
from importlib.resources import files

from pybai.config import load_sweep
from pybai.environments.from_callable import CallableEnvironment
from pybai.simulate import run_outcomes


class SampleClock:
    """Process time spent inside ``CallableEnvironment._sample`` (the reward function calls) while active.

    ``_sample`` is what ``respond`` calls (the former script timed the public ``sample``, which
    the simulation no longer goes through, and so measured nothing).
    """

    def __init__(self):
        self.seconds, self._orig = 0.0, CallableEnvironment._sample

    def __enter__(self):
        clock, orig = self, self._orig

        def timed(env, sources, rng):
            start = time.process_time()
            try:
                return orig(env, sources, rng)
            finally:
                clock.seconds += time.process_time() - start

        CallableEnvironment._sample = timed
        return self

    def __exit__(self, *exc):
        CallableEnvironment._sample = self._orig


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", default="8,3",
                        help="replications per budget, comma-separated (the last repeats); at most the file's")
    args = parser.parse_args(argv)
    caps = [int(x) for x in args.replications.split(",")]
    if min(caps) < 1:
        parser.error("--replications: positive counts, e.g. 8,3")
    for i, experiment in enumerate(load_sweep(files("pybai") / "experiments" / "bayesgap-automl.toml")):
        experiment.replications = min(caps[min(i, len(caps) - 1)], experiment.replications)
        start = time.process_time()
        with SampleClock() as clock:
            run_outcomes(experiment, jobs=1)
        total = time.process_time() - start
        print(f"{experiment.name}: {experiment.replications} runs, CPU {total:.1f} s, in the reward function "
              f"{clock.seconds:.1f} s: strategies and bookkeeping {100 * (total - clock.seconds) / total:.1f}%")


if __name__ == "__main__":
    main()
