"""One finished benchmark cell, typed: :class:`CellRecord`, and the one rule that says whether a
cell failed (:func:`row_failed`), used by the runner, the report and the regression gate.

A cell is a *decision* cell (one solver on one decision problem, of any problem kind) or a
*simulation* cell (one policy on one scenario). The store keeps records as rows
(``ResultStore.add`` / ``rows``); :meth:`CellRecord.to_row` and :meth:`CellRecord.from_row`
convert.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from schedbench.simcore.kinds.base import delivered_answer, stored_answer

CellKind = Literal["decision", "simulation"]

#: The status of a simulation cell that ran to the end.
COMPLETED = "completed"


def row_failed(row: Mapping[str, Any]) -> bool:
    """Whether a stored cell failed — THE definition.

    A decision cell failed when it delivered no answer (``simcore.kinds.base.delivered_answer``:
    status ``error``, a ``timeout`` without an answer, or anything that is not a status); a
    simulation cell failed when it did not complete. A failure is charged the budget in the
    latency statistics and counted in the ``failures`` columns.
    """
    if row.get("kind") == "simulation":
        return row.get("status") != COMPLETED
    return not delivered_answer(str(row.get("status") or ""), stored_answer(row.get("decision")))


@dataclass(frozen=True, slots=True)
class CellRecord:
    """What the store keeps of one cell (columns of ``bench/store/sqlite.py``)."""

    suite: str
    cell_id: str
    kind: CellKind
    solver: str
    status: str
    run_id: int = 0
    family: str | None = None
    instance: str | None = None
    instance_hash: str | None = None
    problem_kind: str | None = None
    solver_name: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    repetition: int | None = None
    seed: int | None = None
    budget_s: float | None = None
    latency_s: float | None = None
    concurrency: int | None = None
    isolated: bool | None = None
    executor: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    metrics: Mapping[str, Any] = field(default_factory=dict)
    decision: Mapping[str, Any] | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        """:func:`row_failed` of this record."""
        return row_failed({"kind": self.kind, "status": self.status, "decision": self.decision})

    def to_row(self) -> dict[str, Any]:
        """The store's row dict (``ResultStore.add``)."""
        row = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        row["params"] = dict(self.params)
        row["metrics"] = dict(self.metrics)
        return row

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CellRecord:
        """A record from a stored row (``ResultStore.rows``); unknown keys (``id``) are left."""
        names = {f.name for f in dataclasses.fields(cls)}
        # a NULL column takes the field's default (params and metrics: empty)
        return cls(**{k: v for k, v in row.items() if k in names and v is not None})

    def replace(self, **changes: Any) -> CellRecord:
        return dataclasses.replace(self, **changes)
