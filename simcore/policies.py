"""Scheduling policies: what a pass starts, and how the holes are backfilled.

A pass (``Policy.schedule(sim, now)``) sees the run queue in the base scheduler's order
(``simcore/priority.py``), starts jobs through the simulation's ``start``, and leaves the rest
queued. Policies are plug-ins: :data:`POLICIES` maps a name to a class taking keyword options.

Start rules
-----------
``naive`` — the Slurm-like baseline of BBSched §4.3: start jobs in priority order while each
fits every resource; stop at the first that does not (it becomes the head).

``window`` — BBSched §3.1: the first ``window`` jobs of the ordered queue form a
:class:`~simcore.problem.SelectionProblem` (capacities = the free resource vector; demands per
job; objectives = nodes, burst buffer and, with local SSD, SSD GB·nodes, normalised by the
machine's totals); a registered solver and the decision maker choose; the chosen jobs start.
Choices, documented:

* Only window jobs that fit the free resources on their own enter the problem (a job that does
  not fit alone can never be selected; removing it is exact and makes the problem smaller).
  When none fits, no problem is posed. When all of them fit together, they all start without a
  solver call — every objective is a non-negative utilisation, so "all" is the only Pareto
  point — and the pass is counted as a trivial decision.
* Starvation (BBSched §3.1, bound 50): each pass increments a counter for every window job not
  started; a job whose counter has reached the bound must start. Starved jobs enter the problem
  as ``must_include``; if they do not fit together, they start in priority order while they fit
  and the first that does not becomes the backfilling head, so the machine drains for it.
* Every decision is validated by the core (indices in the window, no job twice, forced jobs
  included, every resource within the free capacity, and again job by job as they start, most
  SSD-demanding first so node groups can be assigned). An invalid decision raises
  ``InvalidDecisionError``; with ``on_invalid="fallback"`` the pass uses the naive rule instead
  and the fault is counted. A solver that raises or answers ``error`` is a fault too.

Backfilling
-----------
``easy`` — Mu'alem and Feitelson (2001): the head (first job not started) gets a reservation
at the earliest instant its whole demand vector is free, computed from the running jobs'
*requested* end times (never their actual runtimes); a later job may start now if it fits and
either ends (by its request) before that instant or fits in what the head leaves over then.
In the three-phase lifecycle a job "ends" when its whole run phase (load-in, request, load-out)
and the drain of its output are over (``Simulation.hold``); with node groups, what a job started
now takes of the SSD nodes is what the groups give it (``Simulation.effective_demand``).

``conservative`` — every queued job, in priority order, gets the earliest reservation that
does not conflict with the earlier ones (an availability profile over time built from requested
times); those whose reservation is now start. With a static order (FCFS) no job is ever started
later than its first reservation; with WFP the order changes between passes and reservations are
rebuilt each pass (Cobalt does the same).

``none`` — no backfilling. One exception, three-phase only: when the head can never start
because staged jobs queued behind it hold the burst-buffer space it needs (they free it only by
running), the pass starts what fits, as EASY would with no reservation to keep; otherwise the
simulation would deadlock.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedbench.simcore.engine import ConfigError, Simulation
from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve

BACKFILLS = ("easy", "conservative", "none")


def _fits(d: tuple[float, ...], f: list[float], K: int, b: int, eps: float) -> bool:
    """Every entry of demand ``d`` within ``f`` (burst buffer, entry ``b``, with slack ``eps``)."""
    if d[0] > f[0]:  # nodes first: the usual reason, and cheap
        return False
    for k in range(1, K):  # noqa: SIM110 - a plain loop; all() with a generator is slower here
        if d[k] > f[k] + (eps if k == b else 0.0):
            return False
    return True


# ---------------------------------------------------------------------- backfilling
def head_reservation(
    sim: Simulation, d: tuple[float, ...], now: float
) -> tuple[float, list[float]]:
    """(shadow time, resources left over at it) for a job of demand ``d`` (EASY).

    Walks the running jobs' expected releases in time order; all releases at the same instant
    are applied together. ``(inf, free)`` when the releases never make room (only possible
    while staged three-phase jobs hold buffer space).
    """
    K, b, eps = sim.K, sim.bb_index, sim.bb_eps
    rel = sim.releases
    m = len(rel)
    i = 0
    if K == 1:  # nodes only: the common case, kept lean
        need = d[0]
        a = sim.free[0]
        while i < m:
            t = rel[i][0]
            while i < m and rel[i][0] == t:
                a += rel[i][2][0]
                i += 1
            if a >= need:
                return t, [a - need]
        return math.inf, [a]
    avail = list(sim.free)
    while i < m:
        t = rel[i][0]
        while i < m and rel[i][0] == t:
            delta = rel[i][2]
            for k in range(K):
                avail[k] += delta[k]
            i += 1
        if _fits(d, avail, K, b, eps):
            return t, [avail[k] - d[k] for k in range(K)]
    return math.inf, avail


_VECTOR_SCAN = 64


def _backfill_candidates(sim: Simulation, jobs: list[int], now: float, head: int) -> list[int]:
    """The jobs (in the given order) that could be backfilled now: they fit the free resources
    and either end by the head's shadow time or fit in what it leaves over. Both only shrink as
    jobs start, so the exact sequential loop over these finds the same starts as over all."""
    arr = np.fromiter(jobs, dtype=np.int64, count=len(jobs))
    dem = sim._dem_matrix[arr]
    slack = np.zeros(sim.K)
    if sim.bb_index >= 0:
        slack[sim.bb_index] = sim.bb_eps
    mask = np.all(dem <= np.asarray(sim.free) + slack, axis=1)
    if not mask.any():
        return []
    shadow, extra = head_reservation(sim, sim.dem[head], now)
    if math.isfinite(shadow):
        ends_in_time = now + sim.hold_array[arr] <= shadow
        # with node groups a job may take more of the SSD cut entries than its demand says;
        # only the node and buffer entries are a safe pre-filter then
        cols = (
            [0] + ([sim.bb_index] if sim.bb_index >= 0 else []) if sim.has_groups else slice(None)
        )
        fits_extra = np.all(dem[:, cols] <= (np.asarray(extra) + slack)[cols], axis=1)
        mask &= ends_in_time | fits_extra
    return arr[mask].tolist()


def easy_backfill(sim: Simulation, rest: list[int], now: float) -> None:
    dem = sim.dem
    hold = sim.hold  # the request (classic); the whole run phase by its request (three-phase)
    K, b, eps = sim.K, sim.bb_index, sim.bb_eps
    free = sim.free
    shadow = -math.inf
    extra: list[float] = []
    start = sim.start
    # Long queues: pre-filter with numpy the jobs that fit the free resources now (a job that
    # does not fit now cannot fit after more jobs start); short ones: the plain loop is cheaper.
    cands = (
        rest[1:] if len(rest) <= _VECTOR_SCAN else _backfill_candidates(sim, rest[1:], now, rest[0])
    )
    for j in cands:
        f0 = free[0]
        if f0 < 1:  # every job needs a node
            return
        d = dem[j]
        if d[0] > f0 or (K > 1 and not _fits(d, free, K, b, eps)):
            continue
        if shadow == -math.inf:  # computed lazily: most passes have no candidate at all
            shadow, extra = head_reservation(sim, dem[rest[0]], now)
        if now + hold[j] <= shadow:
            start(j, backfilled=True)
        elif d[0] <= extra[0]:
            if sim.has_groups:  # the SSD cut entries it would really take (spill)
                d = sim.effective_demand(j)
            if _fits(d, extra, K, b, eps):
                start(j, backfilled=True)
                for k in range(K):
                    extra[k] -= d[k]


def _profile(sim: Simulation, now: float) -> tuple[list[float], list[list[float]]]:
    """Free resources over time from the running jobs' expected releases: breakpoints ``times``
    and the vector free from each breakpoint to the next (the last one lasts for ever)."""
    K = sim.K
    times: list[float] = [now]
    avails: list[list[float]] = [list(sim.free)]
    for t, _, delta in sim.releases:
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
    """Add ``sign · d`` to the profile over ``[s, e)``, splitting it at ``s`` and ``e``."""
    for t in (s, e):
        pos = bisect.bisect_left(times, t)
        if pos == len(times) or times[pos] != t:
            times.insert(pos, t)
            avails.insert(pos, list(avails[pos - 1]))
    lo = bisect.bisect_left(times, s)
    hi = bisect.bisect_left(times, e)
    K = len(d)
    for m in range(lo, hi):
        row = avails[m]
        for k in range(K):
            row[k] += sign * d[k]


def conservative_backfill(sim: Simulation, rest: list[int], now: float) -> None:
    """Conservative backfilling with reservations kept from pass to pass.

    Every queued job holds a reservation ``(start, end, demand)`` in ``sim.reservations``. Each
    pass builds the free-resource profile from the running jobs' expected releases, books every
    reservation into it, then visits the queue in priority order: a job gives its own booking
    back, takes the earliest slot that fits around everybody else's bookings (its old slot is
    still free, so it never moves later), and starts if that slot is now. A new job gets the
    earliest slot after all existing bookings. So no reservation is ever delayed by a later job —
    with a static order (FCFS) no job starts after its first reservation. (With WFP the order
    changes but bookings still only move earlier.) Two things outside conservative's control can
    still move a booking later, and then the job simply takes its new earliest slot: the window
    policy's selections, which start without looking at bookings (BBSched pairs the window with
    EASY), and, in the three-phase lifecycle, stage-ins that take burst buffer a booking counted
    on.
    """
    K, b, eps = sim.K, sim.bb_index, sim.bb_eps
    times, avails = _profile(sim, now)
    book = sim.reservations
    for s0, e0, d0 in book.values():
        if e0 > now and e0 > s0:
            _book(times, avails, max(s0, now), e0, d0, -1.0)
    _drop_overbooked(times, avails, book, rest, now, K, b, eps, len(sim._cut_groups))
    dem, hold = sim.dem, sim.hold
    free = sim.free
    blocked = False
    for j in rest:
        if free[0] < 1 and j in book:
            # Nothing can start now: a booked job keeps its booking (it may move earlier at a
            # later pass); only jobs without one (new arrivals) are placed.
            blocked = True
            continue
        d = dem[j]
        dur = hold[j]
        old = book.pop(j, None)
        if old is not None and old[1] > now:
            _book(times, avails, max(old[0], now), old[1], old[2], 1.0)
        if dur <= 0:
            # A zero-length job holds nothing over time, so it can delay no booking: it starts
            # as soon as it fits the free resources, and gets no booking itself. (Booking it on
            # [s, nextafter(s)) created instants that no event visits, and jobs booked at them
            # slipped to the next real event: issue 10.) A zero-length job as wide as the
            # machine waits for a moment when everything is free. It takes only what is free
            # now *and* not booked now: taking a booked job's nodes for an instant would push
            # that job out of this round and let a later job take its place.
            room = list(free)
            for s0, _e0, d0 in book.values():
                if s0 <= now:  # due now, not started yet
                    for k in range(K):
                        room[k] -= d0[k]
            if _fits(d, room, K, b, eps):
                sim.start(j, backfilled=blocked)
            else:
                blocked = True
            continue
        if sim.has_groups:
            slot, d = _earliest_on_groups(sim, j, times, avails, d, dur)
        else:
            slot = _earliest(times, avails, d, dur, K, b, eps)
        if slot < 0:
            # Cannot be placed on the known releases: only in the three-phase lifecycle, where
            # staged jobs hold stage-in buffer that is released only when they run. The job
            # drops its booking (a stale one would block the jobs that can run) and tries again
            # at the next pass.
            blocked = True
            continue
        s = times[slot]
        e = s + dur
        _book(times, avails, s, e, d, -1.0)
        if slot == 0 and _fits(d, free, K, b, eps):
            sim.start(j, backfilled=blocked, cuts=d if sim.has_groups else None)
        else:
            book[j] = (s, e, d)
            blocked = True
    # A booking is a promise to start then: make sure the simulator looks at that instant.
    upcoming = [s0 for s0, _e0, _d0 in book.values() if s0 > now]
    if upcoming:
        sim.wake_at(min(upcoming))


def _spill(
    d: tuple[float, ...],
    times: list[float],
    avails: list[list[float]],
    s: int,
    dur: float,
    cuts: int,
    now_free: list[float] | None = None,
) -> tuple[float, ...]:
    """The nodes per SSD cut a job of nominal demand ``d`` takes if it starts at ``times[s]``
    and holds them for ``dur``: from the smallest adequate SSD level first, spilling onto
    larger-SSD nodes where a level is short, counting on each level only the nodes free over
    the whole span. The job is then started with exactly this allocation
    (``Simulation.start(cuts=...)``), so what was booked is what it gets.

    Entry 0 counts all nodes and entry k the nodes with SSD >= the k-th threshold, so the free
    nodes of level m (SSD between thresholds m and m+1) are ``avail[m] - avail[m+1]``.
    """
    n = len(times)
    end = times[s] + dur
    floor = [math.inf] * (cuts + 1)
    rows = [avails[m] for m in range(s, n) if times[m] < end or m == s]
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
    sim: Simulation,
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
    (issue 10, property "conservative never starts a job after its first reservation")."""
    K, b, eps = sim.K, sim.bb_index, sim.bb_eps
    cuts = len(sim._cut_groups)
    n = len(times)
    for s in range(n):
        e = _spill(d, times, avails, s, dur, cuts, sim.free if s == 0 else None)
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
    e: tuple[float, ...], avail: list[float], cuts: int, K: int, b: int, eps: float
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
    order: list[int],
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
    revisit them the simulation stalls (issue 10: "stopped with 4 queued"). The job whose
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
    while m < n and (times[m] < end or m == s):
        if not _fits(d, avails[m], K, b, eps):
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
    for s in range(first, len(times)):
        if _fits_span(times, avails, d, s, dur, K, b, eps):
            return s
    return -1


