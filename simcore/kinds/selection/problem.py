"""The selection kind's types: what a window-selection pass asks and what a solver answers.

``SelectionProblem`` is BBSched's window selection (§3.2.1): ``w`` jobs at the front of the
priority-ordered queue, ``K`` resources with the free ``capacities``, each job's ``demands``, and
``M`` objectives to maximise. With ``M = 1`` it is a (multi-dimensional) 0-1 knapsack, which also
covers Cerberus' stage-in/run/stage-out problems and OR-Library instances; with ``M >= 2`` the answer
is a Pareto set. When no objectives are given, each resource's demand is an objective, as in
BBSched (f1 = nodes used, f2 = burst buffer used).

Index order is window order: job 0 is the head of the queue. Solvers and the decision maker break
ties in favour of jobs nearer the head (BBSched §3.2.4).

Feasibility uses a relative tolerance of 1e-9 on each capacity so that fractional demands whose
float sum lands a hair above an exactly-full capacity are not rejected; integer problems are exact.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from schedbench.simcore.errors import InvalidDecisionError, MetricsError, ProblemError
from schedbench.simcore.problem import (
    Status,
    TracePoint,
    as_matrix,
    capacity_slack,
    check_finite_nonneg,
    json_array,
    json_number,
    json_safe,
    names_of,
    readonly,
)


@dataclass(frozen=True, slots=True, eq=False)
class SelectionProblem:
    """Choose a subset of the window's jobs that fits the free capacities (BBSched §3.2.1).

    Arguments are converted to read-only float64 numpy arrays and validated; any problem raises
    ``ProblemError`` naming the field. ``objective_scales`` are the normalisers that turn an
    objective into a utilisation (the machine's total of that resource in BBSched); they default
    to the capacities when the objectives are the demands, else to the sum of each objective's
    positive values over the window (the most it could reach with unlimited capacity).
    """

    if TYPE_CHECKING:  # what the constructor accepts; the attributes below are what it stores

        def __init__(
            self,
            capacities: npt.ArrayLike,
            demands: npt.ArrayLike,
            objectives: npt.ArrayLike | None = None,
            must_include: Iterable[int] = (),
            resources: Iterable[str] = (),
            objective_names: Iterable[str] = (),
            objective_scales: npt.ArrayLike | None = None,
        ) -> None: ...

    kind: ClassVar[str] = "selection"
    #: PROBLEM.json keys besides ``kind``, ``name`` and ``meta`` (required ones first).
    JSON_KEYS: ClassVar[tuple[str, ...]] = (
        "capacities",
        "demands",
        "objectives",
        "must_include",
        "resources",
        "objective_names",
        "objective_scales",
    )

    capacities: np.ndarray
    demands: np.ndarray
    # None (the default) means "the demands": after __post_init__ both are arrays, which is
    # what every reader may rely on, hence the plain array annotation.
    objectives: np.ndarray = None  # type: ignore[assignment]
    must_include: tuple[int, ...] = ()
    resources: tuple[str, ...] = ()
    objective_names: tuple[str, ...] = ()
    objective_scales: np.ndarray = None  # type: ignore[assignment]
    #: For each objective, the resource whose demand it equals, or -1 (derived, not an argument).
    objective_resource: tuple[int, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        capacities = as_matrix(self.capacities, "capacities", "a list of K numbers")
        if capacities.ndim != 1 or capacities.size == 0:
            raise ProblemError(
                "capacities", "a non-empty list of numbers, one per resource", self.capacities
            )
        check_finite_nonneg(capacities, "capacities")
        k = capacities.size

        if isinstance(self.demands, Sequence) and not isinstance(self.demands, (str, bytes)):
            for i, row in enumerate(self.demands):
                if not isinstance(row, (Sequence, np.ndarray)) or isinstance(row, (str, bytes)):
                    raise ProblemError(
                        f"demands[{i}]", f"a list of {k} numbers (one per resource)", row
                    )
                if len(row) != k:
                    raise ProblemError(
                        f"demands[{i}]",
                        f"{k} numbers (one per resource, as in capacities)",
                        f"{len(row)} numbers",
                    )
        demands = as_matrix(self.demands, "demands", f"a list of jobs, each a list of {k} numbers")
        if demands.size == 0:
            demands = demands.reshape(0, k)
        if demands.ndim != 2:
            raise ProblemError(
                "demands", f"a list of jobs, each a list of {k} numbers", self.demands
            )
        if demands.shape[1] != k:
            raise ProblemError(
                "demands[0]",
                f"{k} numbers (one per resource, as in capacities)",
                f"{demands.shape[1]} numbers",
            )
        check_finite_nonneg(demands, "demands")
        w = demands.shape[0]

        defaulted = self.objectives is None
        if defaulted:
            objectives = demands.T.copy()
        else:
            objectives = as_matrix(
                self.objectives, "objectives", f"a list of objectives, each a list of {w} numbers"
            )
            if objectives.ndim == 1 and w == 0 and objectives.size == 0:
                objectives = objectives.reshape(1, 0)
            if objectives.ndim != 2 or objectives.shape[0] == 0:
                raise ProblemError(
                    "objectives",
                    f"a non-empty list of objectives, each a list of {w} numbers",
                    self.objectives,
                )
            if objectives.shape[1] != w:
                raise ProblemError(
                    "objectives[0]",
                    f"{w} numbers (one per job in demands)",
                    f"{objectives.shape[1]} numbers",
                )
            check_finite_nonneg(objectives, "objectives", allow_negative=True)
        m = objectives.shape[0]

        must = self._check_must_include(self.must_include, w)
        resources = self._check_names(self.resources, k, "resources", "r")
        default_names = resources if defaulted else tuple(f"f{i}" for i in range(m))
        objective_names = self._check_names(self.objective_names, m, "objective_names", "")
        objective_names = objective_names or default_names

        objective_resource = tuple(
            next(
                (r for r in range(k) if np.array_equal(objectives[i], demands[:, r])),
                -1,
            )
            for i in range(m)
        )

        if self.objective_scales is None:
            scales = np.array(
                [
                    capacities[r]
                    if r >= 0 and capacities[r] > 0
                    else float(np.clip(objectives[i], 0, None).sum())
                    for i, r in enumerate(objective_resource)
                ],
                dtype=np.float64,
            )
            scales[scales <= 0] = 1.0
        else:
            scales = as_matrix(self.objective_scales, "objective_scales", f"{m} positive numbers")
            if scales.shape != (m,):
                raise ProblemError(
                    "objective_scales", f"{m} numbers (one per objective)", scales.tolist()
                )
            if not (np.isfinite(scales) & (scales > 0)).all():
                raise ProblemError("objective_scales", "finite positive numbers", scales.tolist())

        set_ = object.__setattr__
        set_(self, "capacities", readonly(capacities))
        set_(self, "demands", readonly(np.ascontiguousarray(demands)))
        set_(self, "objectives", readonly(np.ascontiguousarray(objectives)))
        set_(self, "must_include", must)
        set_(self, "resources", resources)
        set_(self, "objective_names", objective_names)
        set_(self, "objective_scales", readonly(scales))
        set_(self, "objective_resource", objective_resource)

    @staticmethod
    def _check_must_include(value: Iterable[int], w: int) -> tuple[int, ...]:
        try:
            items = list(value)
        except TypeError as exc:
            raise ProblemError("must_include", "a list of job indices", value) from exc
        out = set()
        for i, item in enumerate(items):
            if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
                raise ProblemError(f"must_include[{i}]", "an integer job index", item)
            if not 0 <= int(item) < w:
                raise ProblemError(f"must_include[{i}]", f"a job index in 0..{w - 1}", item)
            out.add(int(item))
        return tuple(sorted(out))

    @staticmethod
    def _check_names(value: Iterable[str], n: int, where: str, prefix: str) -> tuple[str, ...]:
        names = tuple(value)
        if not names:
            return tuple(f"{prefix}{i}" for i in range(n)) if prefix else ()
        if len(names) != n or not all(isinstance(x, str) and x for x in names):
            raise ProblemError(where, f"{n} non-empty names", list(names))
        if len(set(names)) != len(names):
            raise ProblemError(where, f"{n} distinct names", list(names))
        return names

    # -- shape -----------------------------------------------------------------------------
    @property
    def w(self) -> int:
        """Window size: the number of candidate jobs."""
        return int(self.demands.shape[0])

    @property
    def K(self) -> int:
        """Number of resources."""
        return int(self.capacities.size)

    @property
    def M(self) -> int:
        """Number of objectives."""
        return int(self.objectives.shape[0])

    @property
    def objectives_are_demands(self) -> bool:
        """True when objective i is the demand of a distinct resource for every i (BBSched)."""
        r = self.objective_resource
        return all(x >= 0 for x in r) and len(set(r)) == len(r)

    @property
    def is_integral(self) -> bool:
        """True when every capacity and demand is a whole number (exact integer DP applies)."""
        return bool(
            np.all(np.mod(self.capacities, 1) == 0) and np.all(np.mod(self.demands, 1) == 0)
        )

    # -- evaluating selections ---------------------------------------------------------------
    def usage(self, selected: Sequence[int] | np.ndarray) -> np.ndarray:
        """Resource usage of a selection, shape (K,)."""
        idx = np.asarray(selected, dtype=np.int64)
        return self.demands[idx].sum(axis=0) if idx.size else np.zeros(self.K)

    def evaluate(self, selected: Sequence[int]) -> tuple[float, ...]:
        """Objective vector of a selection, shape (M,)."""
        idx = np.asarray(selected, dtype=np.int64)
        values = self.objectives[:, idx].sum(axis=1) if idx.size else np.zeros(self.M)
        return tuple(float(v) for v in values)

    def fits(self, usage: np.ndarray) -> bool:
        return bool(np.all(usage <= self.capacities + capacity_slack(self.capacities)))

    def is_feasible(self, selected: Sequence[int]) -> bool:
        try:
            self.check_selection(selected)
        except InvalidDecisionError:
            return False
        return True

    def check_selection(self, selected: Sequence[int]) -> None:
        """Raise ``InvalidDecisionError`` saying what is wrong with a selection, if anything.

        Vectorised: a heuristic's Pareto set on a huge window holds selections of tens of
        thousands of jobs, checked within the budget
        (docs/design.md#trust-boundaries-and-bounded-work)."""
        idx = _index_array(selected, "selection holds {!r}, not a job index")
        if idx.size:
            low, high = int(idx.min()), int(idx.max())
            if low < 0 or high >= self.w:
                bad = low if low < 0 else high
                raise InvalidDecisionError(f"job index {bad} outside the window 0..{self.w - 1}")
            ordered = np.sort(idx)
            twice = ordered[1:][ordered[1:] == ordered[:-1]]
            if twice.size:
                raise InvalidDecisionError(f"job {int(twice[0])} selected twice")
        if self.must_include:
            must = np.asarray(self.must_include, dtype=np.int64)
            missing = must[~np.isin(must, idx)].tolist()
            if missing:
                raise InvalidDecisionError(f"must_include jobs {missing} not selected")
        used = self.usage(idx)
        over = used > self.capacities + capacity_slack(self.capacities)
        if over.any():
            r = int(np.argmax(over))
            raise InvalidDecisionError(
                f"resource {self.resources[r]!r} over capacity: {used[r]:g} > {self.capacities[r]:g}"
            )

    # -- JSON (PROBLEM.json, docs/reference/formats.md) ----------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": "selection",
            "resources": list(self.resources),
            "capacities": json_array(self.capacities),
            "demands": json_array(self.demands),
            "objectives": json_array(self.objectives),
            "objective_names": list(self.objective_names),
            "objective_scales": json_array(self.objective_scales),
        }
        if self.must_include:
            data["must_include"] = list(self.must_include)
        return data

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> SelectionProblem:
        """Build a problem from PROBLEM.json's content; errors name ``source`` and the key."""
        try:
            if not isinstance(data, Mapping):
                raise ProblemError("(top level)", "a JSON object", type(data).__name__)
            known = {*cls.JSON_KEYS, "kind", "name", "meta"}
            unknown = sorted(set(data) - known)
            if unknown:
                raise ProblemError(
                    f"key {unknown[0]!r}", f"one of {', '.join(sorted(known))}", None
                )
            kind = data.get("kind", "selection")
            if kind != "selection":
                raise ProblemError("kind", '"selection"', kind)
            for key in ("capacities", "demands"):
                if key not in data:
                    raise ProblemError(key, "a required key", None)
            must = data.get("must_include", ())
            if isinstance(must, list):  # a file that names a job twice is a typo, not a set
                seen: set[Any] = set()
                for i, item in enumerate(must):
                    if not isinstance(item, int) or isinstance(item, bool):
                        raise ProblemError(f"must_include[{i}]", "an integer job index", item)
                    if item in seen:
                        raise ProblemError(f"must_include[{i}]", "each job index once", item)
                    seen.add(item)
            # Raw JSON values: __post_init__ converts and checks every one.
            raw: dict[str, Any] = {
                "capacities": data["capacities"],
                "demands": data["demands"],
                "objectives": data.get("objectives"),
                "must_include": data.get("must_include", ()),
                "objective_scales": data.get("objective_scales"),
            }
            return cls(
                resources=names_of(data, "resources"),
                objective_names=names_of(data, "objective_names"),
                **raw,
            )
        except ProblemError as exc:
            if not source:
                raise
            raise exc.with_source(source) from exc

    def fingerprint(self) -> str:
        """Stable content hash (for caching exact references by instance)."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ParetoPoint:
    """One non-dominated selection and its objective vector."""

    selected: tuple[int, ...]
    objectives: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "selected": list(self.selected),
            "objectives": [json_number(x) for x in self.objectives],
        }


def _index_array(value: Iterable[int], message: str) -> np.ndarray:
    """Job indices as an int64 array. Strict: a solver's 0.9, True or '3' is a bug to report,
    not an index to guess; ``message`` is formatted with the first offender.

    The type check runs over the distinct element types (one C-level pass), not per item."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value.astype(np.int64, copy=False).ravel()
    items = value if isinstance(value, (list, tuple)) else list(value)
    types = set(map(type, items))
    if not all(t is int or issubclass(t, np.integer) for t in types):  # bool is neither
        bad = next(i for i in items if isinstance(i, bool) or not isinstance(i, (int, np.integer)))
        raise InvalidDecisionError(message.format(bad))
    try:
        return np.fromiter(items, dtype=np.int64, count=len(items))
    except OverflowError as exc:  # beyond int64: certainly outside every window
        raise InvalidDecisionError(message.format(max(items, key=abs))) from exc


def _selection(value: Iterable[int], where: str) -> tuple[int, ...]:
    idx = np.sort(_index_array(value, f"{where}: expected integer job indices, got {{!r}}"))
    if idx.size and (idx[0] < 0 or (idx[1:] == idx[:-1]).any()):
        raise InvalidDecisionError(
            f"{where}: expected distinct non-negative job indices, got {sorted(idx.tolist())}"
        )
    return tuple(idx.tolist())


@dataclass(frozen=True, slots=True)
class Decision:
    """A solver's answer to one decision problem.

    ``selected`` is the selection to apply (for ``M >= 2`` the decision maker's pick from
    ``pareto``); ``objectives`` its objective vector. ``pareto`` is the Pareto set (``M >= 2``),
    sorted by objective vector, best first lexicographically. ``trace`` is the anytime trace,
    ``stats`` solver statistics (numbers or strings), ``notes`` anything a reader must know (for
    example that coarse units were used). ``latency_s`` is wall time measured around
    ``solve()`` by the caller (``simcore.solver.timed_solve``).
    """

    if TYPE_CHECKING:  # what the constructor accepts (converted in __post_init__)

        def __init__(
            self,
            status: Status | str,
            selected: Iterable[int] = (),
            objectives: Iterable[float] = (),
            pareto: Iterable[ParetoPoint | tuple[Iterable[int], Iterable[float]]] = (),
            trace: Iterable[TracePoint] = (),
            stats: Mapping[str, Any] = ...,
            notes: Iterable[str] = (),
            solver: str = "",
            latency_s: float = math.nan,
        ) -> None: ...

    status: Status
    selected: tuple[int, ...] = ()
    objectives: tuple[float, ...] = ()
    pareto: tuple[ParetoPoint, ...] = ()
    trace: tuple[TracePoint, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver: str = ""
    latency_s: float = math.nan

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "status", Status(self.status))
        set_(self, "selected", _selection(self.selected, "selected"))
        set_(self, "objectives", tuple(float(x) for x in self.objectives))
        points = []
        for p in self.pareto:
            if not isinstance(p, ParetoPoint):
                p = ParetoPoint(tuple(p[0]), tuple(p[1]))
            points.append(
                ParetoPoint(
                    _selection(p.selected, "pareto selected"), tuple(float(x) for x in p.objectives)
                )
            )
        points.sort(key=lambda p: tuple(-x for x in p.objectives) + p.selected)
        set_(self, "pareto", tuple(points))
        set_(self, "trace", tuple(self.trace))
        set_(self, "stats", MappingProxyType(dict(self.stats)))
        set_(self, "notes", tuple(self.notes))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``schedbench solve`` (docs/reference/cli.md, plus extras)."""
        return {
            "status": self.status.value,
            "selected": list(self.selected),
            "objectives": [json_number(x) for x in self.objectives],
            "pareto": [p.to_dict() for p in self.pareto],
            "latency_s": None if math.isnan(self.latency_s) else self.latency_s,
            "solver": self.solver,
            "notes": list(self.notes),
            "stats": {str(k): json_safe(v) for k, v in self.stats.items()},
            "trace": [
                {
                    "time_s": json_number(t.time_s),
                    "objectives": [json_number(x) for x in t.objectives],
                }
                for t in self.trace
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Decision:
        """Rebuild a ``Decision`` from :meth:`Decision.to_dict` output (the inverse, up to whole
        float stats becoming ints and a ``None`` latency becoming NaN). Malformed data raises
        ``MetricsError`` naming the key."""
        if not isinstance(data, Mapping):
            raise MetricsError(f"decision JSON: expected an object, got {type(data).__name__}")
        try:
            status = Status(data["status"])
        except (KeyError, ValueError) as exc:
            raise MetricsError(
                f"decision JSON key 'status': expected one of {[s.value for s in Status]}, "
                f"got {data.get('status')!r}"
            ) from exc
        latency = data.get("latency_s")
        try:
            pareto = tuple(
                ParetoPoint(tuple(p["selected"]), tuple(float(x) for x in p["objectives"]))
                for p in _field(data, "pareto", list, [])
            )
            trace = tuple(
                TracePoint(float(t["time_s"]), tuple(float(x) for x in t["objectives"]))
                for t in _field(data, "trace", list, [])
            )
            return cls(
                status=status,
                selected=tuple(_field(data, "selected", list, [])),
                objectives=tuple(float(x) for x in _field(data, "objectives", list, [])),
                pareto=pareto,
                trace=trace,
                stats=dict(_field(data, "stats", dict, {})),
                notes=tuple(str(n) for n in _field(data, "notes", list, [])),
                solver=str(_field(data, "solver", str, "")),
                latency_s=math.nan if latency is None else float(latency),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, MetricsError):
                raise
            raise MetricsError(
                f"decision JSON: malformed pareto, trace or selection ({exc})"
            ) from exc

    def same_answer(self, other: Decision) -> bool:
        """True when two decisions choose the same things (ignores latency, stats and trace)."""
        return (
            self.status == other.status
            and self.selected == other.selected
            and self.objectives == other.objectives
            and self.pareto == other.pareto
        )


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = data.get(key, default)
    if not isinstance(value, kind):
        raise MetricsError(f"decision JSON key {key!r}: expected {kind}, got {value!r}")
    return value
