"""Compiled kernels of conservative backfilling's incremental pass (``simcore/backfill.py``,
``ConservativeBackfill._lean_pass``; docs/design.md#fast-paths-keep-the-plain-path-beside-them).

The same steps as the Python pass they replace, on arrays instead of lists and dicts, so that
one call does a whole pass: bring the free-node profile to ``now`` (``lean_catch_up``), then
visit the queue (``lean_pass``). The state lives in a handful of arrays owned by
``backfill._LeanProfile``:

``prof``   float64 (2, cap): breakpoint times and free nodes from each (the first ``P``);
``dirty``  float64 (3, capD): growth records (seq, start, end) (the first ``D``; seqs are whole
           numbers, exact in float64);
``jf``     float64 (4, n): per job its booked start, booked end, nodes and hold;
``ji``     int64 (4, n): per job its placement seq (0: none), its place in the list of booked
           jobs, whether it is booked, and (row 3) that list;
``meta``   int64: P, D, B (booked jobs), seq, grown_seq, compact_len.

Every sum is of whole numbers of nodes (the pass runs only then), so the float arithmetic is
exact and the results are those of the Python pass bit for bit
(``tests/simcore/test_conservative_incremental.py``).
"""

from __future__ import annotations

import numpy as np

from schedbench.simcore.jit import njit

# meta slots
P_, D_, B_, SEQ, GROWN, COMPACT = 0, 1, 2, 3, 4, 5
# ji rows
PLACED, BPOS, BOOKED, BLIST = 0, 1, 2, 3
# jf rows
BS, BE, NODES, HOLD = 0, 1, 2, 3


@njit(cache=True)
def _split(prof: np.ndarray, meta: np.ndarray, t: float, lo: int) -> int:
    """The index (>= ``lo``) of a breakpoint at ``t``, inserted (copying the previous free
    count) if there is none."""
    P = meta[P_]
    times = prof[0]
    avail = prof[1]
    i = lo + int(np.searchsorted(times[lo:P], t))
    if i == P or times[i] != t:
        for m in range(P, i, -1):
            times[m] = times[m - 1]
            avail[m] = avail[m - 1]
        times[i] = t
        avail[i] = avail[i - 1]
        meta[P_] = P + 1
    return i


@njit(cache=True)
def _book1(prof: np.ndarray, meta: np.ndarray, s: float, e: float, amount: float) -> None:
    """Add ``amount`` nodes over ``[s, e)``, splitting the profile at ``s`` and ``e``."""
    lo = _split(prof, meta, s, 0)
    hi = _split(prof, meta, e, lo)
    avail = prof[1]
    for m in range(lo, hi):
        avail[m] += amount


@njit(cache=True)
def _grow(
    prof: np.ndarray, dirty: np.ndarray, meta: np.ndarray, s: float, e: float, amount: float
) -> None:
    """``amount`` more nodes free over ``[s, e)``, recorded as growth."""
    _book1(prof, meta, s, e, amount)
    seq = meta[SEQ] + 1
    meta[SEQ] = seq
    meta[GROWN] = seq
    D = meta[D_]
    dirty[0, D] = seq
    dirty[1, D] = s
    dirty[2, D] = e
    meta[D_] = D + 1


@njit(cache=True)
def _earliest1(prof: np.ndarray, P: int, need: float, dur: float) -> int:
    times = prof[0]
    avail = prof[1]
    s = 0
    while s < P:
        if need > avail[s]:
            s += 1
            continue
        end = times[s] + dur
        m = s + 1
        while m < P and times[m] < end and need <= avail[m]:
            m += 1
        if m < P and times[m] < end:
            s = m + 1
            continue
        return s
    return -1


