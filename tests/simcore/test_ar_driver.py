"""Serving advance-reservation streams (simcore/reservations/driver.py), their metrics, the
reservation solvers (fit policies as solvers, reservation-cpsat) and the offline optimum."""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.bench.analysis.ar_offline import assign_pes, offline_bound
from schedbench.instances.ar_workload import generate_ar_requests
from schedbench.simcore.kinds.base import get_kind
from schedbench.simcore.kinds.reservation import ReservationDecision, ReservationProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.reservations.driver import (
    Outcome,
    ReservationRun,
    check_allocation,
    problem_for,
    serve,
    serve_with_solver,
)
from schedbench.simcore.reservations.fit import PAPER_POLICIES
from schedbench.simcore.reservations.metrics import (
    acceptance,
    mean_ci95,
    mean_slowdown,
    summary,
    utilisation,
)
from schedbench.simcore.reservations.requests import Request, RequestError, invalid_reason
from schedbench.simcore.reservations.slots import SlotStructure, mask_of
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.base import ParamSolver
from schedbench.solvers.registry import make_solver
from tests._ar_brute import serve_brute
from tests._benchmarks import load_benchmark_module
from tests._hyp import examples

B = Budget(10)


def req(rid, arrival, ready, duration, deadline, pes):
    return Request(
        arrival=arrival, id=rid, ready=ready, duration=duration, deadline=deadline, pes=pes
    )


def decisions(run: ReservationRun):
    return [(o.request.id, o.accepted, o.start, o.pe_ids) for o in run.outcomes]


# ------------------------------------------------------------------------------- the driver
@st.composite
def streams(draw, pes=6):
    out = []
    for rid in range(1, draw(st.integers(1, 14)) + 1):
        arrival = draw(st.integers(0, 60))
        ready = arrival + draw(st.integers(0, 10))
        duration = draw(st.integers(1, 20))
        deadline = ready + duration + draw(st.integers(0, 25))
        out.append(req(rid, arrival, ready, duration, deadline, draw(st.integers(1, pes))))
    return out


@settings(max_examples=examples(80))
@given(streams())
def test_every_policy_serves_a_stream_as_the_brute_force_reference(requests):
    for policy in PAPER_POLICIES:
        assert decisions(serve(requests, 6, policy)) == serve_brute(requests, 6, policy), policy


@settings(max_examples=examples(40))
@given(streams())
def test_the_benchmarks_list_based_yardstick_decides_as_the_fast_path(requests):
    """bench/benchmarks/ar_reference.py (the speed benchmark's yardstick) gives the same
    decisions, so the benchmark compares equal work."""
    serve_list = load_benchmark_module("ar_reference").serve_list
    valid = [r for r in requests if invalid_reason(r, 6) is None]
    for policy in PAPER_POLICIES:
        assert decisions(serve(valid, 6, policy)) == serve_list(valid, 6, policy), policy


def test_requests_are_served_in_arrival_order_ties_by_id_at_their_arrival():
    # Both want PE 0..1 of 2 over [10, 20); the earlier arrival wins although its id is larger.
    a = req(2, 0, 10, 10, 20, 2)
    b = req(1, 5, 10, 10, 20, 2)
    run = serve([b, a], 2, "ff")
    assert decisions(run) == [(2, True, 10, [0, 1]), (1, False, None, [])]
    # same arrival: the smaller id first
    c = req(3, 0, 10, 10, 20, 2)
    assert decisions(serve([c, a], 2, "ff"))[0][0] == 2
    # "now" is the arrival: T_begin of a rectangle is never before it. PE 0 busy [0, 5), PE 1
    # free; a request at 8 for 1 PE over [10, 20) within [10, 40]: both PEs' rectangles begin
    # at 8 (PE 0 became free at 5 < 8), so Du_B sees equal rectangles and takes the earliest.
    run = serve([req(1, 0, 0, 5, 5, 1), req(2, 8, 10, 10, 40, 1)], 2, "du-b")
    assert decisions(run)[1] == (2, True, 10, [0])


