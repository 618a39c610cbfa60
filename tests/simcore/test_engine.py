"""The simulator on small traces worked out by hand.

Each test states the trace, then derives every expected start time in comments; the
assertions compare the engine with those numbers. Jobs are listed in submit order and named
by letter; ``w.start[i]`` is the i-th job's start.
"""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.simcore.backfill import ConservativeBackfill
from schedbench.simcore.engine import SimOptions, SimulationError, simulate
from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds.selection.problem import Decision
from schedbench.simcore.policies import NaivePolicy, WindowPolicy
from schedbench.simcore.priority import WFP
from schedbench.simcore.problem import Status
from schedbench.simcore.schedule import USAGE_COLUMNS, JobState, ScheduleResult
from schedbench.simcore.system import NodeGroup, System
from schedbench.simcore.workload import Workload
from schedbench.solvers.registry import make_solver
from tests.simcore.test_engine_properties import check_schedule

NODES, BB, SSD_REQ, SSD_ASSIGNED = (USAGE_COLUMNS.index(c) for c in USAGE_COLUMNS)


def jobs(**columns) -> Workload:
    return Workload.from_columns(**columns)


def run(w: Workload, system: System, policy=None, **options) -> ScheduleResult:
    r = simulate(w, system, policy or NaivePolicy(backfill="easy"), SimOptions(**options))
    check_schedule(r, options.get("lifecycle", "classic") == "three-phase")
    return r


def usage_at(r: ScheduleResult, t: float) -> np.ndarray:
    """The usage row in force at ``t`` (after everything that happened at ``t``)."""
    i = np.searchsorted(r.usage_t, t, side="right") - 1
    return r.usage[i] if i >= 0 else np.zeros(len(USAGE_COLUMNS))


M10 = System.simple("m10", 10)


# ----------------------------------------------------------------------------- the event loop
@pytest.mark.parametrize("backfill", ["easy", "conservative", "none"])
def test_an_arrival_sees_the_nodes_released_at_the_same_instant(backfill):
    # A (10 nodes) runs 0..100. B (10 nodes) arrives at 100: releases are applied before
    # arrivals, then one pass runs, so B sees the 10 free nodes and starts at 100.
    w = jobs(submit=[0, 100], runtime=[100, 10], nodes=[10, 10])
    r = run(w, M10, NaivePolicy(backfill=backfill))
    np.testing.assert_array_equal(r.start, [0, 100])
    np.testing.assert_array_equal(r.end, [100, 110])


def test_one_pass_per_instant_however_many_arrivals():
    # Four 1-node jobs arrive at 0 and three at 5, all running 10 s on 10 nodes. Passes run at
    # 0 and at 5 (one each, however many arrivals); at 10 and 15 only completions happen and
    # the queue is empty, so no pass. Instants: 0, 5, 10, 15.
    w = jobs(submit=[0, 0, 0, 0, 5, 5, 5], runtime=[10] * 7, nodes=[1] * 7)
    r = run(w, M10)
    np.testing.assert_array_equal(r.start, [0, 0, 0, 0, 5, 5, 5])
    assert r.counters["passes"] == 2
    assert r.counters["instants"] == 4
    assert r.counters["started"] == 7


def test_the_single_pass_sees_every_arrival_of_the_instant():
    # A (6 nodes, 100 s), B (6 nodes, 10 s), C (4 nodes, 10 s) all arrive at 0. One pass:
    # A starts; B (6 > 4 free) is the head, reserved at 100; C fits the 4 free nodes and ends at
    # 10 <= 100, so it is backfilled in the same pass. B starts at 100.
    w = jobs(submit=[0, 0, 0], runtime=[100, 10, 10], nodes=[6, 6, 4])
    r = run(w, M10)
    np.testing.assert_array_equal(r.start, [0, 100, 0])
    assert r.counters["passes"] == 3  # at 0, 10 (C ends, B queued) and 100; not at 110
    assert r.counters["backfilled"] == 1


# ----------------------------------------------------------------------------- FCFS and EASY
# A (6 nodes) runs 0..100; B (7 nodes) arrives at 1 and waits: it is the head, and its
# reservation ("shadow") is 100, when A's 6 nodes come back; at 100 it leaves 10 - 7 = 3
# nodes over ("extra"). The third job varies.
HEAD_A = {"submit": 0, "runtime": 100, "nodes": 6}
HEAD_B = {"submit": 1, "runtime": 50, "nodes": 7}


def three(third: dict, a: dict = HEAD_A) -> Workload:
    rows = [a, HEAD_B, {"submit": 2, **third}]
    return jobs(
        submit=[x["submit"] for x in rows],
        runtime=[x["runtime"] for x in rows],
        requested_time=[x.get("req", x["runtime"]) for x in rows],
        nodes=[x["nodes"] for x in rows],
    )


def test_fcfs_without_backfilling_blocks_behind_the_head():
    # C (4 nodes, 10 s) at 2 fits the 4 free nodes but B is ahead of it: no backfilling, so C
    # waits. At 100 B starts (7 nodes), 3 left < 4; at 150 B ends and C starts.
    r = run(three({"runtime": 10, "nodes": 4}), M10, NaivePolicy(backfill="none"))
    np.testing.assert_array_equal(r.start, [0, 100, 150])
    assert r.counters["backfilled"] == 0