BACKFILLERS = {"easy": easy_backfill, "conservative": conservative_backfill, "none": None}


# ---------------------------------------------------------------------- policies
class Policy:
    """Start rule + backfiller. Subclasses implement :meth:`start_jobs`."""

    name = "policy"

    def __init__(self, *, backfill: str = "easy"):
        if backfill not in BACKFILLERS:
            raise ConfigError(f"backfill: expected one of {', '.join(BACKFILLS)}, got {backfill!r}")
        self.backfill = backfill
        self._backfiller = BACKFILLERS[backfill]

    def describe(self) -> str:
        return f"{self.name}+{self.backfill}"

    def schedule(self, sim: Simulation, now: float) -> None:
        order = sim.priority.order(sim.queue, now)
        if order is sim.queue:
            order = list(order)
        rest = self.start_jobs(sim, order, now)
        # conservative runs even on a full machine: new arrivals get their reservation at once
        if rest and (sim.free[0] >= 1 or self.backfill == "conservative"):
            if self._backfiller is not None:
                self._backfiller(sim, rest, now)
            elif sim.staged and head_reservation(sim, sim.dem[rest[0]], now)[0] == math.inf:
                # Three-phase: the head waits for buffer space that only staged jobs queued
                # behind it hold, and they free it only by running. Without backfilling nothing
                # would ever start again: start what fits (EASY with no reservation to keep).
                easy_backfill(sim, rest, now)

    def start_jobs(self, sim: Simulation, order: list[int], now: float) -> list[int]:
        raise NotImplementedError


