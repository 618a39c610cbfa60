"""The performance table of docs/figures.md, regenerated from the verdicts the benchmark scripts
recorded (``_verdicts.py``: ``figures/verdicts.json``), without measuring anything itself.

    .venv/bin/python bench/benchmarks/perf_table.py [--ledger PATH]

``make bench`` runs the measuring scripts, then this one through ``figures.py --only
perf-table``, which writes the table into the ``perf-table`` block of docs/figures.md; ``figures.py``
runs it after every other figure (``"last": True``), so a full ``make figures`` tables what that
same run measured.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _verdicts import LedgerError, ledger_path, load, render  # noqa: E402

#: What ``figures.py`` runs to regenerate this script's block of docs/figures.md (``make figures``).
FIGURE = {"name": "perf-table", "full": [], "quick": [], "format": "markdown", "last": True}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ledger", type=Path, default=None, help="default: " + str(ledger_path()))
    args = ap.parse_args(argv)
    path = args.ledger or ledger_path()
    try:
        rows = load(path)
    except LedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print(f"error: {path}: no verdicts recorded yet (run `make bench`)", file=sys.stderr)
        return 2
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