@njit(cache=True)
def _earlier1(
    prof: np.ndarray,
    P: int,
    need: float,
    dur: float,
    first: int,
    stop: int,
    own_lo: int,
    own_hi: int,
) -> int:
    times = prof[0]
    avail = prof[1]
    s = first
    while s < stop:
        if need > avail[s]:
            s += 1
            continue
        end = times[s] + dur
        m = s + 1
        while m < own_lo and times[m] < end and need <= avail[m]:
            m += 1
        if m < own_lo:
            if times[m] < end:
                s = m + 1
                continue
            return s
        m = own_hi
        while m < P and times[m] < end and need <= avail[m]:
            m += 1
        if m < P and times[m] < end:
            s = m + 1
            continue
        return s
    return -1


@njit(cache=True)
def _set_booking(
    jf: np.ndarray, ji: np.ndarray, meta: np.ndarray, j: int, s: float, e: float
) -> None:
    jf[BS, j] = s
    jf[BE, j] = e
    if ji[BOOKED, j] == 0:
        B = meta[B_]
        ji[BOOKED, j] = 1
        ji[BPOS, j] = B
        ji[BLIST, B] = j
        meta[B_] = B + 1


@njit(cache=True)
def _drop_booking(ji: np.ndarray, meta: np.ndarray, j: int) -> None:
    """Forget job ``j``'s booking and its placement seq."""
    if ji[BOOKED, j]:
        B = meta[B_] - 1
        p = ji[BPOS, j]
        last = ji[BLIST, B]
        ji[BLIST, p] = last
        ji[BPOS, last] = p
        ji[BOOKED, j] = 0
        meta[B_] = B
    ji[PLACED, j] = 0


@njit(cache=True)
def lean_catch_up(
    prof: np.ndarray,
    dirty: np.ndarray,
    ji: np.ndarray,
    meta: np.ndarray,
    grows: np.ndarray,
    n_grows: int,
    now: float,
) -> bool:
    """``_LeanProfile.catch_up`` once the vanished releases are known (``grows``: their times
    and nodes, in order): drop the past, grow, prune, compact. False: a negative entry (a
    from-scratch pass must follow)."""
    times = prof[0]
    avail = prof[1]
    P = meta[P_]
    if times[0] < now:
        i = np.searchsorted(times[:P], now, side="right") - 1
        if i > 0:
            times[: P - i] = times[i:P].copy()
            avail[: P - i] = avail[i:P].copy()
            P -= i
            meta[P_] = P
        times[0] = now
    for g in range(n_grows):
        _grow(prof, dirty, meta, now, grows[0, g], grows[1, g])
    B = meta[B_]
    D = meta[D_]
    if D > 64 + 2 * B:  # prune the growth every booked job was placed after
        oldest = meta[SEQ]
        if B:
            oldest = ji[PLACED, ji[BLIST, 0]]
            for b in range(1, B):
                oldest = min(oldest, ji[PLACED, ji[BLIST, b]])
        k = np.searchsorted(dirty[0, :D], oldest, side="right")
        if k:
            dirty[:, : D - k] = dirty[:, k:D].copy()
            meta[D_] = D - k
    P = meta[P_]
    if 2 * meta[COMPACT] + 32 < P:  # drop the breakpoints at which nothing changes
        w = 1
        prev = avail[0]
        for m in range(1, P):
            a = avail[m]
            if a != prev:
                times[w] = times[m]
                avail[w] = a
                w += 1
            prev = a
        meta[P_] = w
        meta[COMPACT] = w
        return bool(avail[:w].min() >= -1e-9)
    return True


@njit(cache=True)
def _book_new(prof: np.ndarray, jf: np.ndarray, ji: np.ndarray, meta: np.ndarray, j: int) -> int:
    """Book a job without a booking at its earliest slot (-1: none)."""
    dur = jf[HOLD, j]
    need = jf[NODES, j]
    slot = _earliest1(prof, meta[P_], need, dur)
    if slot >= 0:
        s = prof[0, slot]
        _book1(prof, meta, s, s + dur, -need)
    return slot


