"""Rules about the code itself (issue 12): exceptions keep their cause, a broad ``except``
re-raises or records the failure with its reason, nothing swallows every exception."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    p
    for folder in ("simcore", "solvers", "instances", "bench")
    for p in (ROOT / folder).rglob("*.py")
    if "benchmarks" not in p.parts
)
BROAD = {"Exception", "BaseException"}


def _names(node: ast.expr | None) -> set[str]:
    if node is None:
        return {"(bare)"}
    if isinstance(node, ast.Tuple):
        return {n for elt in node.elts for n in _names(elt)}
    return {node.id} if isinstance(node, ast.Name) else {ast.unparse(node)}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_errors_keep_their_cause_and_broad_handlers_record_why(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Raise) and isinstance(node.cause, ast.Constant):
            problems.append(f"{where}: `raise ... from None` drops the cause")
        if isinstance(node, ast.ExceptHandler) and _names(node.type) & (BROAD | {"(bare)"}):
            reraises = any(isinstance(n, ast.Raise) for n in ast.walk(node))
            uses_name = node.name is not None and any(
                isinstance(n, ast.Name) and n.id == node.name
                for b in node.body
                for n in ast.walk(b)
            )
            if not (reraises or uses_name):
                problems.append(f"{where}: a broad except that neither re-raises nor records why")
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("suppress")
            and {ast.unparse(a) for a in node.args} & BROAD
        ):
            problems.append(f"{where}: suppress(Exception) swallows every failure")
    assert not problems, "\n".join(problems)


def test_every_figure_has_a_generator_and_every_benchmark_a_figure():
    """The measured figures of docs/figures.md come from `make figures`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "figures", ROOT / "bench" / "benchmarks" / "figures.py"
    )
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    known = figures.figures()
    page = ROOT / "docs" / "figures.md"
    in_readme = figures.blocks(page.read_text(encoding="utf-8"))
    assert in_readme, "docs/figures.md has no generated figure blocks"
    assert set(in_readme) <= set(known), sorted(set(in_readme) - set(known))
    scripts = {
        p.name
        for p in (ROOT / "bench" / "benchmarks").glob("*.py")
        if figures.has_main(p) and p.name != "figures.py"
    }
    assert scripts <= {s["script"] for s in known.values()}, "a benchmark without a FIGURE"
    assert set(known) <= set(in_readme), "a FIGURE docs/figures.md does not show"
    for image in re.findall(r"\]\((\.\./bench/benchmarks/figures/[^)]+\.png)\)", page.read_text()):
        assert (page.parent / image).is_file(), image
