"""The paper's slot structure: the availability of a machine of ``pes`` PEs as records
(time, busy PE set) (``papers/advance-reservation-with-deadlines.txt``, Section 4).

A record ``(t_k, B_k)`` says that from ``t_k`` until the next record's time exactly the PEs of
``B_k`` are busy (held by a running or reserved job). Before the first record nothing is busy,
and the last record is always ``(t, ∅)``: "all busy PEs recorded in the previous time slot are
set free". The paper keeps the records in a linked list (``AvailRectList``) and their times in a
sorted set (``TimeSet``); here both are one pair of parallel Python lists, ``times`` (sorted
ints) and ``busy`` (PE sets as Python ints used as bitsets: bit p set = PE p busy), searched with
``bisect``. A PE set of 1,024 PEs is a 1,024-bit int: union, intersection and difference are
single C operations, ``int.bit_count`` counts a set, and the lists' inserts and deletes are
memmoves.

Canonical form (Section 4.1, "clean possible redundant records"): no record repeats the busy set
of the record before it, and the first record's set is not empty. So the records' times are
exactly the instants at which the set of busy PEs changes — the *slot times*. A job that starts
on the same PEs at the instant another ends leaves no slot time there (Figure 1, step 3).

Operations (Sections 4.1–4.2):

* :meth:`SlotStructure.add` (``addAllocation``) and :meth:`SlotStructure.delete`
  (``deleteAllocation``): add / subtract a PE set over [t_s, t_e) and merge what became
  redundant; O(log n + n') bitset operations for n' records inside the interval.
* :meth:`SlotStructure.candidates` — the candidate start times of a request (the pinned
  rule, docs/design.md#pinned-semantics-where-a-paper-is-vague): t_r, every slot time s with t_r ≤ s
  ≤ t_dl − t_du, and every s − t_du with t_r ≤ s − t_du ≤ t_dl − t_du; duplicates removed,
  ascending. (Figure 1 of the paper also lists the latest start t_dl − t_du itself;
  ``latest_start=True`` adds it, the paper's figure mode.)
* :meth:`SlotStructure.free_over` — the PEs free over [a, b); :meth:`SlotStructure.rectangle`
  — the maximum availability rectangle (F, T_begin, T_end) of a start time (Section 4.2, line 7
  of Algorithm 3, with the ends pinned where the paper is vague: T_begin ≥ the current time, T_end =
  t_dl + 10^9 when nothing later holds a PE of F);
* :meth:`SlotStructure.find` (``findAllocation``) — the allocation a fit policy
  (``fit.py``) chooses, or None;
* :meth:`SlotStructure.discard_before` — forget the past (records wholly before the current
  time); invisible to every answer because start times and T_begin are never before it.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.reservations.reading import UNBOUNDED_END, Reading

if TYPE_CHECKING:
    from schedbench.simcore.reservations.fit import FitPolicy

__all__ = ["UNBOUNDED_END", "Allocation", "Rectangle", "SlotStructure", "ids_of", "mask_of"]


def mask_of(pes: Iterable[int]) -> int:
    """The bitset of a collection of PE ids."""
    mask = 0
    for pe in pes:
        mask |= 1 << pe
    return mask


def ids_of(mask: int) -> list[int]:
    """The PE ids of a bitset, ascending."""
    out = []
    p = 0
    while mask:
        low = mask & -mask
        p = low.bit_length() - 1
        out.append(p)
        mask ^= low
    return out


def lowest(mask: int, n: int) -> int:
    """The ``n`` lowest-numbered PEs of ``mask`` (which holds at least n), as a bitset.

    Binary search on the bit position: O(log pes) popcounts instead of n bit extractions."""
    if n <= 0:
        return 0
    lo, hi = 0, mask.bit_length()  # popcount(mask below bit hi) = |mask| >= n
    while lo < hi:
        mid = (lo + hi) // 2
        if (mask & ((1 << mid) - 1)).bit_count() >= n:
            hi = mid
        else:
            lo = mid + 1
    return mask & ((1 << lo) - 1)


def highest(mask: int, n: int) -> int:
    """The ``n`` highest-numbered PEs of ``mask`` (which holds at least n), as a bitset."""
    return mask ^ lowest(mask, mask.bit_count() - n)


@dataclass(frozen=True, slots=True)
class Rectangle:
    """The maximum availability rectangle of a feasible start time (Section 4.2): the PEs
    ``free`` (F, a bitset) over [start, start + t_du), extended in time to [t_begin, t_end)."""

    start: int
    free: int
    n_free: int
    t_begin: int
    t_end: int

    @property
    def duration(self) -> int:
        """Du = T_end − T_begin (Section 5)."""
        return self.t_end - self.t_begin


@dataclass(frozen=True, slots=True)
class Allocation:
    """An accepted request's start time and PEs (a bitset; :attr:`pe_ids` lists them)."""

    start: int
    mask: int

    @property
    def pe_ids(self) -> list[int]:
        return ids_of(self.mask)


