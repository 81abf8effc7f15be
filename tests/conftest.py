"""Test-session hooks shared by the whole suite."""

from __future__ import annotations

import time

import pytest

#: Test files that run for minutes: scheduled first, so that with ``-n 2 --dist loadfile`` (make test)
#: the other worker works through the short files meanwhile instead of idling at the end.
LONG_FIRST = ("tests/validation/test_validation.py", "tests/simulate/test_statistical.py")

#: CPU seconds spent collecting each file (importing it: module-level work), and in all ("")
_COLLECTION_CPU: dict[str, float] = {}


def pytest_collection_modifyitems(session, config, items):
    """Move the items of the long files to the front (a stable sort keeps every other order)."""
    items.sort(key=lambda item: 0 if item.nodeid.startswith(LONG_FIRST) else 1)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    start = time.process_time()
    yield
    _COLLECTION_CPU[""] = time.process_time() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    start = time.process_time()
    yield
    if isinstance(collector, pytest.File):  # a file is collected twice (doctests, tests): both count
        _COLLECTION_CPU[collector.nodeid] = _COLLECTION_CPU.get(collector.nodeid, 0.0) + time.process_time() - start


@pytest.fixture
def collection_cpu() -> dict[str, float]:
    """CPU seconds of this process's collection, per file and in all (key ``""``)."""
    return dict(_COLLECTION_CPU)
