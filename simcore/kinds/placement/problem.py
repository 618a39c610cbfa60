"""The ``placement`` kind's types: place one job on one node, in time, given the nodes' file
caches (locality-aware batch scheduling; ``papers/locality-aware-batch-scheduling.tex``).

A skeleton to be filled by the locality issue: the problem states what a placement decision
needs today — when each node can start the job, whether the job's input file is already in the
node's cache, the per-node load bandwidth — and the answer is a node and a start time.

Times are seconds; ``now`` is the decision instant. Choices made here (documented, tested):

* a job runs on one node (the locality model splits multi-node jobs into one-node jobs);
* the job may start on node ``n`` at any ``start >= max(now, free_at[n])``;
* if the input file is not cached on the node it is loaded first, taking
  ``file_gb / bandwidth_gbps`` seconds; the job completes at
  ``start + load + runtime``;
* the objective is the **completion delay** ``completion - now`` (seconds, minimised, the
  earliest-finish-time rule of EFT); it is the single entry of ``objectives``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from schedbench.simcore.errors import ProblemError
from schedbench.simcore.kinds import scalar
from schedbench.simcore.problem import (
    Status,
    TracePoint,
    as_matrix,
    check_finite_nonneg,
    json_array,
    json_number,
    readonly,
)


@dataclass(frozen=True, slots=True, eq=False)
class PlacementProblem:
    """One job (``cores``, ``runtime`` by its request, an input file of ``file_gb``) and the
    nodes: ``free_at[n]`` the earliest time node ``n`` has the cores free, ``cached[n]`` whether
    the file is in its cache; ``bandwidth_gbps`` the per-node load bandwidth."""

    kind: ClassVar[str] = "placement"

    if TYPE_CHECKING:

        def __init__(
            self,
            now: float,
            cores: int,
            runtime: float,
            free_at: npt.ArrayLike,
            cached: npt.ArrayLike,
            file_gb: float = 0.0,
            bandwidth_gbps: float = 0.1,
        ) -> None: ...

    now: float
    cores: int
    runtime: float
    free_at: np.ndarray
    cached: np.ndarray
    file_gb: float = 0.0
    bandwidth_gbps: float = 0.1

    def __post_init__(self) -> None:
        free_at = as_matrix(self.free_at, "free_at", "a list of times, one per node")
        if free_at.ndim != 1 or free_at.size == 0:
            raise ProblemError("free_at", "a non-empty list of times, one per node", self.free_at)
        check_finite_nonneg(free_at, "free_at")
        cached = np.asarray(self.cached)
        if (
            cached.shape != free_at.shape
            or cached.dtype.kind not in "bi"
            or not np.isin(cached, (0, 1)).all()
        ):
            raise ProblemError("cached", f"{free_at.size} booleans, one per node", self.cached)
        for name, value, low in (
            ("now", self.now, 0.0),
            ("runtime", self.runtime, 0.0),
            ("file_gb", self.file_gb, 0.0),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < low
            ):
                raise ProblemError(name, f"a finite number >= {low:g}", value)
        if isinstance(self.cores, bool) or not isinstance(self.cores, int) or self.cores < 1:
            raise ProblemError("cores", "an integer >= 1", self.cores)
        bw = self.bandwidth_gbps
        if (
            isinstance(bw, bool)
            or not isinstance(bw, (int, float))
            or not (math.isfinite(bw) and bw > 0)
        ):
            raise ProblemError("bandwidth_gbps", "a finite number > 0", bw)
        set_ = object.__setattr__
        set_(self, "free_at", readonly(free_at))
        set_(self, "cached", readonly(cached.astype(bool)))
        for name in ("now", "runtime", "file_gb", "bandwidth_gbps"):
            set_(self, name, float(getattr(self, name)))

    @property
    def nodes(self) -> int:
        return int(self.free_at.size)

    def load_time(self, node: int) -> float:
        """Seconds to load the input file onto ``node`` (0 when it is cached there)."""
        return 0.0 if self.cached[node] else self.file_gb / self.bandwidth_gbps

    def completion_delay(self, node: int, start: float) -> float:
        """The objective of starting on ``node`` at ``start`` (see the module docstring)."""
        return start + self.load_time(node) + self.runtime - self.now

    def earliest_start(self, node: int) -> float:
        return max(self.now, float(self.free_at[node]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "placement",
            "now": json_number(self.now),
            "cores": self.cores,
            "runtime": json_number(self.runtime),
            "file_gb": json_number(self.file_gb),
            "bandwidth_gbps": json_number(self.bandwidth_gbps),
            "free_at": json_array(self.free_at),
            "cached": [bool(x) for x in self.cached],
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> PlacementProblem:
        def build(d: Mapping[str, Any]) -> PlacementProblem:
            scalar.unknown_keys(
                d, ("now", "cores", "runtime", "file_gb", "bandwidth_gbps", "free_at", "cached")
            )
            for key in ("free_at", "cached"):
                if key not in d:
                    raise ProblemError(key, "a required key", None)
            cached = d["cached"]
            if not isinstance(cached, list) or not all(isinstance(x, bool) for x in cached):
                raise ProblemError(
                    "cached", "a list of booleans (true/false), one per node", cached
                )
            return cls(
                now=scalar.number(d, "now"),
                cores=scalar.integer(d, "cores", minimum=1),
                runtime=scalar.number(d, "runtime"),
                file_gb=scalar.number(d, "file_gb", required=False),
                bandwidth_gbps=scalar.number(d, "bandwidth_gbps", required=False, default=0.1),
                free_at=d["free_at"],
                cached=np.array(cached, dtype=bool),
            )

        return scalar.with_source(build, data, source)


@dataclass(frozen=True, slots=True)
class PlacementDecision:
    """An answer: ``node`` and ``start`` (``node = -1``: no placement), and its objective."""

    kind: ClassVar[str] = "placement"

    status: Status
    node: int = -1
    start: float = math.nan
    objectives: tuple[float, ...] = ()
    trace: tuple[TracePoint, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver: str = ""
    latency_s: float = math.nan

    def __post_init__(self) -> None:
        scalar.freeze_common(self)
        if isinstance(self.node, bool) or not isinstance(self.node, (int, np.integer)):
            raise ProblemError("node", "an integer node index", self.node)
        object.__setattr__(self, "node", int(self.node))
        object.__setattr__(self, "start", float(self.start))

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "start": json_number(self.start), **scalar.common_json(self)}

    @classmethod
    def from_dict(cls, data: Any) -> PlacementDecision:
        fields = scalar.common_fields(data)
        start = data.get("start")
        return cls(
            node=int(data.get("node", -1)),
            start=math.nan if start is None else float(start),
            **fields,
        )