def test_easy_backfills_a_short_job_without_delaying_the_head():
    # C (4 nodes, 10 s) at 2: fits the 4 free nodes and ends at 12 <= shadow 100: backfilled.
    # B still starts at 100 (A's 6 nodes + C's 4, released at 12).
    r = run(three({"runtime": 10, "nodes": 4}), M10)
    np.testing.assert_array_equal(r.start, [0, 100, 2])
    assert r.counters["backfilled"] == 1


def test_easy_does_not_backfill_a_job_that_would_delay_the_head():
    # D (4 nodes, 200 s) at 2 fits now, but ends at 202 > 100 and needs 4 > 3 extra nodes:
    # starting it would leave B 6 nodes at 100. Not backfilled; at 100 B takes 7, 3 left;
    # D starts when B ends, at 150.
    r = run(three({"runtime": 200, "nodes": 4}), M10)
    np.testing.assert_array_equal(r.start, [0, 100, 150])
    assert r.counters["backfilled"] == 0


def test_easy_backfills_a_long_job_that_fits_in_the_extra_nodes():
    # E (3 nodes, 200 s) at 2 ends after the shadow but fits the 3 extra nodes: backfilled at
    # 2, and B still gets its 7 nodes at 100 (10 - 3).
    r = run(three({"runtime": 200, "nodes": 3}), M10)
    np.testing.assert_array_equal(r.start, [0, 100, 2])


def test_backfilling_uses_the_candidates_request_not_its_runtime():
    # F (4 nodes) would run only 10 s (ending at 12 <= 100) but requests 200: by its request it
    # ends at 202 > 100 and needs 4 > 3 extra nodes, so it is not backfilled. It starts at 150.
    r = run(three({"runtime": 10, "req": 200, "nodes": 4}), M10)
    np.testing.assert_array_equal(r.start, [0, 100, 150])


def test_the_reservation_uses_the_running_jobs_requests_not_their_runtimes():
    # A actually runs 50 s but requests 100, so B's shadow is 100 (not 50). G (4 nodes, 80 s)
    # at 2 ends at 82 <= 100: backfilled. A ends at 50: B needs 7, 10 - 4 = 6 free, waits.
    # G ends at 82: B starts at 82 -- before its shadow, as promised. (Had the shadow used
    # A's runtime, 50, G would not have been backfilled and B would have started at 50.)
    a = {"submit": 0, "runtime": 50, "req": 100, "nodes": 6}
    r = run(three({"runtime": 80, "nodes": 4}, a=a), M10)
    np.testing.assert_array_equal(r.start, [0, 82, 2])


# ----------------------------------------------------------------------------- kill, reject
def test_a_job_running_past_its_request_is_killed_there():
    # A runs 100 s but requested 60: it ends at 60, KILLED. B (10 nodes) arrives at 1 and
    # starts when A's nodes come back, at 60.
    w = jobs(submit=[0, 1], runtime=[100, 5], requested_time=[60, 5], nodes=[10, 10])
    r = run(w, M10)
    np.testing.assert_array_equal(r.start, [0, 60])
    np.testing.assert_array_equal(r.end, [60, 65])
    assert list(r.state) == [JobState.KILLED, JobState.COMPLETED]
    assert r.counters["killed"] == 1


def test_jobs_that_cannot_fit_the_machine_are_rejected_and_the_rest_runs():
    # On 10 nodes with a 100 GB burst buffer: X wants 11 nodes, Y 150 GB: never started.
    # A and B (5 nodes each) run side by side from 0 and 1.
    system = System.simple("bb", 10, 100.0)
    w = jobs(submit=[0, 0, 1, 1], runtime=[10] * 4, nodes=[5, 11, 5, 2], bb_gb=[0, 0, 0, 150])
    r = run(w, system)
    assert list(r.state) == [
        JobState.COMPLETED,
        JobState.REJECTED,
        JobState.COMPLETED,
        JobState.REJECTED,
    ]
    np.testing.assert_array_equal(r.start, [0, np.nan, 1, np.nan])
    assert r.counters["rejected"] == 2 and r.counters["started"] == 2


def test_a_job_wanting_a_burst_buffer_the_machine_lacks_is_rejected():
    for lifecycle in ("classic", "three-phase"):
        w = jobs(submit=[0, 0], runtime=[10, 10], nodes=[1, 1], bb_gb=[5, 0])
        r = run(w, System.simple("nobb", 4), lifecycle=lifecycle)
        assert list(r.state) == [JobState.REJECTED, JobState.COMPLETED]


# ----------------------------------------------------------------------------- conservative
def test_conservative_protects_the_second_queued_job_where_easy_does_not():
    # A (8 nodes) runs 0..100. B (8 nodes, 100 s) at 1, C (10 nodes, 50 s) at 2, D (2 nodes,
    # 1000 s) at 3.
    # EASY at 3: head B, shadow 100, extra 10 - 8 = 2; D fits the 2 free nodes and the 2 extra
    # ones: backfilled, running to 1003. B starts at 100; at 200 only 8 nodes are free, so C
    # (10 nodes) waits for D: C starts at 1003.
    # Conservative at 3: B is booked [100, 200), C [200, 250); D (2 nodes for 1000 s) would
    # overlap C's 10 nodes at 200, so its earliest slot is 250. B 100, C 200, D 250.
    w = jobs(submit=[0, 1, 2, 3], runtime=[100, 100, 50, 1000], nodes=[8, 8, 10, 2])
    easy = run(w, M10, NaivePolicy(backfill="easy"))
    np.testing.assert_array_equal(easy.start, [0, 100, 1003, 3])
    cons = run(w, M10, NaivePolicy(backfill="conservative"))
    np.testing.assert_array_equal(cons.start, [0, 100, 200, 250])


