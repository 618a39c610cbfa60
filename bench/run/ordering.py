"""Longest-expected cells first (performance target 6, docs/figures.md#performance-frontier).

A suite run hands its cells to the workers in the order given; with very unequal cells (``dp``
and ``cpsat`` at w = 100) the run ends when the last long cell that started late ends. Handing
out the longest cells first (the LPT rule of list scheduling: Graham 1969, makespan at most
4/3 of the optimum) lets the short ones fill the gaps.

The expected length of a cell is read from cells already in the store (any suite, any run): its
wall time ``finished_at − started_at`` (for a decision cell without timestamps, its latency),
median over the stored cells that match it most closely:

1. the same cell kind, solver id (or policy label) and instance (``instance_hash``; a
   simulation's scenario hash);
2. else the same kind, solver and family (the instance family or scenario name);
3. else the same kind and solver.

Cells with no match come first (unknown length: treated as possibly longest), in plan order;
the others follow, longest expected first, ties in plan order. With an empty store the order is
the plan's. Results do not depend on the order: only the wall time of the run does.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from schedbench.bench.store.records import CellRecord
from schedbench.bench.suite.plan import DecisionCell, SimulationCell


def _seconds(record: CellRecord) -> float | None:
    if record.started_at and record.finished_at:
        try:
            start = datetime.fromisoformat(record.started_at)
            end = datetime.fromisoformat(record.finished_at)
            return max(0.0, (end - start).total_seconds())
        except ValueError:
            pass  # an unreadable timestamp: fall back to the latency
    if record.kind == "decision" and record.latency_s is not None:
        return float(record.latency_s)
    return None


def cell_keys(cell: DecisionCell | SimulationCell) -> tuple[tuple[Any, ...], ...]:
    """The match keys of a planned cell, most specific first."""
    if isinstance(cell, DecisionCell):
        kind, solver, instance = "decision", cell.solver.id, cell.instance_hash
    else:
        kind = "simulation"
        solver = cell.policy if cell.solver is None else f"{cell.policy_name}:{cell.solver.id}"
        instance = cell.scenario_hash
    return (kind, solver, "i", instance), (kind, solver, "f", cell.family), (kind, solver)


def _record_keys(record: CellRecord) -> tuple[tuple[Any, ...], ...]:
    kind, solver = record.kind, record.solver
    return (
        (kind, solver, "i", record.instance_hash),
        (kind, solver, "f", record.family),
        (kind, solver),
    )


class ExpectedLength:
    """Median stored wall time per match key (module docstring)."""

    def __init__(self, records: Iterable[CellRecord]):
        samples: dict[tuple[Any, ...], list[float]] = defaultdict(list)
        for record in records:
            seconds = _seconds(record)
            if seconds is None:
                continue
            for key in _record_keys(record):
                samples[key].append(seconds)
        self.median = {k: statistics.median(v) for k, v in samples.items()}

    def of(self, cell: DecisionCell | SimulationCell) -> float | None:
        for key in cell_keys(cell):
            if key in self.median:
                return self.median[key]
        return None


def longest_first(
    payloads: Sequence[dict[str, Any]], records: Iterable[CellRecord]
) -> list[dict[str, Any]]:
    """The payloads (each with a ``"cell"``) reordered: unknown first, then longest expected."""
    expected = ExpectedLength(records)
    lengths = [expected.of(p["cell"]) for p in payloads]
    order = sorted(
        range(len(payloads)),
        key=lambda i: (lengths[i] is not None, -(lengths[i] or 0.0), i),
    )
    return [payloads[i] for i in order]
