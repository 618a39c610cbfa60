"""PROBLEM.json files (docs/reference/formats.md): read with errors that name the file, the
line and column (bad JSON) or the key (bad content); write in the same format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedbench.simcore.errors import ProblemError, UnknownKindError
from schedbench.simcore.kinds.base import get_kind
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.safeio import (
    DuplicateKeyError,
    InputFileError,
    atomic_write_text,
    loads_json,
    read_text,
)

#: A PROBLEM.json larger than this is refused before it is read (a window of 10^6 jobs with
#: three resources is ~60 MiB).
MAX_PROBLEM_BYTES = 256 * 2**20


def load_problem(path: str | Path) -> Any:
    """Read a PROBLEM.json file of any registered kind (``"kind"``, default ``selection``)."""
    path = Path(path)
    try:
        text = read_text(path, max_bytes=MAX_PROBLEM_BYTES, gunzip=False)
    except InputFileError as exc:
        if not path.exists():
            raise ProblemError(
                "(file)", "an existing PROBLEM.json file", str(path), source=str(path)
            ) from exc
        err = ProblemError("(file)", "a readable UTF-8 regular file", source=str(path))
        err.args = (str(exc),)  # the reader's line names the file, the cap and the variable
        raise err from exc
    try:
        data = loads_json(text)
    except DuplicateKeyError as exc:
        raise ProblemError(
            "(file)", "each key once per object", str(exc), source=str(path)
        ) from exc
    except json.JSONDecodeError as exc:
        raise ProblemError(
            f"line {exc.lineno} column {exc.colno}", f"valid JSON ({exc.msg})", source=str(path)
        ) from exc
    except RecursionError as exc:
        raise ProblemError(
            "(file)", "JSON nested at most a few levels deep", "deeper nesting", source=str(path)
        ) from exc
    except ValueError as exc:  # e.g. an integer literal with thousands of digits
        raise ProblemError(
            "(file)", "numbers of sensible size", str(exc), source=str(path)
        ) from exc
    kind_name = data.get("kind", "selection") if isinstance(data, dict) else "selection"
    if not isinstance(kind_name, str):
        raise ProblemError("kind", "a problem kind name", kind_name, source=str(path))
    try:
        kind = get_kind(kind_name)
    except UnknownKindError as exc:
        raise ProblemError(
            "kind", f"one of {', '.join(exc.known)}", kind_name, source=str(path)
        ) from exc
    return kind.problem_from_dict(data, source=str(path))


def save_problem(problem: SelectionProblem, path: str | Path) -> None:
    """Write a problem as PROBLEM.json (one job per line for readability)."""
    data = problem.to_dict()
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key in ("demands", "objectives") and value:
            rows = ",\n    ".join(json.dumps(row) for row in value)
            lines.append(f'  "{key}": [\n    {rows}\n  ]{comma}')
        else:
            lines.append(f'  "{key}": {json.dumps(value)}{comma}')
    lines.append("}")
    atomic_write_text(path, "\n".join(lines) + "\n")