def test_conservative_backfills_into_a_hole_that_ends_before_the_next_reservation():
    # A (8 nodes) runs 0..100; B (10 nodes) at 1 is booked at [100, 200). C (2 nodes, 50 s)
    # at 2 fits the 2 free nodes and ends at 52 <= 100: its earliest slot is now, it starts at
    # 2. D (2 nodes, 100 s) at 3: [3, 103) overlaps B's booking (0 nodes left), slot 200.
    w = jobs(submit=[0, 1, 2, 3], runtime=[100, 100, 50, 100], nodes=[8, 10, 2, 2])
    r = run(w, M10, NaivePolicy(backfill="conservative"))
    np.testing.assert_array_equal(r.start, [0, 100, 2, 200])
    assert r.counters["backfilled"] == 1


def test_conservative_fcfs_never_starts_a_job_after_its_first_reservation():
    # R1 (5 nodes, runs and requests 30 s) and R2 (5 nodes, runs 20 s, requests 50 s) start at
    # 0. A (10 nodes, 100 s) at 1 is booked at [50, 150). B (5 nodes, 20 s) at 2: the profile
    # has 5 nodes free over [30, 50) -> B's first reservation is [30, 50).
    # R2 ends early, at 20. Reservations are kept: A may only move into room nobody booked —
    # [30, 50) is B's, so A stays at 50 — and B, re-placed around A's booking, fits now: it
    # starts at 20 (ends 40 <= 50). At 30 R1 ends and A compresses to 40, when B's request
    # ends. A rebuild-from-scratch would have handed B's slot to A (A at 30, B at 130).
    w = jobs(
        submit=[0, 0, 1, 2],
        runtime=[30, 20, 100, 20],
        requested_time=[30, 50, 100, 20],
        nodes=[5, 5, 10, 5],
    )
    r = run(w, M10, NaivePolicy(backfill="conservative"))
    np.testing.assert_array_equal(r.start, [0, 0, 40, 20])


# ----------------------------------------------------------------------------- WFP
def test_wfp_runs_the_highest_utility_first_where_fcfs_runs_the_oldest():
    # A (10 nodes) runs 0..100. B (6 nodes, requests 1000 s) at 10, C (6 nodes, requests 100 s)
    # at 20; only one of B and C fits beside the other. At 100:
    #   B: 6 * (90 / 1000)^3 = 0.004374      C: 6 * (80 / 100)^3 = 3.072
    # WFP starts C at 100, B when C ends, at 200. FCFS starts B at 100, C at 1100.
    w = jobs(submit=[0, 10, 20], runtime=[100, 1000, 100], nodes=[10, 6, 6])
    wfp = run(w, M10, NaivePolicy(backfill="none"), priority="wfp")
    np.testing.assert_array_equal(wfp.start, [0, 200, 100])
    fcfs = run(w, M10, NaivePolicy(backfill="none"), priority="fcfs")
    np.testing.assert_array_equal(fcfs.start, [0, 100, 1100])
    scores = WFP(w.submit, w.nodes, w.requested_time).scores(np.array([1, 2]), 100.0)
    np.testing.assert_allclose(scores, [6 * 0.09**3, 6 * 0.8**3])


def test_wfp_ties_keep_arrival_order():
    # At the instant of arrival every score is 0: arrival order.
    prio = WFP(np.array([5.0, 5.0, 5.0]), np.array([1, 8, 4]), np.array([10.0, 10.0, 10.0]))
    assert prio.order([0, 1, 2], 5.0) == [0, 1, 2]
    # Later, the 8-node job has the highest score: 8 * (1)^3 > 4 > 1.
    assert prio.order([0, 1, 2], 15.0) == [1, 2, 0]


# ----------------------------------------------------------------------------- burst buffer
BB100 = System.simple("bb", 10, 100.0)
# A (2 nodes, 80 GB, 100 s) at 0; B (2 nodes, 90 GB, 10 s) at 1 is blocked by the buffer
# (8 nodes free, 20 GB free). C (2 nodes, 20 GB, 500 s) at 2; D (2 nodes, 10 GB, 500 s) at 3.
BB_TRACE = {
    "submit": [0, 1, 2, 3],
    "runtime": [100, 10, 500, 500],
    "nodes": [2, 2, 2, 2],
    "bb_gb": [80, 90, 20, 10],
}


def test_burst_buffer_blocks_a_job_with_free_nodes():
    # No backfilling: B waits for A's 80 GB (100); C and D behind it. At 100 B starts (90 GB);
    # at 110 B ends and C (20) and D (10) start together.
    r = run(jobs(**BB_TRACE), BB100, NaivePolicy(backfill="none"))
    np.testing.assert_array_equal(r.start, [0, 100, 110, 110])
    assert usage_at(r, 1)[BB] == 80 and usage_at(r, 1)[NODES] == 2


