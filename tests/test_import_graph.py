"""The import graph of the package: no cycles, and the layering of docs/design.md holds.

``bench -> solvers -> simcore <- instances``: simcore imports nothing from solvers/, bench/ or
instances/. Every module under the four folders is parsed with ``ast`` (nothing is imported),
and every import counts — at module level or inside a function (a lazy import is still a
dependency, and still closes a cycle when it runs). The benchmark scripts of bench/benchmarks/
are not a package; they count as modules ``schedbench.bench.benchmarks.<name>``, and their
imports of each other by bare name are resolved to those.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("simcore", "solvers", "instances", "bench")

#: Cycles that exist today in code that is not part of this change (bench/ is being
#: restructured separately); each is reported by its own xfail so that fixing it shows up.
#: Key: the sorted modules of the strongly connected component.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "schedbench." + ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (anywhere in the file)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    scripts = "schedbench.bench.benchmarks"
    out: set[str] = set()

    def resolve(target: str) -> str | None:
        # the longest prefix that is a project module (``from a.b import c`` may name a module
        # ``a.b.c`` or an attribute of ``a.b``)
        while target:
            if target in modules:
                return target
            target = target.rpartition(".")[0]
        return None

    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            targets = [f"{mod}.{alias.name}" for alias in node.names] + [mod]
        for target in targets:
            if name.startswith(scripts + ".") and not target.startswith("schedbench"):
                sibling = f"{scripts}.{target.partition('.')[0]}"
                if sibling not in modules:
                    continue  # the standard library or a third-party package
                target = sibling  # a benchmark script importing its sibling by bare name
            found = resolve(target)
            if found is not None and found != name:
                out.add(found)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[tuple[str, ...]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


GRAPH = _graph()
CYCLES = _cycles(GRAPH)


def test_the_graph_sees_the_modules_and_lazy_imports():
    assert "schedbench.simcore.engine" in GRAPH
    assert "schedbench.simcore.policy" in GRAPH["schedbench.simcore.engine"]
    assert "schedbench.simcore.policy" in GRAPH["schedbench.simcore.policies"]
    # bench/cli/run.py imports the runner inside a function
    assert "schedbench.bench.run.runner" in GRAPH["schedbench.bench.cli.run"]


def test_engine_and_policies_do_not_import_each_other():
    engine, policies = "schedbench.simcore.engine", "schedbench.simcore.policies"
    backfill = "schedbench.simcore.backfill"
    assert policies not in GRAPH[engine] and backfill not in GRAPH[engine]
    assert engine not in GRAPH[policies] and engine not in GRAPH[backfill]


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("simcore", ("solvers", "bench", "instances")),
        ("solvers", ("bench", "instances")),
        ("instances", ("solvers", "bench")),
    ],
)
def test_layering(layer, forbidden):
    """bench -> solvers -> simcore <- instances."""
    bad = sorted(
        f"{mod} imports {dep}"
        for mod, deps in GRAPH.items()
        if mod.startswith(f"schedbench.{layer}.") or mod == f"schedbench.{layer}"
        for dep in deps
        if dep.split(".")[1] in forbidden
    )
    assert not bad, "\n".join(bad)


def test_no_import_cycle_outside_the_known_ones():
    new = [c for c in CYCLES if c not in KNOWN_CYCLES]
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)


@pytest.mark.parametrize(
    "cycle",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=reason, strict=True), id="+".join(c))
        for c, reason in KNOWN_CYCLES.items()
    ]
    or [pytest.param((), marks=pytest.mark.skip(reason="no known cycle"), id="none")],
)
def test_known_cycle_is_gone(cycle):
    """Each known cycle is reported here (xfail) until it is fixed; then remove its entry."""
    assert cycle not in CYCLES
