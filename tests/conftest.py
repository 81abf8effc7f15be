"""Test-session hooks shared by the whole suite."""

from __future__ import annotations

import time

import pytest

#: Test files that run for minutes, longest first: scheduled first, so that with ``-n 2 --dist loadfile``
#: (make test) the two workers share them and work through the short files afterwards instead of one
#: worker running a long file alone at the end (measured: benchmarks/results/test_durations.txt).
#: pytest-xdist keeps this order only with ``--no-loadscope-reorder`` (make test passes it): by default
#: it reorders the files by their number of tests, which put these few-test files last.
LONG_FIRST = ("tests/docs/test_markdown_pages.py", "tests/golden/test_golden_long.py",
              "tests/golden/test_golden.py", "tests/golden/test_golden_more.py",
              "tests/validation/test_validation.py", "tests/validation/test_validation_suite.py",
              "tests/simulate/test_statistical.py")

#: CPU seconds spent collecting each file (importing it: module-level work), and in all ("")
_COLLECTION_CPU: dict[str, float] = {}


def pytest_collection_modifyitems(session, config, items):
    """Move the items of the long files to the front in :data:`LONG_FIRST` order (a stable sort keeps
    every other order)."""
    def rank(item):
        for i, prefix in enumerate(LONG_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(LONG_FIRST)

    items.sort(key=rank)


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


@pytest.fixture
def plt():
    """matplotlib.pyplot on the Agg backend, imported by the tests that draw (not at collection: ~0.5 s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot

    return matplotlib.pyplot
