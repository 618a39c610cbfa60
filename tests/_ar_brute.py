"""A brute-force reference of the advance-reservation semantics, written
straight from the pinned rules with per-PE interval lists and Python sets — no records, no
bitsets, no bisect — so that the property tests can compare ``simcore/reservations/slots.py``
with it on random sequences of add / delete / find.
"""

from __future__ import annotations

UNBOUNDED_END = 10**9


class BruteAvailability:
    def __init__(self, pes: int):
        self.pes = pes
        #: per PE: a list of busy intervals [start, end), disjoint, unsorted
        self.on: list[list[tuple[int, int]]] = [[] for _ in range(pes)]

    # -- occupancy -------------------------------------------------------------------------------
    def busy_at(self, t: int) -> frozenset[int]:
        return frozenset(p for p in range(self.pes) if any(s <= t < e for s, e in self.on[p]))

    def is_free(self, p: int, a: int, b: int) -> bool:
        return all(e <= a or s >= b for s, e in self.on[p])

    def free_over(self, a: int, b: int) -> list[int]:
        return [p for p in range(self.pes) if self.is_free(p, a, b)]

    def slot_times(self) -> list[int]:
        """Instants where the set of busy PEs changes (times are integers: compare t − 1)."""
        points = {x for ivs in self.on for iv in ivs for x in iv}
        return sorted(t for t in points if self.busy_at(t) != self.busy_at(t - 1))

    def records(self) -> list[tuple[int, frozenset[int]]]:
        return [(t, self.busy_at(t)) for t in self.slot_times()]

    # -- updates ---------------------------------------------------------------------------------
    def add(self, start: int, end: int, pes: set[int]) -> bool:
        """False (and nothing changes) when a PE is busy somewhere in [start, end)."""
        if not all(self.is_free(p, start, end) for p in pes):
            return False
        for p in pes:
            self.on[p].append((start, end))
        return True

    def delete(self, start: int, end: int, pes: set[int]) -> bool:
        """False (and nothing changes) unless every PE is busy over all of [start, end)."""

        def covered(p: int) -> bool:
            t = start
            while t < end:
                nxt = [e for s, e in self.on[p] if s <= t < e]
                if not nxt:
                    return False
                t = nxt[0]
            return True

        if not all(covered(p) for p in pes):
            return False
        for p in pes:
            out = []
            for s, e in self.on[p]:
                if e <= start or s >= end:
                    out.append((s, e))
                    continue
                if s < start:
                    out.append((s, start))
                if e > end:
                    out.append((end, e))
            self.on[p] = out
        return True

    # -- the pinned rules ------------------------------------------------------------------------
    def candidates(self, ready: int, duration: int, deadline: int) -> list[int]:
        hi = deadline - duration
        if hi < ready:
            return []
        out = {ready}
        for s in self.slot_times():
            if ready <= s <= hi:
                out.add(s)
            if ready <= s - duration <= hi:
                out.add(s - duration)
        return sorted(out)

    def rectangle(
        self, start: int, duration: int, deadline: int, now: int
    ) -> tuple[list[int], int, int]:
        free = self.free_over(start, start + duration)
        # T_begin: earliest time >= now with every PE of F free over [T_begin, start)
        t_begin = now
        while t_begin < start and not all(self.is_free(p, t_begin, start) for p in free):
            t_begin += 1
        # T_end: latest time with every PE of F free over [start + duration, T_end)
        later = [s for p in free for s, _e in self.on[p] if s >= start + duration]
        t_end = min(later) if later else deadline + UNBOUNDED_END
        return free, t_begin, t_end

    def find(
        self, ready: int, duration: int, deadline: int, n_pe: int, now: int, policy: str
    ) -> tuple[int, list[int]] | None:
        best = None
        for t in self.candidates(ready, duration, deadline):
            free, t_begin, t_end = self.rectangle(t, duration, deadline, now)
            if len(free) < n_pe:
                continue
            if policy == "ff":
                return t, free[:n_pe]
            measure, rule = policy.split("-")
            score = {
                "pe": len(free),
                "du": t_end - t_begin,
                "pedu": len(free) * (t_end - t_begin),
            }[measure]
            key = score if rule == "b" else -score
            if best is None or key < best[0]:
                best = (key, t, free[:n_pe])
        return None if best is None else (best[1], best[2])


def serve_brute(requests, pes: int, policy: str) -> list[tuple[int, bool, int | None, list[int]]]:
    """Serve requests (objects with id, arrival, ready, duration, deadline, pes) in arrival
    order, ties by id: (id, accepted, start, PE ids) per request."""
    avail = BruteAvailability(pes)
    out = []
    for r in sorted(requests, key=lambda r: (r.arrival, r.id)):
        if (
            r.duration < 1
            or r.pes < 1
            or r.pes > pes
            or r.ready < r.arrival
            or r.deadline < r.ready + r.duration
        ):
            out.append((r.id, False, None, []))
            continue
        found = avail.find(r.ready, r.duration, r.deadline, r.pes, r.arrival, policy)
        if found is None:
            out.append((r.id, False, None, []))
            continue
        start, ids = found
        assert avail.add(start, start + r.duration, set(ids))
        out.append((r.id, True, start, ids))
    return out


def offline_optimum_brute(requests, pes: int) -> int:
    """The most requests any schedule accepts when all are known in advance: every request
    rejected or started at some t_s in [t_r, t_dl − t_du], at no instant more than ``pes`` PEs
    in use (integer times; exhaustive search, small instances only)."""
    valid = [
        r
        for r in requests
        if r.duration >= 1
        and 1 <= r.pes <= pes
        and r.ready >= r.arrival
        and r.deadline >= r.ready + r.duration
    ]
    horizon = max((r.deadline for r in valid), default=0)
    used = [0] * (horizon + 1)
    best = 0

    def go(k: int, accepted: int) -> None:
        nonlocal best
        best = max(best, accepted)
        if k == len(valid) or accepted + len(valid) - k <= best:
            return
        r = valid[k]
        for s in range(r.ready, r.deadline - r.duration + 1):
            span = range(s, s + r.duration)
            if all(used[t] + r.pes <= pes for t in span):
                for t in span:
                    used[t] += r.pes
                go(k + 1, accepted + 1)
                for t in span:
                    used[t] -= r.pes
        go(k + 1, accepted)

    go(0, 0)
    return best
