"""The import boundaries of docs/DESIGN: a learner never sees the truth, math never knows the driver."""

import ast
import functools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "src" / "pybai"

FORBIDDEN = {
    "strategies": ("pybai.environments", "pybai.simulate", "pybai.cli", "pybai.config", "pybai.session"),
    "problems": ("pybai.strategies", "pybai.environments", "pybai.simulate"),
    "models": ("pybai.strategies", "pybai.problems", "pybai.environments", "pybai.simulate", "pybai.session",
               "pybai.datasets"),
    "report": ("pybai.simulate",),
    # thresholds are math below the problems: a problem hands its threshold what it needs, never the reverse
    "stopping": ("pybai.problems", "pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config",
                 "pybai.session", "pybai.cli"),
    "environments": ("pybai.strategies", "pybai.simulate"),
    # the families' math: pure, driven by strategies, never the other way round
    "batch": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session"),
    "design": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session"),
    "fixed_budget": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.config", "pybai.session",
                     "pybai.datasets"),
    # data loaders feed environments; they never drive a run
    "datasets": ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.session"),
    # sessions drive strategies against the real world: no hidden truth, no simulation runner
    "session": ("pybai.environments", "pybai.simulate", "pybai.cli", "pybai.server"),
    # the HTTP server drives sessions; it never simulates, and the command line starts it (not the reverse)
    "server": ("pybai.environments", "pybai.simulate", "pybai.cli", "pybai.strategies"),
    # the common checks drive the library as a user does; they never run the command line, a server or a sweep
    "testing": ("pybai.cli", "pybai.server", "pybai.simulate", "pybai.report"),
}


