"""Sweeps cut into tasks: (grid point, strategy, block of replications), each seeded by its coordinates.

A :class:`Sweep` is one experiment file: its parsed document and one
:class:`~pybai.config.Experiment` per grid point (one when the file has no ``[grid]``).  Its
work is cut into :class:`Task` objects of at most :data:`BLOCK` replications of one strategy
at one point.  The block size does not depend on the number of replications, so a task keeps
its identity (and its stored results) when the replications grow.

Seeds (see :func:`task_replication_seed`): replication ``r`` of point ``p`` is seeded from the
master seed and ``(p, r)`` only, never from the order or the place of execution, so every
backend and worker count gives bit-identical outcomes.  A file without a grid keeps the seeds
of :func:`~pybai.simulate.seeding.replication_seed` (``spawn_key = (r,)``), so existing
reproductions do not change.  The strategy label is deliberately *not* part of the seed:
every strategy of a point sees the same truths and noise on replication ``r`` (common random
numbers, as in a file without a grid), which makes comparisons between strategies sharper.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pybai.config.experiment import Experiment, parse_sweep, read_document
from pybai.simulate.runner import Outcome, run_replication, run_replication_deltas
from pybai.simulate.seeding import replication_seed

__all__ = ["BLOCK", "Sweep", "Task", "TaskResult", "make_tasks", "run_task", "task_replication_seed", "document_digest"]

#: Replications per task.
BLOCK = 25


def document_digest(document: dict[str, Any]) -> str:
    """SHA-256 of a parsed experiment document in canonical JSON (key order and layout do not matter).

    The ``[reproduce]`` table is left out: it says how results are presented, not what they are.
    """
    content = {key: value for key, value in document.items() if key != "reproduce"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Sweep:
    """One experiment file: its parsed document and the experiment of every grid point.

    Attributes
    ----------
    name : str
        The file's ``name`` (or its stem).
    document : dict
        The parsed file, ``[grid]`` and ``[reproduce]`` included (what the store's hash covers).
    experiments : list of Experiment
        One per grid point, in grid order.
    """

    name: str
    document: dict[str, Any] = field(repr=False)
    experiments: list[Experiment] = field(repr=False)

    @classmethod
    def from_document(cls, document: dict[str, Any], default_name: str = "experiment") -> "Sweep":
        experiments = parse_sweep(document, default_name=default_name)
        name = document.get("name", default_name)
        return cls(str(name), document, experiments)

    @classmethod
    def from_file(cls, path: str | Path) -> "Sweep":
        return cls.from_document(read_document(path), default_name=Path(path).stem)

    @classmethod
    def from_experiment(cls, experiment: Experiment, replication_seeds: bool = False) -> "Sweep":
        """A sweep of one experiment built in Python (its ``source`` stands for the document).

        A point of a sweep (``experiment.grid`` set) keeps its grid seeds, unless
        ``replication_seeds``: then it is seeded as a file without a grid (and has no document).
        """
        if replication_seeds:
            return cls(experiment.name, {"name": experiment.name}, [dataclasses.replace(experiment, grid={})])
        document = dict(experiment.source) if experiment.source else {"name": experiment.name}
        return cls(experiment.name, document, [experiment])

    @property
    def gridded(self) -> bool:
        """True when the file declares a grid (the result document then lists its points)."""
        return "grid" in self.document or any(e.grid for e in self.experiments)

    @property
    def grid_keys(self) -> list[str]:
        keys: list[str] = []
        for experiment in self.experiments:
            keys.extend(k for k in experiment.grid if k not in keys)
        return keys

    def digest(self) -> str:
        return document_digest(self.document)


@dataclass(frozen=True, order=True)
class Task:
    """Replications ``first .. last - 1`` of strategy number ``strategy`` at grid point ``point``."""

    point: int
    strategy: int
    first: int
    last: int

    @property
    def size(self) -> int:
        return self.last - self.first


@dataclass
class TaskResult:
    """What a task produced: outcomes in replication order and its wall-clock span (``time.time()``)."""

    task: Task
    outcomes: list[Outcome]
    began: float
    ended: float
    #: outcomes of other tasks computed on the same trajectories (the delta group of the task's point)
    shared: dict[Task, list[Outcome]] = field(default_factory=dict)


def make_tasks(experiments: list[Experiment], block: int = BLOCK) -> list[Task]:
    """Every task of a sweep, point by point, strategy by strategy, block by block."""
    return [
        Task(p, s, first, min(first + block, experiment.replications))
        for p, experiment in enumerate(experiments)
        for s in range(len(experiment.strategies))
        for first in range(0, experiment.replications, block)
    ]


def task_replication_seed(seed: int, point: int, replication: int, gridded: bool) -> np.random.SeedSequence:
    """Seed of replication ``replication`` at grid point ``point``.

    ``SeedSequence(seed, spawn_key=(point, replication))`` for a sweep with a grid;
    :func:`~pybai.simulate.seeding.replication_seed` (``spawn_key=(replication,)``) without one.
    """
    if not gridded:
        return replication_seed(seed, replication)
    return np.random.SeedSequence(seed, spawn_key=(point, replication))


def shared_tasks(experiments: list[Experiment], task: Task) -> list[Task]:
    """The tasks a task computes besides itself: those of the other points of its delta group, if it leads one."""
    group = experiments[task.point].delta_group
    return [Task(p, task.strategy, task.first, task.last) for p in group if p != task.point]


def _seed_point(experiments: list[Experiment], point: int) -> int:
    seed_point = experiments[point].seed_point
    return point if seed_point is None else seed_point


def run_task(experiments: list[Experiment], task: Task, gridded: bool) -> TaskResult:
    """Run one task (in whatever process or thread calls it) and return its outcomes.

    A task that leads a delta group (``share_trajectories``) also returns the outcomes of the other
    points' tasks of the same replications (:attr:`TaskResult.shared`): one trajectory per
    replication where the strategy allows it (:func:`~pybai.simulate.runner.run_replication_deltas`),
    else each point's own run on the shared seeds.
    """
    experiment = experiments[task.point]
    _, strategy = experiment.strategies[task.strategy]
    others = shared_tasks(experiments, task)
    began = time.time()
    seed_point = _seed_point(experiments, task.point)
    points = [task.point] + [t.point for t in others]
    columns: list[list[Outcome]] = [[] for _ in points]
    for r in range(task.first, task.last):
        seed = task_replication_seed(experiment.seed, seed_point, r, gridded)
        outs = None
        if others and experiment.compiled:
            problems = [experiments[p].problem for p in points]
            outs = run_replication_deltas(strategy, experiment.environment, problems, seed, r)
        if outs is None:
            outs = [run_replication(experiments[p].strategies[task.strategy][1], experiments[p].environment,
                                    experiments[p].problem, seed, r, fast=experiments[p].compiled) for p in points]
        for column, outcome in zip(columns, outs):
            column.append(outcome)
    return TaskResult(task, columns[0], began, time.time(), dict(zip(others, columns[1:])))
