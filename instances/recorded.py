"""Recorded decision problems: the exact problems a simulation posed, for replay in suites.

``schedbench simulate ... --record-decisions FILE`` writes one JSON object per line::

    {"problem": {PROBLEM.json}, "context": {"t": 86400.0, "queue_length": 143,
     "window": 20, "policy": "window[dp,w=20]+easy", "workload": "...", "system": "theta",
     "sequence": 17}}

Lines are appended and flushed as the simulation goes, so a crash loses at most the line being
written; a truncated last line is skipped with a warning when read back. A suite uses such a
file with ``source = "recorded"`` (``bench/suite.py``), so solvers are compared on the
decisions a real workload produces.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from schedbench.simcore.errors import ProblemError
from schedbench.simcore.problem import SelectionProblem


class DecisionRecorder:
    """Appends problems to a JSON-lines file; ``context`` is merged into each line."""

    def __init__(self, path: str | Path, **context: Any):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] | None = self.path.open("w", encoding="utf-8")
        self._context = context
        self.count = 0

    def __call__(self, problem: SelectionProblem, context: dict[str, Any]) -> None:
        if self._fh is None:
            return
        self.count += 1
        line = {
            "problem": problem.to_dict(),
            "context": {**self._context, **context, "sequence": self.count},
        }
        self._fh.write(json.dumps(line, allow_nan=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_recorded(path: str | Path) -> Iterator[tuple[str, SelectionProblem, dict[str, Any]]]:
    """(label, problem, context) for every recorded decision; errors name file and line."""
    p = Path(path)
    with p.open(encoding="utf-8") as fh:
        lines = fh.readlines()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            if number == len(lines) and not raw.endswith("\n"):
                warnings.warn(f"{p}:{number}: truncated last line skipped", stacklevel=2)
                return
            raise ProblemError(
                f"line {number}", f"a JSON object ({exc.msg})", source=str(p)
            ) from None
        if not isinstance(data, dict) or "problem" not in data:
            raise ProblemError(f"line {number}", "an object with a 'problem' key", source=str(p))
        try:
            problem = SelectionProblem.from_dict(data["problem"], source=f"{p}:{number}")
        except ProblemError as exc:
            raise exc.with_source(f"{p}:{number}") from None
        context = data.get("context", {})
        label = f"{p.stem}#{context.get('sequence', number)}"
        yield label, problem, context