def test_invalid_requests_are_rejected_never_crash_and_count_as_submitted():
    requests = [
        req(1, 0, 0, 10, 20, 1),
        req(2, 0, 0, 0, 20, 1),  # non-positive duration
        req(3, 0, 5, 10, 14, 1),  # deadline < ready + duration
        req(4, 0, 0, 10, 20, 9),  # more PEs than the machine
        req(5, 10, 5, 10, 40, 1),  # ready before arrival
    ]
    assert "positive duration" in invalid_reason(requests[1], 4)
    assert "cannot finish in time" in invalid_reason(requests[2], 4)
    assert "more than the machine's 4 PEs" in invalid_reason(requests[3], 4)
    assert "before arrival" in invalid_reason(requests[4], 4)
    run = serve(requests, 4, "pe-w")
    assert [o.accepted for o in run.outcomes] == [True, False, False, False, False]
    assert run.invalid == 4 and all(o.note.startswith("invalid request") for o in run.outcomes[1:])
    assert acceptance(run) == 0.2


def test_duplicate_ids_are_refused_naming_the_request():
    with pytest.raises(RequestError, match="request 7: the id appears twice"):
        serve([req(7, 0, 0, 1, 5, 1), req(7, 1, 1, 1, 5, 1)], 2, "ff")
    with pytest.raises(RequestError, match="request x: id: expected an integer"):
        Request(arrival=0, id="x", ready=0, duration=1, deadline=1, pes=1)


def test_the_core_checks_every_allocation():
    s = SlotStructure(4)
    s.add(0, 10, 0b0001)
    r = req(1, 0, 0, 10, 30, 2)
    check_allocation(s, r, 0, 0b0110)
    for start, mask, match in [
        (21, 0b0110, "outside the window"),
        (0, 0b0010, "expected 2 distinct PEs"),
        (0, 0b0011, "PE 0 is not free"),
        (0, 0b10010, "outside 0..3"),
    ]:
        with pytest.raises(Exception, match=match):
            check_allocation(s, r, start, mask)


# ------------------------------------------------------------------------------- metrics
def test_acceptance_slowdown_utilisation_and_confidence_intervals():
    requests = [req(1, 0, 0, 10, 100, 2), req(2, 0, 0, 10, 100, 2), req(3, 0, 0, 10, 15, 4)]
    run = serve(requests, 4, "ff")
    # 1 at 0 on PEs 0-1, 2 at 0 on PEs 2-3, 3 needs 4 PEs within [0, 5]: rejected
    assert decisions(run) == [
        (1, True, 0, [0, 1]),
        (2, True, 0, [2, 3]),
        (3, False, None, []),
    ]
    assert acceptance(run) == pytest.approx(2 / 3)
    assert mean_slowdown(run) == 1.0
    assert utilisation(run) == pytest.approx(40 / (4 * 10))
    late = serve([req(1, 0, 0, 10, 100, 4), req(2, 0, 0, 10, 100, 4)], 4, "ff")
    assert [o.slowdown for o in late.outcomes] == [1.0, 2.0]  # (10 - 0 + 10) / 10
    assert summary(late)["mean_slowdown"] == 1.5
    empty = ReservationRun(4, "ff", (Outcome(req(1, 0, 0, 1, 1, 1), False),))
    assert math.isnan(mean_slowdown(empty)) and utilisation(empty) == 0.0
    mean, half = mean_ci95([0.5, 0.7])
    assert mean == pytest.approx(0.6)
    assert half == pytest.approx(12.706204736 * 0.1414213562 / math.sqrt(2), rel=1e-6)
    assert math.isnan(mean_ci95([0.5])[1])


# ------------------------------------------------------------------------------- solvers
def small_stream(n=60, seed=3):
    from schedbench.instances.ar_workload import generate_ar_requests

    return generate_ar_requests(n, seed=seed, pes=64, umed=4.5, ulow=2.0)