@functools.cache
def nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of the parsed ``source`` (``ast.walk`` order), parsed once for all the tests of this file."""
    return tuple(ast.walk(ast.parse(source)))


def imported_modules(path: pathlib.Path):
    for node in nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_import_boundaries(folder):
    assert (PACKAGE / folder).is_dir(), f"no package {folder}: update FORBIDDEN"
    bad = []
    for path in (PACKAGE / folder).rglob("*.py"):
        for module in imported_modules(path):
            if module.startswith(FORBIDDEN[folder]):
                bad.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not bad, bad


#: The soft budget of a module: modules split by responsibility stay under it; one that holds a single
#: responsibility that does not split is named here with the reason, and the test fails when a module
#: exceeds the budget without a reason (or keeps a reason it no longer needs).
MODULE_BUDGET = 500
OVER_BUDGET = {
    "strategies/base.py": "the Strategy class: its whole lifecycle in one place (start, the initial phase, ask/tell "
                          "and the outstanding requests, the stopping rule, retarget, finishing a compiled run, "
                          "saving and restoring its state): every assignment of its fields is its own",
}


def test_only_the_tests_import_the_common_checks():
    """pybai.testing sits on top: nothing in the package imports it (``import pybai`` never loads it,
    nor pytest through it)."""
    bad = [f"{path.relative_to(PACKAGE)} imports {module}" for path in PACKAGE.rglob("*.py")
           if "testing" not in path.relative_to(PACKAGE).parts
           for module in imported_modules(path) if module.startswith("pybai.testing")]
    assert not bad, bad


def test_modules_keep_the_soft_budget_or_say_why():
    long = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if len(p.read_text().splitlines()) > MODULE_BUDGET}
    assert not long - set(OVER_BUDGET), f"over {MODULE_BUDGET} lines without a reason in OVER_BUDGET: {sorted(long - set(OVER_BUDGET))}"
    assert not set(OVER_BUDGET) - long, f"no longer over budget, drop from OVER_BUDGET: {sorted(set(OVER_BUDGET) - long)}"


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


def test_the_lazy_public_names_are_listed_alike():
    """pybai/__init__.py lists each lazily imported name twice (its type-checking imports, ``_LAZY``):
    the two agree name for name and module for module, and with the eager ones make ``__all__``."""
    import pybai

    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    checked = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    typed = {alias.name: node.module for node in checked.body for alias in node.names}
    assert typed == pybai._LAZY
    eager = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
             and node.module not in ("typing", "pybai") for alias in node.names}
    assert set(pybai.__all__) == eager | set(typed) and len(pybai.__all__) == len(set(pybai.__all__))


#: names a strategy must not inspect by duck typing: the problem, its model and family, thresholds
_INSPECTED = ("problem", "model", "family", "threshold")
#: classes whose type a strategy must not test (a family's problem, model, family or threshold)
_TYPE_SUFFIXES = ("Problem", "Threshold", "Model", "Family", "Space", "LeastSquares", "Posterior", "EmpiricalMeans",
                  "Gaussian", "Bernoulli", "ArmLevel")


def _mentions(node, names) -> bool:
    """Whether an expression (``problem``, ``self.problem_``, ``self.model_.x``) names one of ``names``."""
    for sub in ast.walk(node):
        ident = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else ""
        if any(ident.rstrip("_").endswith(name) for name in names):
            return True
    return False


def family_branches(source: str) -> list[str]:
    """Family branches in a strategy module: duck typing on the problem/model/family, family names,
    isinstance on family classes, method-identity checks (each with its line)."""
    bad = []
    for node in nodes(source):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            literal = len(node.args) > 1 and isinstance(node.args[1], ast.Constant)  # not generic code's names
            if node.func.id in ("getattr", "hasattr") and literal and _mentions(node.args[0], _INSPECTED):
                bad.append(f"line {node.lineno}: {node.func.id} on {ast.unparse(node.args[0])}")
            if node.func.id == "isinstance" and len(node.args) == 2:
                classes = [ast.unparse(c) for c in ast.walk(node.args[1]) if isinstance(c, (ast.Name, ast.Attribute))]
                if any(c.split(".")[-1].endswith(_TYPE_SUFFIXES) and c != "Problem" for c in classes):
                    bad.append(f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Attribute) and node.attr == "name" and _mentions(node.value, ("family",)):
            bad.append(f"line {node.lineno}: {ast.unparse(node)} (a family's name)")
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and isinstance(s.value, ast.Name) and s.value.id in ("Problem", "Strategy")
                   for s in sides):
                bad.append(f"line {node.lineno}: {ast.unparse(node)} (a method-identity check)")
    return bad


def test_the_branch_detector_finds_each_kind_of_family_branch():
    found = family_branches(
        "getattr(problem, 'linear', False)\nhasattr(self.model_, 'std')\nfamily.name == 'gaussian'\n"
        "isinstance(th, LinearSelfNormalizedThreshold)\ntype(problem).answer_mask is Problem.answer_mask\n"
        "self.problem_.family.name\n")
    assert len(found) == 6, found
    assert not family_branches("getattr(self, name)\nisinstance(x, (int, np.integer))\nproblem.provides\n"
                               "getattr(model, name)\nisinstance(problem, Problem)\n")


def test_strategies_do_not_branch_on_the_family():
    """A strategy reads what the problem, its request space and its model declare; a new family or
    goal is a new class, never a new branch here (``Strategy.requires`` / ``Problem.provides``)."""
    bad = [f"{path.relative_to(PACKAGE)} {line}" for path in sorted((PACKAGE / "strategies").rglob("*.py"))
           for line in family_branches(path.read_text(encoding="utf-8"))]
    assert not bad, "family branches in strategies/:\n" + "\n".join(bad)


def test_every_capability_flag_is_declared_on_strategy():
    """Flags that rules set and the engine, sessions or checks read have a default and a comment on Strategy."""
    from pybai.strategies.base import Strategy
    from pybai.strategies.registry import get_strategy_class, registered_names

    source = (PACKAGE / "strategies" / "base.py").read_text(encoding="utf-8")
    flags = {"batched", "requires", "asks_chunks", "may_stop_early", "reference", "reference_note", "stops_on_statistics"}
    for flag in flags:
        assert hasattr(Strategy, flag) and f"    {flag}:" in source, flag
    for name in registered_names():
        cls = get_strategy_class(name)
        extra = {k for k, v in vars(cls).items() if isinstance(v, bool) and not k.startswith("_")} - flags
        assert not extra, f"{name}: undeclared flags {extra}"


# ---------------------------------------------------------------- no import cycle
def module_names() -> dict[str, bool]:
    """Dotted name of every module of the package -> whether it is a package (``__init__.py``)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = is_package
    return out


