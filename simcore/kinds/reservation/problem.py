"""The ``reservation`` kind's types: answer an advance-reservation request with a start time and
a set of processors inside its deadline window, or reject it
(``papers/advance-reservation-with-deadlines.txt``, Sections 3–5).

A skeleton to be filled by the advance-reservation issue. A request arrives at ``now`` (t_a)
with a ready time ``ready`` (t_r), a duration (t_du), a deadline (t_dl, latest end) and a PE
count (n_pe); the machine has ``pes`` processors, and ``busy`` lists the accepted jobs'
holdings as (pe, start, end) intervals. Times are integers (seconds). A PE is free over
[a, b) when no busy interval on it overlaps [a, b).

An answer accepts with ``start`` in [max(t_r, now), t_dl − t_du] and ``pe_set`` of exactly
n_pe distinct PEs free over [start, start + t_du), or rejects (``accepted = False``). The
objective is 1 for an acceptance, 0 for a rejection (maximised).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from schedbench.simcore.errors import InvalidDecisionError, ProblemError
from schedbench.simcore.kinds import scalar
from schedbench.simcore.problem import Status, TracePoint


@dataclass(frozen=True, slots=True, eq=False)
class ReservationProblem:
    """One request against the current holdings (see the module docstring)."""

    kind: ClassVar[str] = "reservation"

    if TYPE_CHECKING:

        def __init__(
            self,
            now: int,
            ready: int,
            duration: int,
            deadline: int,
            n_pe: int,
            pes: int,
            busy: Iterable[tuple[int, int, int]] = (),
        ) -> None: ...

    now: int
    ready: int
    duration: int
    deadline: int
    n_pe: int
    pes: int
    busy: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        for name in ("now", "ready", "duration", "deadline", "n_pe", "pes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ProblemError(name, "an integer >= 0 (seconds or processors)", value)
            object.__setattr__(self, name, int(value))
        if self.pes < 1 or not self.n_pe >= 1:
            raise ProblemError("n_pe", "at least 1 PE on a machine of at least 1 PE", self.n_pe)
        if self.duration < 1:
            raise ProblemError("duration", "an integer >= 1 s", self.duration)
        busy = []
        for i, item in enumerate(self.busy):
            try:
                pe, start, end = (int(x) for x in item)
            except (TypeError, ValueError) as exc:
                raise ProblemError(f"busy[{i}]", "[pe, start, end]", item) from exc
            if not 0 <= pe < self.pes or not 0 <= start < end:
                raise ProblemError(f"busy[{i}]", f"a PE in 0..{self.pes - 1} and start < end", item)
            busy.append((pe, start, end))
        object.__setattr__(self, "busy", tuple(sorted(busy)))

    @property
    def latest_start(self) -> int:
        return self.deadline - self.duration

    def free_pes(self, start: int, end: int) -> list[int]:
        """PEs free over [start, end), ascending."""
        taken = {pe for pe, s, e in self.busy if s < end and e > start}
        return [pe for pe in range(self.pes) if pe not in taken]

    def candidate_starts(self) -> list[int]:
        """The paper's candidate start times (Section 4): the ready time, every slot time s of
        the holdings inside the window, and every s − t_du inside it; ascending, no duplicates.
        (The ready time is raised to ``now``: nothing starts in the past.)"""
        lo, hi = max(self.ready, self.now), self.latest_start
        times = {lo}
        for _pe, s, e in self.busy:
            for t in (s, e, s - self.duration, e - self.duration):
                if lo <= t <= hi:
                    times.add(t)
        return sorted(t for t in times if t <= hi)

    def check(self, start: int, pe_set: tuple[int, ...]) -> None:
        """Raise ``InvalidDecisionError`` saying what is wrong with an acceptance, if anything."""
        lo, hi = max(self.ready, self.now), self.latest_start
        if not lo <= start <= hi:
            raise InvalidDecisionError(f"start {start} outside the window [{lo}, {hi}]")
        if len(pe_set) != self.n_pe or len(set(pe_set)) != len(pe_set):
            raise InvalidDecisionError(f"expected {self.n_pe} distinct PEs, got {list(pe_set)}")
        bad = [pe for pe in pe_set if not 0 <= pe < self.pes]
        if bad:
            raise InvalidDecisionError(f"PE {bad[0]} outside 0..{self.pes - 1}")
        free = set(self.free_pes(start, start + self.duration))
        busy = [pe for pe in pe_set if pe not in free]
        if busy:
            raise InvalidDecisionError(
                f"PE {busy[0]} is not free over [{start}, {start + self.duration})"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "reservation",
            "now": self.now,
            "ready": self.ready,
            "duration": self.duration,
            "deadline": self.deadline,
            "n_pe": self.n_pe,
            "pes": self.pes,
            "busy": [list(b) for b in self.busy],
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ReservationProblem:
        def build(d: Mapping[str, Any]) -> ReservationProblem:
            keys = ("now", "ready", "duration", "deadline", "n_pe", "pes")
            scalar.unknown_keys(d, (*keys, "busy"))
            busy = d.get("busy", [])
            if not isinstance(busy, list):
                raise ProblemError("busy", "a list of [pe, start, end]", busy)
            for i, item in enumerate(busy):
                if not (
                    isinstance(item, list)
                    and len(item) == 3
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in item)
                ):
                    raise ProblemError(f"busy[{i}]", "[pe, start, end] as integers", item)
            return cls(**{k: scalar.integer(d, k) for k in keys}, busy=[tuple(b) for b in busy])

        return scalar.with_source(build, data, source)


@dataclass(frozen=True, slots=True)
class ReservationDecision:
    """An answer: accept at ``start`` on ``pe_set``, or reject (``accepted = False``)."""

    kind: ClassVar[str] = "reservation"

    status: Status
    accepted: bool = False
    start: int = -1
    pe_set: tuple[int, ...] = ()
    objectives: tuple[float, ...] = ()
    trace: tuple[TracePoint, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver: str = ""
    latency_s: float = math.nan

    def __post_init__(self) -> None:
        scalar.freeze_common(self)
        set_ = object.__setattr__
        set_(self, "accepted", bool(self.accepted))
        if isinstance(self.start, bool) or not isinstance(self.start, (int, np.integer)):
            raise InvalidDecisionError(f"start: expected an integer time, got {self.start!r}")
        set_(self, "start", int(self.start))
        pes = []
        for pe in self.pe_set:
            if isinstance(pe, bool) or not isinstance(pe, (int, np.integer)):
                raise InvalidDecisionError(f"pe_set: expected integer PE ids, got {pe!r}")
            pes.append(int(pe))
        set_(self, "pe_set", tuple(sorted(pes)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "start": self.start if self.accepted else None,
            "pe_set": list(self.pe_set),
            **scalar.common_json(self),
        }

    @classmethod
    def from_dict(cls, data: Any) -> ReservationDecision:
        fields = scalar.common_fields(data)
        start = data.get("start")
        return cls(
            accepted=bool(data.get("accepted", False)),
            start=-1 if start is None else int(start),
            pe_set=tuple(int(x) for x in data.get("pe_set") or ()),
            **fields,
        )
