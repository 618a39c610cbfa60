"""The rules the advance-reservation paper leaves open, as options of the reservation core
(simcore/reservations/reading.py): the pinned reading decides exactly as before, and every other
option does what its name says."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.instances.ar_workload import generate_ar_requests
from schedbench.simcore.kinds.reservation import ReservationProblem
from schedbench.simcore.reservations.driver import check_allocation, serve
from schedbench.simcore.reservations.fit import PAPER_POLICIES, get_fit_policy
from schedbench.simcore.reservations.metrics import mean_slowdown
from schedbench.simcore.reservations.reading import PINNED, Reading, ReadingError
from schedbench.simcore.reservations.requests import Request
from schedbench.simcore.reservations.slots import SlotStructure, ids_of
from schedbench.solvers.registry import make_solver
from tests._hyp import examples


def req(rid, arrival, ready, duration, deadline, pes):
    return Request(
        arrival=arrival, id=rid, ready=ready, duration=duration, deadline=deadline, pes=pes
    )


def decisions(run):
    return [(o.request.id, o.accepted, o.start, o.pe_ids) for o in run.outcomes]


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


def test_the_pinned_reading_is_the_default_and_labels_round_trip():
    assert Reading() == PINNED and PINNED.label() == "pinned" and not PINNED.changes()
    r = Reading.parse("unbounded_end=0,pedu=sum,latest_start=true,merge=keep")
    assert r.label() == "unbounded_end=0,pedu=sum,latest_start=true,merge=keep"
    assert Reading.parse(r.label()) == r
    assert Reading.parse("slowdown=deadline").serving() == PINNED


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("pedu=mean", "pedu: expected one of product, sum"),
        ("ties=latest", "expected key=value with key one of"),
        ("unbounded_end=-1", "unbounded_end: expected an integer >= 0"),
        ("latest_start=maybe", "latest_start: expected true or false"),
    ],
)
def test_a_bad_reading_names_the_option(text, match):
    with pytest.raises(ReadingError, match=match):
        Reading.parse(text)


@settings(max_examples=examples(60))
@given(streams())
def test_the_plain_path_under_the_pinned_rules_decides_as_the_fast_path(requests):
    # _find_read is what every non-pinned reading runs; with the pinned rules it must decide
    # exactly as find's fast path, policy by policy, request by request
    for policy in PAPER_POLICIES:
        fit = get_fit_policy(policy)
        s = SlotStructure(6)
        for r in sorted(requests):
            if r.pes > 6 or r.deadline < r.ready + r.duration:
                continue
            s.discard_before(r.arrival)
            args = (r.ready, r.duration, r.deadline, r.pes, r.arrival, fit)
            fast = s.find(*args)
            assert s._find_read(*args, PINNED) == fast, policy
            if fast is not None:
                s.add(fast.start, fast.start + r.duration, fast.mask)


def _stream():
    return generate_ar_requests(400, seed=5, umed=7.0)


def test_every_option_changes_some_decision_and_every_answer_stays_valid():
    requests = _stream()
    pinned = {p: decisions(serve(requests, 1024, p)) for p in PAPER_POLICIES}
    for option, value in [
        ("unbounded_end", 0),
        ("pedu", "sum"),
        ("latest_start", True),
        ("tie", "latest"),
        ("pe_ids", "highest"),
        ("deadline", "exclusive"),
        ("merge", "keep"),
    ]:
        reading = dataclasses.replace(PINNED, **{option: value})
        changed = []
        for p in PAPER_POLICIES:
            run = serve(requests, 1024, p, reading=reading)
            assert run.faults == 0, (option, p)
            changed.append(decisions(run) != pinned[p])
            if option == "deadline":
                assert all(
                    o.start + o.request.duration < o.request.deadline
                    for o in run.outcomes
                    if o.accepted
                )
        assert any(changed), option


def test_pe_ids_tie_and_latest_start_on_a_small_machine():
    s = SlotStructure(4)
    s.add(20, 30, 0b0001)  # PE 0 busy over [20, 30)
    pe_w = get_fit_policy("pe-w")
    # candidates 0, 10, 20, 30: all four PEs free at 0, 10 and 30; ties to the earliest start
    assert s.find(0, 10, 100, 2, 0, pe_w).start == 0
    assert s.find(0, 10, 100, 2, 0, pe_w, reading=Reading(tie="latest")).start == 30
    got = s.find(0, 10, 100, 2, 0, pe_w, reading=Reading(pe_ids="highest"))
    assert ids_of(got.mask) == [2, 3]
    # the latest start t_dl - t_du = 90 is a candidate only with latest_start
    assert 95 not in s.candidates(0, 5, 100)
    assert 95 in s.candidates(0, 5, 100, latest_start=True)


def test_merge_keep_leaves_the_rejected_requests_window_as_slot_times():
    requests = [
        req(1, 0, 0, 100, 100, 2),  # holds both PEs over [0, 100)
        req(2, 1, 10, 20, 60, 1),  # nothing free before 100: rejected
    ]
    for merge, expected in (("always", [0, 100]), ("keep", [0, 10, 60, 100])):
        s = SlotStructure(2)
        s.add(0, 100, 0b11)
        fit = get_fit_policy("ff")
        r = requests[1]
        assert s.find(r.ready, r.duration, r.deadline, r.pes, r.arrival, fit) is None
        if merge == "keep":
            s.split(r.ready)
            s.split(r.deadline)
        assert s.times == expected
    run = serve(requests, 2, "ff", reading=Reading(merge="keep"))
    assert [o.accepted for o in run.outcomes] == [True, False]


def test_the_slowdown_reading_counts_a_rejected_job_at_its_deadline():
    run = serve([req(1, 0, 0, 10, 10, 2), req(2, 0, 0, 10, 30, 2)], 2, "ff")
    assert [o.accepted for o in run.outcomes] == [True, True]
    assert mean_slowdown(run) == pytest.approx((1 + 2) / 2)
    run = serve([req(1, 0, 0, 10, 10, 2), req(2, 0, 0, 10, 15, 2)], 2, "ff")
    assert [o.accepted for o in run.outcomes] == [True, False]
    assert mean_slowdown(run) == 1.0
    assert mean_slowdown(run, "deadline") == pytest.approx((1 + 15 / 10) / 2)


def test_the_fit_solver_takes_a_reading_and_keeps_its_id_at_the_pinned_one():
    assert make_solver("pe-w").id == "pe-w"
    solver = make_solver("pe-w", {"reading": "tie=latest"})
    assert solver.id == "pe-w[reading=tie=latest]"
    problem = ReservationProblem(
        now=0, ready=0, duration=10, deadline=100, n_pe=2, pes=4, held=((20, 30, (0,)),)
    )
    decision = solver.solve(problem, None)
    assert decision.accepted and decision.start == 30
    check_allocation(problem.slots, req(1, 0, 0, 10, 100, 2), decision.start, 0b11 << 2)
