"""Exact references for the decision cells: taken from the instance source when it publishes
them (OR-Library optima, the Zitzler–Thiele front), else computed once by the reference solver
and cached on disk by instance fingerprint: an exact front can take minutes, and many cells share
one problem (docs/design.md#quality-and-latency-of-a-decision)."""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedbench.bench._io import atomic_write_text
from schedbench.simcore import safeio
from schedbench.simcore.errors import MetricsError
from schedbench.simcore.kinds.base import kind_of
from schedbench.simcore.problem import Status

#: Default directory of the reference cache.
DEFAULT_CACHE_DIR = Path.home() / ".cache" / "schedbench" / "references"

#: Statuses that make a decision an exact reference (and that the cache stores).
EXACT_STATUSES = (Status.OPTIMAL, Status.INFEASIBLE)


class ReferenceCacheWarning(UserWarning):
    """A cached reference could not be read (and is treated as missing) or written."""


class ReferenceCache:
    """Exact references on disk, one JSON file per problem and reference solver (computed once,
    cached by the problem's fingerprint).

    A file ``<fingerprint>-<solver_id>.json`` under ``directory`` (default
    ``~/.cache/schedbench/references``) holds ``{"format": 1, "fingerprint", "solver",
    "decision": Decision.to_dict()}``. Writes are atomic (temporary file in the same directory,
    then ``os.replace``), so a crash never leaves half a file. A file that cannot be read or does
    not match (bad JSON, another problem or solver, a malformed decision) counts as missing and
    raises a :class:`ReferenceCacheWarning`; it never crashes the run and is overwritten by the
    next ``put``. Only exact answers (status optimal or infeasible) are stored.
    """

    FORMAT = 1

    def __init__(self, solver_id: str, directory: str | os.PathLike[str] | None = None):
        if not isinstance(solver_id, str) or not solver_id:
            raise MetricsError(f"solver_id: expected a non-empty string, got {solver_id!r}")
        self.solver_id = solver_id
        self.directory = Path(directory) if directory is not None else DEFAULT_CACHE_DIR

    def path_for(self, problem: Any) -> Path:
        """The file that holds (or would hold) the reference for ``problem``."""
        safe = re.sub(r"[^A-Za-z0-9._=-]", "_", self.solver_id)
        return self.directory / f"{kind_of(problem).fingerprint(problem)}-{safe}.json"

    def get(self, problem: Any) -> Any | None:
        """The cached reference for ``problem``, or ``None`` (missing or unreadable)."""
        path = self.path_for(problem)
        if not path.exists():
            return None
        try:
            text = safeio.read_text(path, gunzip=False)
        except safeio.InputFileError as exc:
            self._warn(f"cannot read {path}: {exc}; treated as missing")
            return None
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != self.FORMAT:
                raise MetricsError(f"expected format {self.FORMAT}")
            if data.get("fingerprint") != kind_of(problem).fingerprint(problem):
                raise MetricsError("the file belongs to another problem")
            if data.get("solver") != self.solver_id:
                raise MetricsError(f"the file belongs to solver {data.get('solver')!r}")
            return kind_of(problem).decision_from_dict(data.get("decision"))
        except (ValueError, TypeError, KeyError) as exc:  # JSONDecodeError is a ValueError
            self._warn(f"corrupt reference {path}: {exc}; treated as missing")
            return None

    def put(self, problem: Any, decision: Any) -> Path:
        """Store ``decision`` as the reference for ``problem`` atomically; returns the file."""
        kind = kind_of(problem)
        if not kind.is_exact(decision):
            raise MetricsError(
                f"decision status {decision.status.value!r}: only exact answers "
                f"({', '.join(s.value for s in EXACT_STATUSES)}) are cached as references"
            )
        if decision.solver and decision.solver != self.solver_id:
            raise MetricsError(
                f"decision from solver {decision.solver!r} put into the cache of {self.solver_id!r}"
            )
        path = self.path_for(problem)
        payload = {
            "format": self.FORMAT,
            "fingerprint": kind.fingerprint(problem),
            "solver": self.solver_id,
            "decision": kind.decision_to_dict(decision),
        }
        return atomic_write_text(path, json.dumps(payload, sort_keys=True))

    def get_or_compute(self, problem: Any, compute_fn: Callable[[Any], Any]) -> Any:
        """The cached reference, or ``compute_fn(problem)`` stored for next time.

        A computed decision that is not exact (timeout, error) is returned but not stored, so a
        later run may try again; the kind's quality treats it as a missing reference. A
        failure to write warns and still returns the decision.
        """
        cached = self.get(problem)
        if cached is not None:
            return cached
        decision = compute_fn(problem)
        if kind_of(problem).is_exact(decision):
            try:
                self.put(problem, decision)
            except OSError as exc:
                self._warn(f"cannot write reference {self.path_for(problem)}: {exc}")
        return decision

    @staticmethod
    def _warn(message: str) -> None:
        warnings.warn(message, ReferenceCacheWarning, stacklevel=3)
