"""Property tests of the simulator on random small workloads and machines.

Every combination of priority (fcfs, wfp) x backfilling (easy, conservative, none) x start rule
(naive, window with the ``naive`` and ``dp`` solvers) x lifecycle (classic, three-phase) must
give a schedule that

* never over-commits a resource: usage is rebuilt here from the per-job intervals of the result
  (nodes, burst buffer per phase, SSD cuts) and checked against the machine, and the recorded
  usage timeline must equal that reconstruction and stay within capacity;
* runs every job that fits the empty machine (COMPLETED or KILLED, with the lifecycle's
  durations) and rejects exactly the others;
* starts jobs only at event instants (an arrival or a completion/release);
* is reproducible: the same input gives the same arrays.

Policy-specific properties that are true (see each test for why):

* FCFS + naive + no backfilling equals an independent in-order list scheduler written here;
* FCFS + naive + EASY or conservative (classic lifecycle): the queue head never starts later
  than any reservation ("shadow time") computed for it while it was the head.

``check_schedule`` is also used by ``tests/simcore/test_engine.py``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.simcore.backfill import (
    Backfiller,
    ConservativeBackfill,
    head_reservation,
    make_backfiller,
)
from schedbench.simcore.engine import SimOptions, simulate
from schedbench.simcore.policies import NaivePolicy, WindowPolicy
from schedbench.simcore.schedule import JobState, ScheduleResult
from schedbench.simcore.system import NodeGroup, System
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver
from tests._hyp import examples

TOL = 1e-6
SOLVERS = {"naive": make_solver("naive"), "dp": make_solver("dp")}


# ----------------------------------------------------------------------------- generators
@st.composite
def machines(draw) -> System:
    kind = draw(st.sampled_from(["plain", "bb", "ssd", "ssd1"]))
    bw = draw(st.sampled_from([(8.0, 2.5), (1.0, 1.0), (4.0, 2.0)]))
    kw = {"bw_bb_gbps": bw[0], "bw_io_gbps": bw[1]}
    if kind == "plain":
        return System.simple("plain", draw(st.integers(1, 12)), **kw)
    if kind == "bb":
        return System.simple(
            "bb", draw(st.integers(1, 12)), float(draw(st.integers(20, 120))), **kw
        )
    if kind == "ssd1":  # one group, every node with local SSD
        bb = float(draw(st.sampled_from([0, 60])))
        return System("ssd1", (NodeGroup("s128", draw(st.integers(1, 8)), 128.0),), bb, **kw)
    groups = [
        NodeGroup("s0", draw(st.integers(1, 4)), 0.0),
        NodeGroup("s128", draw(st.integers(1, 4)), 128.0),
    ]
    if draw(st.booleans()):
        groups.append(NodeGroup("s256", draw(st.integers(1, 3)), 256.0))
    bb = float(draw(st.sampled_from([0, 40, 100])))
    return System("ssd", tuple(groups), bb, **kw)


@st.composite
def workloads(draw, system: System, max_jobs: int = 40, exact_requests: bool = False) -> Workload:
    n = draw(st.integers(5, max_jobs))
    ints = st.integers
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 3, 10, 25]), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float)
    runtime = np.array(draw(st.lists(ints(0, 60), min_size=n, max_size=n)), float)
    if exact_requests:
        req = runtime.copy()
    else:  # sometimes shorter than the runtime (killed), sometimes longer
        slack = np.array(draw(st.lists(ints(-20, 60), min_size=n, max_size=n)), float)
        req = np.maximum(runtime + slack, 0.0)
    nodes = draw(st.lists(ints(1, system.nodes + 1), min_size=n, max_size=n))
    bb_hi = int(system.bb_gb) + 20 if system.bb_gb else 10

    def sometimes(hi: int) -> st.SearchStrategy[float]:
        return st.one_of(st.just(0.0), ints(1, hi).map(float))

    bb = draw(st.lists(sometimes(bb_hi // 2), min_size=n, max_size=n))
    if system.bb_gb == 0:  # mostly jobs that can run, a few rejected for wanting a buffer
        bb = [x if draw(st.integers(0, 9)) == 0 else 0.0 for x in bb]
    ssd_sizes = [0.0, 0.0, 64.0, 128.0, 200.0, 256.0, 300.0] if system.has_ssd else [0.0]
    ssd = draw(st.lists(st.sampled_from(ssd_sizes), min_size=n, max_size=n))
    data_hi = max(int(system.bb_gb) // 2, 1)
    data_in = draw(st.lists(sometimes(data_hi), min_size=n, max_size=n))
    data_out = draw(st.lists(sometimes(data_hi), min_size=n, max_size=n))
    return Workload.from_columns(
        submit=submit,
        runtime=runtime,
        requested_time=req,
        nodes=nodes,
        bb_gb=bb,
        ssd_gb=ssd,
        data_in_gb=data_in,
        data_out_gb=data_out,
    )


COLUMNS = (
    "submit",
    "runtime",
    "requested_time",
    "nodes",
    "bb_gb",
    "ssd_gb",
    "data_in_gb",
    "data_out_gb",
)


@dataclass(frozen=True)
class Case:
    system: System
    w: Workload

    def __iter__(self):
        return iter((self.system, self.w))

    def __repr__(self) -> str:  # a falsifying example that can be pasted back
        cols = {c: getattr(self.w, c).tolist() for c in COLUMNS}
        return f"Case({self.system!r}, Workload.from_columns(**{cols!r}))"


@st.composite
def scenarios(draw, max_jobs: int = 40, exact_requests: bool = False) -> Case:
    system = draw(machines())
    return Case(system, draw(workloads(system, max_jobs, exact_requests)))


# ----------------------------------------------------------------------------- the checker
def never_fits(w: Workload, system: System, three_phase: bool) -> np.ndarray:
    """Jobs that cannot run on the empty machine, computed independently of the engine."""
    peak_bb = w.bb_gb + (w.data_in_gb + w.data_out_gb if three_phase else 0.0)
    adequate = np.array(
        [sum(g.count for g in system.node_groups if g.ssd_gb >= s) for s in w.ssd_gb]
    )
    eps = 1e-9 * max(system.bb_gb, 1.0)
    return (w.nodes > system.nodes) | (w.nodes > adequate) | (peak_bb > system.bb_gb + eps)


def _cuts(system: System) -> list[tuple[float, int]]:
    """(largest SSD size below the cut, nodes in the cut) per SSD size above the smallest."""
    sizes = sorted({g.ssd_gb for g in system.node_groups})
    return [
        (below, sum(g.count for g in system.node_groups if g.ssd_gb >= t))
        for below, t in itertools.pairwise(sizes)
    ]


def intervals(r: ScheduleResult, three_phase: bool):
    """Per-job holdings as (starts, ends, amounts) with columns
    nodes, bb_gb, ssd_requested_gb, then one column per SSD cut (nodes confined to it)."""
    w, system = r.workload, r.system
    cuts = _cuts(system)
    a_list, b_list, v_list = [], [], []

    def hold(a: float, b: float, nodes=0.0, bb=0.0, ssd=0.0, cut=None) -> None:
        a_list.append(a)
        b_list.append(b)
        v_list.append([nodes, bb, ssd, *(cut if cut is not None else [0.0] * len(cuts))])

    for j in np.flatnonzero(r.state != JobState.REJECTED):
        s, e = r.start[j], r.end[j]
        n = float(w.nodes[j])
        cut = [n if w.ssd_gb[j] > below else 0.0 for below, _ in cuts]
        hold(s, e, nodes=n, ssd=n * w.ssd_gb[j], cut=cut)
        if not three_phase:
            hold(s, e, bb=w.bb_gb[j])
            continue
        load_in = w.data_in_gb[j] / system.bw_bb_gbps
        compute = min(w.runtime[j], w.requested_time[j])
        if w.data_in_gb[j] > 0:
            hold(r.first_alloc[j], s + load_in, bb=w.data_in_gb[j])
        hold(s, s + load_in + compute, bb=w.bb_gb[j])
        hold(s, r.last_release[j], bb=w.data_out_gb[j])
    width = 3 + len(cuts)
    return (
        np.array(a_list, dtype=float),
        np.array(b_list, dtype=float),
        np.array(v_list, dtype=float).reshape(-1, width),
    )


def usage_at(starts, ends, amounts, points):
    """Sum of the holdings with start <= t < end, for each t in ``points``."""
    inside = (starts[None, :] <= points[:, None]) & (points[:, None] < ends[None, :])
    return inside.astype(float) @ amounts


def recorded_at(r: ScheduleResult, points):
    """The recorded usage row in force at each t (the last one recorded at or before t)."""
    idx = np.searchsorted(r.usage_t, points, side="right") - 1
    rows = np.zeros((len(points), r.usage.shape[1]))
    rows[idx >= 0] = r.usage[idx[idx >= 0]]
    return rows


def check_schedule(r: ScheduleResult, three_phase: bool) -> None:
    """Assert everything a valid schedule satisfies, whatever the policy."""
    w, system = r.workload, r.system
    n = len(w)
    rejected = r.state == JobState.REJECTED
    np.testing.assert_array_equal(rejected, never_fits(w, system, three_phase))
    assert np.isnan(r.start[rejected]).all() and np.isnan(r.end[rejected]).all()
    ran = ~rejected
    killed = w.runtime > w.requested_time
    np.testing.assert_array_equal(r.state[ran & killed], JobState.KILLED)
    np.testing.assert_array_equal(r.state[ran & ~killed], JobState.COMPLETED)
    assert r.counters["rejected"] == rejected.sum()
    assert r.counters["started"] == ran.sum()
    assert r.counters["killed"] == (ran & killed).sum()

    start, end = r.start[ran], r.end[ran]
    assert not np.isnan(start).any() and not np.isnan(end).any()
    assert (start >= w.submit[ran]).all()
    assert (end >= start).all()
    assert (r.first_alloc[ran] >= w.submit[ran]).all()
    assert (r.first_alloc[ran] <= start).all()
    assert (r.last_release[ran] >= end).all()
    compute = np.minimum(w.runtime, w.requested_time)[ran]
    if not three_phase:
        np.testing.assert_allclose(end - start, compute, rtol=0, atol=TOL)
        np.testing.assert_array_equal(r.first_alloc[ran], start)
        np.testing.assert_array_equal(r.last_release[ran], end)
        events = np.concatenate([w.submit, end])
    else:
        bw_bb, bw_io = system.bw_bb_gbps, system.bw_io_gbps
        din, dout = w.data_in_gb[ran], w.data_out_gb[ran]
        np.testing.assert_allclose(end - start, din / bw_bb + compute + dout / bw_bb, atol=TOL)
        np.testing.assert_allclose(r.last_release[ran] - end, dout / bw_io, atol=TOL)
        staged = din > 0
        staged_at = r.first_alloc[ran] + din / bw_io  # the end of the stage-in
        assert (start[staged] >= staged_at[staged] - TOL).all()
        np.testing.assert_array_equal(r.first_alloc[ran][~staged], start[~staged])
        events = np.concatenate(
            [
                w.submit,
                staged_at[staged],
                start + din / bw_bb,  # load-in done
                start + din / bw_bb + compute,  # compute done
                end,
                r.last_release[ran],
            ]
        )
    # The engine decides only at event instants (and wake-ups): every start is one of them.
    events = np.concatenate([events, r.wake_times])
    assert (np.min(np.abs(start[:, None] - events[None, :]), axis=1) <= TOL).all()

    # Capacity, rebuilt from the intervals, at every instant something is taken.
    a, b, v = intervals(r, three_phase)
    cuts = _cuts(system)
    cap = np.array([system.nodes, system.bb_gb, system.ssd_total_gb, *(c for _, c in cuts)])
    if len(a):
        use = usage_at(a, b, v, np.unique(a))
        over = use > cap + TOL
        assert not over.any(), f"over-committed: {use[over.any(axis=1)]} > {cap}"
    # The recorded timeline: within capacity, and equal to the reconstruction wherever
    # either could change.
    assert r.usage.shape == (len(r.usage_t), 4)
    assert (np.diff(r.usage_t) >= 0).all()
    assert (r.usage >= -TOL).all()
    assert (r.usage <= r.capacity + TOL).all()
    assert (r.usage[:, 2] <= r.usage[:, 3] + TOL).all()  # assigned SSD >= requested SSD
    points = np.unique(np.concatenate([a, b, r.usage_t]))
    if len(points):
        rec = recorded_at(r, points)
        rebuilt = usage_at(a, b, v, points) if len(a) else np.zeros((len(points), v.shape[1]))
        np.testing.assert_allclose(rec[:, :3], rebuilt[:, :3], atol=TOL)
    if n:
        assert r.config["jobs"] == n


# ----------------------------------------------------------------------------- running
COMBOS = [
    (priority, backfill, policy, lifecycle)
    for priority in ("fcfs", "wfp")
    for backfill in ("easy", "conservative", "none")
    for policy in ("naive", "window-naive", "window-dp")
    for lifecycle in ("classic", "three-phase")
]


@pytest.mark.parametrize(("priority", "backfill", "policy", "lifecycle"), COMBOS)
@settings(max_examples=examples(12))
@given(
    case=scenarios(),
    window=st.integers(1, 6),
    bound=st.integers(1, 4),
)
def test_every_policy_gives_a_valid_reproducible_schedule(
    priority, backfill, policy, lifecycle, case, window, bound
):
    system, w = case
    options = SimOptions(lifecycle=lifecycle, priority=priority)

    def run() -> ScheduleResult:
        if policy == "naive":
            pol = NaivePolicy(backfill=backfill)
        else:
            solver = SOLVERS[policy.removeprefix("window-")]
            pol = WindowPolicy(solver, window=window, starvation_bound=bound, backfill=backfill)
        return simulate(w, system, pol, options)

    r = run()
    check_schedule(r, lifecycle == "three-phase")
    again = run()
    for name in ("start", "end", "first_alloc", "last_release", "state", "usage_t", "usage"):
        np.testing.assert_array_equal(getattr(again, name), getattr(r, name), err_msg=name)
    assert again.counters == r.counters


# ----------------------------------------------------------------------------- FCFS, no backfill
def list_schedule(w: Workload, system: System) -> np.ndarray:
    """FCFS without backfilling, classic lifecycle, written independently of the engine.

    Jobs start in submit order, each at the first instant >= its submit and >= the previous
    start at which it fits beside the jobs still running; resources only grow between starts,
    so that instant is the submit time or the end of a running job. Node groups are assigned
    smallest adequate SSD first, as the engine does, and kept for the job's run.

    Zero-length jobs: the engine releases them in a further round at the same instant, so a
    job started at ``t`` takes ``t`` and holds its nodes for the jobs placed after it in the
    same round; the round ends at the first job that does not fit, and the next round at ``t``
    sees those nodes again (which matters for which node groups the next jobs get).
    """
    sizes = [g.ssd_gb for g in system.node_groups]
    counts = [g.count for g in system.node_groups]
    eps = 1e-9 * max(system.bb_gb, 1.0)
    bad = never_fits(w, system, False)
    start = np.full(len(w), np.nan)
    running: list[tuple[float, float, list[int]]] = []  # (end, bb, nodes per group)
    zero: list[tuple[float, float, list[int]]] = []  # zero-length, started this round at prev
    prev = -math.inf
    for j in range(len(w)):
        if bad[j]:
            continue
        need, s, bb = int(w.nodes[j]), w.ssd_gb[j], w.bb_gb[j]
        duration = min(w.runtime[j], w.requested_time[j])
        t0 = max(w.submit[j], prev)
        placed = False
        for t in sorted({t0, *(e for e, _, _ in running if e > t0)}):
            if t > prev:
                zero = []
            while True:
                live = [x for x in running if x[0] > t] + zero
                free = [c - sum(x[2][g] for x in live) for g, c in enumerate(counts)]
                bb_free = system.bb_gb - sum(x[1] for x in live)
                adequate = sum(f for f, size in zip(free, sizes, strict=True) if size >= s)
                if adequate >= need and bb <= bb_free + eps:
                    take = [0] * len(counts)
                    left = need
                    for g, size in enumerate(sizes):
                        if size >= s and left:
                            take[g] = min(left, free[g])
                            left -= take[g]
                    (zero if duration == 0 else running).append((t + duration, bb, take))
                    start[j] = prev = t
                    placed = True
                    break
                if not zero:
                    break
                zero = []  # the next round at t: the zero-length jobs are gone
            if placed:
                break
    return start


@settings(max_examples=examples(150))
@given(case=scenarios())
def test_fcfs_without_backfilling_is_an_in_order_list_schedule(case):
    system, w = case
    r = simulate(w, system, NaivePolicy(backfill="none"), SimOptions(priority="fcfs"))
    np.testing.assert_array_equal(r.start, list_schedule(w, system))
    ran = r.state != JobState.REJECTED
    assert (np.diff(r.start[ran]) >= 0).all()  # starts in submit order


# ----------------------------------------------------------------------------- the head's reservation
class ShadowSpy(Backfiller):
    """Wraps a backfiller; records every reservation computed for the queue head."""

    def __init__(self, backfiller: Backfiller):
        self.inner = backfiller
        self.name = backfiller.name
        self.runs_on_full_machine = backfiller.runs_on_full_machine
        self.plans_all_starts = backfiller.plans_all_starts
        self.shadows: list[tuple[int, float]] = []

    def reset(self):
        self.inner.reset()

    def backfill(self, view, rest, now):
        self.shadows.append((rest[0], head_reservation(view, view.demands[rest[0]], now)[0]))
        yield from self.inner.backfill(view, rest, now)


@pytest.mark.parametrize("backfill", ["easy"])
@settings(max_examples=examples(120))
@given(case=scenarios(), exact=st.booleans())
def test_fcfs_backfilling_never_delays_the_head(backfill, case, exact):
    """FCFS, classic lifecycle: once a job is the queue head and gets a reservation, it starts
    no later than that reservation.

    Why it holds: with a static order the head stays the head until it starts; a job is only
    backfilled if it ends (by its request) before the reservation or fits in what the head
    leaves then; running jobs end at their request at the latest (killed there), so the
    resources the reservation counted on are free by then. (Conservative's guarantee is about
    its own kept reservations, which may be later than this EASY-style shadow because later
    jobs' bookings are respected: see the first-reservation property below.)
    """
    system, w = case
    if exact:
        w = w.replace(requested_time=w.runtime.copy())
    spy = ShadowSpy(make_backfiller(backfill))
    policy = NaivePolicy(backfill=spy)
    r = simulate(w, system, policy, SimOptions(priority="fcfs"))
    check_schedule(r, False)
    for j, shadow in spy.shadows:
        assert r.start[j] <= shadow, (j, r.start[j], shadow)


class BookingSpy(ConservativeBackfill):
    """Conservative backfilling that records each job's first reservation (start time)."""

    def __init__(self) -> None:
        super().__init__()
        self.first: dict[int, float] = {}

    def backfill(self, view, rest, now):
        yield from super().backfill(view, rest, now)
        for j, (s, _e, _d) in self.reservations.items():
            self.first.setdefault(j, s)


@settings(max_examples=examples(150))
@given(case=scenarios())
def test_fcfs_conservative_never_starts_a_job_after_its_first_reservation(case):
    """Conservative keeps reservations between passes and only ever moves them earlier, so
    under FCFS (classic lifecycle) no job starts later than the first reservation it got."""
    system, w = case
    spy = BookingSpy()
    policy = NaivePolicy(backfill=spy)
    r = simulate(w, system, policy, SimOptions(priority="fcfs"))
    check_schedule(r, False)
    for j, first in spy.first.items():
        assert r.start[j] <= first + 1e-9, (j, r.start[j], first)
