"""Rules about the code itself: exceptions keep their cause, a broad ``except``
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


# -- paths named in docstrings and comments ------------------------------------------------------
#: Repository-relative paths as the source names them (``simcore/engine.py``,
#: ``docs/design.md#section``, ``instances/decisions/cerberus-*.jsonl``), not preceded by a path
#: character (so ``../shared/x`` and ``schedbench/...`` are not taken for one).
_REPO_PATH = re.compile(
    r"(?<![\w./-])((?:simcore|solvers|instances|bench|docs|tests)/[\w./*-]*[\w*/])(#[\w-]+)?"
)
#: Upper-case Markdown files (``README.md``) live at the top of the repository.
_TOP_DOC = re.compile(r"(?<![\w./-])([A-Z][A-Z_]+\.md)\b")
#: The papers and their model notes are kept outside the repository: ``papers/<file>`` is a
#: citation by name, never checked; but no installed module may send a user to the folder they
#: live in on one machine.
_OUTSIDE = re.compile(r"\.\./shared\b|/work/shared\b|(?<![\w./-])shared/papers\b")
#: Dotted references to the package's own modules (``schedbench.simcore.engine.Simulation``).
_MODULE_REF = re.compile(r"\bschedbench\.((?:simcore|solvers|instances|bench)(?:\.\w+)*)")


def _docs_and_comments(path: Path):
    """(line, text) of every docstring and comment of a Python file."""
    import io
    import tokenize

    src = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def _module_ref_exists(dotted: str) -> bool:
    """``simcore.engine.Simulation``: the longest prefix that is a module or package of the
    repository, then (if anything is left) a name defined at the top of that module."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:k])
        module = (
            base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        )
        if not module.is_file():
            continue
        if k == len(parts):
            return True
        names = set()
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.ImportFrom | ast.Import):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        return parts[k] in names
    return False


ALL_SOURCES = sorted(
    p
    for folder in ("simcore", "solvers", "instances", "bench")
    for p in (ROOT / folder).rglob("*.py")
)


def _path_problems(text: str, installed: bool = True) -> list[str]:
    """What is wrong with the paths, anchors and modules a docstring or comment names."""
    problems = []
    for m in _REPO_PATH.finditer(text):
        name, anchor = m.group(1).rstrip("."), m.group(2)
        target = ROOT / name
        exists = any(ROOT.glob(name)) if "*" in name else target.exists()
        if not exists:
            problems.append(f"{name} does not exist")
        elif anchor and target.suffix == ".md" and anchor[1:] not in _anchors(target):
            problems.append(f"{name} has no section {anchor}")
    for m in _TOP_DOC.finditer(text):
        if not (ROOT / m.group(1)).exists():
            problems.append(f"{m.group(1)} is not in the repository")
    for m in _MODULE_REF.finditer(text):
        if not _module_ref_exists(m.group(1).rstrip(".")):
            problems.append(f"schedbench.{m.group(1)} does not exist")
    if installed and _OUTSIDE.search(text):
        problems.append(f"points at a folder outside the repository ({text.strip()[:60]})")
    return problems


@pytest.mark.parametrize("path", ALL_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_docstring_or_comment_names_exists(path):
    """A newcomer follows these: every repository path, section anchor and module a docstring or
    comment names must exist. The benchmark scripts (not installed) may look for files outside."""
    installed = "benchmarks" not in path.parts
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {problem}"
        for line, text in _docs_and_comments(path)
        for problem in _path_problems(text, installed)
    ]
    assert not problems, "\n".join(problems)


PACKAGE_DOCS = sorted(
    p
    for folder in ("simcore", "solvers", "instances", "bench")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in {".md", ".toml"} and "benchmarks" not in p.parts
)


