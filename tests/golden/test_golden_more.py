"""The second half of the golden test's shorter reproductions, in their own file so that
``make test``'s two workers share the golden runs (see ``test_golden.py``)."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_golden import check_reproduction, rest, worker  # noqa: E402,F401 (worker: the module-scoped fixture)


@pytest.mark.parametrize("name", rest(1))
def test_quick_reproduction_is_unchanged(name, worker):
    check_reproduction(name, worker)
