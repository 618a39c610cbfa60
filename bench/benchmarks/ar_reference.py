"""A straightforward list-based implementation of the paper's slot structure, written here to
measure ``simcore/reservations/slots.py`` against (``ar_speed.py``).

``papers/advance-reservation-with-deadlines.txt``, Section 4, as a reader would first code it:
``AvailRectList`` is a Python list of ``[time, set of busy PE ids]`` records, kept sorted and
searched linearly (the paper's linked list; ``TimeSet`` is the list's own order), PE sets are
Python ``set``s, every operation scans the list, and a finished job's allocation is deleted
when the clock passes its end (Section 4.1: "when a job finishes, deleteAllocation is called
immediately"). The decisions follow the same pinned rules
(docs/design.md#pinned-semantics-where-a-paper-is-vague), so they equal the fast path's —
``ar_speed.py`` checks that on every stream it times, ``tests/simcore/test_ar_driver.py`` on random ones.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

UNBOUNDED_END = 10**9


class ListSlots:
    """The paper's AvailRectList as a plain sorted list of [time, set] records."""

    def __init__(self, pes: int) -> None:
        self.pes = pes
        self.records: list[list[Any]] = []  # [time, set of busy PEs]

    def _busy_at_index(self, t: int) -> int:
        """Index of the record in force at t (-1: before the first)."""
        k = -1
        for i, (time, _pes) in enumerate(self.records):
            if time <= t:
                k = i
            else:
                break
        return k

    def _boundary(self, t: int) -> int:
        for i, (time, _pes) in enumerate(self.records):
            if time == t:
                return i
            if time > t:
                prev = set(self.records[i - 1][1]) if i > 0 else set()
                self.records.insert(i, [t, prev])
                return i
        prev = set(self.records[-1][1]) if self.records else set()
        self.records.append([t, prev])
        return len(self.records) - 1

    def _clean(self) -> None:
        out: list[list[Any]] = []
        for time, pes in self.records:
            if (out and out[-1][1] == pes) or (not out and not pes):
                continue
            out.append([time, pes])
        self.records = out

    def add(self, start: int, end: int, pes: set[int]) -> None:
        i = self._boundary(start)
        j = self._boundary(end)
        for k in range(i, j):
            self.records[k][1] = self.records[k][1] | pes
        self._clean()

    def delete(self, start: int, end: int, pes: set[int]) -> None:
        i = self._boundary(start)
        j = self._boundary(end)
        for k in range(i, j):
            self.records[k][1] = self.records[k][1] - pes
        self._clean()

    def free_over(self, a: int, b: int) -> set[int]:
        held: set[int] = set()
        for i, (time, pes) in enumerate(self.records):
            nxt = self.records[i + 1][0] if i + 1 < len(self.records) else None
            if time < b and (nxt is None or nxt > a):
                held |= pes
        return set(range(self.pes)) - held

    def candidates(self, ready: int, duration: int, deadline: int) -> list[int]:
        hi = deadline - duration
        if hi < ready:
            return []
        out = {ready}
        for time, _pes in self.records:
            if ready <= time <= hi:
                out.add(time)
            if ready <= time - duration <= hi:
                out.add(time - duration)
        return sorted(out)

    def rectangle(
        self, start: int, duration: int, deadline: int, now: int, free: set[int]
    ) -> tuple[int, int]:
        t_begin = now
        for i in range(len(self.records) - 1, -1, -1):
            time, pes = self.records[i]
            nxt = self.records[i + 1][0] if i + 1 < len(self.records) else None
            if nxt is None or time >= start or nxt > start:
                continue
            if nxt <= now:
                break
            if pes & free:
                t_begin = nxt
                break
        t_end = deadline + UNBOUNDED_END
        for time, pes in self.records:
            if time >= start + duration and pes & free:
                t_end = time
                break
        return max(t_begin, now), t_end

    def find(
        self, ready: int, duration: int, deadline: int, n_pe: int, now: int, policy: str
    ) -> tuple[int, list[int]] | None:
        best: tuple[int, int, set[int]] | None = None
        for t in self.candidates(ready, duration, deadline):
            free = self.free_over(t, t + duration)
            if len(free) < n_pe:
                continue
            if policy == "ff":
                return t, sorted(free)[:n_pe]
            measure, rule = policy.split("-")
            if measure == "pe":
                score = len(free)
            else:
                t_begin, t_end = self.rectangle(t, duration, deadline, now, free)
                score = t_end - t_begin if measure == "du" else len(free) * (t_end - t_begin)
            key = score if rule == "b" else -score
            if best is None or key < best[0]:
                best = (key, t, free)
        return None if best is None else (best[1], sorted(best[2])[:n_pe])


def serve_list(
    requests: Iterable[Any], pes: int, policy: str
) -> list[tuple[int, bool, int | None, list[int]]]:
    """Serve valid requests in arrival order (ties by id) with the list-based structure,
    deleting each job's allocation once the clock passes its end."""
    slots = ListSlots(pes)
    running: list[tuple[int, int, int, frozenset[int]]] = []  # (end, start, id, PEs)
    out: list[tuple[int, bool, int | None, list[int]]] = []
    for r in sorted(requests, key=lambda r: (r.arrival, r.id)):
        while running and running[0][0] <= r.arrival:
            end, begun, _id, held = heapq.heappop(running)
            slots.delete(begun, end, set(held))
        found = slots.find(r.ready, r.duration, r.deadline, r.pes, r.arrival, policy)
        if found is None:
            out.append((r.id, False, None, []))
            continue
        start, chosen = found
        slots.add(start, start + r.duration, set(chosen))
        heapq.heappush(running, (start + r.duration, start, r.id, frozenset(chosen)))
        out.append((r.id, True, start, chosen))
    return out
