"""Regenerate every measured figure and picture of ``docs/figures.md`` (``make figures``).

Each benchmark script in this folder declares, at module level, a literal::

    FIGURE = {"name": "dp-speed", "full": [], "quick": ["--quick"], "format": "text"}

``figures.py`` runs every script that declares one (``full`` arguments, or ``quick`` with
``--quick``), in a fresh interpreter, and writes what it printed into ``docs/figures.md`` between
``<!-- figure:NAME -->`` and ``<!-- /figure:NAME -->``: verbatim in a ``text`` block, or as
Markdown (``"format": "markdown"``, for pictures). Each block states the command, the date and
how long it took, so a reader can rerun it; the scripts print their machine line themselves.
A script with ``"last": True`` (``perf_table.py``: the table of the verdicts the others
recorded) runs after all the others.
``tests/test_code_rules.py`` checks that every figure block of the page has a script and every
script with a ``main`` has a figure.

    python bench/benchmarks/figures.py [--quick] [--only NAME ...] [--doc docs/figures.md]
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def figures() -> dict[str, dict]:
    """name -> the script's FIGURE literal (plus ``script``), read without importing it."""
    out: dict[str, dict] = {}
    for path in sorted(HERE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "FIGURE" for t in node.targets
            ):
                spec = dict(ast.literal_eval(node.value))
                spec["script"] = path.name
                out[spec["name"]] = spec
    return out


def has_main(path: Path) -> bool:
    """The script is a benchmark one runs (it has ``if __name__ == "__main__"``) and not a data
    generator (a script that regenerates shipped data declares ``GENERATES = "what"``)."""
    text = path.read_text(encoding="utf-8")
    return '__name__ == "__main__"' in text and not re.search(r"^GENERATES = ", text, re.M)


BLOCK = re.compile(
    r"(<!-- figure:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /figure:(?P=name) -->)", re.S
)


def blocks(readme: str) -> list[str]:
    """The figure names the page has blocks for, in order."""
    return [m.group("name") for m in BLOCK.finditer(readme)]


def run(spec: dict, quick: bool) -> str:
    """Run one script and return its block's body."""
    args = spec["quick" if quick else "full"]
    cmd = [sys.executable, str(HERE / spec["script"]), *args]
    shown = " ".join(["python", f"bench/benchmarks/{spec['script']}", *args])
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{shown} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    today = dt.date.today().isoformat()
    head = f"`{shown}` ({today}, {took:.0f} s):\n\n"
    if spec.get("format") == "markdown":
        return head + done.stdout.strip() + "\n"
    return head + "```text\n" + done.stdout.rstrip() + "\n```\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the scripts' quick mode")
    ap.add_argument("--only", action="append", default=[], metavar="NAME")
    ap.add_argument("--doc", default=str(ROOT / "docs" / "figures.md"))
    args = ap.parse_args(argv)
    readme_path = Path(args.doc)
    text = readme_path.read_text(encoding="utf-8")
    specs = figures()
    wanted = args.only or blocks(text)
    unknown = [n for n in wanted if n not in specs]
    if unknown:
        raise SystemExit(f"no script declares FIGURE {unknown[0]!r}; known: {', '.join(specs)}")
    # Figures drawn from what the others recorded (the performance table) come last.
    wanted.sort(key=lambda n: bool(specs[n].get("last")))
    for name in wanted:
        print(f"figure {name}: {specs[name]['script']} ...", file=sys.stderr, flush=True)
        body = run(specs[name], args.quick)

        def put(m: re.Match[str], body: str = body, name: str = name) -> str:
            return m.group(1) + body + m.group(4) if m.group("name") == name else m.group(0)

        text = BLOCK.sub(put, text)
        readme_path.write_text(text, encoding="utf-8")  # after each figure: nothing is lost
    return 0


if __name__ == "__main__":
    sys.exit(main())
