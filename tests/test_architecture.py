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
    for node in ast.walk(ast.parse(source)):
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
    flags = {"batched", "requires", "asks_chunks", "may_stop_early", "reference", "reference_note"}
    for flag in flags:
        assert hasattr(Strategy, flag) and f"    {flag}:" in source, flag
    for name in registered_names():
        cls = get_strategy_class(name)
        extra = {k for k, v in vars(cls).items() if isinstance(v, bool) and not k.startswith("_")} - flags
        assert not extra, f"{name}: undeclared flags {extra}"
