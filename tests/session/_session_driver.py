"""A simulated world that answers a session through the command line only (``pybai session ...``).

It draws the world's rewards exactly as ``pybai run`` does in replication 0 of the same seed:
the truth from the experiment file's environment (realised with the truth stream), the noise
from the noise stream, one ``respond`` per request.  Run as a script
(``python _session_driver.py EXPERIMENT DB WORKDIR [--subprocess]``) or call :func:`drive`.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np

from pybai.cli import main
from pybai.config import load_experiment
from pybai.simulate.seeding import STREAM_NOISE, STREAM_TRUTH, child, replication_seed


def _cli(args: list[str], subprocess_cli: bool) -> int:
    if subprocess_cli:
        return subprocess.run([sys.executable, "-m", "pybai.cli", *args], capture_output=True).returncode
    return main(args)


def drive(experiment_file, db, workdir, subprocess_cli: bool = False, max_rounds: int = 10_000,
          metrics: tuple[str, ...] = ()) -> int:
    """Answer every request of the session in ``db`` until it stops; returns the number of asks.

    With ``metrics`` (a guardrail session: several metrics per observation), the ask CSV must carry one
    empty column per metric and each observation is told in one row: its request, arm label and every metric.
    """
    experiment = load_experiment(experiment_file)
    seed = replication_seed(experiment.seed, 0)
    world = experiment.environment.realize(np.random.default_rng(child(seed, STREAM_TRUTH)))
    noise = np.random.default_rng(child(seed, STREAM_NOISE))
    workdir = Path(workdir)
    ask_csv, tell_csv = workdir / "ask.csv", workdir / "tell.csv"
    for round_ in range(max_rounds):
        assert _cli(["session", "ask", "--db", str(db), "--csv", str(ask_csv)], subprocess_cli) == 0
        with open(ask_csv, newline="") as fh:
            rows = list(csv.DictReader(fh))
        if not rows:  # the session has stopped: ask writes an empty request
            return round_
        request = int(rows[0]["request"])
        if metrics:
            assert list(rows[0]) == ["request", "arm", "label", *metrics] and all(rows[0][m] == "" for m in metrics)
            _, rewards = world.respond(np.array([int(r["arm"]) for r in rows], dtype=np.intp), noise)
            table = rewards.reshape(len(rows), len(metrics))
            header = ["request", "label", *metrics]
            lines = [[str(request), r["label"], *map(repr, map(float, t))] for r, t in zip(rows, table)]
        else:
            asked = np.array([int(r["source"] if r["source"] != "" else r["arm"]) for r in rows], dtype=np.intp)
            sources, rewards = world.respond(asked, noise)
            header = ["source", "reward"]
            lines = [[str(int(s)), repr(float(r))] for s, r in zip(sources, rewards)]
        with open(tell_csv, "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(header)
            out.writerows(lines)
        assert _cli(["session", "tell", "--db", str(db), "--request", str(request), "--csv", str(tell_csv)],
                    subprocess_cli) == 0
    raise AssertionError("the session did not stop")


if __name__ == "__main__":
    print(drive(sys.argv[1], sys.argv[2], sys.argv[3], subprocess_cli="--subprocess" in sys.argv))
