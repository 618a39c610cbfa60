"""Recording the decision problems a simulation poses, for replay in suites.

``schedbench simulate ... --record-decisions FILE`` writes one JSON object per line::

    {"problem": {PROBLEM.json}, "context": {"t": 86400.0, "queue_length": 143,
     "window": 20, "policy": "window[dp,w=20]+easy", "workload": "...", "system": "theta",
     "sequence": 17}}

Lines are appended and flushed as the simulation goes, so a crash loses at most the line being
written. Any problem kind is recorded (its ``kind`` is in the problem's JSON); a suite replays
the file with ``source = "recorded"`` (``instances/sources.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from schedbench.simcore.kinds.base import kind_of
from schedbench.simcore.safeio import create_output


class DecisionRecorder:
    """Appends problems to a JSON-lines file; ``context`` is merged into each line. Pass it as
    ``SimOptions(record_problem=...)``."""

    def __init__(self, path: str | Path, **context: Any):
        self.path = Path(path)
        self._fh: IO[str] | None = create_output(self.path)
        self._context = context
        self.count = 0

    def __call__(self, problem: Any, context: dict[str, Any]) -> None:
        if self._fh is None:
            return
        self.count += 1
        line = {
            "problem": kind_of(problem).problem_to_dict(problem),
            "context": {**self._context, **context, "sequence": self.count},
        }
        self._fh.write(json.dumps(line, allow_nan=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