def test_easy_reservation_accounts_for_the_burst_buffer():
    # Head B: shadow 100, extra at 100: 10 - 2 = 8 nodes, 100 - 90 = 10 GB.
    # C at 2: fits now (20 GB free) but runs past 100 and needs 20 > 10 GB extra: not
    # backfilled (it would leave B 80 GB at 100). D at 3: fits now and in the extra 10 GB:
    # backfilled at 3. At 100: 100 - 10 = 90 GB free, B starts. C waits for B's end, 110.
    r = run(jobs(**BB_TRACE), BB100)
    np.testing.assert_array_equal(r.start, [0, 100, 110, 3])
    assert usage_at(r, 3)[BB] == 90
    assert usage_at(r, 100)[BB] == 100


# ----------------------------------------------------------------------------- local SSD
SSD = System("ssd", (NodeGroup("s128", 4, 128.0), NodeGroup("s256", 4, 256.0)))


def test_ssd_jobs_go_on_adequate_nodes_and_small_ones_prefer_small_ssd():
    # X (2 nodes x 200 GB) can only use the 256 GB nodes; Y (2 x 100 GB) takes the smallest
    # adequate ones, 128 GB. At 0: requested 2*200 + 2*100 = 600 GB, assigned 2*256 + 2*128 =
    # 768 GB. Z (3 x 200 GB) at 1: 4 nodes are free but only 2 with 256 GB: it waits for X,
    # starts at 100 (assigned 3*256 = 768, requested 600). V (5 x 200 GB) and W (1 x 300 GB)
    # can never fit: rejected. U (6 nodes, no SSD) at 200 takes the four 128 GB nodes and
    # spills onto two 256 GB ones: assigned 4*128 + 2*256 = 1024, requested 0.
    w = jobs(
        submit=[0, 0, 1, 2, 2, 200],
        runtime=[100, 100, 50, 10, 10, 10],
        nodes=[2, 2, 3, 5, 1, 6],
        ssd_gb=[200, 100, 200, 200, 300, 0],
    )
    r = run(w, SSD)
    np.testing.assert_array_equal(r.start, [0, 0, 100, np.nan, np.nan, 200])
    assert r.state[3] == r.state[4] == JobState.REJECTED
    np.testing.assert_array_equal(usage_at(r, 0), [4, 0, 600, 768])
    np.testing.assert_array_equal(usage_at(r, 100), [3, 0, 600, 768])
    np.testing.assert_array_equal(usage_at(r, 200), [6, 0, 0, 1024])
    np.testing.assert_array_equal(r.capacity[[SSD_REQ, SSD_ASSIGNED]], [1536, 1536])


def test_one_group_of_ssd_nodes_records_ssd_usage():
    # Every node has 128 GB; a 2-node job asking 100 GB/node: requested 200, assigned 256.
    system = System("ssd1", (NodeGroup("s128", 4, 128.0),))
    r = run(jobs(submit=[0], runtime=[10], nodes=[2], ssd_gb=[100]), system)
    np.testing.assert_array_equal(usage_at(r, 0), [2, 0, 200, 256])


def test_a_spilled_backfill_does_not_delay_an_ssd_head():
    # Two 128 GB and two 256 GB nodes. S (2 nodes, no SSD, 50 s) takes both 128 GB nodes, A
    # (1 x 200 GB, 100 s) one 256 GB node. H (2 x 200 GB) at 1 needs both 256 GB nodes: head,
    # shadow 100. B (1 node, no SSD, 1000 s) at 2 fits now -- on the free 256 GB node, the
    # small ones being busy -- and by its demand vector (no SSD) also in what H leaves at 100;
    # but started now it would sit on a node H needs, so it is not backfilled then. At 50 S
    # ends: B now goes on a 128 GB node and is backfilled. At 100 H starts.
    system = System("ssd", (NodeGroup("s128", 2, 128.0), NodeGroup("s256", 2, 256.0)))
    w = jobs(
        submit=[0, 0, 1, 2],
        runtime=[50, 100, 100, 1000],
        nodes=[2, 1, 2, 1],
        ssd_gb=[0, 200, 200, 0],
    )
    r = run(w, system)
    np.testing.assert_array_equal(r.start, [0, 0, 100, 50])


# ----------------------------------------------------------------------------- window policy
class StubSolver:
    """Answers with ``pick(problem)``; records the problems it was asked."""

    name = "stub"
    id = "stub"

    def __init__(self, pick, status: Status = Status.FEASIBLE):
        self.pick = pick
        self.status = status
        self.problems = []

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        self.problems.append(problem)
        return Decision(self.status, selected=tuple(self.pick(problem)))


def greedy_without(excluded_nodes: int):
    """Forced jobs, then window order while they fit, never a job of ``excluded_nodes``."""

    def pick(problem):
        chosen = list(problem.must_include)
        left = problem.capacities - problem.usage(chosen)
        for i, demand in enumerate(problem.demands):
            if i not in chosen and demand[0] != excluded_nodes and (demand <= left).all():
                chosen.append(i)
                left = left - demand
        return chosen

    return pick


W_TRACE = jobs(submit=[0, 0, 0], runtime=[100, 100, 100], nodes=[6, 5, 5])


