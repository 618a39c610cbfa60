"""The ``reservation`` kind's types: answer an advance-reservation request with a start time and
a set of processors inside its deadline window, or reject it
(``papers/advance-reservation-with-deadlines.txt``, Sections 3–5; where the paper is vague the rules
are pinned: docs/design.md#pinned-semantics-where-a-paper-is-vague).

A request arrives at ``now`` (t_a) with a ready time ``ready`` (t_r), a ``duration`` (t_du), a
``deadline`` (t_dl, latest end) and a PE count ``n_pe``; the machine has ``pes`` PEs, and
``held`` lists the accepted jobs that have not ended as (start, end, PE ids): each holds its PEs
exclusively over [start, end). Times are integers (seconds). A PE is free over [a, b) when no
held job holds it at any instant of [a, b). The holdings are kept as the paper's slot structure
(``simcore/reservations/slots.py``: records (time, busy PE set), redundant records merged), which
gives the candidate start times, the free PEs and the availability rectangles.

An answer accepts with ``start`` in [max(t_r, now), t_dl − t_du] and ``pe_set`` of exactly
n_pe distinct PEs free over [start, start + t_du), or rejects (``accepted = False``). The
objective is 1 for an acceptance, 0 for a rejection (maximised). Any start in the window is
allowed (an optimising backend may use starts that are not candidates); acceptance is still
decided exactly by the candidates: a feasible start moved earlier stays feasible until it
reaches t_r or a slot time, both candidates.

JSON: ``{"kind": "reservation", "now", "ready", "duration", "deadline", "n_pe", "pes",
"held": [[start, end, [pe, ...]], ...]}``; the skeleton's per-PE form ``"busy": [[pe, start,
end], ...]`` is still read (each interval becomes a one-PE job).
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
from schedbench.simcore.reservations.fit import FitPolicy, get_fit_policy
from schedbench.simcore.reservations.reading import Reading
from schedbench.simcore.reservations.slots import (
    Allocation,
    Rectangle,
    SlotStructure,
    ids_of,
    mask_of,
)

Held = tuple[int, int, tuple[int, ...]]


#: Most PEs a machine may have: the slot structure keeps one bit per PE per interval.
MAX_PES = 1_000_000
#: Largest time (seconds, about 31,700 years): later times are a typo, and larger integers
#: overflow the int64 arrays the solvers use.
MAX_TIME = 10**12


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ProblemError(name, "an integer", value)
    if abs(int(value)) > MAX_TIME:
        raise ProblemError(name, f"an integer of magnitude at most {MAX_TIME:,}", value)
    return int(value)


def held_from_busy(busy: Iterable[Any]) -> list[Held]:
    """The skeleton's per-PE intervals ``(pe, start, end)`` as one-PE held jobs."""
    out: list[Held] = []
    for i, item in enumerate(busy):
        try:
            pe, start, end = (_int(f"busy[{i}]", x) for x in item)
        except (TypeError, ValueError) as exc:
            raise ProblemError(f"busy[{i}]", "[pe, start, end] as integers", item) from exc
        out.append((start, end, (pe,)))
    return out


