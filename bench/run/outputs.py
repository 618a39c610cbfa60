"""What a simulation writes to its folder (``schedbench simulate --out``):

* ``jobs.csv`` — one row per job: ``id, submit, start, end, nodes, requested_time, runtime,
  wait, bb_gb, ssd_gb, status`` (+ ``first_alloc, last_release`` for the three-phase lifecycle);
  empty cells for times that never happened;
* ``metrics.json`` — every metric of ``simcore/metrics.py`` with its definition (``metrics``),
  the wait breakdowns by job size, burst-buffer request and runtime as in BBSched Figures 9–11
  (``breakdowns``), the counters, the configuration and the workload's cleaning counts;
* ``usage.csv`` — the usage timeline (nodes, burst buffer, SSD in use from each instant on);
* ``schedule.swf`` — the workload with the simulated wait and run times (SWF fields 3, 4, 11).

``jobs.csv`` ends with the job's ``user`` (SWF field 12) and ``metrics.json``'s ``config``
carries the git ``commit`` it was computed with, so pictures can say where they came from
(``schedbench plot``).

Each file is written to a temporary name, then renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from schedbench.simcore.errors import SchedbenchError
from schedbench.simcore.metrics import BREAKDOWNS, MeasurementWindow, breakdown, compute_metrics
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult


def _cell(x: float) -> str:
    if math.isnan(x):
        return ""
    return str(int(x)) if x == int(x) else f"{x:.6f}".rstrip("0").rstrip(".")


def write_jobs_csv(result: ScheduleResult, path: Path) -> None:
    w = result.workload
    names = {s.value: s.name.lower() for s in JobState}
    three = not np.array_equal(
        result.first_alloc, result.start, equal_nan=True
    ) or not np.array_equal(result.last_release, result.end, equal_nan=True)
    cols = (
        [
            "id",
            "submit",
            "start",
            "end",
            "nodes",
            "requested_time",
            "runtime",
            "wait",
            "bb_gb",
            "ssd_gb",
            "status",
        ]
        + (["first_alloc", "last_release"] if three else [])
        + ["user"]
    )
    wait = result.start - w.submit
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(cols)
        rows = zip(
            w.job_id.tolist(),
            w.submit.tolist(),
            result.start.tolist(),
            result.end.tolist(),
            w.nodes.tolist(),
            w.requested_time.tolist(),
            w.runtime.tolist(),
            wait.tolist(),
            w.bb_gb.tolist(),
            w.ssd_gb.tolist(),
            result.state.tolist(),
            result.first_alloc.tolist(),
            result.last_release.tolist(),
            w.user_id.tolist(),
            strict=True,
        )
        for r in rows:
            line = [
                r[0],
                _cell(r[1]),
                _cell(r[2]),
                _cell(r[3]),
                r[4],
                _cell(r[5]),
                _cell(r[6]),
                _cell(r[7]),
                _cell(r[8]),
                _cell(r[9]),
                names[r[10]],
            ]
            if three:
                line += [_cell(r[11]), _cell(r[12])]
            line.append(r[13])
            out.writerow(line)


def write_usage_csv(result: ScheduleResult, path: Path) -> None:
    """The usage timeline: ``t`` and the amount in use from ``t`` to the next row
    (``nodes``, ``bb_gb``, ``ssd_requested_gb``, ``ssd_assigned_gb``; ``simcore/schedule.py``)."""
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["t", *USAGE_COLUMNS])
        for t, row in zip(result.usage_t.tolist(), result.usage.tolist(), strict=True):
            out.writerow([_cell(t), *(_cell(v) for v in row)])


def write_outputs(
    result: ScheduleResult,
    out: Path,
    window: MeasurementWindow,
    *,
    budget_s: float,
    metrics: dict[str, Any] | None = None,
    swf: bool = True,
) -> None:
    """jobs.csv, usage.csv, metrics.json and (``swf``) schedule.swf; each written to a temporary
    name, then renamed. ``metrics``: already computed by the caller (not computed again)."""
    out.mkdir(parents=True, exist_ok=True)
    from schedbench.instances.swf import write_swf

    tmp = out / "jobs.csv.tmp"
    write_jobs_csv(result, tmp)
    tmp.replace(out / "jobs.csv")
    tmp = out / "usage.csv.tmp"
    write_usage_csv(result, tmp)
    tmp.replace(out / "usage.csv")
    breakdowns: dict[str, Any] = {}
    try:
        if metrics is None:
            metrics = compute_metrics(result, window, budget_s=budget_s)
        for by in BREAKDOWNS:
            breakdowns[by] = breakdown(result, by, window)
    except (SchedbenchError, ValueError) as exc:  # e.g. a window longer than an aborted run
        metrics = {"error": f"{type(exc).__name__}: {exc}"}  # the rest is still written
    doc = {
        "metrics": metrics,
        "breakdowns": breakdowns,
        "counters": result.counters,
        "config": {**result.config, "commit": commit_of_checkout()},
        "system": result.system.to_dict(),
    }
    tmp = out / "metrics.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2, default=_json_default, allow_nan=False))
    tmp.replace(out / "metrics.json")
    if swf:
        tmp = out / "schedule.swf.tmp"
        write_swf(result.workload, tmp, result=result)
        tmp.replace(out / "schedule.swf")


def commit_of_checkout() -> str | None:
    """The checkout's git commit (with ``+dirty``), for the pictures' captions; None outside git."""
    from schedbench.bench.store.provenance import provenance

    git = provenance().get("git")
    if not git:
        return None
    return str(git["commit"])[:12] + ("+dirty" if git.get("dirty") else "")


def _json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")
