"""Every shell and Python example in README.md and docs/ runs, and shows what it says it shows.

The documents are executed, not read: a stale flag, a renamed dataset or an error message that
changed fails here instead of reaching a user. Each Markdown file runs in a fresh folder of its
own (``bench/``, ``instances/`` and the build files linked in, so the examples' relative paths
work and nothing they write lands in the repository); its code blocks run in order:

* ``sh`` — every command must exit 0 (``\\`` continues a line, ``#`` starts a comment);
* ``console`` — ``$ command`` lines, each followed by the output it must print (stdout and stderr
  together); a line ``...`` stands for any number of lines and ``...`` inside a line for any
  text (a latency), and the output must match the rest line for line (trailing spaces aside);
* ``python`` — run as a script in the folder (which is on ``sys.path``);
* ``toml`` / ``json`` — must parse.

An HTML comment right before a block changes how it runs:

* ``<!-- doctest: file NAME -->`` writes the block to ``NAME`` (a plug-in module, a suite) for
  the blocks after it, and checks that a ``.py`` file imports;
* ``<!-- doctest: exit N -->`` — every command of the block must exit with ``N``;
* ``<!-- doctest: slow REASON -->`` — runs only in ``make test-slow`` (``-m slow``);
* ``<!-- doctest: skip REASON -->`` — never runs (say why: the command that runs this test, a
  download).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
#: What an example's folder links in from the repository.
LINKED = (
    "bench",
    "instances",
    "simcore",
    "solvers",
    "Makefile",
    "pyproject.toml",
    "requirements.lock",
    ".venv",
)
TIMEOUT_S = 900

_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[A-Za-z0-9_+-]*)[^\n]*$")
_MARK = re.compile(r"^<!--\s*doctest:\s*(?P<what>file|exit|slow|skip)\b\s*(?P<arg>.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int
    lang: str
    text: str
    mark: str = ""
    arg: str = ""

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks_of(doc: Path) -> list[Block]:
    """The fenced code blocks of ``doc`` with the doctest mark just before each."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = len(m.group("indent")), m.group("lang"), i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        mark = _MARK.match(lines[j].strip()) if j >= 0 else None
        out.append(
            Block(
                doc,
                start + 1,
                lang,
                "\n".join(body) + "\n",
                mark.group("what") if mark else "",
                mark.group("arg") if mark else "",
            )
        )
        i += 1
    return out


def _commands(text: str) -> list[str]:
    """Shell commands of an ``sh`` block: comments dropped, ``\\`` continuations joined."""
    cmds: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        cmds.append(current + line)
        current = ""
    if current:
        cmds.append(current)
    return cmds


def _console(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) pairs of a ``console`` block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line.rstrip())
        elif line.strip():
            raise AssertionError(f"a console block must start with '$ command', got {line!r}")
    return pairs