@dataclass(frozen=True, slots=True, eq=False)
class ReservationProblem:
    """One request against the current holdings (see the module docstring)."""

    kind: ClassVar[str] = "reservation"
    #: PROBLEM.json keys besides ``kind``, ``name`` and ``meta``.
    JSON_KEYS: ClassVar[tuple[str, ...]] = (
        "now",
        "ready",
        "duration",
        "deadline",
        "n_pe",
        "pes",
        "held",
        "busy",
    )

    if TYPE_CHECKING:

        def __init__(
            self,
            now: int,
            ready: int,
            duration: int,
            deadline: int,
            n_pe: int,
            pes: int,
            held: Iterable[tuple[int, int, Iterable[int]]] = (),
        ) -> None: ...

    now: int
    ready: int
    duration: int
    deadline: int
    n_pe: int
    pes: int
    held: tuple[Held, ...] = ()
    _slots: SlotStructure = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("now", "ready", "duration", "deadline", "n_pe", "pes"):
            value = _int(name, getattr(self, name))
            if name in ("duration", "n_pe", "pes") and value < 1:
                raise ProblemError(name, "an integer >= 1 (seconds or PEs)", value)
            set_(self, name, value)
        if self.pes > MAX_PES:
            raise ProblemError("pes", f"at most {MAX_PES:,} PEs", self.pes)
        if self.n_pe > self.pes:
            raise ProblemError("n_pe", f"at most the machine's {self.pes} PEs", self.n_pe)
        slots = SlotStructure(self.pes)
        held: list[Held] = []
        for i, item in enumerate(self.held):
            where = f"held[{i}]"
            try:
                start, end, pe_ids = item
                start, end = _int(where, start), _int(where, end)
                ids = tuple(sorted(_int(where, p) for p in pe_ids))
            except (TypeError, ValueError) as exc:
                raise ProblemError(where, "[start, end, [pe, ...]] as integers", item) from exc
            if start >= end or not ids:
                raise ProblemError(where, "start < end and at least one PE", item)
            if ids[0] < 0 or ids[-1] >= self.pes or len(set(ids)) != len(ids):
                raise ProblemError(where, f"distinct PEs in 0..{self.pes - 1}", item)
            try:
                slots.add(start, end, mask_of(ids))
            except InvalidDecisionError as exc:
                raise ProblemError(
                    where, "a job whose PEs no other held job holds at the same time", item
                ) from exc
            held.append((start, end, ids))
        set_(self, "held", tuple(sorted(held)))
        set_(self, "_slots", slots)

    # -- the window ------------------------------------------------------------------------------
    @property
    def earliest_start(self) -> int:
        """max(t_r, now): nothing starts in the past."""
        return max(self.ready, self.now)

    @property
    def latest_start(self) -> int:
        return self.deadline - self.duration

    @property
    def slots(self) -> SlotStructure:
        """The holdings as the paper's slot structure (read it; do not change it)."""
        return self._slots

    def free_pes(self, start: int, end: int) -> list[int]:
        """PEs free over [start, end), ascending."""
        return ids_of(self._slots.free_over(start, end))

    def candidate_starts(self, *, latest_start: bool = False) -> list[int]:
        """The candidate start times (pinned rule): max(t_r, now), every slot time s inside the
        window, every s − t_du inside it; ascending, no duplicates."""
        return self._slots.candidates(
            self.earliest_start, self.duration, self.deadline, latest_start=latest_start
        )

    def rectangles(self) -> list[Rectangle]:
        """The availability rectangle of every feasible candidate start, ascending."""
        return list(
            self._slots.rectangles(
                self.earliest_start, self.duration, self.deadline, self.n_pe, self.now
            )
        )

    def fit(self, policy: FitPolicy | str, reading: Reading | None = None) -> Allocation | None:
        """The allocation a fit policy (``ff``, ``pe-b``, ...) chooses, or None; ``reading``
        (``simcore/reservations/reading.py``): the open rules, pinned when None."""
        fit = get_fit_policy(policy) if isinstance(policy, str) else policy
        return self._slots.find(
            self.earliest_start,
            self.duration,
            self.deadline,
            self.n_pe,
            self.now,
            fit,
            reading=reading,
        )

    # -- answers ---------------------------------------------------------------------------------
    def check(self, start: int, pe_set: tuple[int, ...]) -> None:
        """Raise ``InvalidDecisionError`` saying what is wrong with an acceptance, if anything."""
        lo, hi = self.earliest_start, self.latest_start
        if not lo <= start <= hi:
            raise InvalidDecisionError(f"start {start} outside the window [{lo}, {hi}]")
        if len(pe_set) != self.n_pe or len(set(pe_set)) != len(pe_set):
            raise InvalidDecisionError(f"expected {self.n_pe} distinct PEs, got {list(pe_set)}")
        bad = [pe for pe in pe_set if not 0 <= pe < self.pes]
        if bad:
            raise InvalidDecisionError(f"PE {bad[0]} outside 0..{self.pes - 1}")
        clash = self._slots.busy_over(start, start + self.duration) & mask_of(pe_set)
        if clash:
            raise InvalidDecisionError(
                f"PE {ids_of(clash)[0]} is not free over [{start}, {start + self.duration})"
            )

    def stranded_idle(self, start: int, pe_set: Iterable[int]) -> int:
        """PE-seconds of idle time the job leaves between itself and its neighbours on its PEs:
        for each PE, (start − the end of the previous held job on it, or now) plus (the start
        of the next held job on it − the job's end; 0 when none follows). A packing measure
        for comparing answers (smaller: the job fills a gap more tightly)."""
        end = start + self.duration
        total = 0
        for pe in pe_set:
            before, after = self.now, None
            for s, e, ids in self.held:
                if pe not in ids:
                    continue
                if e <= start:
                    before = max(before, e)
                elif s >= end:
                    after = s if after is None else min(after, s)
            total += max(0, start - before) + (0 if after is None else after - end)
        return total

    # -- JSON ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "reservation",
            "now": self.now,
            "ready": self.ready,
            "duration": self.duration,
            "deadline": self.deadline,
            "n_pe": self.n_pe,
            "pes": self.pes,
            "held": [[s, e, list(ids)] for s, e, ids in self.held],
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ReservationProblem:
        def build(d: Mapping[str, Any]) -> ReservationProblem:
            keys = ("now", "ready", "duration", "deadline", "n_pe", "pes")
            scalar.unknown_keys(d, cls.JSON_KEYS)
            if "held" in d and "busy" in d:
                raise ProblemError("busy", "either held or busy, not both", None)
            held: list[Any] = []
            if "busy" in d:
                busy = d["busy"]
                if not isinstance(busy, list):
                    raise ProblemError("busy", "a list of [pe, start, end]", busy)
                for i, item in enumerate(busy):
                    if not (isinstance(item, list) and len(item) == 3):
                        raise ProblemError(f"busy[{i}]", "[pe, start, end] as integers", item)
                held = held_from_busy(busy)
            else:
                raw = d.get("held", [])
                if not isinstance(raw, list):
                    raise ProblemError("held", "a list of [start, end, [pe, ...]]", raw)
                for i, item in enumerate(raw):
                    if not (
                        isinstance(item, list) and len(item) == 3 and isinstance(item[2], list)
                    ):
                        raise ProblemError(f"held[{i}]", "[start, end, [pe, ...]]", item)
                held = [tuple(item) for item in raw]
            return cls(
                **{k: scalar.integer(d, k, minimum=-(2**62)) for k in keys},
                held=held,
            )

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
