"""The engine: seeds from task coordinates, identical results for any backend, sweep documents, the store."""

import copy
import json

import numpy as np
import pytest

from pybai.exceptions import ConfigError
from pybai.simulate import Sweep, run_replication, run_sweep
from pybai.simulate.executors import Executor, InlineExecutor, cap_workers, make_executor
from pybai.simulate.seeding import replication_seed
from pybai.simulate.store import OUTCOMES, ResultStore, read_store
from pybai.simulate.tasks import BLOCK, make_tasks, run_task, task_replication_seed

BASE = {
    "name": "eng",
    "replications": 30,
    "seed": 11,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "bernoulli", "means": [0.8, 0.5, 0.3]},
    "strategy": [{"name": "tas"}, {"name": "uniform"}],
}
GRID = dict(copy.deepcopy(BASE), grid={"environment.means": [[0.8, 0.5, 0.3], [0.7, 0.4, 0.2]], "problem.delta": [0.1, 0.05]})


def sweep(doc=GRID):
    return Sweep.from_document(copy.deepcopy(doc), default_name="eng")


def strip(document):
    document = json.loads(json.dumps(document))
    document.pop("elapsed_seconds")
    for r in document["results"] + [r for p in document.get("points", []) for r in p["results"]]:
        r.pop("wall_seconds")
        r.pop("cpu_seconds")
    return document


class Recording(InlineExecutor):
    """Runs tasks in reverse order and records them (order must not matter)."""

    def __init__(self):
        self.ran = []

    def results(self, tasks):
        for task in reversed(tasks):
            self.ran.append(task)
            yield run_task(self._experiments, task, self._gridded)


def test_tasks_cover_every_replication_once():
    sw = sweep()
    tasks = make_tasks(sw.experiments)
    assert len(tasks) == 4 * 2 * 2  # points x strategies x blocks of 25 over 30 replications
    cells = {}
    for t in tasks:
        cells.setdefault((t.point, t.strategy), []).extend(range(t.first, t.last))
    assert all(sorted(v) == list(range(30)) for v in cells.values())
    assert {t.size for t in tasks} == {BLOCK, 5}


def test_seeds_are_the_task_coordinates():
    sw = sweep()
    experiment = sw.experiments[3]
    result = run_task(sw.experiments, make_tasks(sw.experiments)[-1], gridded=True)
    task = result.task
    label, strategy = experiment.strategies[task.strategy]
    for r, outcome in zip(range(task.first, task.last), result.outcomes):
        seed = np.random.SeedSequence(experiment.seed, spawn_key=(task.point, r))
        again = run_replication(strategy, experiment.environment, experiment.problem, seed)
        assert (again.samples, again.recommendation) == (outcome.samples, outcome.recommendation)
    # without a grid: today's seeds, so existing reproductions do not change
    assert task_replication_seed(5, 0, 7, gridded=False).spawn_key == replication_seed(5, 7).spawn_key == (7,)


def test_gridless_document_is_unchanged_and_uses_replication_seeds():
    sw = sweep(BASE)
    document = run_sweep(sw)
    assert set(document) == {"name", "version", "seed", "goal", "answer", "answer_unique", "results", "elapsed_seconds"}
    experiment = sw.experiments[0]
    _, tas = experiment.strategies[0]
    samples = [run_replication(tas, experiment.environment, experiment.problem, replication_seed(11, r)).samples
               for r in range(30)]
    assert document["results"][0]["mean_samples"] == pytest.approx(np.mean(samples), abs=1e-3)


def test_execution_order_and_worker_count_do_not_change_results():
    inline = strip(run_sweep(sweep(), jobs=1))
    backwards = Recording()
    assert strip(run_sweep(sweep(), backend=backwards)) == inline
    assert backwards.ran[0] == make_tasks(sweep().experiments)[-1]
    assert strip(run_sweep(sweep(), jobs=2)) == inline