@njit(cache=True)
def _growth_since(
    dirty: np.ndarray, D: int, pj: int, suf: np.ndarray, valid: np.ndarray
) -> tuple[float, float]:
    """(earliest start, latest end) of the growth recorded after seq ``pj`` (cached per pass
    in ``suf`` until the next growth)."""
    k = np.searchsorted(dirty[0, :D], pj, side="right")
    if not valid[0]:
        lo = np.inf
        hi = -np.inf
        for m in range(D - 1, -1, -1):
            lo = min(lo, dirty[1, m])
            hi = max(hi, dirty[2, m])
            suf[0, m] = lo
            suf[1, m] = hi
        valid[0] = 1
    return suf[0, k], suf[1, k]


@njit(cache=True)
def _move_earlier(
    prof: np.ndarray,
    dirty: np.ndarray,
    jf: np.ndarray,
    ji: np.ndarray,
    meta: np.ndarray,
    j: int,
    now: float,
    suf: np.ndarray,
    valid: np.ndarray,
) -> int:
    """A booked job (booking after now) placed again if free nodes grew where its span could
    reach since it was placed: the new slot (its booking given back, the growth recorded, the
    new span booked in the profile; the caller starts or books it), or -1 (it keeps its
    booking)."""
    s0 = jf[BS, j]
    e0 = jf[BE, j]
    need = jf[NODES, j]
    dur = jf[HOLD, j]
    g0, g1 = _growth_since(dirty, meta[D_], ji[PLACED, j], suf, valid)
    times = prof[0]
    P = meta[P_]
    first = 0
    if g0 - dur >= now:
        first = int(np.searchsorted(times[:P], g0 - dur, side="right"))
    stop = first + int(np.searchsorted(times[first:P], s0 if s0 < g1 else g1))
    seq = meta[SEQ] + 1
    meta[SEQ] = seq
    ji[PLACED, j] = seq
    if stop <= first or prof[1, first:stop].max() < need:
        return -1
    lo = _split(prof, meta, s0, stop)
    hi = _split(prof, meta, e0, lo)
    slot = _earlier1(prof, meta[P_], need, dur, first, stop, lo, hi)
    if slot < 0:
        return -1
    _drop_booking(ji, meta, j)
    _grow(prof, dirty, meta, s0, e0, need)
    valid[0] = 0
    s = prof[0, slot]
    _book1(prof, meta, s, s + dur, -need)
    return slot


@njit(cache=True)
def _room_now(jf: np.ndarray, ji: np.ndarray, meta: np.ndarray, free0: float, now: float) -> float:
    """Nodes free now and not booked now (what a zero-length job may take)."""
    room = free0
    for b in range(meta[B_]):
        j = ji[BLIST, b]
        if jf[BS, j] <= now:
            room -= jf[NODES, j]
    return room