def _line_matches(expected: str, got: str) -> bool:
    if "..." not in expected:
        return expected == got
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got) is not None


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` equals ``expected`` line for line; a ``...`` line stands for any lines, and
    ``...`` inside a line for any text (a latency, a path)."""
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, got[k:]) for k in range(len(got) + 1))
    return bool(got) and _line_matches(head, got[0]) and matches(rest, got[1:])


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    # a user's shell: without pytest's (and pytest-xdist's) variables of this run
    e = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    e["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{e.get('PATH', '')}"
    e["COLUMNS"] = "100"
    e["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    e.pop("PYTHONPATH", None)
    return e


def _folder(tmp_path: Path) -> Path:
    for name in LINKED:
        if (ROOT / name).exists():
            (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def _shell(cmd: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", cmd],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def run_block(block: Block, cwd: Path, env: dict[str, str]) -> None:
    """Run one block; an assertion names the document, the line and what went wrong."""
    if block.mark == "file":
        target = cwd / block.arg
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")
        if target.suffix == ".py":
            done = _shell(f"python -c 'import {target.stem}'", cwd, env)
            assert done.returncode == 0, (
                f"{block.where}: {block.arg} does not import:\n{done.stderr}"
            )
        return
    want = int(block.arg) if block.mark == "exit" else 0
    if block.lang == "sh":
        for cmd in _commands(block.text):
            done = _shell(cmd, cwd, env)
            assert done.returncode == want, (
                f"{block.where}: `{cmd}` exited {done.returncode} (expected {want}):\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
            )
    elif block.lang == "console":
        for cmd, expected in _console(block.text):
            done = _shell(f"{cmd} 2>&1", cwd, env)
            got = [line.rstrip() for line in done.stdout.splitlines()]
            assert done.returncode == want, (
                f"{block.where}: `{cmd}` exited {done.returncode} (expected {want}):\n{done.stdout}"
            )
            assert matches(expected, got), (
                f"{block.where}: `{cmd}` printed\n"
                + "\n".join(got)
                + "\n\nexpected\n"
                + "\n".join(expected)
            )
    elif block.lang == "python":
        script = cwd / f"_doc_block_{block.line}.py"
        script.write_text(block.text, encoding="utf-8")
        done = _shell(f"python {script.name}", cwd, env | {"PYTHONPATH": str(cwd)})
        assert done.returncode == want, (
            f"{block.where}: the Python example failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    elif block.lang == "toml":
        tomllib.loads(block.text)
    elif block.lang == "json":
        for chunk in block.text.strip().split("\n{"):
            json.loads(chunk if chunk.startswith("{") else "{" + chunk)


def _run_doc(doc: Path, tmp_path: Path, env: dict[str, str], *, slow: bool) -> int:
    cwd = _folder(tmp_path)
    ran = 0
    for block in blocks_of(doc):
        if block.mark == "skip" or (block.mark == "slow" and not slow):
            continue
        run_block(block, cwd, env)
        ran += 1
    return ran


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(doc: Path, tmp_path: Path, env: dict[str, str]) -> None:
    _run_doc(doc, tmp_path, env, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    "doc",
    [d for d in DOCS if any(b.mark == "slow" for b in blocks_of(d))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_slow_examples_run(doc: Path, tmp_path: Path, env: dict[str, str]) -> None:
    _run_doc(doc, tmp_path, env, slow=True)


def test_every_skip_and_slow_mark_gives_a_reason() -> None:
    for doc in DOCS:
        for block in blocks_of(doc):
            if block.mark in ("skip", "slow"):
                assert len(block.arg.split()) >= 3, f"{block.where}: say why it is {block.mark}"
            if block.mark == "exit":
                assert block.arg.isdigit(), f"{block.where}: exit needs a number"


def test_every_shell_and_python_block_is_covered() -> None:
    """Only these languages are executable; a block in another language is not an example."""
    for doc in DOCS:
        for block in blocks_of(doc):
            assert block.lang in ("sh", "console", "python", "toml", "json", "text", ""), (
                f"{block.where}: code block language {block.lang!r}: use sh, console, python, "
                "toml, json or text"
            )


def test_the_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize(
    ("expected", "got", "ok"),
    [
        (["a", "...", "c"], ["a", "b", "b", "c"], True),
        (["a", "...", "c"], ["a", "c"], True),
        (["a", "c"], ["a", "b", "c"], False),
        (["a", "..."], ["a"], True),
        (["...", "z"], ["a", "b"], False),
        (["took ... ms"], ["took 3.5 ms"], True),
        (["took ... ms"], ["took 3.5 s"], False),
    ],
)
def test_output_matching(expected: list[str], got: list[str], ok: bool) -> None:
    assert matches(expected, got) is ok


def test_marks_and_fences_are_read(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "text\n\n<!-- doctest: exit 2 -->\n```sh\nfalse \\\n  x  # c\n# only a comment\n```\n"
        "\n   ```python\n   print(1)\n   ```\n"
    )
    got = blocks_of(doc)
    assert [(b.lang, b.mark, b.arg) for b in got] == [("sh", "exit", "2"), ("python", "", "")]
    assert _commands(got[0].text) == ["false    x  # c"]
    assert got[1].text == "print(1)\n"


def test_reference_pages_are_current() -> None:
    """docs/reference/ is what `make docs` writes from the code now."""
    from schedbench.bench import docgen

    assert docgen.main(["--check", "--out", str(ROOT / "docs" / "reference")]) == 0


_INDENTED_COMMAND = re.compile(r"^ {4,}(schedbench|make|python|\.venv/bin)\b")


def test_no_example_hides_in_an_indented_block() -> None:
    """Commands go in fenced blocks, where this test runs them; an indented code block is not
    run, so it could go stale unnoticed."""
    for doc in DOCS:
        inside = False
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if _FENCE.match(line) or line.strip() == "```":
                inside = not inside
                continue
            assert inside or not _INDENTED_COMMAND.match(line), (
                f"{doc.relative_to(ROOT)}:{n}: an indented command; put it in a fenced block"
            )
