"""Dask distributed backend: a LocalCluster started and stopped here gives the local backend's results."""

import copy
import json

import pytest

from pybai.simulate import Sweep, run_sweep
from pybai.simulate.executors import DaskExecutor

DOC = {
    "name": "dask",
    "replications": 30,
    "seed": 4,
    "problem": {"goal": "best-arm", "delta": 0.1},
    "environment": {"kind": "bernoulli", "means": [0.8, 0.5, 0.3]},
    "strategy": [{"name": "tas"}, {"name": "uniform"}],
    "grid": {"problem.delta": [0.1, 0.05]},
}


def strip(document):
    document = json.loads(json.dumps(document))
    document.pop("elapsed_seconds")
    for r in document["results"] + [r for p in document["points"] for r in p["results"]]:
        r.pop("wall_seconds")
        r.pop("cpu_seconds")
    return document


def sweep():
    return Sweep.from_document(copy.deepcopy(DOC))


def test_dask_local_cluster_matches_local_backend_for_1_and_2_workers(tmp_path):
    distributed = pytest.importorskip("distributed")  # here, not at collection (~1.5 s of imports)
    local = strip(run_sweep(sweep(), jobs=1))
    one = run_sweep(sweep(), backend=DaskExecutor(n_workers=1, processes=False), out=tmp_path / "one")
    assert strip(one) == local
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        two = run_sweep(sweep(), scheduler=cluster.scheduler_address)  # the --scheduler path
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
    finally:
        cluster.close()
    assert strip(two) == local
