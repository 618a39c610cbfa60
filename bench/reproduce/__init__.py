"""Paper reproductions: ``schedbench reproduce PAPER ...`` (docs/reference/cli.md).

Each paper is one module of this package (``bbsched``, ``cerberus``, ``locality``, ``ar``)
defining

* ``PAPER`` — the name on the command line;
* ``SUMMARY`` — one line for ``schedbench reproduce --help``;
* ``add_arguments(parser)`` — its options (``--quick``, ``--out DIR`` and the paper's own);
* ``run(args) -> int`` — the exit code; it writes ``results.csv``, the figures, and an
  agreement table (finding, paper, ours, agree, reason) saying where we agree with the paper and
  where not, and why. Long loops show a bar with an ETA through
  ``schedbench.bench.progress.progress(total, desc, unit, disable=args.no_progress)``; the
  command adds ``--no-progress`` to every paper that does not define it.

Modules are found by listing the package, so adding a reproduction touches no other file.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def reproductions() -> dict[str, ModuleType]:
    """PAPER -> module, for every module of this package that defines ``PAPER``."""
    out: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        paper = getattr(module, "PAPER", None)
        if isinstance(paper, str):
            out[paper] = module
    return dict(sorted(out.items()))