@njit(cache=True)
def lean_pass(
    prof: np.ndarray,
    dirty: np.ndarray,
    jf: np.ndarray,
    ji: np.ndarray,
    meta: np.ndarray,
    rest: np.ndarray,
    out: np.ndarray,
    now: float,
    free0: float,
) -> tuple[int, float]:
    """``ConservativeBackfill._lean_pass`` in one call: the jobs to start, in order, in
    ``out[0, :k]`` with their ``backfilled`` flags in ``out[1, :k]``; returns ``k`` and the
    wake-up time (``-inf``: none). ``free0``: the nodes free now; a start takes its nodes."""
    k = 0
    full = free0 < 1
    blocked = False
    n_rest = rest.shape[0]
    if full:  # booked jobs keep their bookings, new ones are booked
        for r in range(n_rest):
            j = rest[r]
            if ji[BOOKED, j] == 0 and jf[HOLD, j] > 0:
                slot = _book_new(prof, jf, ji, meta, j)
                if slot >= 0:
                    s = prof[0, slot]
                    _set_booking(jf, ji, meta, j, s, s + jf[HOLD, j])
                    meta[SEQ] += 1
                    ji[PLACED, j] = meta[SEQ]
        n_rest = 0
    suf = np.empty((2, meta[D_] + n_rest + 1))
    valid = np.zeros(1, np.int64)
    for r in range(n_rest):
        j = rest[r]
        need = jf[NODES, j]
        if ji[BOOKED, j]:
            if full:
                blocked = True
                continue
            s0 = jf[BS, j]
            if s0 > now and ji[PLACED, j] >= meta[GROWN]:
                blocked = True
                continue
            if s0 == now:
                if need <= free0:
                    _drop_booking(ji, meta, j)
                    out[0, k] = j
                    out[1, k] = blocked
                    k += 1
                    free0 -= need
                    full = free0 < 1
                else:
                    blocked = True
                continue
            if s0 > now:
                slot = _move_earlier(prof, dirty, jf, ji, meta, j, now, suf, valid)
                if slot < 0:
                    blocked = True
                elif slot == 0 and need <= free0:
                    out[0, k] = j
                    out[1, k] = blocked
                    k += 1
                    free0 -= need
                    full = free0 < 1
                else:
                    s = prof[0, slot]
                    _set_booking(jf, ji, meta, j, s, s + jf[HOLD, j])
                    ji[PLACED, j] = meta[SEQ]
                    blocked = True
                continue
            # a booking in the past (not expected here): give it back, place it anew
            e0 = jf[BE, j]
            _drop_booking(ji, meta, j)
            if e0 > now:
                _grow(prof, dirty, meta, s0 if s0 > now else now, e0, need)
                valid[0] = 0
        dur = jf[HOLD, j]
        if dur <= 0:  # zero-length jobs: as in the full pass
            if need <= _room_now(jf, ji, meta, free0, now):
                out[0, k] = j
                out[1, k] = blocked
                k += 1
                free0 -= need
                full = free0 < 1
            else:
                blocked = True
            continue
        slot = _book_new(prof, jf, ji, meta, j)
        if slot < 0:
            blocked = True
            continue
        if slot == 0 and need <= free0:
            out[0, k] = j
            out[1, k] = blocked
            k += 1
            free0 -= need
            full = free0 < 1
        else:
            s = prof[0, slot]
            _set_booking(jf, ji, meta, j, s, s + dur)
            meta[SEQ] += 1
            ji[PLACED, j] = meta[SEQ]
            blocked = True
    return k, _wake(jf, ji, meta, now)


@njit(cache=True)
def _wake(jf: np.ndarray, ji: np.ndarray, meta: np.ndarray, now: float) -> float:
    """The earliest booking after now (-inf: none): the pass asks for a wake-up then."""
    B = meta[B_]
    if B == 0:
        return -np.inf
    soonest = np.inf
    for b in range(B):
        soonest = min(soonest, jf[BS, ji[BLIST, b]])
    if soonest <= now:
        soonest = np.inf
        for b in range(B):
            s = jf[BS, ji[BLIST, b]]
            if s > now:
                soonest = min(soonest, s)
    return soonest if soonest > now and soonest < np.inf else -np.inf


@njit(cache=True)
def lean_step(
    prof: np.ndarray,
    dirty: np.ndarray,
    jf: np.ndarray,
    ji: np.ndarray,
    meta: np.ndarray,
    grows: np.ndarray,
    n_grows: int,
    rest: np.ndarray,
    out: np.ndarray,
    now: float,
    free0: float,
) -> tuple[int, int, float]:
    """One incremental pass: ``lean_catch_up``, then (if the profile is sound) ``lean_pass``.
    Returns (status, number of starts, wake-up time); status 1: done, 0: the profile is not
    sound (run a from-scratch pass), 2: the arrays need more room for this pass (nothing was
    changed; ``lean_room`` says how much)."""
    n_rest = rest.shape[0]
    P, D = meta[P_], meta[D_]
    if (
        prof.shape[1] < P + 4 * n_rest + 2 * n_grows + 4
        or dirty.shape[1] < D + n_rest + n_grows + 1
    ):
        return 2, 0, -np.inf
    if not lean_catch_up(prof, dirty, ji, meta, grows, n_grows, now):
        return 0, 0, -np.inf
    k, wake = lean_pass(prof, dirty, jf, ji, meta, rest, out, now, free0)
    return 1, k, wake
