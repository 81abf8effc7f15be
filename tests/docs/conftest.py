"""The docs page tests: a page's fast run is left out when its slow run (a superset) is also selected."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected theirs
def pytest_collection_modifyitems(config, items):
    """Deselect ``test_page_prints_what_it_shows[PAGE]`` when ``[PAGE+slow]`` runs too.

    The slow run of a page executes every block the fast run executes, in the same order, in a
    fresh folder, plus the blocks marked slow; so under ``make test`` (no ``-m``) the fast run
    repeats the same code path at the cost of one more process per command of the page.  Under
    ``make test-fast`` (``-m "not slow"``) the slow run is deselected first and the fast one stays.
    """
    name = "test_page_prints_what_it_shows["
    ids = {item.nodeid for item in items}
    covered = [item for item in items if name in item.nodeid and "+slow]" not in item.nodeid
               and item.nodeid[:-1] + "+slow]" in ids]
    if covered:
        config.hook.pytest_deselected(items=covered)
        items[:] = [item for item in items if item not in covered]