def test_window_starts_what_the_solver_selects_and_logs_the_decision():
    # Jobs 1 (6 nodes), 2 and 3 (5 nodes) at 0: each fits alone, not all together, so the
    # solver is asked; it picks 2 and 3. Job 1 starts when they end, at 100 (alone: a trivial
    # decision, no solver call).
    log = []
    solver = StubSolver(lambda p: [1, 2])
    r = run(W_TRACE, M10, WindowPolicy(solver, window=5), decision_log=log.append)
    np.testing.assert_array_equal(r.start, [100, 0, 0])
    assert r.counters["decisions"] == 1 and r.counters["trivial_decisions"] == 1
    assert len(solver.problems) == 1
    np.testing.assert_array_equal(solver.problems[0].capacities, [10])
    assert len(log) == 1
    entry = log[0]
    assert entry["t"] == 0 and entry["fault"] is None and entry["status"] == "feasible"
    assert entry["window"] == [1, 2, 3] and entry["candidates"] == [1, 2, 3]
    assert entry["selected"] == [2, 3] and entry["solver"] == "stub"
    assert len(r.decision_latency_s) == 1


@pytest.mark.parametrize("bound", [1, 3])
def test_window_force_starts_a_starved_job(bound):
    # X (job 1, 6 nodes, 10 s) at 0; two 5-node, 10 s fillers arrive at 0, 10, 20, ...
    # The solver never picks X on its own; each pass picks the two fillers (10 nodes). X's
    # counter reaches `bound` after `bound` passes (at 0, 10, ..); at the next pass, at
    # 10 * bound, X must be included: the solver returns X (+ nothing else fits beside it).
    # (The fillers left waiting then may starve in turn; only X's forced start is checked.)
    n_fill = 2 * (bound + 2)
    submit = [0] + [10 * (i // 2) for i in range(n_fill)]
    w = jobs(submit=submit, runtime=[10] * (n_fill + 1), nodes=[6] + [5] * n_fill)
    log = []
    solver = StubSolver(greedy_without(6))
    policy = WindowPolicy(solver, window=5, starvation_bound=bound)
    r = run(w, M10, policy, decision_log=log.append)
    assert r.start[0] == 10 * bound
    assert r.counters["starved_forced"] >= 1
    assert all(1 not in e["selected"] for e in log if e["t"] < 10 * bound)
    forced = [e for e in log if 1 in e["must_include"]]
    assert len(forced) == 1 and forced[0]["t"] == 10 * bound
    assert forced[0]["selected"] == [1]


def test_an_over_capacity_decision_raises_by_default():
    solver = StubSolver(lambda p: range(p.w))  # all three: 16 nodes > 10
    with pytest.raises(InvalidDecisionError, match="over capacity"):
        simulate(W_TRACE, M10, WindowPolicy(solver))


def test_an_invalid_decision_falls_back_to_the_naive_rule_when_asked():
    # Fallback at 0: the naive rule starts job 1 (6 nodes), job 2 does not fit. EASY: head
    # job 2, shadow 100; job 3 (5 > 4 free) cannot backfill. At 100 jobs 2 and 3 fit together:
    # trivial decision, no solver.
    log = []
    solver = StubSolver(lambda p: range(p.w))
    r = run(W_TRACE, M10, WindowPolicy(solver), on_invalid="fallback", decision_log=log.append)
    np.testing.assert_array_equal(r.start, [0, 100, 100])
    assert r.counters["faults"] == 1 and r.counters["fallbacks"] == 1
    assert len(log) == 1 and log[0]["fault"] and log[0]["selected"] == []


@pytest.mark.parametrize(
    "solver",
    [
        StubSolver(lambda p: 1 / 0),  # crashes
        StubSolver(lambda p: [], status=Status.ERROR),  # says it failed
        StubSolver(lambda p: [7]),  # outside the window
    ],
    ids=["raises", "error-status", "out-of-window"],
)
def test_solver_faults_are_counted_and_fall_back(solver):
    with pytest.raises(InvalidDecisionError):
        simulate(W_TRACE, M10, WindowPolicy(solver))
    r = run(W_TRACE, M10, WindowPolicy(solver), on_invalid="fallback")
    np.testing.assert_array_equal(r.start, [0, 100, 100])
    assert r.counters["faults"] == r.counters["fallbacks"] == 1


@pytest.mark.parametrize("name", ["naive", "dp"])
@pytest.mark.parametrize("backfill", ["easy", "conservative", "none"])
def test_real_solvers_give_complete_valid_schedules(name, backfill):
    rng = np.random.default_rng(7)
    n = 60
    w = jobs(
        submit=np.sort(rng.integers(0, 400, n)).astype(float),
        runtime=rng.integers(1, 80, n).astype(float),
        requested_time=rng.integers(1, 120, n).astype(float),
        nodes=rng.integers(1, 9, n),
        bb_gb=rng.choice([0, 0, 10, 30, 60], n).astype(float),
    )
    policy = WindowPolicy(make_solver(name), window=6, starvation_bound=5, backfill=backfill)
    r = run(w, BB100, policy)
    assert (r.state != JobState.UNFINISHED).all()
    assert r.counters["decisions"] > 0 and r.counters["faults"] == 0


# ----------------------------------------------------------------------------- three-phase
# 10 nodes, 100 GB of burst buffer, 10 GB/s to it from the nodes, 2 GB/s to the file system.
TP = System.simple("tp", 10, 100.0, bw_bb_gbps=10.0, bw_io_gbps=2.0)


def test_three_phase_durations_and_release_points():
    # J: 2 nodes, 20 GB run buffer, 40 GB in, 20 GB out, runs 100 s (requests 200).
    #   stage-in   0 .. 20    (40 GB / 2 GB/s; 40 GB held)        first_alloc = 0
    #   load-in   20 .. 24    (40 / 10; nodes, 20 GB run + 20 GB out taken)   start = 20
    #   compute   24 .. 124   (stage-in buffer released at 24)
    #   load-out 124 .. 126   (20 / 10; run buffer released at 124)           end = 126
    #   drain    126 .. 136   (20 / 2; nodes released at 126)        last_release = 136
    w = jobs(
        submit=[0],
        runtime=[100],
        requested_time=[200],
        nodes=[2],
        bb_gb=[20],
        data_in_gb=[40],
        data_out_gb=[20],
    )
    r = run(w, TP, lifecycle="three-phase")
    assert (r.first_alloc[0], r.start[0], r.end[0], r.last_release[0]) == (0, 20, 126, 136)
    assert r.state[0] == JobState.COMPLETED
    expected = {0: (0, 40), 20: (2, 80), 24: (2, 40), 124: (2, 20), 126: (0, 20), 136: (0, 0)}
    for t, (nodes, bb) in expected.items():
        np.testing.assert_allclose(usage_at(r, t)[[NODES, BB]], [nodes, bb], err_msg=f"t={t}")


def test_three_phase_kill_at_request():
    # Same job running 300 s, requesting 200: compute 24 .. 224, end 226, drained 236; KILLED.
    w = jobs(
        submit=[0],
        runtime=[300],
        requested_time=[200],
        nodes=[2],
        bb_gb=[20],
        data_in_gb=[40],
        data_out_gb=[20],
    )
    r = run(w, TP, lifecycle="three-phase")
    assert (r.start[0], r.end[0], r.last_release[0]) == (20, 226, 236)
    assert r.state[0] == JobState.KILLED


def test_three_phase_stage_in_waits_for_buffer_space():
    # A (no staged data, 1 node, 90 GB run buffer, 50 s) holds 90 GB over 0 .. 50. B wants to
    # stage 40 GB at 1: 10 GB free, so its stage-in starts when A's buffer comes back, at 50
    # (first_alloc 50), takes 20 s, and B's run phase starts at 70.
    w = jobs(submit=[0, 1], runtime=[50, 10], nodes=[1, 1], bb_gb=[90, 10], data_in_gb=[0, 40])
    r = run(w, TP, lifecycle="three-phase")
    np.testing.assert_array_equal(r.first_alloc, [0, 50])
    np.testing.assert_array_equal(r.start, [0, 70])


def test_three_phase_reservation_does_not_count_the_run_buffer_twice():
    # Defaults: 8 GB/s to the buffer, 2.5 GB/s to the file system; 100 GB, 10 nodes.
    # A (5 nodes, 60 GB run + 8 GB out, 10 s) at 0: compute 0 .. 10 (60 GB back at 10),
    #   load-out 10 .. 11 (nodes back at 11), drain 11 .. 14.2 (8 GB back).
    # H (6 nodes, 90 GB, 10 s) and C (4 nodes, 50 GB, 100 s) at 5. H is the head (5 nodes
    # free). At 10, 92 GB are free and C fits now; H's shadow is 11 with 10 nodes and 92 GB,
    # leaving 4 nodes and 2 GB: C (50 GB, ending at 110) must not be backfilled. H starts at
    # 11 and ends at 21; C starts at 21.
    system = System.simple("bb", 10, 100.0)
    w = jobs(
        submit=[0, 5, 5],
        runtime=[10, 10, 100],
        nodes=[5, 6, 4],
        bb_gb=[60, 90, 50],
        data_out_gb=[8, 0, 0],
    )
    r = run(w, system, lifecycle="three-phase")
    np.testing.assert_allclose(r.start, [0, 11, 21])
    np.testing.assert_allclose(r.last_release[0], 14.2)


def test_three_phase_backfill_counts_the_load_and_drain_phases():
    # 1 GB/s both ways. A (6 nodes, 100 s) runs 0 .. 100; H (10 nodes, 10 s) at 1: shadow
    # 100, nothing extra. C (4 nodes, requests 95 s, writes 10 GB) at 2: its request alone ends
    # at 97 <= 100, but its run phase holds the nodes until 2 + 95 + 10 = 107 and its output
    # buffer until 117: not backfilled. H starts at 100, ends at 110; C starts at 110.
    system = System.simple("bb", 10, 100.0, bw_bb_gbps=1.0, bw_io_gbps=1.0)
    w = jobs(submit=[0, 1, 2], runtime=[100, 10, 95], nodes=[6, 10, 4], data_out_gb=[0, 0, 10])
    r = run(w, system, lifecycle="three-phase")
    np.testing.assert_array_equal(r.start, [0, 100, 110])


@pytest.mark.parametrize("policy", ["naive", "window"])
def test_three_phase_without_backfilling_does_not_deadlock_on_staged_buffers(policy):
    # Defaults: 8 GB/s, 2.5 GB/s; 100 GB. R (10 nodes, 100 s) at 0. S (1 node, 10 GB, stages
    # 50 GB) at 0: staged over 0 .. 20, then queued. H (1 node, 60 GB) at 1 is queued before S.
    # At 100 R ends; H needs 60 GB but S holds 50 of the 100 until its load-in ends, which
    # needs S to run, and S is behind H: without backfilling nothing could ever start. The
    # pass starts S (100), whose load-in ends at 100 + 50/8 = 106.25; H starts then.
    w = jobs(
        submit=[0, 0, 1],
        runtime=[100, 10, 10],
        nodes=[10, 1, 1],
        bb_gb=[0, 10, 60],
        data_in_gb=[0, 50, 0],
    )
    pol = (
        NaivePolicy(backfill="none")
        if policy == "naive"
        else WindowPolicy(make_solver("naive"), backfill="none", starvation_bound=1)
    )
    r = run(w, System.simple("bb", 10, 100.0), pol, lifecycle="three-phase")
    np.testing.assert_allclose(r.start, [0, 100, 106.25])


def test_simulation_error_names_what_was_left():
    # A policy that never starts anything leaves the queue full: the engine says so.
    class Idle(NaivePolicy):
        def start_jobs(self, view, order, now):
            return order
            yield  # a start rule is a generator; this one starts nothing

    with pytest.raises(SimulationError, match="1 queued"):
        simulate(jobs(submit=[0], runtime=[1], nodes=[1]), M10, Idle(backfill="none"))


# ---------------------------------------------------------------------- regressions a new user met


def _fcfs_conservative_with_first_bookings(w, system):
    """Simulate FCFS + conservative (classic lifecycle); also return each job's first booking."""
    first: dict[int, float] = {}

    class Spy(ConservativeBackfill):
        def backfill(self, view, rest, now):
            yield from super().backfill(view, rest, now)
            for j, (s, _e, _d) in self.reservations.items():
                first.setdefault(j, s)

    policy = NaivePolicy(backfill=Spy())
    return simulate(w, system, policy, SimOptions(priority="fcfs")), first


def test_three_phase_conservative_wfp_does_not_stall_on_an_overbooked_reservation():
    """Found by the properties (wfp-conservative-window-naive-three-phase). Staged jobs hold
    stage-in buffer; a reservation made earlier for job 13 (1 node, 7 GB of output buffer)
    can no longer be honoured (6 GB left), yet it held the only node, so the jobs booked behind
    it waited for a time at which no event was left: "stopped with 4 queued". Over-booked
    reservations are now given back (lowest priority first) before anyone is placed."""
    w = Workload.from_columns(
        submit=[0.0] * 12 + [1.0] * 4,
        runtime=[0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 4, 0, 0, 0, 0],
        requested_time=[0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 4, 2, 0, 0, 0],
        nodes=[1] * 16,
        bb_gb=[0, 7] + [0] * 14,
        data_in_gb=[1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 18, 0, 0, 0, 0, 11],
        data_out_gb=[0, 0, 6] + [0] * 9 + [7, 0, 0, 0],
    )
    system = System("bb", (NodeGroup("compute", 1, 0.0),), 39.0)
    policy = WindowPolicy(
        make_solver("naive"), window=1, starvation_bound=1, backfill="conservative"
    )
    r = simulate(w, system, policy, SimOptions(lifecycle="three-phase", priority="wfp"))
    check_schedule(r, True)
    assert (r.state == JobState.COMPLETED).all()


def test_conservative_books_the_nodes_a_job_will_spill_onto():
    """Found by the property "FCFS conservative never starts a job after its first reservation"
    (SSD node groups, zero-length jobs). Job 9 (no SSD request) was booked on its nominal
    demand at (almost) time 0, when only the 128 GB node would be free: it spills onto that
    node. Job 10 (64 GB SSD) was booked on the same node, job 9 then could not start at its
    booking and slipped to t=1. Bookings at a future instant now take the nodes the groups
    would give then."""
    w = Workload.from_columns(
        submit=[0.0] * 11,
        runtime=[0, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0],
        nodes=[1] * 11,
        ssd_gb=[0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0],
    )
    system = System("ssd", (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 1, 128.0)))
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert first and all(r.start[j] <= s + 1e-9 for j, s in first.items())


def test_conservative_checks_ssd_levels_not_only_cut_totals():
    """Found by the same property after the fix above: job 4 (6 nodes) was booked at t=26 on the
    single small-SSD node plus five others; job 8 (1 node, no SSD), arriving at 25, fitted the
    cut totals beside that booking but took the same small-SSD node, and job 4 slipped to 27.
    Bookings are now checked level by level (``_fits_levels``)."""
    w = Workload.from_columns(
        submit=[0, 0, 0, 0, 0, 0, 0, 25, 25],
        runtime=[0, 26, 0, 0, 0, 0, 0, 2, 2],
        requested_time=[0, 26, 0, 2, 0, 0, 0, 2, 2],
        nodes=[1, 2, 1, 6, 1, 1, 1, 1, 1],
    )
    system = System(
        "ssd",
        (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 3, 128.0), NodeGroup("s256", 3, 256.0)),
        40.0,
    )
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert first[3] == 26.0 and r.start[3] == 26.0
    assert all(r.start[j] <= s + 1e-9 for j, s in first.items())


