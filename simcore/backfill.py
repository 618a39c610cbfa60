"""Backfilling: how the holes a start rule leaves are filled (EASY, conservative, none).

A backfiller is an object that composes with any start rule (``simcore/policies.py``: naive,
window, a user's): after the start rule has started what it starts, the backfiller gets the
jobs left — ``rest``, the head (the first job not started) first, then the others in the base
scheduler's order — and yields :class:`~simcore.policy.Start` actions (and, for conservative,
a :class:`~simcore.policy.WakeAt`) through the same read-only view and action protocol as every
policy (``simcore/policy.py``). It reads the machine only through the view: the free resource
vector, the running jobs' expected releases by their requested times, ``hold`` (how long a run
phase holds what it takes), and with SSD node groups ``effective_demand`` and ``n_cuts``.
Whatever it keeps between passes (conservative's reservations) is its own state: one backfiller
per policy object, one policy object per simulation run (``reset()`` forgets a previous run).

``easy`` — Mu'alem and Feitelson (2001): the head (first job not started) gets a reservation
at the earliest instant its whole demand vector is free, computed from the running jobs'
*requested* end times (never their actual runtimes); a later job may start now if it fits and
either ends (by its request) before that instant or fits in what the head leaves over then.
In the three-phase lifecycle a job "ends" when its whole run phase (load-in, request, load-out)
and the drain of its output are over (``MachineView.hold``); with node groups, what a job
started now takes of the SSD nodes is what the groups give it (``MachineView.effective_demand``).

``conservative`` — every queued job, in priority order, gets the earliest reservation that
does not conflict with the earlier ones (an availability profile over time built from requested
times); those whose reservation is now start. With a static order (FCFS) no job is ever started
later than its first reservation; with WFP the order changes between passes and reservations are
rebuilt each pass (Cobalt does the same).

``none`` — no backfilling. One exception, three-phase only: when the head can never start
because staged jobs queued behind it hold the burst-buffer space it needs (they free it only by
running), the pass starts what fits, as EASY would with no reservation to keep; otherwise the
simulation would deadlock.

Writing a backfiller: subclass :class:`Backfiller` (or provide the same members) and write
``backfill(view, rest, now)`` as a generator of actions; the engine applies each before the
generator resumes, so ``view.free`` already shows a yielded start. Pass the object as
``backfill=`` to any ``BasePolicy``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence

import numpy as np

from schedbench.simcore import _lean_kernels as _lk
from schedbench.simcore.errors import ConfigError
from schedbench.simcore.policy import Action, MachineView, Start, WakeAt, fits

BACKFILLS = ("easy", "conservative", "none")

#: A conservative booking: (start, end, demand booked — with node groups the nodes per SSD cut).
Booking = tuple[float, float, tuple[float, ...]]


class Backfiller:
    """Base of the backfillers: a name, two flags, state reset, and the pass.

    ``runs_on_full_machine``: the policy calls it even when no node is free (conservative: new
    arrivals get their booking at once). ``plans_all_starts``: it places every queued job itself
    (conservative: every start goes through the reservations), so the naive start rule leaves
    the whole queue to it.
    """

    name = "backfiller"
    runs_on_full_machine = False
    plans_all_starts = False

    def reset(self) -> None:
        """Forget everything kept from a previous simulation run (default: nothing kept)."""

    def describe(self) -> str:
        return self.name

    def backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        """Yield the starts (and other actions) of this pass; ``rest`` is non-empty, head
        first."""
        raise NotImplementedError(f"{type(self).__name__} does not implement backfill()")


# ---------------------------------------------------------------------- EASY
def head_reservation(
    view: MachineView, d: Sequence[float], now: float
) -> tuple[float, list[float]]:
    """(shadow time, resources left over at it) for a job of demand ``d`` (EASY).

    Walks the running jobs' expected releases in time order; all releases at the same instant
    are applied together. ``(inf, free)`` when the releases never make room (only possible
    while staged three-phase jobs hold buffer space).
    """
    K, b, eps = view.K, view.bb_index, view.bb_eps
    rel = view.releases
    m = len(rel)
    i = 0
    if K == 1:  # nodes only: the common case, kept lean
        need = d[0]
        a = view.free[0]
        for t, _, delta in rel:
            i += 1
            a += delta[0]
            # releases give nodes back (never take): once enough, the rest due at the same
            # instant is added and the test holds still
            if a >= need:
                while i < m and rel[i][0] == t:
                    a += rel[i][2][0]
                    i += 1
                return t, [a - need]
        return math.inf, [a]
    avail = list(view.free)
    while i < m:
        t = rel[i][0]
        while i < m and rel[i][0] == t:
            delta = rel[i][2]
            for k in range(K):
                avail[k] += delta[k]
            i += 1
        if fits(d, avail, K, b, eps):
            return t, [avail[k] - d[k] for k in range(K)]
    return math.inf, avail


_VECTOR_SCAN = 64


def _backfill_candidates(
    view: MachineView, jobs: Sequence[int], now: float, head: int
) -> list[int]:
    """The jobs (in the given order) that could be backfilled now: they fit the free resources
    and either end by the head's shadow time or fit in what it leaves over. Both only shrink as
    jobs start, so the exact sequential loop over these finds the same starts as over all."""
    arr = np.fromiter(jobs, dtype=np.int64, count=len(jobs))
    dem = view.demand_matrix[arr]
    b = view.bb_index
    slack = np.zeros(view.K)
    if b >= 0:
        slack[b] = view.bb_eps
    mask = np.all(dem <= np.asarray(view.free) + slack, axis=1)
    if not mask.any():
        return []
    shadow, extra = head_reservation(view, view.demands[head], now)
    if math.isfinite(shadow):
        ends_in_time = now + view.hold_array[arr] <= shadow
        # with node groups a job may take more of the SSD cut entries than its demand says;
        # only the node and buffer entries are a safe pre-filter then
        cols = [0] + ([b] if b >= 0 else []) if view.has_groups else slice(None)
        fits_extra = np.all(dem[:, cols] <= (np.asarray(extra) + slack)[cols], axis=1)
        mask &= ends_in_time | fits_extra
    result: list[int] = arr[mask].tolist()
    return result


class EasyBackfill(Backfiller):
    """EASY backfilling (Mu'alem and Feitelson 2001; BBSched pairs it with the window, §3.1):
    see the module docstring. Keeps nothing between passes."""

    name = "easy"

    def backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        dem = view.demands
        hold = view.hold  # the request (classic); the whole run phase by its request (three-phase)
        K, b, eps = view.K, view.bb_index, view.bb_eps
        free = view.free  # live: it shows every start yielded below once the engine applied it
        shadow = -math.inf
        extra: list[float] = []
        # Long queues: pre-filter with numpy the jobs that fit the free resources now (a job
        # that does not fit now cannot fit after more jobs start); short ones: the plain loop
        # is cheaper.
        cands = (
            rest[1:]
            if len(rest) <= _VECTOR_SCAN
            else _backfill_candidates(view, rest[1:], now, rest[0])
        )
        f0 = free[0]  # read again after each start (a memoryview read costs more than a local)
        if f0 < 1:  # every job needs a node
            return
        for j in cands:
            d = dem[j]
            if d[0] > f0 or (K > 1 and not fits(d, free, K, b, eps)):
                continue
            if shadow == -math.inf:  # computed lazily: most passes have no candidate at all
                shadow, extra = head_reservation(view, dem[rest[0]], now)
            if now + hold[j] <= shadow:
                yield Start(j, True)
                f0 = free[0]
                if f0 < 1:
                    return
            elif d[0] <= extra[0]:
                if view.has_groups:  # the SSD cut entries it would really take (spill)
                    d = view.effective_demand(j)
                if fits(d, extra, K, b, eps):
                    yield Start(j, True)
                    f0 = free[0]
                    for k in range(K):
                        extra[k] -= d[k]
                    if f0 < 1:
                        return


class NoBackfill(Backfiller):
    """No backfilling, except the three-phase deadlock escape of the module docstring."""

    name = "none"

    def __init__(self) -> None:
        self._easy = EasyBackfill()

    def backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        if view.staged and head_reservation(view, view.demands[rest[0]], now)[0] == math.inf:
            # Three-phase: the head waits for buffer space that only staged jobs queued behind
            # it hold, and they free it only by running. Without backfilling nothing would
            # ever start again: start what fits (EASY with no reservation to keep).
            yield from self._easy.backfill(view, rest, now)


# ---------------------------------------------------------------------- conservative
def _profile(view: MachineView, now: float) -> tuple[list[float], list[list[float]]]:
    """Free resources over time from the running jobs' expected releases: breakpoints ``times``
    and the vector free from each breakpoint to the next (the last one lasts for ever)."""
    K = view.K
    times: list[float] = [now]
    avails: list[list[float]] = [list(view.free)]
    for t, _, delta in view.releases:
        if t > times[-1]:
            times.append(t)
            avails.append(list(avails[-1]))
        row = avails[-1]
        for k in range(K):
            row[k] += delta[k]
    return times, avails


def _book(
    times: list[float],
    avails: list[list[float]],
    s: float,
    e: float,
    d: tuple[float, ...],
    sign: float,
) -> None:
    """Add ``sign · d`` to the profile over ``[s, e)``, splitting it at ``s`` and ``e``.
    (The hottest function of conservative backfilling: two searches, and the nodes-only case
    without the inner loop.)"""
    lo = bisect.bisect_left(times, s)
    if lo == len(times) or times[lo] != s:
        times.insert(lo, s)
        avails.insert(lo, list(avails[lo - 1]))
    hi = bisect.bisect_left(times, e, lo)  # e >= s: not before s's breakpoint
    if hi == len(times) or times[hi] != e:
        times.insert(hi, e)
        avails.insert(hi, list(avails[hi - 1]))
    K = len(d)
    if K == 1:
        step = sign * d[0]
        for m in range(lo, hi):
            avails[m][0] += step
        return
    for m in range(lo, hi):
        row = avails[m]
        for k in range(K):
            row[k] += sign * d[k]


class ConservativeBackfill(Backfiller):
    """Conservative backfilling with reservations kept from pass to pass.

    Every queued job holds a reservation ``(start, end, demand)`` in :attr:`reservations` (this
    object's state; bookings of jobs that have started since are dropped at the next pass).
    Each pass builds the free-resource profile from the running jobs' expected releases, books
    every reservation into it, then visits the queue in priority order: a job gives its own
    booking back, takes the earliest slot that fits around everybody else's bookings (its old
    slot is still free, so it never moves later), and starts if that slot is now. A new job gets
    the earliest slot after all existing bookings. So no reservation is ever delayed by a later
    job — with a static order (FCFS) no job starts after its first reservation. (With WFP the
    order changes but bookings still only move earlier.) Two things outside conservative's
    control can still move a booking later, and then the job simply takes its new earliest
    slot: the window policy's selections, which start without looking at bookings (BBSched
    pairs the window with EASY), and, in the three-phase lifecycle, stage-ins that take burst
    buffer a booking counted on.

    On nodes-only machines (classic lifecycle, whole numbers of nodes) the pass is incremental
    (:meth:`_lean_actions`, docs/design.md#fast-paths-keep-the-plain-path-beside-them): the
    profile is kept from pass to pass, in arrays that one compiled call per pass updates
    (``simcore/_lean_kernels.py``), and a booked job is placed again only where free nodes grew
    since it was last placed — the same schedules as the from-scratch pass (:meth:`_full_pass`,
    ``incremental=False``), bit for bit (``tests/simcore/test_conservative_incremental.py``).
    """

    name = "conservative"
    runs_on_full_machine = True  # new arrivals get their reservation at once
    plans_all_starts = True  # every start goes through the reservations

    def __init__(self, *, incremental: bool = True) -> None:
        #: job -> (start, end, demand booked), kept between passes (while the incremental pass
        #: runs, its arrays hold the bookings: see :attr:`reservations`)
        self._book: dict[int, Booking] = {}
        self._started_seen = -1  # view.started_count when the last pass ended
        #: ``False``: every pass rebuilds the profile and re-books every job (the plain pass, kept
        #: for the side-by-side benchmark and the equivalence tests)
        self._incremental = incremental
        self._lean: _LeanProfile | None = None
        self._eligible: bool | None = None  # this run can use the incremental profile
        self._jobs: _LeanJobs | None = None  # the incremental pass's per-job arrays (one run)

    @property
    def reservations(self) -> dict[int, Booking]:
        """Every queued job's booking: job -> (start, end, demand booked). While the
        incremental pass runs, a copy made from its arrays (changing it changes nothing)."""
        if self._lean is not None:
            return self._lean.bookings()
        return self._book

    def reset(self) -> None:
        self._book = {}
        self._started_seen = -1
        self._lean = None
        self._eligible = None
        self._jobs = None

    def backfill(self, view: MachineView, rest: Sequence[int], now: float) -> Iterator[Action]:
        if not self._incremental:
            return self._full_pass(view, rest, now, adopt=False)
        if self._eligible is None:
            self._eligible = _lean_eligible(view)
            if self._eligible:
                self._jobs = _LeanJobs(view)
        if not self._eligible:
            return self._full_pass(view, rest, now, adopt=False)
        lean = self._lean
        if lean is not None:
            if view.started_count == self._started_seen:
                k_wake = lean.step(view, rest, now)
                if k_wake is not None:
                    k, wake = k_wake
                    if not k:  # no start (most passes): no generator to resume
                        return iter((WakeAt(wake),) if wake > -math.inf else ())
                    return self._lean_actions(view, lean, k, wake)
            # the from-scratch pass takes over the bookings
            self._book = lean.bookings()
            self._lean = None
        return self._full_pass(view, rest, now, adopt=True)

    def _full_pass(
        self, view: MachineView, rest: Sequence[int], now: float, adopt: bool
    ) -> Iterator[Action]:
        """One pass from scratch: the profile from the running jobs' releases, every booking
        booked into it, every queued job placed again (any machine, lifecycle, order).
        ``adopt``: keep the final profile for the incremental passes that follow."""
        K, b, eps = view.K, view.bb_index, view.bb_eps
        book = self._book
        if view.started_count != self._started_seen:
            # jobs started since the last pass by someone else (the start rule) keep no booking
            for j in [j for j in book if not view.is_queued(j)]:
                del book[j]
        times, avails = _profile(view, now)
        for s0, e0, d0 in book.values():
            if e0 > now and e0 > s0:
                _book(times, avails, max(s0, now), e0, d0, -1.0)
        _drop_overbooked(times, avails, book, rest, now, K, b, eps, view.n_cuts)
        dem, hold = view.demands, view.hold
        has_groups = view.has_groups
        n_cuts = view.n_cuts
        free = view.free  # live: it shows every start yielded below once the engine applied it
        full = free[0] < 1
        blocked = False
        for j in rest:
            if full and j in book:
                # Nothing can start now: a booked job keeps its booking (it may move earlier at
                # a later pass); only jobs without one (new arrivals) are placed.
                blocked = True
                continue
            d = dem[j]
            dur = hold[j]
            old = book.pop(j, None)
            if old is not None and old[1] > now:
                _book(times, avails, max(old[0], now), old[1], old[2], 1.0)
            if dur <= 0:
                # A zero-length job holds nothing over time, so it can delay no booking: it
                # starts as soon as it fits the free resources, and gets no booking itself.
                # (Booking it on [s, nextafter(s)) created instants that no event visits, and
                # jobs booked at them slipped to the next real event.) A zero-length
                # job as wide as the machine waits for a moment when everything is free. It
                # takes only what is free now *and* not booked now: taking a booked job's nodes
                # for an instant would push that job out of this round and let a later job take
                # its place.
                room = list(free)
                for s0, _e0, d0 in book.values():
                    if s0 <= now:  # due now, not started yet
                        for k in range(K):
                            room[k] -= d0[k]
                if fits(d, room, K, b, eps):
                    yield Start(j, blocked)
                    full = free[0] < 1
                else:
                    blocked = True
                continue
            if has_groups:
                slot, d = _earliest_on_groups(view, j, times, avails, d, dur)
            else:
                slot = _earliest(times, avails, d, dur, K, b, eps)
            if slot < 0:
                # Cannot be placed on the known releases: only in the three-phase lifecycle,
                # where staged jobs hold stage-in buffer that is released only when they run.
                # The job drops its booking (a stale one would block the jobs that can run) and
                # tries again at the next pass.
                blocked = True
                continue
            s = times[slot]
            e = s + dur
            _book(times, avails, s, e, d, -1.0)
            # With node groups the planned nodes must be free level by level now, not only in
            # the cut totals: a zero-length job started earlier in this pass may hold a small-SSD
            # node that the profile (built before it started) still counts as free. Such a job
            # keeps its booking for now and starts at the next round, when that one has ended.
            if slot == 0 and (
                fits(d, free, K, b, eps)
                if not has_groups
                else fits(d, free, K, b, eps) and _fits_levels(d, free, n_cuts, K, b, eps)
            ):
                yield Start(j, blocked, d if has_groups else None)
                full = free[0] < 1
            else:
                book[j] = (s, e, d)
                blocked = True
        self._started_seen = view.started_count  # our own starts are applied by now
        # A booking is a promise to start then: make sure the simulator looks at that instant.
        upcoming = [s0 for s0, _e0, _d0 in book.values() if s0 > now]
        if upcoming:
            yield WakeAt(min(upcoming))
        if adopt and self._jobs is not None:  # nodes only: one number per breakpoint
            self._lean = _LeanProfile(
                times, [row[0] for row in avails], view.releases, book, self._jobs
            )

    def _lean_actions(
        self, view: MachineView, lean: _LeanProfile, k: int, wake: float
    ) -> Iterator[Action]:
        """The actions of an incremental pass (``_LeanProfile.step`` found them): the same pass
        as :meth:`_full_pass` on the profile kept from the last one (nodes only, classic
        lifecycle), in the compiled kernel of ``simcore/_lean_kernels.py``. A booked job is
        placed again only if the nodes free to it grew since it was last placed somewhere its
        span could reach, and then only the earlier starts are tried."""
        if k:
            out = lean.jobs.out
            for j, flag in zip(out[0, :k].tolist(), out[1, :k].tolist(), strict=True):
                yield Start(j, bool(flag))
        self._started_seen = view.started_count
        if wake > -math.inf:  # the earliest booking after now
            yield WakeAt(wake)
        if k:  # (else the view's releases are those the pass started from)
            lean.releases = view.releases


def _spill(
    d: tuple[float, ...],
    times: list[float],
    avails: list[list[float]],
    s: int,
    dur: float,
    cuts: int,
    now_free: Sequence[float] | None = None,
) -> tuple[float, ...]:
    """The nodes per SSD cut a job of nominal demand ``d`` takes if it starts at ``times[s]``
    and holds them for ``dur``: from the smallest adequate SSD level first, spilling onto
    larger-SSD nodes where a level is short, counting on each level only the nodes free over
    the whole span. The job is then started with exactly this allocation
    (``Start(cuts=...)``), so what was booked is what it gets.

    Entry 0 counts all nodes and entry k the nodes with SSD >= the k-th threshold, so the free
    nodes of level m (SSD between thresholds m and m+1) are ``avail[m] - avail[m+1]``.
    """
    n = len(times)
    end = times[s] + dur
    floor = [math.inf] * (cuts + 1)
    rows: list[Sequence[float]] = [avails[m] for m in range(s, n) if times[m] < end or m == s]
    if now_free is not None:  # a start now takes what is free now, not what the profile expects
        rows.append(now_free)
    for row in rows:
        for lv in range(cuts + 1):
            floor[lv] = min(floor[lv], _level(row, lv, cuts))
    need = d[0]
    level = max((k for k in range(1, cuts + 1) if d[k] > 0), default=0)
    taken = [0.0] * (cuts + 1)
    for m in range(level, cuts + 1):
        if need <= 0:
            break
        t = min(need, max(0.0, floor[m]))
        taken[m] = t
        need -= t
    if need > 0:
        return d  # it does not fit here at all; the caller's fit test says so
    eff = list(d)
    for k in range(1, cuts + 1):
        eff[k] = float(sum(taken[k:]))
    return tuple(eff)


def _earliest_on_groups(
    view: MachineView,
    j: int,
    times: list[float],
    avails: list[list[float]],
    d: tuple[float, ...],
    dur: float,
) -> tuple[int, tuple[float, ...]]:
    """The earliest slot for job ``j`` on a machine with SSD node groups, and the demand to book
    there: at each candidate start the nodes the groups would give it then (``_spill``; for a
    start now, what the engine's allocation will really take), which must fit for the whole
    hold. Booking the nominal demand instead let a later job count on larger-SSD nodes that the
    job, started at its booking, takes by spilling — and then its first reservation slipped
    (the property test "conservative never starts a job after its first reservation" found it)."""
    K, b, eps = view.K, view.bb_index, view.bb_eps
    cuts = view.n_cuts
    n = len(times)
    for s in range(n):
        e = _spill(d, times, avails, s, dur, cuts, view.free if s == 0 else None)
        end = times[s] + dur
        m = s
        while m < n and (times[m] < end or m == s):
            if not _fits_levels(e, avails[m], cuts, K, b, eps):
                break
            m += 1
        else:
            return s, e
    return -1, d


def _level(v: Sequence[float], m: int, cuts: int) -> float:
    """Nodes on SSD level ``m`` of a cut vector ``v`` (entry 0: all nodes, entry k: nodes with
    SSD >= the k-th threshold): ``v[m] - v[m + 1]``, the top level being ``v[cuts]``."""
    return v[m] - (v[m + 1] if m < cuts else 0.0)


def _fits_levels(
    e: tuple[float, ...], avail: Sequence[float], cuts: int, K: int, b: int, eps: float
) -> bool:
    """A booked allocation ``e`` (nodes per SSD cut, as ``_spill`` gives it) fits ``avail``
    level by level: the nodes it takes between two SSD thresholds must be free there. Comparing
    the cut entries alone is not enough — a job on the small-SSD nodes and a booking that counts
    on the same nodes can both fit the cuts while the small level goes negative."""
    for m in range(cuts + 1):
        if _level(e, m, cuts) > _level(avail, m, cuts) + 1e-9:
            return False
    return all(e[k] <= avail[k] + (eps if k == b else 0.0) for k in range(cuts + 1, K))


def _drop_overbooked(
    times: list[float],
    avails: list[list[float]],
    book: dict[int, tuple[float, float, tuple[float, ...]]],
    order: Sequence[int],
    now: float,
    K: int,
    b: int,
    eps: float,
    cuts: int = 0,
) -> None:
    """Give back bookings the machine can no longer honour, lowest priority first, until no
    resource is over-booked at any time (with SSD node groups: no SSD level, see
    ``_fits_levels``).

    A booking made at an earlier pass counted on resources that, in the three-phase lifecycle,
    may since have been taken by stage-ins (staged jobs hold their stage-in buffer until they
    run), so the profile can go negative under it. Left in place, such a booking blocks the
    jobs booked behind it although it cannot start itself, and when no event is left to
    revisit them the simulation stalls (a run "stopped with 4 queued"). The job whose
    booking is given back is placed again at its turn in this pass.
    """
    if not book:
        return
    # Fast path (most passes): nothing over-booked, checked in one vectorised sweep.
    grid = np.asarray(avails, dtype=np.float64)
    levels = grid.copy()
    if cuts:
        levels[:, :cuts] -= grid[:, 1 : cuts + 1]
    tolerance = np.full(K, 1e-9)
    if b >= 0:
        tolerance[b] = eps
    if (levels >= -tolerance).all():
        return
    rank = {j: r for r, j in enumerate(order)}
    while True:
        bad = -1
        res = 0
        for m, row in enumerate(avails):
            for k in range(K):
                # a node cut entry k counts levels k.. : level k is row[k] - row[k + 1]
                level = _level(row, k, cuts) if k <= cuts else row[k]
                if level < -(eps if k == b else 1e-9):
                    bad, res = m, k
                    break
            if bad >= 0:
                break
        if bad < 0:
            return
        t = times[bad]

        holders = [
            j
            for j, (s0, e0, d0) in book.items()
            if max(s0, now) <= t < e0 and _takes(d0, res, cuts)
        ]
        if not holders:
            return  # over-committed by running jobs alone: not a booking's doing
        victim = max(holders, key=lambda j: rank.get(j, -1))
        s0, e0, d0 = book.pop(victim)
        _book(times, avails, max(s0, now), e0, d0, 1.0)


def _takes(d: tuple[float, ...], res: int, cuts: int) -> bool:
    """Demand ``d`` uses resource ``res`` (for a node cut: nodes on that SSD level)."""
    if res <= cuts:
        return _level(d, res, cuts) > 0
    return d[res] > 0


def _fits_span(
    times: list[float],
    avails: list[list[float]],
    d: tuple[float, ...],
    s: int,
    dur: float,
    K: int,
    b: int,
    eps: float,
) -> bool:
    """Demand ``d`` fits the profile from ``times[s]`` for ``dur``."""
    n = len(times)
    end = times[s] + dur
    m = s
    if K == 1:  # nodes only: "fits" is one comparison (the innermost loop of conservative)
        need = d[0]
        while m < n and (times[m] < end or m == s):
            if need > avails[m][0]:
                return False
            m += 1
        return True
    while m < n and (times[m] < end or m == s):
        if not fits(d, avails[m], K, b, eps):
            return False
        m += 1
    return True


def _earliest(
    times: list[float],
    avails: list[list[float]],
    d: tuple[float, ...],
    dur: float,
    K: int,
    b: int,
    eps: float,
    first: int = 0,
) -> int:
    """The first breakpoint index >= ``first`` from which ``d`` fits for ``dur`` (-1: none).
    One sweep: when the span from ``s`` fails at breakpoint m, every start in (s, m] also
    covers m (breakpoints ascend and the span ends no earlier), so the next candidate is m + 1;
    the same answer as trying every start with ``_fits_span``."""
    n = len(times)
    s = first
    while s < n:
        end = times[s] + dur
        m = s
        bad = -1
        if K == 1:
            need = d[0]
            while m < n and (times[m] < end or m == s):
                if need > avails[m][0]:
                    bad = m
                    break
                m += 1
        else:
            while m < n and (times[m] < end or m == s):
                if not fits(d, avails[m], K, b, eps):
                    bad = m
                    break
                m += 1
        if bad < 0:
            return s
        s = bad + 1
    return -1


# ---------------------------------------------------------------------- conservative, incremental
def _lean_eligible(view: MachineView) -> bool:
    """The run can keep its profile between passes: nodes only (one resource, no SSD
    node groups), the classic lifecycle (a started job's release is exactly its booking), and
    whole numbers of nodes, at least one per job — so every sum of the profile is exact in
    floating point and the profile does not depend on the order of the bookings."""
    if view.K != 1 or view.has_groups or view.three_phase:
        return False
    nodes = np.asarray(view.demand_matrix)[:, 0]
    cap = float(view.capacity[0])
    return bool(
        cap.is_integer()
        and cap < 2.0**52
        and (len(nodes) == 0 or (nodes.min() >= 1 and (nodes == np.floor(nodes)).all()))
    )


class _LeanJobs:
    """The incremental pass's per-job arrays of one run (``simcore/_lean_kernels.py`` says what
    each row holds): nodes and hold fixed, bookings and placements kept between passes, and the
    buffer a pass writes its starts to."""

    __slots__ = ("jf", "ji", "out")

    def __init__(self, view: MachineView):
        n = len(view.hold_array)
        self.jf = np.zeros((4, n))
        self.jf[_lk.NODES] = np.asarray(view.demand_matrix)[:, 0]
        self.jf[_lk.HOLD] = view.hold_array
        self.ji = np.zeros((4, n), dtype=np.int64)
        self.out = np.zeros((2, n), dtype=np.int64)


class _LeanProfile:
    """Conservative backfilling's free-node profile kept from pass to pass
    (docs/design.md#fast-paths-keep-the-plain-path-beside-them), in arrays that the compiled
    pass (``simcore/_lean_kernels.py``) updates in place.

    The profile: breakpoints and the nodes free from each to the next once every booking is
    taken out (the last lasts for ever); it may hold breakpoints at which nothing changes. The
    earliest start of a job depends only on the profile as a function of time (a start found at
    such a breakpoint is also possible at the previous one), so it is the same as on the
    profile :meth:`ConservativeBackfill._full_pass` builds from scratch; with whole numbers of
    nodes the sums are exact, whatever the order of the bookings.

    The growth records: where the nodes free to others grew since (seq of the growth, start,
    end): running jobs that ended before their request, bookings given back by jobs that moved.
    A job cannot move earlier unless the span it would move to meets such a growth since it was
    last placed (its placement seq): every earlier start was impossible then, and only growth
    makes one possible.
    """

    __slots__ = ("dirty", "grows", "jobs", "meta", "prof", "releases")

    def __init__(
        self,
        times: list[float],
        avail: list[float],
        releases: tuple[tuple[float, int, tuple[float, ...]], ...],
        booked: dict[int, Booking],
        jobs: _LeanJobs,
    ):
        P = len(times)
        self.prof = np.empty((2, 2 * P + 64))
        self.prof[0, :P] = times
        self.prof[1, :P] = avail
        # everybody was placed before this: the first pass tries every earlier start
        self.dirty = np.empty((3, 64 + 2 * len(booked)))
        self.dirty[:, 0] = (1.0, -math.inf, math.inf)
        self.meta = np.zeros(6, dtype=np.int64)
        self.meta[[_lk.P_, _lk.D_, _lk.SEQ, _lk.GROWN, _lk.COMPACT]] = (P, 1, 1, 1, P)
        self.grows = np.empty((2, 8))
        self.releases = releases  # the view's releases when the last pass ended
        self.jobs = jobs
        jf, ji = jobs.jf, jobs.ji
        ji[_lk.BOOKED] = 0  # a previous profile's bookings are the dict's now
        ji[_lk.PLACED] = 0
        for b, (j, (s, e, _d)) in enumerate(booked.items()):
            jf[_lk.BS, j] = s
            jf[_lk.BE, j] = e
            ji[_lk.BOOKED, j] = 1
            ji[_lk.BPOS, j] = b
            ji[_lk.BLIST, b] = j
        self.meta[_lk.B_] = len(booked)

    def bookings(self) -> dict[int, Booking]:
        """The bookings as the from-scratch pass keeps them: job -> (start, end, demand)."""
        jf, ji = self.jobs.jf, self.jobs.ji
        js = ji[_lk.BLIST, : self.meta[_lk.B_]]
        return {
            j: (s, e, (d,))
            for j, s, e, d in zip(
                js.tolist(),
                jf[_lk.BS, js].tolist(),
                jf[_lk.BE, js].tolist(),
                jf[_lk.NODES, js].tolist(),
                strict=True,
            )
        }

    def step(self, view: MachineView, rest: Sequence[int], now: float) -> tuple[int, float] | None:
        """Bring the profile to ``now`` and run the pass: (starts in ``jobs.out``, wake-up time
        or ``-inf``); None when the profile can no longer be followed (a negative entry, which
        only a from-scratch pass handles)."""
        rel = view.releases
        prev = self.releases
        n_grows = 0
        if rel is not prev:
            # Only ends changed the releases since the last pass (a start by someone else
            # sends the pass to the from-scratch one): every release due by now has gone, and
            # any other that has went with a job that ended before its request.
            k = bisect.bisect_right(prev, (now, math.inf))
            if len(prev) - k != len(rel):
                seqs = {r[1] for r in rel}
                if self.grows.shape[1] < len(prev) - k:
                    self.grows = np.empty((2, 2 * (len(prev) - k)))
                grows = self.grows
                for t, seq, delta in prev[k:]:
                    if seq not in seqs:
                        grows[0, n_grows] = t
                        grows[1, n_grows] = delta[0]
                        n_grows += 1
            self.releases = rel
        queue = np.fromiter(rest, dtype=np.int64, count=len(rest))
        while True:
            status, k, wake = _lk.lean_step(
                self.prof,
                self.dirty,
                self.jobs.jf,
                self.jobs.ji,
                self.meta,
                self.grows,
                n_grows,
                queue,
                self.jobs.out,
                now,
                float(view.free[0]),
            )
            if status != 2:
                return (k, wake) if status else None
            self._reserve(len(rest), n_grows)

    def _reserve(self, n_rest: int, n_grows: int) -> None:
        """Room for what a pass may add: two breakpoints per growth or new booking, four per
        moved booking (its own span split, its new one), a growth record per job and growth."""
        need = int(self.meta[_lk.P_]) + 4 * n_rest + 2 * n_grows + 4
        if self.prof.shape[1] < need:
            grown = np.empty((2, 2 * need))
            grown[:, : self.prof.shape[1]] = self.prof
            self.prof = grown
        need = int(self.meta[_lk.D_]) + n_rest + n_grows + 1
        if self.dirty.shape[1] < need:
            grown = np.empty((3, 2 * need))
            grown[:, : self.dirty.shape[1]] = self.dirty
            self.dirty = grown


BACKFILLERS: dict[str, type[Backfiller]] = {
    "easy": EasyBackfill,
    "conservative": ConservativeBackfill,
    "none": NoBackfill,
}


def make_backfiller(backfill: str | Backfiller) -> Backfiller:
    """A fresh backfiller for a name in :data:`BACKFILLS`, or ``backfill`` itself when it is
    already a backfiller object (anything with a ``backfill`` method)."""
    if isinstance(backfill, str):
        cls = BACKFILLERS.get(backfill)
        if cls is None:
            raise ConfigError(f"backfill: expected one of {', '.join(BACKFILLS)}, got {backfill!r}")
        return cls()
    if callable(getattr(backfill, "backfill", None)):
        return backfill
    raise ConfigError(
        f"backfill: expected one of {', '.join(BACKFILLS)} or a backfiller object, got {backfill!r}"
    )