def naive_start(sim: Simulation, order: list[int]) -> list[int]:
    """Start in order while each job fits; return the jobs from the first that does not."""
    K, b, eps = sim.K, sim.bb_index, sim.bb_eps
    dem, free = sim.dem, sim.free
    k = 0
    n = len(order)
    while k < n and _fits(dem[order[k]], free, K, b, eps):
        sim.start(order[k])
        k += 1
    return order[k:]


class NaivePolicy(Policy):
    """BBSched's baseline: priority order while jobs fit, then backfilling (EASY by default)."""

    name = "naive"

    def start_jobs(self, sim: Simulation, order: list[int], now: float) -> list[int]:
        if self.backfill == "conservative":
            return order  # every start goes through the reservations (conservative_backfill)
        return naive_start(sim, order)


class WindowPolicy(Policy):
    """BBSched §3.1 window-based selection with any solver (see the module docstring)."""

    name = "window"

    def __init__(
        self,
        solver: Any,
        *,
        window: int = 20,
        starvation_bound: int = 50,
        budget: Budget | None = None,
        backfill: str = "easy",
    ):
        super().__init__(backfill=backfill)
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ConfigError(f"window: expected an integer >= 1, got {window!r}")
        if not isinstance(starvation_bound, int) or starvation_bound < 1:
            raise ConfigError(
                f"starvation_bound: expected an integer >= 1, got {starvation_bound!r}"
            )
        self.solver = solver
        self.window = window
        self.starvation_bound = starvation_bound
        self.budget = budget or Budget()

    def describe(self) -> str:
        sid = getattr(self.solver, "id", getattr(self.solver, "name", "?"))
        return f"window[{sid},w={self.window}]+{self.backfill}"

    # -- the pass --------------------------------------------------------------------
    def start_jobs(self, sim: Simulation, order: list[int], now: float) -> list[int]:
        K, b, eps = sim.K, sim.bb_index, sim.bb_eps
        dem, free = sim.dem, sim.free
        win = order[: self.window]
        passes = sim.window_passes
        bound = self.starvation_bound
        starved = [j for j in win if passes.get(j, 0) >= bound]
        started: set[int] = set()
        head: int | None = None
        if starved:
            total = [sum(dem[j][k] for j in starved) for k in range(K)]
            if not _fits(tuple(total), free, K, b, eps):
                for j in starved:
                    if _fits(dem[j], free, K, b, eps):
                        sim.start(j)
                        started.add(j)
                        sim.counters.starved_forced += 1
                    else:
                        head = j
                        break
        if head is None:
            cands = [j for j in win if _fits(dem[j], free, K, b, eps)]
            if cands:
                started |= self._decide(sim, win, cands, starved, now)
        for j in win:
            if j not in started:
                passes[j] = passes.get(j, 0) + 1
        rest = [j for j in order if j not in started]
        if head is not None:
            rest.remove(head)
            rest.insert(0, head)
        return rest

    def _decide(
        self, sim: Simulation, win: list[int], cands: list[int], starved: list[int], now: float
    ) -> set[int]:
        K, b, eps = sim.K, sim.bb_index, sim.bb_eps
        dem = sim.dem
        total = tuple(sum(dem[j][k] for j in cands) for k in range(K))
        if _fits(total, sim.free, K, b, eps):
            sim.counters.trivial_decisions += 1
            self._start_set(sim, cands)
            sim.counters.starved_forced += sum(1 for j in starved if j in cands)
            return set(cands)
        problem = self._problem(sim, cands, starved)
        record = sim.options.record_problem
        if record is not None:
            record(
                problem,
                {
                    "t": now,
                    "queue_length": len(sim.queue),
                    "window": self.window,
                    "policy": self.describe(),
                    "priority": sim.options.priority,
                },
            )
        free_before = list(sim.free)
        sim.counters.decisions += 1
        fault = None
        chosen: list[int] = []
        decision = None
        try:
            decision = timed_solve(self.solver, problem, self.budget)
            sim.latencies.append(decision.latency_s)
            if decision.status in (Status.ERROR, Status.INFEASIBLE):
                raise InvalidDecisionError(
                    f"solver answered {decision.status.value}: {'; '.join(decision.notes) or 'no reason given'}"
                )
            problem.check_selection(decision.selected)
            chosen = [cands[i] for i in decision.selected]
        except InvalidDecisionError as exc:
            fault = str(exc)
        except Exception as exc:  # a plug-in solver crashed: same handling as an invalid answer
            fault = f"solver raised {type(exc).__name__}: {exc}"
        if fault is None:
            # The core's own check, job by job, in the order they will be started.
            free = list(sim.free)
            for j in sorted(chosen, key=lambda j: -sim.ssd[j]):
                if not _fits(dem[j], free, K, b, eps):
                    fault = f"job {int(sim.workload.job_id[j])} does not fit the free resources"
                    break
                for k in range(K):
                    free[k] -= dem[j][k]
        log = sim.options.decision_log
        if fault is not None:
            sim.counters.faults += 1
            if log is not None:
                log(
                    self._log_entry(sim, now, win, cands, starved, decision, [], fault, free_before)
                )
            if sim.options.on_invalid == "raise":
                raise InvalidDecisionError(
                    f"t={now:g}: decision by {getattr(self.solver, 'id', self.solver)!r} rejected: "
                    f"{fault} (use on_invalid='fallback' to fall back to the naive rule)"
                )
            sim.counters.fallbacks += 1
            before = set(sim.queue)
            naive_start(sim, list(cands))
            return before - set(sim.queue)
        self._start_set(sim, chosen)
        sim.counters.starved_forced += sum(1 for j in starved if j in chosen)
        if log is not None:
            log(self._log_entry(sim, now, win, cands, starved, decision, chosen, None, free_before))
        return set(chosen)

    @staticmethod
    def _start_set(sim: Simulation, jobs: list[int]) -> None:
        # most SSD-demanding first, so node groups can always be assigned (simcore/system.py)
        for j in sorted(jobs, key=lambda j: -sim.ssd[j]):
            sim.start(j)

    @staticmethod
    def _problem(sim: Simulation, cands: list[int], starved: list[int]) -> SelectionProblem:
        system = sim.system
        dem = np.array([sim.dem[j] for j in cands], dtype=np.float64)
        nodes = dem[:, 0]
        rows = [nodes]
        names = ["nodes"]
        scales = [float(system.nodes)]
        if sim.bb_index >= 0:
            rows.append(dem[:, sim.bb_index])
            names.append("bb_gb")
            scales.append(float(system.bb_gb))
        if system.has_ssd:
            rows.append(np.array([sim.ssd[j] for j in cands]) * nodes)
            names.append("ssd_gb")
            scales.append(float(system.ssd_total_gb))
        pos = {j: i for i, j in enumerate(cands)}
        return SelectionProblem(
            capacities=np.maximum(np.array(sim.free, dtype=np.float64), 0.0),
            demands=dem,
            objectives=np.vstack(rows),
            must_include=tuple(pos[j] for j in starved if j in pos),
            resources=sim.resource_names,
            objective_names=tuple(names),
            objective_scales=np.array(scales),
        )

    @staticmethod
    def _log_entry(
        sim: Simulation,
        now: float,
        win: list[int],
        cands: list[int],
        starved: list[int],
        decision: Any,
        chosen: list[int],
        fault: str | None,
        free: list[float],
    ) -> dict[str, Any]:
        ids = sim.workload.job_id
        return {
            "t": now,
            "window": [int(ids[j]) for j in win],
            "candidates": [int(ids[j]) for j in cands],
            "must_include": [int(ids[j]) for j in starved if j in cands],
            "selected": [int(ids[j]) for j in chosen],
            "status": decision.status.value if decision is not None else "error",
            "objectives": list(decision.objectives) if decision is not None else [],
            "pareto_points": len(decision.pareto) if decision is not None else 0,
            "latency_s": decision.latency_s if decision is not None else None,
            "solver": decision.solver
            if decision is not None
            else getattr(sim.policy.solver, "id", ""),
            "free": free,
            "fault": fault,
        }


POLICIES: dict[str, type[Policy]] = {"naive": NaivePolicy, "window": WindowPolicy}