def test_the_fit_policies_as_solvers_decide_exactly_as_the_fast_path():
    requests = small_stream()
    for policy in PAPER_POLICIES:
        fast = serve(requests, 64, policy)
        slow = serve_with_solver(requests, 64, make_solver(policy), B)
        assert decisions(slow) == decisions(fast), policy
        assert slow.faults == 0 and all(o.latency_s >= 0 for o in slow.outcomes)
    ff = serve_with_solver(requests, 64, make_solver("reservation-first-fit"), B)
    assert decisions(ff) == decisions(serve(requests, 64, "ff"))


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Overbooks(ParamSolver):
    """Always accepts at the ready time on the lowest PEs, busy or not."""

    name = "overbooks"
    kinds: ClassVar[tuple[str, ...]] = ("reservation",)

    def solve(self, problem, budget):
        return ReservationDecision(
            Status.FEASIBLE,
            accepted=True,
            start=problem.earliest_start,
            pe_set=tuple(range(problem.n_pe)),
            objectives=(1.0,),
        )


def test_an_invalid_answer_is_never_applied_and_counts_as_a_fault():
    requests = [req(1, 0, 0, 10, 40, 2), req(2, 1, 1, 10, 40, 2)]
    run = serve_with_solver(requests, 4, Overbooks(), B)
    assert [o.accepted for o in run.outcomes] == [True, False]
    assert run.faults == 1 and "invalid answer rejected by the core" in run.outcomes[1].note


def test_problem_for_holds_the_jobs_that_have_not_ended():
    p = problem_for(req(5, 10, 12, 5, 30, 1), 4, [(0, 10, 0b1), (5, 20, 0b110)])
    assert p.held == ((5, 20, (1, 2)),) and p.now == 10 and p.earliest_start == 12


@st.composite
def problems(draw):
    pes = draw(st.integers(1, 6))
    held = []
    slots = SlotStructure(pes)
    for _ in range(draw(st.integers(0, 6))):
        s = draw(st.integers(0, 40))
        e = s + draw(st.integers(1, 20))
        ids = draw(st.sets(st.integers(0, pes - 1), min_size=1, max_size=pes))
        if not slots.busy_over(s, e) & mask_of(ids):
            slots.add(s, e, mask_of(ids))
            held.append((s, e, tuple(sorted(ids))))
    now = draw(st.integers(0, 20))
    ready = now + draw(st.integers(0, 10))
    duration = draw(st.integers(1, 15))
    return ReservationProblem(
        now=now,
        ready=ready,
        duration=duration,
        deadline=ready + duration + draw(st.integers(0, 30)),
        n_pe=draw(st.integers(1, pes)),
        pes=pes,
        held=held,
    )


@settings(max_examples=examples(40))
@given(problems())
def test_reservation_cpsat_accepts_exactly_when_possible_and_strands_least(problem):
    kind = get_kind("reservation")
    cpsat = timed_solve(make_solver("reservation-cpsat"), problem, B)
    ff = timed_solve(make_solver("ff"), problem, B)
    assert cpsat.status == Status.OPTIMAL and cpsat.accepted == ff.accepted
    if cpsat.accepted:
        best = problem.stranded_idle(cpsat.start, cpsat.pe_set)
        assert best == cpsat.stats["stranded_idle_pe_s"] == cpsat.stats["greedy_stranded_idle_pe_s"]
        for policy in PAPER_POLICIES:
            d = timed_solve(make_solver(policy), problem, B)
            assert best <= problem.stranded_idle(d.start, d.pe_set), policy
        # exhaustively over every start and PE set of a tiny problem
        if problem.pes <= 4 and problem.latest_start - problem.earliest_start <= 40:
            every = [
                problem.stranded_idle(s, ids)
                for s in range(problem.earliest_start, problem.latest_start + 1)
                for ids in itertools.combinations(range(problem.pes), problem.n_pe)
                if set(ids) <= set(problem.free_pes(s, s + problem.duration))
            ]
            assert best == min(every)
        q = kind.quality(problem, cpsat, None, budget_s=10)
        assert q["stranded_idle_pe_s"] == best
        assert q["start_delay_s"] == cpsat.start - problem.earliest_start


