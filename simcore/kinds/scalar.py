"""What the single-answer kinds (``placement``, ``reservation``) share: reading scalar fields of a
problem's JSON with errors that name the key, rejecting an invalid answer, and the quality
record of a one-objective answer (objective gap and feasibility).

The selection kind has richer answers (a Pareto set) and its own modules.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from schedbench.simcore.errors import MetricsError, ProblemError
from schedbench.simcore.indicators import primal_gap
from schedbench.simcore.metric_spec import MetricSpec
from schedbench.simcore.problem import Status, json_number, json_safe

#: Relative tolerance when comparing a claimed objective value with the recomputed one.
OBJECTIVE_RTOL = 1e-9


def number(
    data: Mapping[str, Any],
    key: str,
    *,
    minimum: float = 0.0,
    required: bool = True,
    default: float = 0.0,
) -> float:
    """A finite number >= ``minimum`` under ``key`` (booleans and strings are not numbers)."""
    if key not in data:
        if required:
            raise ProblemError(key, "a required key", None)
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProblemError(key, "a number", value)
    try:
        x = float(value)
    except OverflowError as exc:  # an integer beyond any float
        raise ProblemError(
            key, f"a finite number >= {minimum:g}", f"an integer of {len(str(value))} digits"
        ) from exc
    if not math.isfinite(x) or x < minimum:
        raise ProblemError(key, f"a finite number >= {minimum:g}", value)
    return x


def integer(data: Mapping[str, Any], key: str, *, minimum: int = 0) -> int:
    """An integer >= ``minimum`` under ``key``."""
    if key not in data:
        raise ProblemError(key, "a required key", None)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ProblemError(key, f"an integer >= {minimum}", value)
    return value


def unknown_keys(data: Mapping[str, Any], known: Iterable[str]) -> None:
    allowed = {*known, "kind", "name", "meta"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ProblemError(f"key {extra[0]!r}", f"one of {', '.join(sorted(allowed))}", None)


def with_source(build: Any, data: Any, source: str | None) -> Any:
    """``build(data)`` with a ``ProblemError`` naming ``source``."""
    try:
        if not isinstance(data, Mapping):
            raise ProblemError("(top level)", "a JSON object", type(data).__name__)
        return build(data)
    except ProblemError as exc:
        if not source:
            raise
        raise exc.with_source(source) from exc


def decision_status(data: Any) -> Status:
    if not isinstance(data, Mapping):
        raise MetricsError(f"decision JSON: expected an object, got {type(data).__name__}")
    try:
        return Status(data["status"])
    except (KeyError, ValueError) as exc:
        raise MetricsError(
            f"decision JSON key 'status': expected one of {[s.value for s in Status]}, "
            f"got {data.get('status')!r}"
        ) from exc


def freeze_common(decision: Any) -> None:
    """``__post_init__`` of a decision type: the fields every kind's answer has, normalised
    (status as ``Status``, tuples, read-only stats)."""
    set_ = object.__setattr__
    set_(decision, "status", Status(decision.status))
    set_(decision, "objectives", tuple(float(x) for x in decision.objectives))
    set_(decision, "trace", tuple(decision.trace))
    set_(decision, "stats", MappingProxyType(dict(decision.stats)))
    set_(decision, "notes", tuple(decision.notes))


def common_json(decision: Any) -> dict[str, Any]:
    """The JSON of the fields every kind's answer has (``to_dict`` adds the kind's own)."""
    return {
        "status": decision.status.value,
        "objectives": [json_number(x) for x in decision.objectives],
        "latency_s": None if math.isnan(decision.latency_s) else decision.latency_s,
        "solver": decision.solver,
        "notes": list(decision.notes),
        "stats": {str(k): json_safe(v) for k, v in decision.stats.items()},
    }


def common_fields(data: Any) -> dict[str, Any]:
    """The common fields of a decision read back from its JSON (``from_dict``)."""
    status = decision_status(data)
    latency = data.get("latency_s")
    return {
        "status": status,
        "objectives": tuple(float(x) for x in data.get("objectives") or ()),
        "stats": dict(data.get("stats") or {}),
        "notes": tuple(str(n) for n in data.get("notes") or ()),
        "solver": str(data.get("solver", "")),
        "latency_s": math.nan if latency is None else float(latency),
    }


def rejected(decision: Any, reason: str, **cleared: Any) -> Any:
    """``decision`` turned into status ``error`` by the core, with the reason and what was
    claimed kept in ``stats`` (as the selection kind's ``vet`` does)."""
    stats = {**decision.stats, "invalid_answer": 1, "claimed_status": Status(decision.status).value}
    return dataclasses.replace(
        decision,
        status=Status.ERROR,
        objectives=(),
        stats=stats,
        notes=(*decision.notes, f"invalid answer rejected by the core: {reason}"),
        **cleared,
    )


def recomputed(decision: Any, objective: float) -> Any:
    """``decision`` with its objective set to the value the core computed; a claim that
    differs is counted as ``objective_mismatch``, and a claim of ``optimal`` with it becomes
    ``feasible``."""
    claimed = decision.objectives
    if claimed and (
        len(claimed) != 1
        or not math.isfinite(claimed[0])
        or abs(claimed[0] - objective) > OBJECTIVE_RTOL * max(1.0, abs(objective))
    ):
        stats = {**decision.stats, "objective_mismatch": 1}
        notes = ["the claimed objective differed and was recomputed by the core"]
        status = decision.status
        if status == Status.OPTIMAL:  # wrong about its own answer: proved nothing about it
            status, stats["claimed_status"] = Status.FEASIBLE, Status.OPTIMAL.value
            notes.append("the claim of optimality is not believed: status feasible")
        return dataclasses.replace(
            decision,
            status=status,
            objectives=(objective,),
            stats=stats,
            notes=(*decision.notes, *notes),
        )
    return dataclasses.replace(decision, objectives=(objective,))


def gap_metrics(kind: str, objective: str) -> tuple[MetricSpec, ...]:
    """The quality metrics of a one-objective kind."""
    return (
        MetricSpec(
            "objective_gap",
            f"|z* - z| / max(|z*|, |z|) of the {objective} against the exact reference; 1 "
            "without a valid answer",
            unit="share",
            direction="lower",
            source="Berthold 2013",
            scope="decision",
            label="gap",
            kind=kind,
            short=f"gap of the {objective} to the exact answer",
        ),
        MetricSpec(
            "answer_valid",
            "1 when the answer passed the core's check, else 0",
            unit="share",
            direction="higher",
            scope="decision",
            label="valid",
            kind=kind,
        ),
    )


def gap_quality(decision: Any, reference: Any | None, answered: bool) -> dict[str, Any]:
    """``objective_gap`` (primal gap of the single objective against the reference) and
    ``answer_valid``; ``reference`` ``"missing"`` without an exact reference."""
    record: dict[str, Any] = {
        "n_objectives": 1,
        "status": Status(decision.status).value,
        "feasible": answered and bool(decision.objectives),
        "answer_valid": 1.0 if answered and decision.objectives else 0.0,
        "reference": "exact",
        "note": None,
    }
    if reference is None:
        record["reference"] = "missing"
        record["objective_gap"] = None
        return record
    usable = True and Status(reference.status) == Status.OPTIMAL and len(reference.objectives) == 1
    if not usable:
        record["reference"] = "missing"
        record["objective_gap"] = None
        return record
    z = decision.objectives[0] if record["feasible"] else None
    record["objective_gap"] = primal_gap(z, reference.objectives[0])
    return record