@pytest.mark.parametrize("path", PACKAGE_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_the_package_documents_and_suites_name_exists(path):
    """The same for the reproductions' pages, the data README and the shipped suites."""
    problems = _path_problems(path.read_text(encoding="utf-8"))
    assert not problems, "\n".join(f"{path.relative_to(ROOT)}: {p}" for p in problems)


def test_the_path_rule_finds_what_a_newcomer_would_trip_on():
    ok = (
        "simcore/engine.py, bench/run/, docs/design.md#layout-and-layers, "
        "instances/decisions/cerberus-*.jsonl, papers/any-paper.txt (a citation), README.md, "
        "schedbench.simcore.engine.Simulation, schedbench.bench.analysis.ar_offline"
    )
    assert _path_problems(ok) == []
    assert len(_path_problems("simcore/vet.py and bench/supervisor.py")) == 2
    assert _path_problems("docs/design.md#no-such-section") == [
        "docs/design.md has no section #no-such-section"
    ]
    assert _path_problems("DESIGN.md") == ["DESIGN.md is not in the repository"]
    assert _path_problems("schedbench.solvers.ar_offline") == [
        "schedbench.solvers.ar_offline does not exist"
    ]
    assert len(_path_problems("read ../shared/papers/x.md")) == 1
    assert _path_problems("read ../shared/papers/x.md", installed=False) == []


# -- no references to an issue tracker that is not in the repository ------------------------------
#: The word "issue" (any case, or plural) then a number, with a space, a line break, a hyphen,
#: an underscore, a "#" or nothing between (the examples below spell it out).
_ISSUE = re.compile(r"\bissues?[\s_-]*#?\d+", re.IGNORECASE)
#: The one exception: another project's tracker, named right before the word and numbered with
#: ``#`` ("benchopt issue #402"). Add a project here when the source cites its tracker.
EXTERNAL_TRACKERS = (
    "benchopt",
    "numba",
    "OR-Tools",
    "PuLP",
    "HiGHS",
    "CBC",
    "pymoo",
    "scipy",
    "numpy",
    "CQSim",
)
_TEXTS = sorted(
    [
        p
        for folder in ("simcore", "solvers", "instances", "bench", "tests")
        for p in (ROOT / folder).rglob("*")
        if p.suffix in {".py", ".md", ".toml"} and ".mypy_cache" not in p.parts
    ]
    + list((ROOT / "docs").rglob("*.md"))
    + [ROOT / n for n in ("README.md", "CONTRIBUTING.md", "Makefile", "pyproject.toml")]
)


def _issue_references(text: str) -> list[tuple[int, str]]:
    found = []
    for m in _ISSUE.finditer(text):
        before = text[: m.start()]
        external = "#" in m.group(0) and any(
            before.endswith(f"{name} ") for name in EXTERNAL_TRACKERS
        )
        if not external:
            found.append((text.count("\n", 0, m.start()) + 1, m.group(0)))
    return found


@pytest.mark.parametrize("path", _TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_tracker_references(path):
    """The tracker is not in the repository: a comment says the reason itself, or links a
    section of docs/design.md. Help texts are covered through their source and through
    docs/reference/cli.md, which is generated from them."""
    found = _issue_references(path.read_text(encoding="utf-8"))
    assert not found, "\n".join(
        f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in found
    )


def test_the_issue_rule_allows_only_named_external_trackers():
    word = "issue"  # spelled apart, or this file would break its own rule
    assert _issue_references(f"see benchopt {word} #402") == []
    assert _issue_references(f"see {word} 16, and {word.title()} 17 target 3") == [
        (1, f"{word} 16"),
        (1, f"{word.title()} 17"),
    ]
    assert _issue_references(f"--{word}17 and {word}s\n12") == [
        (1, f"{word}17"),
        (1, f"{word}s\n12"),
    ]
    assert _issue_references(f"benchopt {word} 402") == [(1, f"{word} 402")]  # no '#'
    assert _issue_references(f"somelib {word} #3") == [(1, f"{word} #3")]  # not a named tracker


# -- no god-functions ---------------------------------------------------------------------------
MAX_FUNCTION_LINES = 150
#: Functions over the limit kept on purpose for now, each with its reason.
#: An entry that no longer exceeds the limit fails too, so the list only shrinks.
LONG_FUNCTIONS_BEING_SPLIT = {
    # A numba kernel that landed with the locality speed work: one compiled scheduler run;
    # whether to split it into @njit helpers is that work's call (measure before and after).
    "simcore/locality/_plan.py:plan_run",
}


def _long_functions() -> dict[str, int]:
    found = {}
    for folder in ("simcore", "bench", "instances"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = node.end_lineno - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        found[f"{path.relative_to(ROOT)}:{node.name}"] = length
    return found


def test_no_function_over_150_lines_in_simcore_bench_and_instances():
    """A function that long does several things; split it into named helpers (one finding, one
    step, one event kind each)."""
    found = _long_functions()
    new = {k: v for k, v in found.items() if k not in LONG_FUNCTIONS_BEING_SPLIT}
    assert not new, "\n".join(f"{k}: {v} lines" for k, v in new.items())
    stale = LONG_FUNCTIONS_BEING_SPLIT - set(found)
    assert not stale, (
        f"no longer over {MAX_FUNCTION_LINES} lines, drop from the list: {sorted(stale)}"
    )
