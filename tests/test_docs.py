"""The site's API reference and gallery are complete (the pages' examples: tests/docs)."""

import pathlib

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def test_api_reference_lists_every_public_name():
    """docs/api.rst (the site's API reference) documents everything ``pybai`` exports."""
    import pybai

    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = {line.strip() for line in text.splitlines() if line.startswith("   ") and not line.strip().startswith(":")}
    assert not sorted(set(pybai.__all__) - {"__version__"} - listed)
    assert not sorted(listed - set(pybai.__all__))


def test_gallery_examples_have_a_title():
    """Every gallery example (run by sphinx-gallery at ``make docs``) opens with a titled docstring."""
    examples = sorted((DOCS / "gallery").glob("*.py"))
    assert len(examples) >= 6
    for path in examples:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0] == '"""' and lines[1].strip() and set(lines[2]) == {"="} and len(lines[2]) >= len(lines[1]), path