def imports_of(name: str, source: str, is_package: bool, known) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, at module level or inside functions.

    ``import a.b`` imports ``a.b``; ``from a import y`` imports the submodule ``a.y`` when there is
    one, else ``a`` itself; relative imports are resolved.  The parent packages that Python runs
    first are not counted (else every module would import ``pybai``).
    """
    here = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in nodes(source):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            if module in known:
                out.update(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                           for alias in node.names)
    out.discard(name)
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ``[a, b, ..., a]``, or None when it is acyclic."""
    state = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path, stack = [root], [iter(sorted(graph.get(root, ())))]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return None


def module_graph() -> dict[str, set[str]]:
    known = module_names()
    graph = {}
    for name, is_package in known.items():
        parts = name.split(".")
        path = PACKAGE.parent.joinpath(*parts, "__init__.py") if is_package else PACKAGE.parent.joinpath(*parts[:-1],
                                                                                                         parts[-1] + ".py")
        graph[name] = imports_of(name, path.read_text(encoding="utf-8"), is_package, known)
    return graph


def package_of(module: str) -> str:
    """``pybai`` for the package's ``__init__``, else its top-level subpackage or root module."""
    parts = module.split(".")
    return parts[0] if len(parts) == 1 else parts[1]


def test_no_import_cycle_between_modules():
    cycle = find_cycle(module_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_import_cycle_between_packages():
    graph = {}
    for module, targets in module_graph().items():
        for target in targets:
            if package_of(module) != package_of(target):
                graph.setdefault(package_of(module), set()).add(package_of(target))
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle)


def test_no_module_imports_the_package_root():
    """``pybai/__init__.py`` re-exports the API; a module that imported it would import everything."""
    bad = sorted(module for module, targets in module_graph().items() if "pybai" in targets)
    assert not bad, f"import from pybai/__init__.py (import the defining module instead): {bad}"


def test_the_cycle_checks_can_fail():
    known = {"p", "p.a", "p.b", "p.c"}
    inside = "def f():\n    from p import b\n"
    assert imports_of("p.a", inside, False, known) == {"p.b"}  # inside a function, submodule by name
    assert imports_of("p.b", "from . import c\nimport p.a\n", False, known) == {"p.c", "p.a"}
    assert imports_of("p.c", "from p import something\n", False, known) == {"p"}
    assert find_cycle({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}) == ["p.a", "p.b", "p.c", "p.a"]
    assert find_cycle({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": set()}) is None
    assert package_of("pybai") == "pybai" and package_of("pybai.stopping.kt") == "stopping"
    assert package_of("pybai._version") == "_version"


def test_the_version_has_one_source():
    """``pybai._version`` holds it; ``pyproject.toml`` reads it from there instead of a second copy."""
    import importlib.metadata
    import tomllib

    import pybai
    from pybai._version import __version__

    project = tomllib.loads((PACKAGE.parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pybai._version.__version__"}
    assert pybai.__version__ == __version__ == importlib.metadata.version("pybai")


def test_one_ask_tell_protocol():
    """Strategy (ask/tell) is the only sampling protocol: no class elsewhere keeps a second cycle
    of its own (a ``next_batch``/``observe`` engine with its own counts and sums)."""
    second = []
    for path in PACKAGE.rglob("*.py"):
        for node in nodes(path.read_text(encoding="utf-8")):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                if {"next_batch", "observe"} <= methods:
                    second.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert not second, second


def private_imports(path: pathlib.Path) -> list[str]:
    """``from pybai.x import _y`` where ``_y`` is a name (not a submodule) private to ``pybai.x``."""
    bad = []
    for node in nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pybai"):
            folder = PACKAGE.parent.joinpath(*node.module.split("."))
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and not (folder / f"{alias.name}.py").exists() and not (folder / alias.name).is_dir():
                    bad.append(f"line {node.lineno}: from {node.module} import {alias.name}")
    return bad


def test_no_module_imports_another_modules_private_names():
    """A name another module needs is public there (or moves); private submodules (``_kl``) are fine."""
    bad = [f"{path.relative_to(PACKAGE)} {line}" for path in PACKAGE.rglob("*.py") for line in private_imports(path)]
    assert not bad, bad


def test_the_private_import_detector_can_fail(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from pybai.config.keys import _hidden, Table\nfrom pybai.models import _kl\n")
    assert private_imports(path) == ["line 1: from pybai.config.keys import _hidden"]
