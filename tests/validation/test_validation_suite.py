"""The other half of the quick validation suite's families (see ``test_validation.py``: with
``--dist loadfile`` each file runs on one worker, so the two halves share ``make test``'s workers)."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_validation import check_quick_suite, suite_part  # noqa: E402


@pytest.mark.parametrize("family", suite_part(1))
def test_quick_validation_suite_passes(family, tmp_path, capsys):
    check_quick_suite(family, tmp_path, capsys)
