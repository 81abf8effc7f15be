"""Numba's caches of pybai's compiled code are never reused after a file they depend on changed.

In a temporary copy of the package, a cached compiled function in one file calls (and so inlines)
a compiled function of another file.  Run in fresh processes: the first compiles and saves, the
second loads the cache (it works), and after the *other* file changed the third compiles again
and gives the new result.  numba's own locators (``NUMBA_CACHE_LOCATOR_CLASSES`` set to them)
reuse the stale machine code in the same situation, which is what the control shows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pybai
from pybai._numba_cache import PACKAGE, dependencies, dependency_stamp

CALLER = """from numba import njit

from pybai._probe_callee import scaled


@njit(cache=True)
def value(x):
    return scaled(x) + 1.0
"""
CALLEE = """from numba import njit

SCALE = {scale}


@njit(cache=True)
def scaled(x):
    return x * SCALE
"""
RUN = """import json
import pybai._probe_caller as caller
out = caller.value(1.0)
print(json.dumps({"value": out, "hits": sum(caller.value.stats.cache_hits.values()),
                  "misses": sum(caller.value.stats.cache_misses.values())}))
"""


def _run(top: Path, env_extra: dict | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(top), **(env_extra or {})}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, env=env, timeout=600, cwd=top)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the package (its caches too, so nothing of pybai's own is compiled) with the two probe files."""
    top = tmp_path / "src"
    shutil.copytree(Path(pybai.__file__).parent, top / "pybai")
    (top / "pybai" / "_probe_caller.py").write_text(CALLER)
    (top / "pybai" / "_probe_callee.py").write_text(CALLEE.format(scale=2.0))
    return top


def test_a_changed_dependency_is_compiled_again(package_copy):
    first = _run(package_copy)
    assert first["value"] == 3.0 and first["misses"] >= 1
    second = _run(package_copy)
    assert second == {"value": 3.0, "hits": 1, "misses": 0}  # unchanged: the cache is used
    callee = package_copy / "pybai" / "_probe_callee.py"
    callee.write_text(CALLEE.format(scale=5.0))  # only the callee's file changes
    third = _run(package_copy)
    assert third["value"] == 6.0 and third["hits"] == 0, third


def test_numba_alone_would_reuse_the_stale_code(package_copy):
    """The control: with numba's own locators the caller's cache survives the callee's change."""
    import numba.core.config

    if not hasattr(numba.core.config, "CACHE_LOCATOR_CLASSES"):
        pytest.skip("this numba has no NUMBA_CACHE_LOCATOR_CLASSES to choose its own locators")
    own = {"NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"}
    assert _run(package_copy, own)["value"] == 3.0
    (package_copy / "pybai" / "_probe_callee.py").write_text(CALLEE.format(scale=5.0))
    stale = _run(package_copy, own)
    assert stale["value"] == 3.0 and stale["hits"] == 1  # the old machine code ran


def test_the_stamp_of_a_compiled_loop_covers_the_kernels_it_inlines():
    files = {str(p.relative_to(PACKAGE)) for p in dependencies(PACKAGE / "problems" / "compiled.py")}
    assert {"problems/compiled.py", "models/_kl.py", "problems/best_arm/_kernels.py"} <= files
    assert "cli/__init__.py" not in files and "session/session.py" not in files  # unrelated edits keep caches


def test_the_stamp_changes_with_any_file_it_covers(tmp_path, monkeypatch):
    from pybai import _numba_cache

    top = tmp_path / "pybai"
    (top / "a").mkdir(parents=True)
    (top / "__init__.py").write_text("")
    (top / "a" / "__init__.py").write_text("")
    (top / "a" / "k.py").write_text("from pybai.a import (\n    m,  # a module\n)\nimport pybai.b\n")
    (top / "a" / "m.py").write_text("X = 1\n")
    (top / "b.py").write_text("from pybai.c import Y\n")
    (top / "c.py").write_text("Y = 2\n")
    (top / "d.py").write_text("Z = 3\n")
    monkeypatch.setattr(_numba_cache, "PACKAGE", top)
    stamp = _numba_cache.dependency_stamp(top / "a" / "k.py")
    assert {p.name for p in _numba_cache.dependencies(top / "a" / "k.py")} == {"k.py", "m.py", "b.py", "c.py", "__init__.py"}
    (top / "d.py").write_text("Z = 4\n")  # not a dependency
    assert _numba_cache.dependency_stamp(top / "a" / "k.py") == stamp
    (top / "c.py").write_text("Y = 30\n")  # a dependency of a dependency
    assert _numba_cache.dependency_stamp(top / "a" / "k.py") != stamp