@lru_cache(maxsize=256)
def _fast(reading: Reading) -> bool:
    """Whether ``reading`` serves as the pinned rules but for ``unbounded_end`` and
    ``latest_start``, which :meth:`SlotStructure.find`'s fast path takes as arguments (cached:
    it is asked once per request)."""
    return reading.serving() == Reading(
        unbounded_end=reading.unbounded_end, latest_start=reading.latest_start
    )


class SlotStructure:
    """Records (time, busy PE set) of a machine of ``pes`` PEs; see the module docstring.

    Times are integers (seconds). Not thread-safe; a policy only reads it (``find``), the driver
    (``driver.py``) alone adds.
    """

    __slots__ = ("_all", "busy", "pes", "times")

    def __init__(self, pes: int) -> None:
        if isinstance(pes, bool) or not isinstance(pes, int) or pes < 1:
            raise ValueError(f"pes: expected an integer >= 1, got {pes!r}")
        self.pes = pes
        self._all = (1 << pes) - 1
        #: Record times, ascending (the paper's TimeSet).
        self.times: list[int] = []
        #: busy[k]: the PEs busy over [times[k], times[k + 1]) (AvailRectList), as a bitset.
        self.busy: list[int] = []

    # -- inspection ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.times)

    def records(self) -> list[tuple[int, int]]:
        """(time, busy bitset) of every record."""
        return list(zip(self.times, self.busy, strict=True))

    def record_sets(self) -> list[tuple[int, frozenset[int]]]:
        """(time, busy PE ids) of every record, as the paper writes them."""
        return [(t, frozenset(ids_of(b))) for t, b in zip(self.times, self.busy, strict=True)]

    def busy_at(self, t: int) -> int:
        """The PEs busy at instant ``t``."""
        k = bisect_right(self.times, t) - 1
        return self.busy[k] if k >= 0 else 0

    def copy(self) -> SlotStructure:
        other = SlotStructure(self.pes)
        other.times = self.times.copy()
        other.busy = self.busy.copy()
        return other

    def _check_canonical(self) -> None:
        """Raise AssertionError unless the records are in canonical form (tests)."""
        times, busy = self.times, self.busy
        assert len(times) == len(busy)
        assert all(a < b for a, b in itertools.pairwise(times)), "times not ascending"
        if times:
            assert busy[0] != 0, "first record is empty"
            assert busy[-1] == 0, "last record is not empty"
        assert all(a != b for a, b in itertools.pairwise(busy)), "redundant record"
        assert all(0 <= b <= self._all for b in busy), "PE outside the machine"

    # -- queries ---------------------------------------------------------------------------------
    def busy_over(self, a: int, b: int) -> int:
        """The PEs busy at some instant of [a, b) (a < b)."""
        times, busy = self.times, self.busy
        k = bisect_right(times, a) - 1
        if k < 0:
            k = 0
        n = len(times)
        held = 0
        while k < n and times[k] < b:
            held |= busy[k]
            k += 1
        return held

    def free_over(self, a: int, b: int) -> int:
        """The PEs free over [a, b): no accepted job holds them at any instant of it."""
        return self._all & ~self.busy_over(a, b)

    def candidates(
        self, ready: int, duration: int, deadline: int, *, latest_start: bool = False
    ) -> list[int]:
        """The candidate start times of a request (module docstring), ascending, or [] when
        the window [t_r, t_dl − t_du] is empty."""
        hi = deadline - duration
        if hi < ready:
            return []
        times = self.times
        inside = times[bisect_left(times, ready) : bisect_right(times, hi)]
        shifted = times[bisect_left(times, ready + duration) : bisect_right(times, hi + duration)]
        out = {ready, *inside}
        out.update(s - duration for s in shifted)
        if latest_start:
            out.add(hi)
        return sorted(out)

    def rectangle(
        self,
        start: int,
        duration: int,
        deadline: int,
        now: int,
        *,
        unbounded_end: int = UNBOUNDED_END,
    ) -> Rectangle:
        """The maximum availability rectangle of ``start`` (module docstring). ``start`` need
        not be feasible; F is whatever is free over [start, start + t_du). An unbounded
        rectangle ends at t_dl + ``unbounded_end`` (10^9 pinned; see :meth:`find`)."""
        free = self.free_over(start, start + duration)
        t_begin, t_end = self._extent(start, duration, deadline, now, free, unbounded_end)
        return Rectangle(start, free, free.bit_count(), t_begin, t_end)

    def _extent(
        self,
        start: int,
        duration: int,
        deadline: int,
        now: int,
        free: int,
        unbounded_end: int = UNBOUNDED_END,
    ) -> tuple[int, int]:
        """(T_begin, T_end) of the rectangle of PE set ``free`` around [start, start + t_du)."""
        times, busy = self.times, self.busy
        # T_begin: the end of the last record before ``start`` that holds a PE of F (the record
        # containing ``start`` overlaps the job's interval, so it holds none), at least ``now``.
        k = bisect_right(times, start) - 2
        t_begin = now
        while k >= 0 and times[k + 1] > now:
            if busy[k] & free:
                t_begin = times[k + 1]
                break
            k -= 1
        # T_end: the first record at or after the job's end that holds a PE of F.
        end = start + duration
        n = len(times)
        k = bisect_left(times, end)
        t_end = deadline + unbounded_end
        while k < n:
            if busy[k] & free:
                t_end = times[k]
                break
            k += 1
        return max(t_begin, now), t_end

    def rectangles(
        self,
        ready: int,
        duration: int,
        deadline: int,
        n_pe: int,
        now: int,
        *,
        latest_start: bool = False,
        unbounded_end: int = UNBOUNDED_END,
    ) -> Iterator[Rectangle]:
        """The rectangle of every feasible candidate start (at least ``n_pe`` PEs free over
        [t_s, t_s + t_du)), in ascending start order (Algorithm 3, lines 6–9)."""
        for t in self.candidates(ready, duration, deadline, latest_start=latest_start):
            free = self.free_over(t, t + duration)
            n_free = free.bit_count()
            if n_free >= n_pe:
                t_begin, t_end = self._extent(t, duration, deadline, now, free, unbounded_end)
                yield Rectangle(t, free, n_free, t_begin, t_end)

    def find(
        self,
        ready: int,
        duration: int,
        deadline: int,
        n_pe: int,
        now: int,
        policy: FitPolicy,
        *,
        latest_start: bool = False,
        unbounded_end: int = UNBOUNDED_END,
        reading: Reading | None = None,
    ) -> Allocation | None:
        """``findAllocation(t_r, t_du, t_dl, n_pe, policy)`` (Algorithm 3): the start time the
        policy chooses among the feasible candidates and the n_pe lowest-numbered PEs of its F,
        or None when no candidate is feasible. ``now`` is the current time (the request's
        arrival); candidates start at ``ready`` (callers raise it to ``now`` if need be).

        Two switches leave the pinned semantics for the paper's own, which it does
        not fully state: ``latest_start`` adds t_dl − t_du to the candidates (Figure 1 lists
        it), and ``unbounded_end`` is what an unbounded rectangle's T_end adds to t_dl (10^9
        pinned; 0 ends it at the deadline, so that Du and PEDu compare unbounded rectangles
        with bounded ones on the request's own horizon). ``reading`` (``reading.py``), when
        given, sets every open rule at once and overrides the two switches."""
        if n_pe < 1 or n_pe > self.pes or duration < 1:
            return None
        if reading is not None and not _fast(reading):
            return self._find_read(ready, duration, deadline, n_pe, now, policy, reading)
        if reading is not None:
            latest_start, unbounded_end = reading.latest_start, reading.unbounded_end
        starts = self.candidates(ready, duration, deadline, latest_start=latest_start)
        if not starts:
            return None
        times, busy, all_pes = self.times, self.busy, self._all
        n = len(times)
        measure = policy.measure
        best_key: float | None = None
        best_start, best_free = 0, 0
        sign = 1 if policy.best else -1
        # Records overlapping [t, t + t_du): both ends move right as t grows, so one forward
        # walk finds each candidate's first record.
        first = 0
        for t in starts:
            while first + 1 < n and times[first + 1] <= t:
                first += 1
            held = 0
            k = first
            while k < n and times[k] < t + duration:
                held |= busy[k]
                k += 1
            free = all_pes & ~held
            n_free = free.bit_count()
            if n_free < n_pe:
                continue
            if measure == "first":
                return Allocation(t, lowest(free, n_pe))
            if measure == "pe":
                key: float = sign * n_free
            else:
                t_begin, t_end = self._extent(t, duration, deadline, now, free, unbounded_end)
                score = t_end - t_begin if measure == "du" else n_free * (t_end - t_begin)
                key = sign * score
            if best_key is None or key < best_key:  # strict: ties go to the earliest start
                best_key, best_start, best_free = key, t, free
        if best_key is None:
            return None
        return Allocation(best_start, lowest(best_free, n_pe))

    def _find_read(
        self,
        ready: int,
        duration: int,
        deadline: int,
        n_pe: int,
        now: int,
        policy: FitPolicy,
        reading: Reading,
    ) -> Allocation | None:
        """:meth:`find` under a reading other than the pinned rules (``reading.py``): the
        plain path, every feasible candidate scored (the extent only where the measure needs
        it), then the policy's pick."""
        last_end = deadline - 1 if reading.deadline == "exclusive" else deadline
        pick = highest if reading.pe_ids == "highest" else lowest
        measure = policy.measure
        feasible: list[tuple[int, int, int]] = []  # (start, free, n_free)
        times, busy, all_pes = self.times, self.busy, self._all
        n = len(times)
        first = 0  # the first record overlapping [t, t + t_du): one forward walk, as in find
        for t in self.candidates(ready, duration, last_end, latest_start=reading.latest_start):
            while first + 1 < n and times[first + 1] <= t:
                first += 1
            held = 0
            k = first
            end = t + duration
            while k < n and times[k] < end:
                held |= busy[k]
                k += 1
            free = all_pes & ~held
            n_free = free.bit_count()
            if n_free < n_pe:
                continue
            if measure == "first":
                return Allocation(t, pick(free, n_pe))
            feasible.append((t, free, n_free))
        if not feasible:
            return None
        if measure == "pe":
            scores: list[float] = [float(n) for _t, _f, n in feasible]
        else:
            # an unbounded T_end counts from the request's deadline, whatever the last end
            extents = [
                self._extent(t, duration, deadline, now, f, reading.unbounded_end)
                for t, f, _n in feasible
            ]
            dus = [e - b for b, e in extents]
            if measure == "du":
                scores = [float(d) for d in dus]
            elif reading.pedu == "sum":
                du_max = max(dus) or 1
                scores = [
                    n / self.pes + d / du_max for (_t, _f, n), d in zip(feasible, dus, strict=True)
                ]
            else:
                scores = [float(n * d) for (_t, _f, n), d in zip(feasible, dus, strict=True)]
        sign = 1 if policy.best else -1
        order = range(len(feasible))
        if reading.tie == "latest":
            order = range(len(feasible) - 1, -1, -1)
        # among equal scores the first in ``order`` wins (the earliest or the latest start)
        best = min(order, key=lambda i: sign * scores[i])
        return Allocation(feasible[best][0], pick(feasible[best][1], n_pe))

    # -- updates ---------------------------------------------------------------------------------
    def split(self, t: int) -> None:
        """Leave a record at time ``t`` even if it repeats the one before (a slot time that no
        change of the busy set makes; the ``merge=keep`` reading, ``reading.py``). It stays
        until an update at ``t`` cleans it or the past is discarded."""
        self._boundary(t)

    def _boundary(self, t: int) -> int:
        """Index of the record at time ``t``, inserting one (with the busy set in force at t)
        if there is none. The new record may be redundant; callers clean up."""
        times = self.times
        i = bisect_left(times, t)
        if i == len(times) or times[i] != t:
            times.insert(i, t)
            self.busy.insert(i, self.busy[i - 1] if i > 0 else 0)
        return i

    def _clean(self, i: int) -> None:
        """Drop record ``i`` if it is redundant (same set as the record before, or an empty
        first record)."""
        busy = self.busy
        if 0 <= i < len(busy) and (busy[i] == busy[i - 1] if i > 0 else busy[i] == 0):
            del self.times[i]
            del busy[i]

    def _check_interval(self, start: int, end: int, mask: int) -> None:
        if start >= end:
            raise InvalidDecisionError(f"allocation [{start}, {end}): expected start < end")
        if mask <= 0 or mask & ~self._all:
            raise InvalidDecisionError(
                f"allocation PEs {ids_of(mask) if mask > 0 else mask}: expected a non-empty "
                f"set of PEs in 0..{self.pes - 1}"
            )

    def add(self, start: int, end: int, mask: int) -> None:
        """``addAllocation(t_s, t_e, PE_job)`` (Algorithm 1): the PEs of ``mask`` become busy
        over [start, end). Raises ``InvalidDecisionError`` (and changes nothing) when one of
        them is already busy there."""
        self._check_interval(start, end, mask)
        clash = self.busy_over(start, end) & mask
        if clash:
            raise InvalidDecisionError(f"PE {ids_of(clash)[0]} is not free over [{start}, {end})")
        i = self._boundary(start)
        j = self._boundary(end)
        busy = self.busy
        for k in range(i, j):
            busy[k] |= mask
        # Inside [i, j) the records stay distinct (disjoint sets plus the same mask); only the
        # two boundaries can have become redundant. Clean the later one first (indices).
        self._clean(j)
        self._clean(i)

    def delete(self, start: int, end: int, mask: int) -> None:
        """``deleteAllocation(t_s, t_e, PE_job)`` (Algorithm 2): the PEs of ``mask`` become
        free over [start, end). Raises ``InvalidDecisionError`` (and changes nothing) unless
        all of them are busy over the whole interval."""
        self._check_interval(start, end, mask)
        times, busy = self.times, self.busy
        k = bisect_right(times, start) - 1
        covered = k >= 0
        k = max(k, 0)
        while covered and k < len(times) and times[k] < end:
            if busy[k] & mask != mask:
                covered = False
            k += 1
        if not covered:
            raise InvalidDecisionError(
                f"PEs {ids_of(mask)} are not all busy over [{start}, {end}): nothing to delete"
            )
        i = self._boundary(start)
        j = self._boundary(end)
        for k in range(i, j):
            busy[k] &= ~mask
        self._clean(j)
        self._clean(i)

    def discard_before(self, t: int) -> None:
        """Forget everything before instant ``t``: the record in force at ``t`` is moved to
        ``t`` (dropped if empty) and earlier records go. Start times and T_begin are never
        before the current time, so no answer changes (see ``tests/simcore/test_ar_slots.py``)."""
        times, busy = self.times, self.busy
        k = bisect_right(times, t) - 1
        if k < 0:
            return
        del times[:k]
        del busy[:k]
        times[0] = t
        if busy[0] == 0:
            del times[0]
            del busy[0]
