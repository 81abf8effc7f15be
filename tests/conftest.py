"""Test-session hooks shared by the whole suite."""

from __future__ import annotations

#: Test files that run for minutes: scheduled first, so that with ``-n 2 --dist loadfile`` (make test)
#: the other worker works through the short files meanwhile instead of idling at the end.
LONG_FIRST = ("tests/validation/test_validation.py", "tests/simulate/test_statistical.py")


def pytest_collection_modifyitems(session, config, items):
    """Move the items of the long files to the front (a stable sort keeps every other order)."""
    items.sort(key=lambda item: 0 if item.nodeid.startswith(LONG_FIRST) else 1)
