"""Numba's on-disk caches of pybai's compiled code, keyed to every source file that code depends on.

``@njit(cache=True)`` saves a function's machine code with every compiled function it calls
inlined, and numba checks only the function's *own* file before reusing it: after an update of
the checkout that changed a kernel in another file (or a constant it reads), the stale machine
code would still run.  :func:`install` puts :class:`DependencyLocator` in front of numba's cache
locators for the files of this package: the same cache folder and file names as numba's own
choice, but a *source stamp* (which numba stores in each cache index and compares before using
it) that adds :func:`dependency_stamp`, a SHA-256 of every pybai module the function's module
imports, directly or through other pybai modules (imports found by reading the source).  A
change to any of them gives another stamp: numba discards the index and compiles again, so a
stale cache is never used.  Functions of other packages keep numba's locators untouched, as
does a process that set ``NUMBA_CACHE_LOCATOR_CLASSES`` itself.

The hook is installed when :mod:`pybai` is imported, before any of its compiled functions is
defined: at once if numba is loaded already, else as soon as ``numba.core.caching`` is imported.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.abc
import importlib.util
import os
import re
import sys
from pathlib import Path

__all__ = ["install", "dependency_stamp", "dependencies", "PACKAGE"]

#: The folder of the pybai package (compiled functions in files under it are keyed to their dependencies).
PACKAGE = Path(__file__).resolve().parent

_CACHING = "numba.core.caching"
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(pybai(?:\.\w+)*)", re.MULTILINE)
_FROM = re.compile(r"^[ \t]*from[ \t]+(pybai(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)


# ------------------------------------------------------------------ the dependencies of a module
def _module_file(name: str) -> str | None:
    """The source file of module ``name`` (``pybai.a.b``) inside this package, or None."""
    base = os.path.join(str(PACKAGE), *name.split(".")[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def _stat(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=None)
def _read(path: str, mtime_ns: int, size: int) -> tuple[str, tuple[str, ...]]:
    """(SHA-256 of the file, the pybai modules it imports) for the file as it is now (mtime and size in the key)."""
    with open(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8", errors="replace")
    found: set[str] = set()
    for name in _IMPORT.findall(text):
        file = _module_file(name)
        if file is not None:
            found.add(file)
    for name, names in _FROM.findall(text):
        file = _module_file(name)
        if file is not None:
            found.add(file)
        for item in re.findall(r"\w+(?:[ \t]+as[ \t]+\w+)?", names.split("#")[0] if "(" not in names else names):
            sub = _module_file(f"{name}.{item.split()[0]}")  # ``from pybai.models import _kl``: a module
            if sub is not None:
                found.add(sub)
    return hashlib.sha256(data).hexdigest(), tuple(sorted(found))


def _scan(path: str) -> tuple[str, tuple[str, ...]]:
    return _read(path, *_stat(path))


def dependencies(py_file) -> list[Path]:
    """The pybai source files ``py_file`` imports, directly or through other pybai modules (itself included)."""
    return [Path(p) for p in _closure(os.path.realpath(py_file))]


def _closure(start: str) -> list[str]:
    seen = {start}
    todo = [start]
    while todo:
        for found in _scan(todo.pop())[1]:
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return sorted(seen)


#: py_file -> (stamp, the (path, mtime, size) of every file it covers): reused while none of them changed
_STAMPS: dict[str, tuple[str, tuple[tuple[str, int, int], ...]]] = {}


def dependency_stamp(py_file) -> str:
    """SHA-256 over the path (relative to the package) and content hash of each file of :func:`dependencies`."""
    start = os.path.realpath(py_file)
    known = _STAMPS.get(start)
    try:
        if known is not None and all(_stat(path) == (mtime, size) for path, mtime, size in known[1]):
            return known[0]
    except OSError:
        pass
    digest = hashlib.sha256()
    covered = []
    top = str(PACKAGE)
    for path in _closure(start):
        mtime, size = _stat(path)
        covered.append((path, mtime, size))
        digest.update(os.path.relpath(path, top).encode() if path.startswith(top) else path.encode())
        digest.update(_read(path, mtime, size)[0].encode())
    stamp = digest.hexdigest()
    _STAMPS[start] = (stamp, tuple(covered))
    return stamp


@functools.lru_cache(maxsize=None)
def _inside(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE)
    except (OSError, ValueError, TypeError):
        return False


# ------------------------------------------------------------------ the locator
def _locator_class(caching):
    """:class:`DependencyLocator` built on this numba's locator interface."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    standard = [cls for cls in impl._locator_classes if getattr(cls, "_pybai", False) is False]

    class DependencyLocator(caching._CacheLocator):
        """numba's own locator for the function (its folder and file names), with a source stamp that adds
        :func:`dependency_stamp` of the function's file."""

        _pybai = True

        def __init__(self, inner, py_file):
            self._inner = inner
            self._py_file = py_file

        def ensure_cache_path(self):
            self._inner.ensure_cache_path()

        def get_cache_path(self):
            return self._inner.get_cache_path()

        def get_disambiguator(self):
            return self._inner.get_disambiguator()

        def get_source_stamp(self):
            return (self._inner.get_source_stamp(), dependency_stamp(self._py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _inside(py_file):
                return None  # another package's function: numba's locators as they are
            for other in standard:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, py_file)
            return None

    return impl, DependencyLocator


def _patch(caching) -> None:
    impl, locator = _locator_class(caching)
    if not any(getattr(cls, "_pybai", False) for cls in impl._locator_classes):
        impl._locator_classes = [locator, *impl._locator_classes]


class _OnImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Patches ``numba.core.caching`` right after it is executed (numba not loaded when pybai was)."""

    def find_spec(self, name, path, target=None):
        if name != _CACHING:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch(module)


def install() -> None:
    """Key numba's caches of this package's compiled functions to their dependencies (see the module docstring)."""
    caching = sys.modules.get(_CACHING)
    if caching is not None:
        _patch(caching)
    elif not any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnImport())
