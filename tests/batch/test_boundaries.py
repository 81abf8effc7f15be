"""batch/ is strategy-agnostic math: it never imports drivers, strategies or truths; the batch rules
are strategies whose own state holds decisions only (the model holds the counts and sums)."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "src" / "pybai"
FORBIDDEN = ("pybai.strategies", "pybai.environments", "pybai.simulate", "pybai.problems", "pybai.cli",
             "pybai.config", "pybai.session")


def test_batch_imports_no_strategy_environment_or_problem():
    bad = []
    for path in (PACKAGE / "batch").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            bad += [f"{path.name} imports {m}" for m in names if m.startswith(FORBIDDEN)]
        assert len(path.read_text().splitlines()) <= 450, path.name
    assert not bad, bad


def test_batch_rules_keep_no_statistics_of_their_own():
    from pybai.strategies.registry import get_strategy_class

    for name in ("batch-racing", "batch-sar", "halving", "round-robin"):
        attrs = get_strategy_class(name)._state_attrs
        assert not [a for a in attrs if "count" in a or "sum" in a or "mean" in a], (name, attrs)
