"""Reading recorded decision problems: the exact problems a simulation posed
(``simcore/recording.py`` writes them), for replay in suites.

The file holds one JSON object per line::

    {"problem": {PROBLEM.json}, "context": {"t": 86400.0, "queue_length": 143,
     "window": 20, "policy": "window[dp,w=20]+easy", "workload": "...", "system": "theta",
     "sequence": 17}}

Lines are appended and flushed as the simulation goes, so a crash loses at most the line being
written; a truncated last line is skipped with a warning when read back. A suite uses such a
file with ``source = "recorded"`` (``instances/sources.py``), so solvers are compared on the
decisions a real workload produces.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from schedbench.simcore.errors import ProblemError
from schedbench.simcore.kinds.base import get_kind
from schedbench.simcore.safeio import DuplicateKeyError, loads_json, read_text


def read_recorded(path: str | Path) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(label, problem, context) for every recorded decision; errors name file and line."""
    p = Path(path)
    lines = read_text(p).splitlines(keepends=True)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = loads_json(raw)
        except DuplicateKeyError as exc:
            raise ProblemError(
                f"line {number}", "each key once per object", str(exc), source=str(p)
            ) from exc
        except json.JSONDecodeError as exc:
            if number == len(lines) and not raw.endswith("\n"):
                warnings.warn(f"{p}:{number}: truncated last line skipped", stacklevel=2)
                return
            raise ProblemError(
                f"line {number}", f"a JSON object ({exc.msg})", source=str(p)
            ) from exc
        if not isinstance(data, dict) or "problem" not in data:
            raise ProblemError(f"line {number}", "an object with a 'problem' key", source=str(p))
        try:
            raw = data["problem"]
            kind = get_kind(raw.get("kind", "selection") if isinstance(raw, dict) else "selection")
            problem = kind.problem_from_dict(raw, source=f"{p}:{number}")
        except ProblemError as exc:
            raise exc.with_source(f"{p}:{number}") from exc
        context = data.get("context", {})
        label = f"{p.stem}#{context.get('sequence', number)}"
        yield label, problem, context