def test_zero_length_jobs_get_no_booking_and_delay_nobody():
    """Found by the property after the two fixes above: zero-length jobs were booked on
    [s, nextafter(s)), instants no event visits; a job booked behind a chain of them (job 13,
    requested time 1) slipped from ~0 to t=1. Zero-length jobs now start when they fit and hold
    no booking."""
    runtime = [0.0] * 33
    runtime[32] = 1.0
    requested = [0.0] * 33
    for j in (2, 12, 32):
        requested[j] = 1.0
    w = Workload.from_columns(
        submit=[0.0] * 33, runtime=runtime, requested_time=requested, nodes=[1] * 33
    )
    system = System(
        "ssd",
        (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 1, 128.0), NodeGroup("s256", 1, 256.0)),
        40.0,
    )
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert all(r.start[j] <= s + 1e-9 for j, s in first.items())
    assert r.start[12] == 0.0 and all(requested[j] > 0 for j in first)


def test_conservative_bookings_at_an_instant_no_event_visits_are_woken_up():
    """Found by the properties (wfp-conservative-window-naive-three-phase, SSD node groups): at
    t=31 nothing ran; WFP put a newly staged job ahead of two booked ones, the spill of its
    allocation pushed all three bookings to t=34, and no event was left to visit t=34:
    "stopped with 4 queued". Bookings now schedule a wake-up pass at their start."""
    w = Workload.from_columns(
        submit=[0.0] * 11 + [1.0],
        runtime=[0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
        requested_time=[0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 2, 0],
        nodes=[1, 6, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1],
        bb_gb=[0, 0, 27, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        data_in_gb=[0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 5],
        data_out_gb=[13, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    )
    system = System(
        "ssd",
        (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 3, 128.0), NodeGroup("s256", 3, 256.0)),
        40.0,
        bw_bb_gbps=1.0,
        bw_io_gbps=1.0,
    )
    policy = WindowPolicy(
        make_solver("naive"), window=1, starvation_bound=1, backfill="conservative"
    )
    r = simulate(w, system, policy, SimOptions(lifecycle="three-phase", priority="wfp"))
    check_schedule(r, True)
    assert (r.state == JobState.COMPLETED).all()


def test_conservative_starts_a_job_on_the_nodes_its_booking_planned():
    """Found by the deep property run after the fixes above: job 7 was booked on the 128 GB
    node (the small one was booked for another job later on); when it could start early, the
    engine's own rule (smallest adequate SSD first) put it on the small node, clashing with
    that booking, so it slipped from t=1 to t=2. A conservative start now takes exactly the
    nodes per SSD level its booking planned (``Simulation.start(cuts=...)``)."""
    runtime = [0, 0, 0, 0, 1, 1, 2, 1] + [0] * 28
    requested = [0, 0, 0, 0, 1, 1, 2, 1] + [0] * 27 + [1]
    nodes = [1] * 36
    nodes[7] = 2
    w = Workload.from_columns(
        submit=[0.0] * 36, runtime=runtime, requested_time=requested, nodes=nodes
    )
    system = System("ssd", (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 1, 128.0)))
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert first and all(r.start[j] <= s + 1e-9 for j, s in first.items())


def test_zero_length_jobs_do_not_take_nodes_booked_for_now():
    """Found by the deep property run: at t=1 job 39 (5 nodes) was booked to start; four
    zero-length jobs ahead of it in the same round took nodes for an instant, job 39 missed the
    round and job 40 (later in the order) took its place. Zero-length jobs now take only what
    no booking due now needs."""
    runtime = [0] * 22 + [1, 1, 1, 1] + [0] * 12 + [1, 1]
    nodes = [1] * 22 + [2, 2, 1, 3] + [1] * 12 + [5, 4]
    w = Workload.from_columns(
        submit=[0.0] * 40, runtime=runtime, requested_time=runtime, nodes=nodes
    )
    system = System(
        "ssd",
        (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 4, 128.0), NodeGroup("s256", 3, 256.0)),
        40.0,
    )
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert first and all(r.start[j] <= s + 1e-9 for j, s in first.items())


def test_conservative_does_not_start_a_job_on_a_small_ssd_node_a_zero_length_job_holds():
    """Found by the deep property run: two zero-length jobs hold both nodes for an
    instant; at the next round one of them starts again on the small-SSD node while job 13
    (request 2) is placed at slot 0 on that same node — the profile, built before the
    zero-length start, still counted it free, and the cut totals fitted (1 node free, the
    large one). Its start was refused ("node groups cannot hold it"). A job now starts only if
    its planned nodes are free level by level; otherwise it keeps its booking for the next
    round at the same instant."""
    system = System("ssd", (NodeGroup("s0", 1, 0.0), NodeGroup("s128", 1, 128.0)), 0.0)
    w = Workload.from_columns(
        submit=[0.0] * 15,
        runtime=[0.0] * 15,
        requested_time=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 1],
        nodes=[1] * 15,
        bb_gb=[0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0],  # rejected: no burst buffer
    )
    r, first = _fcfs_conservative_with_first_bookings(w, system)
    check_schedule(r, False)
    assert first and all(r.start[j] <= s + 1e-9 for j, s in first.items())
