"""The import boundaries of docs/DESIGN: a learner never sees the truth, math never knows the driver."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "src" / "pybai"

FORBIDDEN = {
    "strategies": ("pybai.environments", "pybai.simulate", "pybai.cli", "pybai.config", "pybai.session"),
    "problems": ("pybai.strategies", "pybai.environments", "pybai.simulate"),
    "models": ("pybai.strategies", "pybai.problems", "pybai.environments", "pybai.simulate"),
    "report": ("pybai.simulate",),
    "environments": ("pybai.strategies", "pybai.simulate"),
    # the families' math: pure, driven by strategies, never the other way round
    "batch": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session"),
    "design": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session"),
    "bayesgap": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session"),
    # sessions drive strategies against the real world: no hidden truth, no simulation runner
    "session": ("pybai.environments", "pybai.simulate", "pybai.cli"),
}


def imported_modules(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_import_boundaries(folder):
    bad = []
    for path in (PACKAGE / folder).rglob("*.py"):
        for module in imported_modules(path):
            if module.startswith(FORBIDDEN[folder]):
                bad.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not bad, bad


def test_no_module_over_500_lines():
    long = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if len(p.read_text().splitlines()) > 500]
    assert not long, long


def test_public_api_is_re_exported_at_the_top():
    """Every registered strategy, every problem and environment class is importable from ``pybai``."""
    import pybai
    from pybai import environments, problems
    from pybai.strategies.registry import get_strategy_class, registered_names

    missing = [get_strategy_class(name).__name__ for name in registered_names()
               if not hasattr(pybai, get_strategy_class(name).__name__)]
    missing += [name for module in (problems, environments) for name in module.__all__
                if name[0].isupper() and name not in pybai.__all__]
    assert not missing, f"not re-exported in pybai/__init__.py: {missing}"
    assert all(hasattr(pybai, name) for name in pybai.__all__)


def test_one_ask_tell_protocol():
    """Strategy (ask/tell) is the only sampling protocol: no class elsewhere keeps a second cycle
    of its own (a ``next_batch``/``observe`` engine with its own counts and sums)."""
    second = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                if {"next_batch", "observe"} <= methods:
                    second.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert not second, second
