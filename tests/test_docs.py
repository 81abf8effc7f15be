"""The examples in the docs run and print what they show."""

import doctest
import pathlib

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("name", ["design.md", "sessions.md", "epsilon.md"])
def test_doc_examples(name):
    result = doctest.testfile(str(DOCS / name), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