# ------------------------------------------------------------------------------- offline optimum
def brute_optimum(requests, pes):
    """Largest number of requests some choice of starts fits (tiny instances)."""
    options = [[None, *range(r.ready, r.latest_start + 1)] for r in requests]
    best = 0
    for starts in itertools.product(*options):
        chosen = [(r, s) for r, s in zip(requests, starts, strict=True) if s is not None]
        if len(chosen) <= best:
            continue
        points = {s for _r, s in chosen}
        if all(sum(r.pes for r, s in chosen if s <= t < s + r.duration) <= pes for t in points):
            best = len(chosen)
    return best


@settings(max_examples=examples(25))
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(1, 8), st.integers(0, 3), st.integers(1, 4)),
        min_size=1,
        max_size=5,
    )
)
def test_the_offline_optimum_equals_the_brute_force_optimum(spec):
    requests = [
        req(k + 1, 0, ready, duration, ready + duration + slack, pes)
        for k, (ready, duration, slack, pes) in enumerate(spec)
    ]
    bound = offline_bound(requests, 4, time_limit_s=10)
    assert bound.proven and bound.best == bound.bound == brute_optimum(requests, 4)
    ids = assign_pes(requests, bound.schedule, 4)  # the cumulative schedule gets concrete PEs
    slots = SlotStructure(4)
    for r in requests:
        if r.id in bound.schedule:
            s = bound.schedule[r.id]
            assert r.ready <= s <= r.latest_start
            slots.add(s, s + r.duration, mask_of(ids[r.id]))


def test_the_offline_bound_dominates_every_policy_and_reports_its_proof():
    requests = small_stream(80, seed=5)
    runs = {p: serve(requests, 64, p) for p in PAPER_POLICIES}
    hint = {o.request.id: o.start for o in runs["pe-w"].accepted}
    bound = offline_bound(requests, 64, time_limit_s=20, hint=hint)
    assert bound.best >= max(len(r.accepted) for r in runs.values())
    assert bound.bound >= bound.best and bound.requests == 80
    assert bound.proven == (bound.unproven_groups == 0)
    assert bound.bound_share == bound.bound / 80
    area = offline_bound(requests, 64, objective="pe_seconds", time_limit_s=10, hint=hint)
    assert area.best >= sum(o.request.area for o in runs["pe-w"].accepted)
    with pytest.raises(ValueError, match="objective"):
        offline_bound(requests, 64, objective="money")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="request 2: 2 PEs at 0, only 1 free"):
        assign_pes([req(1, 0, 0, 5, 5, 2), req(2, 0, 0, 5, 5, 2)], {2: 0, 1: 0}, 3)


def test_the_offline_best_never_falls_below_a_feasible_hint():
    """A hint is a schedule: with a budget too short for CP-SAT to find (or improve on) an
    incumbent, the best is still the hint's value; a hint that over-commits the machine or
    leaves a window is ignored rather than counted."""
    requests = generate_ar_requests(100, seed=1, umed=9.0)
    run = serve(requests, 1024, "pe-w")
    hint = {o.request.id: o.start for o in run.accepted}
    bound = offline_bound(requests, 1024, time_limit_s=0.001, hint=hint)
    assert bound.best >= len(run.accepted) and bound.bound >= bound.best
    starts = {rid: bound.schedule[rid] for rid in bound.schedule}
    assign_pes(requests, starts, 1024)  # the best schedule is a real one
    # an infeasible hint: everything at its ready time on a 4-PE machine
    tight = [req(k, 0, 0, 10, 10, 3) for k in (1, 2, 3)]
    crowded = offline_bound(tight, 4, time_limit_s=5, hint={1: 0, 2: 0, 3: 0})
    assert crowded.best == crowded.bound == 1
    late = offline_bound(tight, 4, time_limit_s=5, hint={1: 5})  # outside its window
    assert late.best == 1
