"""Workloads as columns: one row per job, numpy arrays, frozen.

A :class:`Workload` is what every workload source produces (the SWF reader, the
Lublin–Feitelson generator, the BBSched S1–S7 transformations in ``instances/``) and what the
simulator consumes. Columns, not job objects: a million jobs cost a few dozen bytes each
(see ``bench/benchmarks/sim_speed.py``), and transformations are vectorised.

Columns (all length ``n``, in submit order, read-only):

``job_id``          int64, the SWF job number (field 1)
``submit``          float64 seconds, the SWF submit time (field 2)
``runtime``         float64 seconds, the actual runtime from the trace (field 4)
``requested_time``  float64 seconds, the user's estimate (field 9); drives backfilling; a job
                    that runs longer is killed at its request
                    (docs/design.md#one-engine-semantics-stated-once)
``nodes``           int64, the job's size in ``size_unit``: for an SWF trace the requested
                    processors (field 8, else allocated field 5, ``size_unit = "processors"``);
                    for the generators nodes. ``instances.units.fit_units`` converts processors
                    to nodes when a trace meets a node-based machine
``bb_gb``           float64 shared burst buffer GB for the whole job (0 = none)
``ssd_gb``          float64 local SSD GB *per node* (BBSched §5; 0 = none)
``data_in_gb``      float64 data staged in before the run (BBSim three-phase lifecycle)
``data_out_gb``     float64 data staged out after the run
``swf``             float64 (n, 18): the 18 SWF fields as read or generated (−1 = unknown),
                    kept so a workload round-trips and the writer can emit every field
``extra``           float64 (n, E): BBSched's extended columns 19+ (``extra_names``)

Metadata: ``max_nodes`` and ``max_procs`` (SWF header MaxNodes and MaxProcs, as given),
``size_unit`` (``"nodes"`` or ``"processors"``: what ``nodes`` counts), ``header`` (the SWF header
lines as ``(key, value)`` pairs), ``extra_capacities`` (capacities of the extended columns from
BBSched's ``; BurstBuffer: c1, c2, ...`` header line), ``source`` (path or generator spec) and
``cleaning`` (what the reader removed or repaired, rule → count).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedbench.simcore.errors import SchedbenchError

#: The 18 fields of the Standard Workload Format, in order (Feitelson's definition, PWA).
SWF_FIELDS: tuple[str, ...] = (
    "job_id",
    "submit",
    "wait",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)
SWF_INDEX: dict[str, int] = {name: i for i, name in enumerate(SWF_FIELDS)}

_FLOAT_COLUMNS = (
    "submit",
    "runtime",
    "requested_time",
    "bb_gb",
    "ssd_gb",
    "data_in_gb",
    "data_out_gb",
)
_INT_COLUMNS = ("job_id", "nodes")
COLUMNS: tuple[str, ...] = _INT_COLUMNS + _FLOAT_COLUMNS


class WorkloadError(SchedbenchError, ValueError):
    """A workload column is malformed (wrong length, negative sizes, unsorted submits)."""


def _frozen(a: Any, dtype: type, n: int | None, name: str) -> np.ndarray:
    arr: np.ndarray = np.array(a, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise WorkloadError(
            f"workload column {name!r}: expected a 1-D array, got shape {arr.shape}"
        )
    if n is not None and arr.shape[0] != n:
        raise WorkloadError(f"workload column {name!r}: expected {n} values, got {arr.shape[0]}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, slots=True, eq=False)
class Workload:
    """Jobs as frozen numpy columns; see the module docstring for each column's meaning."""

    job_id: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    requested_time: np.ndarray
    nodes: np.ndarray
    bb_gb: np.ndarray
    ssd_gb: np.ndarray
    data_in_gb: np.ndarray
    data_out_gb: np.ndarray
    swf: np.ndarray
    extra: np.ndarray
    extra_names: tuple[str, ...] = ()
    extra_capacities: tuple[float, ...] = ()
    max_nodes: int | None = None
    header: tuple[tuple[str, str], ...] = ()
    source: str = ""
    cleaning: Mapping[str, int] = field(default_factory=dict)
    max_procs: int | None = None
    size_unit: str = "nodes"

    @property
    def machine_size(self) -> int | None:
        """The machine's size in the unit of the job sizes (``size_unit``), from the header:
        MaxProcs for processors (MaxNodes when MaxProcs is absent: one processor per node is
        then all we can assume), MaxNodes for nodes."""
        if self.size_unit == "processors":
            return self.max_procs or self.max_nodes
        return self.max_nodes or self.max_procs

    @property
    def user_id(self) -> np.ndarray:
        """The SWF user id (field 12) of every job, int64 (-1 = unknown)."""
        return self.swf[:, SWF_INDEX["user_id"]].astype(np.int64)

    @property
    def procs_per_node(self) -> int | None:
        """Processors per node from the header (MaxProcs / MaxNodes when both are given and
        divide evenly), else None."""
        if self.max_procs and self.max_nodes and self.max_procs % self.max_nodes == 0:
            return self.max_procs // self.max_nodes
        return None

    def __post_init__(self) -> None:
        n = np.asarray(self.job_id).shape[0] if np.ndim(self.job_id) == 1 else None
        for name in _INT_COLUMNS:
            object.__setattr__(self, name, _frozen(getattr(self, name), np.int64, n, name))
        for name in _FLOAT_COLUMNS:
            object.__setattr__(self, name, _frozen(getattr(self, name), np.float64, n, name))
        n = self.job_id.shape[0]
        swf = (
            np.array(self.swf, dtype=np.float64, copy=True).reshape(-1, 18)
            if np.size(self.swf)
            else np.full((n, 18), -1.0)
        )
        if swf.shape != (n, 18):
            raise WorkloadError(f"workload 'swf': expected shape ({n}, 18), got {swf.shape}")
        swf.setflags(write=False)
        object.__setattr__(self, "swf", swf)
        extra = np.array(self.extra, dtype=np.float64, copy=True)
        if extra.size == 0:
            extra = np.zeros((n, len(self.extra_names)))
        if extra.shape != (n, len(self.extra_names)):
            raise WorkloadError(
                f"workload 'extra': expected shape ({n}, {len(self.extra_names)}) to match "
                f"extra_names, got {extra.shape}"
            )
        extra.setflags(write=False)
        object.__setattr__(self, "extra", extra)
        object.__setattr__(self, "cleaning", dict(self.cleaning))
        if self.size_unit not in ("nodes", "processors"):
            raise WorkloadError(
                f"workload 'size_unit': expected 'nodes' or 'processors', got {self.size_unit!r}"
            )
        self._validate()

    def _validate(self) -> None:
        if len(self) == 0:
            return
        for name in ("runtime", "requested_time", "bb_gb", "ssd_gb", "data_in_gb", "data_out_gb"):
            col = getattr(self, name)
            bad = np.flatnonzero(~(col >= 0))
            if bad.size:
                i = int(bad[0])
                raise WorkloadError(
                    f"job {int(self.job_id[i])} (row {i}): {name} must be a number >= 0, "
                    f"got {col[i]!r}"
                )
        bad = np.flatnonzero(self.nodes < 1)
        if bad.size:
            i = int(bad[0])
            raise WorkloadError(
                f"job {int(self.job_id[i])} (row {i}): nodes must be >= 1, got {int(self.nodes[i])}"
            )
        if not np.all(np.isfinite(self.submit)):
            i = int(np.flatnonzero(~np.isfinite(self.submit))[0])
            raise WorkloadError(f"job {int(self.job_id[i])} (row {i}): submit must be finite")
        dec = np.flatnonzero(np.diff(self.submit) < 0)
        if dec.size:
            i = int(dec[0]) + 1
            raise WorkloadError(
                f"job {int(self.job_id[i])} (row {i}): submit times must be non-decreasing "
                f"({self.submit[i]} after {self.submit[i - 1]}); sort the workload first"
            )

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(
        cls,
        *,
        submit: Any,
        runtime: Any,
        nodes: Any,
        requested_time: Any = None,
        job_id: Any = None,
        bb_gb: Any = None,
        ssd_gb: Any = None,
        data_in_gb: Any = None,
        data_out_gb: Any = None,
        swf: Any = None,
        sort: bool = True,
        **meta: Any,
    ) -> Workload:
        """Build a workload from the columns that matter; the rest default sensibly.

        ``requested_time`` defaults to the runtime (exact estimates); ``job_id`` to 1..n;
        resource columns to 0. The ``swf`` table is filled from the columns where not given.
        With ``sort`` (default) rows are ordered by (submit, job_id), stably.
        """
        submit = np.asarray(submit, dtype=np.float64)
        n = submit.shape[0]

        def col(a: Any, default: float) -> np.ndarray:
            return np.full(n, default, dtype=np.float64) if a is None else np.asarray(a, np.float64)

        runtime = col(runtime, 0.0)
        req = runtime.copy() if requested_time is None else col(requested_time, 0.0)
        ids = (
            np.arange(1, n + 1, dtype=np.int64) if job_id is None else np.asarray(job_id, np.int64)
        )
        cols = dict(
            job_id=ids,
            submit=submit,
            runtime=runtime,
            requested_time=req,
            nodes=np.asarray(nodes, dtype=np.int64),
            bb_gb=col(bb_gb, 0.0),
            ssd_gb=col(ssd_gb, 0.0),
            data_in_gb=col(data_in_gb, 0.0),
            data_out_gb=col(data_out_gb, 0.0),
        )
        for name, a in cols.items():
            if a.shape != (n,):
                raise WorkloadError(f"workload column {name!r}: expected {n} values, got {a.shape}")
        if swf is None:
            table = np.full((n, 18), -1.0)
            table[:, SWF_INDEX["job_id"]] = ids
            table[:, SWF_INDEX["submit"]] = submit
            table[:, SWF_INDEX["run_time"]] = runtime
            table[:, SWF_INDEX["allocated_procs"]] = cols["nodes"]
            table[:, SWF_INDEX["requested_procs"]] = cols["nodes"]
            table[:, SWF_INDEX["requested_time"]] = req
            table[:, SWF_INDEX["status"]] = 1
        else:
            table = np.asarray(swf, dtype=np.float64)
        extra = meta.pop("extra", None)
        if extra is None:
            extra = np.zeros((n, len(meta.get("extra_names", ()))))
        if sort and n > 1:
            order = np.lexsort((ids, submit))
            if not np.array_equal(order, np.arange(n)):
                cols = {k: v[order] for k, v in cols.items()}
                table = table[order]
                extra = np.asarray(extra)[order]
        return cls(**cols, swf=table, extra=extra, **meta)

    def replace(self, **changes: Any) -> Workload:
        """A copy with some columns or metadata replaced (validated again)."""
        return dataclasses.replace(self, **changes)

    def take(self, rows: Any) -> Workload:
        """The workload restricted to ``rows`` (indices or a boolean mask), order kept."""
        idx = np.arange(len(self))[rows]
        idx.sort()
        changes: dict[str, Any] = {name: getattr(self, name)[idx] for name in COLUMNS}
        changes["swf"] = self.swf[idx]
        changes["extra"] = self.extra[idx]
        return dataclasses.replace(self, **changes)

    def __len__(self) -> int:
        return int(self.job_id.shape[0])

    @property
    def span_s(self) -> float:
        """Time from the first to the last submission."""
        return float(self.submit[-1] - self.submit[0]) if len(self) else 0.0

    def summary(self) -> dict[str, Any]:
        """A few descriptive numbers for logs and reports."""
        if not len(self):
            return {"jobs": 0}
        return {
            "jobs": len(self),
            "span_days": round(self.span_s / 86400, 2),
            "max_nodes_requested": int(self.nodes.max()),
            "mean_runtime_s": round(float(self.runtime.mean()), 1),
            "jobs_with_bb": int(np.count_nonzero(self.bb_gb)),
            "jobs_with_ssd": int(np.count_nonzero(self.ssd_gb)),
        }
