"""Where tasks run: this process, local worker processes, or a Dask distributed cluster.

Every executor has the same three steps: ``start(experiments, gridded)``, ``results(tasks)``
(an iterator of :class:`~pybai.simulate.tasks.TaskResult` in completion order) and
``stop(abort)``.  A task's outcomes depend only on its coordinates (see
:mod:`pybai.simulate.tasks`), so the executor and the number of workers never change results.

Interrupts: local workers ignore SIGINT (Ctrl-C reaches the whole process group, and the
main process decides), and ``stop(abort=True)`` kills them at once instead of waiting for the
queued tasks.  A worker whose parent dies (``kill -9`` of the main process) exits by itself:
on Linux through ``PR_SET_PDEATHSIG``, elsewhere through a thread that watches its parent.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from concurrent.futures import ProcessPoolExecutor, as_completed

from pybai._validation import INT64_MAX
from pybai.config.experiment import Experiment
from pybai.exceptions import ConfigError
from pybai.simulate.tasks import Task, TaskResult, run_task

__all__ = ["Executor", "InlineExecutor", "ProcessExecutor", "DaskExecutor", "usable_cores", "cap_workers", "make_executor"]


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not Linux
        return max(os.cpu_count() or 1, 1)


def cap_workers(requested: int, tasks: int, cores: int | None = None) -> tuple[int, str | None]:
    """``min(requested, tasks, cores)`` (at least 1), and a one-line note when that is below ``requested``."""
    cores = usable_cores() if cores is None else cores
    workers = max(1, min(requested, max(tasks, 1), cores))
    if workers >= requested:
        return requested, None
    return workers, f"{requested} workers capped at {workers} ({cores} CPU cores, {tasks} tasks to run)"


class Executor:
    """Interface: ``start``, ``results``, ``stop``."""

    workers = 1
    description = "this process"

    def start(self, experiments: list[Experiment], gridded: bool) -> None:
        self._experiments, self._gridded = experiments, gridded

    def results(self, tasks: list[Task]) -> Iterator[TaskResult]:  # pragma: no cover - interface
        raise NotImplementedError

    def stop(self, abort: bool = False) -> None:
        """Release the workers; ``abort`` drops queued tasks and ends running ones at once."""


class InlineExecutor(Executor):
    """Tasks one after another in this process (``--jobs 1``)."""

    def results(self, tasks):
        for task in tasks:
            yield run_task(self._experiments, task, self._gridded)


# ---------------------------------------------------------------- local worker processes
_WORKER_STATE: tuple[list[Experiment], bool] | None = None


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:  # the kernel kills this worker when the thread that forked it ends
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # died before the line above took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="pybai-parent-watch", daemon=True).start()


def _init_worker(experiments, gridded, parent) -> None:
    global _WORKER_STATE
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    _WORKER_STATE = (experiments, gridded)


def _run_in_worker(task: Task) -> TaskResult:
    experiments, gridded = _WORKER_STATE  # type: ignore[misc]  # set by the pool initializer before any task
    return run_task(experiments, task, gridded)


class ProcessExecutor(Executor):
    """``jobs`` forked worker processes on this machine (``--jobs N``)."""

    def __init__(self, jobs: int):
        self.workers = int(jobs)
        self.description = f"{self.workers} local worker processes"
        self._pool: ProcessPoolExecutor | None = None

    def start(self, experiments, gridded):
        super().start(experiments, gridded)
        method = "fork" if "fork" in mp.get_all_start_methods() else None
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=mp.get_context(method),
            initializer=_init_worker, initargs=(experiments, gridded, os.getpid()),
        )

    def results(self, tasks):
        futures = [self._pool.submit(_run_in_worker, task) for task in tasks]
        for future in as_completed(futures):
            yield future.result()

    def stop(self, abort=False):
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if not abort:
            pool.shutdown(wait=True)
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(timeout=2.0)


# ---------------------------------------------------------------- Dask distributed
def _run_on_dask_worker(task: Task, payload) -> TaskResult:
    experiments, gridded = payload
    return run_task(experiments, task, gridded)


@contextmanager
def _interrupt_deferred():
    """Ctrl-C inside the block takes effect when the block ends (Python's SIGINT handler runs then)."""
    pending = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pending:
        if callable(previous):
            previous(signal.SIGINT, None)
        raise KeyboardInterrupt


class DaskExecutor(Executor):
    """A Dask distributed cluster: a LocalCluster of ``n_workers`` processes, or an existing scheduler.

    Parameters
    ----------
    n_workers : int, optional
        Start a ``LocalCluster`` with this many single-threaded worker processes (``--cluster local:N``).
    scheduler : str, optional
        Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786`` (``--scheduler``); its
        workers must be able to import pybai.
    processes : bool, default True
        For a LocalCluster: worker processes (False: threads in this process, for quick tests).
    """

    def __init__(self, n_workers: int | None = None, scheduler: str | None = None, processes: bool = True):
        if (n_workers is None) == (scheduler is None):
            raise ConfigError("Dask backend: give exactly one of a LocalCluster size or a scheduler address.")
        self.n_workers, self.scheduler, self.processes = n_workers, scheduler, processes
        self.workers = n_workers or 1
        self.description = f"Dask LocalCluster of {n_workers} workers" if n_workers else f"Dask scheduler {scheduler}"
        self._client = self._cluster = None
        self._futures: list = []

    def start(self, experiments, gridded):
        super().start(experiments, gridded)
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError("the Dask backend needs dask[distributed]: pip install 'pybai[dask]'.") from None
        import logging

        if self.n_workers is not None:
            # workers ignore Ctrl-C (pybai._interrupts) and the main process closes them; their logs of
            # the scheduler going away at that moment are noise
            with _interrupt_deferred():  # a cluster half built cannot be closed cleanly
                self._cluster = LocalCluster(
                    n_workers=self.n_workers, threads_per_worker=1, processes=self.processes,
                    dashboard_address=None, silence_logs=logging.CRITICAL,
                )
                self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ConfigError(f"--scheduler: cannot reach {self.scheduler} ({exc}).") from None
            self.workers = max(len(self._client.scheduler_info().get("workers", {})), 1)
        (self._payload,) = self._client.scatter([(experiments, gridded)], broadcast=True)

    def results(self, tasks):
        from distributed import as_completed as dask_completed

        self._futures = self._client.map(_run_on_dask_worker, tasks, payload=self._payload, pure=False)
        for _, result in dask_completed(self._futures, with_results=True):
            yield result

    def stop(self, abort=False):
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        try:
            if client is not None:
                if abort and self._futures:
                    client.cancel(self._futures)
                client.close(timeout=5)
        finally:
            self._futures = []
            if cluster is not None:
                cluster.close(timeout=5)


def make_executor(jobs: int = 1, cluster: str | None = None, scheduler: str | None = None) -> Executor:
    """The executor of the CLI options: ``--jobs N``, ``--cluster local:N`` or ``--scheduler ADDRESS``."""
    if cluster is not None and scheduler is not None:
        raise ConfigError("--cluster and --scheduler: give one of them, not both.")
    if cluster is not None:
        kind, _, size = str(cluster).partition(":")
        if kind != "local" or not size.isascii() or not size.isdigit() or not 1 <= int(size) <= INT64_MAX:
            raise ConfigError(f"--cluster: expected local:N with N an integer in [1, 2^63 - 1] (a Dask LocalCluster of "
                              f"N workers, capped at the tasks to run), got {cluster!r}.")
        return DaskExecutor(n_workers=int(size))
    if scheduler is not None:
        if "://" not in scheduler:
            raise ConfigError(f"--scheduler: expected an address like tcp://HOST:PORT, got {scheduler!r}.")
        return DaskExecutor(scheduler=scheduler)
    return InlineExecutor() if jobs <= 1 else ProcessExecutor(jobs)