def test_sweep_document_lists_points():
    document = run_sweep(sweep())
    assert document["grid_keys"] == ["environment.means", "problem.delta"]
    assert [p["grid"]["problem.delta"] for p in document["points"]] == [0.1, 0.05, 0.1, 0.05]
    assert [p["name"] for p in document["points"]][1] == "eng[means=[0.8, 0.5, 0.3],delta=0.05]"
    assert len(document["results"]) == 8 and document["results"][7]["point"] == 3
    assert document["answer"] is None and all(p["answer"] == 0 for p in document["points"])
    # a smaller delta never needs fewer samples on average here (same instance, same seeds per point)
    by = {(r["point"], r["strategy"]): r["mean_samples"] for r in document["results"]}
    assert by[(1, "uniform")] >= by[(0, "uniform")] * 0.9


def test_digest_ignores_layout_and_presentation_not_content():
    from pybai.simulate.tasks import document_digest

    doc = copy.deepcopy(GRID)
    shuffled = dict(reversed(list(doc.items())))
    assert document_digest(shuffled) == document_digest(doc)
    assert document_digest(dict(doc, reproduce={"name": "x"})) == document_digest(doc)
    assert document_digest(dict(doc, seed=12)) != document_digest(doc)


def test_cap_workers():
    assert cap_workers(1000, 40, cores=2) == (2, "1000 workers capped at 2 (2 CPU cores, 40 tasks to run)")
    assert cap_workers(8, 3, cores=16)[0] == 3
    assert cap_workers(2, 40, cores=2) == (2, None)


def test_backend_options_are_checked():
    for cluster in ("local", "local:0", "remote:2", "local:x"):
        with pytest.raises(ConfigError, match="--cluster"):
            make_executor(cluster=cluster)
    with pytest.raises(ConfigError, match="--scheduler"):
        make_executor(scheduler="localhost:8786")
    with pytest.raises(ConfigError, match="not both"):
        make_executor(cluster="local:2", scheduler="tcp://x:1")


def test_store_round_trip_resume_and_refusals(tmp_path):
    out = tmp_path / "store"
    first = run_sweep(sweep(), out=out)
    lines = (out / OUTCOMES).read_text().splitlines()
    assert len(lines) == 4 * 2 * 30
    row = json.loads(lines[0])
    assert {"point", "environment.means", "problem.delta", "strategy", "replication", "samples", "batches",
            "recommendation", "correct", "simple_regret", "false_negative", "counts"} <= set(row)
    assert json.loads((out / "results.json").read_text())["points"][0]["grid"] == first["points"][0]["grid"]
    stored = read_store(out)
    assert len(stored.outcomes) == stored.tasks_total == 16
    # resume of a complete store runs nothing and gives the same document
    nothing = Recording()
    assert strip(run_sweep(sweep(), backend=nothing, out=out, resume=True)) == strip(first)
    assert nothing.ran == []
    with pytest.raises(ConfigError, match="--resume"):
        run_sweep(sweep(), out=out)
    other = copy.deepcopy(GRID)
    other["seed"] = 12
    with pytest.raises(ConfigError, match="another experiment file"):
        run_sweep(sweep(other), out=out, resume=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        ResultStore.check_folder(tmp_path / "file", sweep(), resume=False)


def test_torn_store_resumes_only_missing_tasks(tmp_path):
    out = tmp_path / "store"
    full = strip(run_sweep(sweep(), out=out))
    path = out / OUTCOMES
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    # keep the first 3 tasks (25 + 5 + 25 lines), then 3 of the 5 lines of the 4th and half a line
    kept = b"".join(lines[:55]) + b"".join(lines[55:58]) + lines[58][:17]
    path.write_bytes(kept)
    rec = Recording()
    resumed = run_sweep(sweep(), backend=rec, out=out, resume=True)
    assert len(rec.ran) == 16 - 3
    assert strip(resumed) == full
    rows = [json.loads(line) for line in path.read_text().splitlines()]  # no torn line left in the middle
    assert len(rows) == 4 * 2 * 30 + 3


def test_interrupt_keeps_finished_tasks(tmp_path):
    from pybai.simulate import RunInterrupted

    class Interrupting(Executor):
        def results(self, tasks):
            yield run_task(self._experiments, tasks[0], self._gridded)
            raise KeyboardInterrupt

    out = tmp_path / "store"
    with pytest.raises(RunInterrupted) as info:
        run_sweep(sweep(), backend=Interrupting(), out=out)
    assert (info.value.done, info.value.total) == (1, 16)
    assert "continue with --resume" in info.value.message()
    assert len(read_store(out).outcomes) == 1
