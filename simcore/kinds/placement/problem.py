"""The ``placement`` kind's types: place one job on one node, in time, given the nodes' file
caches (data-locality-aware batch scheduling; ``papers/locality-evaluation-model.md`` §6, the
"model note").

A problem lists **candidates** — by default one per node — each with the earliest time it can
start the job (``free_at``, never before ``now``), what the job would pay there for its input
file (``load_s``), and what placing it there would cost other files (``evict_s``); the answer is
a candidate and a start time. The locality simulator (``simcore/locality/``) poses every per-job
placement this way, so that any registered placement solver can answer it.

Times are seconds; ``now`` is the decision instant. Choices made here (documented, tested):

* a job runs on one node (the locality model splits multi-node jobs into one-node jobs);
* candidate ``i`` is on node ``node_ids[i]`` (default ``i``); with backfilling a node appears
  twice — at its earliest time and backfilled now (model note §7);
* the job may start on candidate ``i`` at any ``start >= max(now, free_at[i])``;
* ``load_s[i]`` is the load term TL of §6 at the candidate's earliest start: 0 if the file will
  be there, the rest of a load in progress, or the full load time. Without ``load_s`` it is
  ``file_gb / bandwidth_gbps`` where the file is not ``cached`` and 0 where it is;
* ``evict_s[i]`` is the eviction term E of §6 (default 0);
* the objective is the **weighted completion delay**
  ``start − now + w_load·load_s + w_evict·evict_s + runtime`` (seconds, minimised), the single
  entry of ``objectives``. With the defaults ``w_load = 1, w_evict = 0`` it is the completion
  delay of the earliest-finish-time rule (EFT); with LEA's weights (500, 1) it is LEA's score
  shifted by ``runtime − now``. ``w_load``/``w_evict`` may be one number or one per candidate
  (LEO switches to (1, 0) on some nodes).

Reference fidelity: the reference simulator scores in C ``float`` and truncates the score
(``solvers/placement.py``'s ``placement-locality`` reproduces it); ``start_term = False`` marks
the reference's hole-only pass, whose score omits the start time (model note §7).
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

_KEYS = (
    "now",
    "cores",
    "runtime",
    "file_gb",
    "bandwidth_gbps",
    "free_at",
    "cached",
    "load_s",
    "evict_s",
    "w_load",
    "w_evict",
    "node_ids",
    "start_term",
)


def _vector(value: Any, n: int, where: str, default: float) -> np.ndarray:
    """A number (broadcast) or ``n`` finite non-negative numbers."""
    if value is None:
        return np.full(n, float(default))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)  # an integer past the float range raises here
        except OverflowError:
            number = math.inf
        if not (math.isfinite(number) and number >= 0):
            raise ProblemError(where, "a finite number >= 0", value)
        return np.full(n, number)
    arr = as_matrix(value, where, f"a number or {n} numbers, one per candidate")
    if arr.shape != (n,):
        raise ProblemError(where, f"a number or {n} numbers, one per candidate", value)
    check_finite_nonneg(arr, where)
    return arr


@dataclass(frozen=True, slots=True, eq=False)
class PlacementProblem:
    """One job (``cores``, ``runtime`` by its request, an input file of ``file_gb``) and its
    candidates (see the module docstring)."""

    kind: ClassVar[str] = "placement"
    #: PROBLEM.json keys besides ``kind``, ``name`` and ``meta``.
    JSON_KEYS: ClassVar[tuple[str, ...]] = _KEYS

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
            load_s: npt.ArrayLike | None = None,
            evict_s: npt.ArrayLike | None = None,
            w_load: float | npt.ArrayLike = 1.0,
            w_evict: float | npt.ArrayLike = 0.0,
            node_ids: npt.ArrayLike | None = None,
            start_term: bool = True,
        ) -> None: ...

    now: float
    cores: int
    runtime: float
    free_at: np.ndarray
    cached: np.ndarray
    file_gb: float = 0.0
    bandwidth_gbps: float = 0.1
    load_s: np.ndarray | None = None
    evict_s: np.ndarray | None = None
    w_load: Any = 1.0
    w_evict: Any = 0.0
    node_ids: np.ndarray | None = field(default=None)
    start_term: bool = True

    def __post_init__(self) -> None:
        free_at = as_matrix(self.free_at, "free_at", "a list of times, one per candidate")
        if free_at.ndim != 1 or free_at.size == 0:
            raise ProblemError(
                "free_at", "a non-empty list of times, one per candidate", self.free_at
            )
        check_finite_nonneg(free_at, "free_at")
        n = free_at.size
        cached = np.asarray(self.cached)
        if (
            cached.shape != free_at.shape
            or cached.dtype.kind not in "bi"
            or not np.isin(cached, (0, 1)).all()
        ):
            raise ProblemError("cached", f"{n} booleans, one per candidate", self.cached)
        for name, value, low in (
            ("now", self.now, 0.0),
            ("runtime", self.runtime, 0.0),
            ("file_gb", self.file_gb, 0.0),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.integer, np.floating))
                or not math.isfinite(value)
                or value < low
            ):
                raise ProblemError(name, f"a finite number >= {low:g}", value)
        if (
            isinstance(self.cores, bool)
            or not isinstance(self.cores, (int, np.integer))
            or self.cores < 1
        ):
            raise ProblemError("cores", "an integer >= 1", self.cores)
        bw = self.bandwidth_gbps
        if (
            isinstance(bw, bool)
            or not isinstance(bw, (int, float, np.integer, np.floating))
            or not (math.isfinite(bw) and bw > 0)
        ):
            raise ProblemError("bandwidth_gbps", "a finite number > 0", bw)
        if not isinstance(self.start_term, (bool, np.bool_)):
            raise ProblemError("start_term", "true or false", self.start_term)
        set_ = object.__setattr__
        set_(self, "free_at", readonly(free_at))
        set_(self, "cached", readonly(cached.astype(bool)))
        for name in ("now", "runtime", "file_gb", "bandwidth_gbps"):
            set_(self, name, float(getattr(self, name)))
        set_(self, "cores", int(self.cores))
        set_(self, "start_term", bool(self.start_term))
        if self.load_s is None:
            load = np.where(cached.astype(bool), 0.0, self.file_gb / self.bandwidth_gbps)
        else:
            load = _vector(self.load_s, n, "load_s", 0.0)
        set_(self, "load_s", readonly(np.asarray(load, dtype=np.float64)))
        set_(self, "evict_s", readonly(_vector(self.evict_s, n, "evict_s", 0.0)))
        set_(self, "w_load", readonly(_vector(self.w_load, n, "w_load", 1.0)))
        set_(self, "w_evict", readonly(_vector(self.w_evict, n, "w_evict", 0.0)))
        if self.node_ids is None:
            ids = np.arange(n, dtype=np.int64)
        else:
            raw = np.asarray(self.node_ids)
            if raw.shape != (n,) or raw.dtype.kind not in "iu" or (raw < 0).any():
                raise ProblemError(
                    "node_ids", f"{n} node numbers >= 0, one per candidate", self.node_ids
                )
            ids = raw.astype(np.int64)
        set_(self, "node_ids", readonly(ids))

    @property
    def nodes(self) -> int:
        """The number of candidates (one per node unless ``node_ids`` repeats a node)."""
        return int(self.free_at.size)

    def load_time(self, node: int) -> float:
        """The load term of candidate ``node`` (0 when its file is there)."""
        assert self.load_s is not None
        return float(self.load_s[node])

    def completion_delay(self, node: int, start: float) -> float:
        """The objective of starting candidate ``node`` at ``start`` (see the module docstring)."""
        assert self.load_s is not None and self.evict_s is not None
        return (
            start
            - self.now
            + float(self.w_load[node]) * float(self.load_s[node])
            + float(self.w_evict[node]) * float(self.evict_s[node])
            + self.runtime
        )

    def earliest_start(self, node: int) -> float:
        return max(self.now, float(self.free_at[node]))

    def objective_vector(self) -> np.ndarray:
        """The objective of every candidate at its earliest start."""
        assert self.load_s is not None and self.evict_s is not None
        start = np.maximum(self.free_at, self.now)
        return (
            start
            - self.now
            + np.asarray(self.w_load) * self.load_s
            + np.asarray(self.w_evict) * self.evict_s
            + self.runtime
        )

    def to_dict(self) -> dict[str, Any]:
        assert self.load_s is not None and self.evict_s is not None and self.node_ids is not None
        out: dict[str, Any] = {
            "kind": "placement",
            "now": json_number(self.now),
            "cores": self.cores,
            "runtime": json_number(self.runtime),
            "file_gb": json_number(self.file_gb),
            "bandwidth_gbps": json_number(self.bandwidth_gbps),
            "free_at": json_array(self.free_at),
            "cached": [bool(x) for x in self.cached],
        }
        default_load = np.where(self.cached, 0.0, self.file_gb / self.bandwidth_gbps)
        if not np.array_equal(self.load_s, default_load):
            out["load_s"] = json_array(self.load_s)
        if np.any(self.evict_s):
            out["evict_s"] = json_array(self.evict_s)
        for key, default in (("w_load", 1.0), ("w_evict", 0.0)):
            vec = np.asarray(getattr(self, key))
            if np.all(vec == vec[0]):
                if vec[0] != default:
                    out[key] = json_number(float(vec[0]))
            else:
                out[key] = json_array(vec)
        if not np.array_equal(self.node_ids, np.arange(self.nodes)):
            out["node_ids"] = [int(x) for x in self.node_ids]
        if not self.start_term:
            out["start_term"] = False
        return out

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> PlacementProblem:
        def build(d: Mapping[str, Any]) -> PlacementProblem:
            scalar.unknown_keys(d, cls.JSON_KEYS)
            for key in ("free_at", "cached"):
                if key not in d:
                    raise ProblemError(key, "a required key", None)
            cached = d["cached"]
            if not isinstance(cached, list) or not all(isinstance(x, bool) for x in cached):
                raise ProblemError(
                    "cached", "a list of booleans (true/false), one per candidate", cached
                )
            node_ids = d.get("node_ids")
            if node_ids is not None and (
                not isinstance(node_ids, list)
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in node_ids)
            ):
                raise ProblemError("node_ids", "a list of node numbers (integers)", node_ids)
            start_term = d.get("start_term", True)
            if not isinstance(start_term, bool):
                raise ProblemError("start_term", "true or false", start_term)
            return cls(
                now=scalar.number(d, "now"),
                cores=scalar.integer(d, "cores", minimum=1),
                runtime=scalar.number(d, "runtime"),
                file_gb=scalar.number(d, "file_gb", required=False),
                bandwidth_gbps=scalar.number(d, "bandwidth_gbps", required=False, default=0.1),
                free_at=d["free_at"],
                cached=np.array(cached, dtype=bool),
                load_s=d.get("load_s"),
                evict_s=d.get("evict_s"),
                w_load=d.get("w_load", 1.0),
                w_evict=d.get("w_evict", 0.0),
                node_ids=None if node_ids is None else np.array(node_ids, dtype=np.int64),
                start_term=start_term,
            )

        return scalar.with_source(build, data, source)


@dataclass(frozen=True, slots=True)
class PlacementDecision:
    """An answer: candidate ``node`` and ``start`` (``node = -1``: no placement), and its
    objective."""

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
