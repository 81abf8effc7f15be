"""Release hygiene: ``python -m pybai``, the release files, the version in CITATION.cff, py.typed."""

from __future__ import annotations

import importlib.resources
import pathlib
import re
import subprocess
import sys

import pybai

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_python_dash_m_pybai_help():
    done = subprocess.run([sys.executable, "-m", "pybai", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: pybai" in done.stdout


def test_python_dash_m_pybai_passes_the_exit_status():
    done = subprocess.run([sys.executable, "-m", "pybai", "no-such-command"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2


def test_release_files_exist():
    for name in ("LICENSE", "CITATION.cff", "CHANGELOG.md", "CONTRIBUTING.md"):
        assert (ROOT / name).is_file(), name
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_citation_version_is_the_package_version():
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    found = re.search(r'^version: "?([^"\n]+)"?$', text, re.M)
    assert found and found.group(1) == pybai.__version__


def test_py_typed_is_in_the_installed_package():
    assert importlib.resources.files("pybai").joinpath("py.typed").is_file()
