"""The advance-reservation slot structure (simcore/reservations/slots.py) and the seven fit
policies (fit.py): the paper's Figure 1 walk-through, each pinned rule on its own,
and random add / delete / find sequences against the brute-force reference (tests/_ar_brute.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.reservations.fit import (
    PAPER_POLICIES,
    FitPolicy,
    UnknownFitPolicyError,
    get_fit_policy,
    register_fit_policy,
)
from schedbench.simcore.reservations.slots import (
    UNBOUNDED_END,
    SlotStructure,
    ids_of,
    lowest,
    mask_of,
)
from tests._ar_brute import BruteAvailability
from tests._hyp import examples


def find(s: SlotStructure, ready, duration, deadline, n_pe, now, policy):
    found = s.find(ready, duration, deadline, n_pe, now, get_fit_policy(policy))
    return None if found is None else (found.start, found.pe_ids)


# ------------------------------------------------------------------------------- Figure 1
# t_i = 10 i; N = 16 PEs; job1 holds PEs 0-3 over [t0, t3), job2 PEs 4-7 over [t0, t1), job3
# (reserved) PEs 0-7 over [t8, t10). The request (t2, t4 - t2, t9, n) with n = 4 = n1.
T = [10 * i for i in range(11)]
N1, N2, N3 = mask_of(range(4)), mask_of(range(4, 8)), mask_of(range(8))


def figure1() -> SlotStructure:
    s = SlotStructure(16)
    s.add(T[0], T[3], N1)
    s.add(T[0], T[1], N2)
    s.add(T[8], T[10], N3)
    return s


def test_figure1_records_as_the_paper_lists_them():
    # {t0, n1+n2}, {t1, n1}, {t3, ø}, {t8, n3}, {t10, ø}
    assert figure1().records() == [(T[0], N1 | N2), (T[1], N1), (T[3], 0), (T[8], N3), (T[10], 0)]


def test_figure1_candidates_and_rectangles():
    s = figure1()
    ready, duration, deadline = T[2], T[4] - T[2], T[9]
    # The paper checks t2, t3, t6 and t7; the pinned rule omits t7 = t_dl - t_du (no slot time
    # or slot time - t_du falls there); the paper's figure mode adds it.
    assert s.candidates(ready, duration, deadline) == [T[2], T[3], T[6]]
    assert s.candidates(ready, duration, deadline, latest_start=True) == [T[2], T[3], T[6], T[7]]
    r2 = s.rectangle(T[2], duration, deadline, now=T[0])
    assert (r2.n_free, r2.t_begin, r2.t_end) == (16 - 4, T[1], T[8])  # N - n1 PEs, t1..t8
    r3 = s.rectangle(T[3], duration, deadline, now=T[0])
    assert (r3.n_free, r3.t_begin, r3.t_end) == (16, T[3], T[8])  # N PEs, t3..t8
    r6 = s.rectangle(T[6], duration, deadline, now=T[0])
    assert (r6.free, r6.t_begin, r6.t_end) == (r3.free, r3.t_begin, r3.t_end)  # the same rectangle


def test_figure1_pe_worst_fit_and_du_best_fit_take_t3_not_t6():
    s = figure1()
    for policy in ("pe-w", "du-b"):  # "t3, instead of t6, will be chosen ... Du_B or PE_W"
        assert find(s, T[2], 20, T[9], 4, T[0], policy) == (T[3], [0, 1, 2, 3])


def test_figure1_adding_merges_the_redundant_record_and_deleting_job2():
    s = figure1()
    found = s.find(T[2], 20, T[9], 4, T[0], get_fit_policy("pe-w"))
    assert found is not None
    s.add(found.start, found.start + 20, found.mask)  # addAllocation(t3, t5, n PEs)
    # {t3, n PEs} equals {t1, n1 PEs} and is merged away; {t5, ø} is inserted
    assert s.records() == [(T[0], N1 | N2), (T[1], N1), (T[5], 0), (T[8], N3), (T[10], 0)]
    s.delete(T[0], T[1], N2)  # job2 finishes at t1
    assert s.records() == [(T[0], N1), (T[5], 0), (T[8], N3), (T[10], 0)]
    # The paper lists {t1, n1} first: at t1 the past is gone (our discard_before)
    s.discard_before(T[1])
    assert s.records() == [(T[1], N1), (T[5], 0), (T[8], N3), (T[10], 0)]
    s._check_canonical()


# ------------------------------------------------------------------------------- pinned rules
def test_a_pe_is_free_over_a_half_open_interval():
    s = SlotStructure(2)
    s.add(0, 10, 0b01)
    assert s.free_over(10, 20) == 0b11 and s.free_over(9, 20) == 0b10
    s.add(10, 20, 0b01)  # back to back on the same PE: no slot time at 10
    assert s.records() == [(0, 0b01), (20, 0)]
    with pytest.raises(InvalidDecisionError, match="PE 0 is not free over"):
        s.add(19, 25, 0b01)
    assert s.records() == [(0, 0b01), (20, 0)]  # nothing changed


def test_candidates_are_ready_slot_times_and_slot_times_minus_duration_inclusive():
    s = SlotStructure(4)
    s.add(10, 30, 0b1)  # slot times 10, 30
    s.add(50, 60, 0b1)  # 50, 60
    # window [10, 40]: ready 10, slots 10 and 30 inside, 50 - 20 = 30 and 60 - 20 = 40 inside
    assert s.candidates(10, 20, 60) == [10, 30, 40]
    assert s.candidates(11, 20, 60) == [11, 30, 40]  # 10 < t_r is out
    assert s.candidates(11, 20, 59) == [11, 30]  # 60 - 20 = 40 > t_dl - t_du = 39
    assert s.candidates(0, 5, 4) == []  # empty window


def test_feasible_means_n_pe_free_over_the_whole_run():
    s = SlotStructure(3)
    s.add(0, 20, 0b001)
    s.add(5, 15, 0b010)
    # PEs 1, 2 are free over [15, 25); nothing earlier has two free PEs for 10 s
    assert find(s, 0, 10, 40, 2, 0, "ff") == (15, [1, 2])
    assert find(s, 0, 10, 24, 2, 0, "ff") is None


def test_rectangle_ends_the_current_time_and_the_unbounded_stand_in():
    s = SlotStructure(2)
    s.add(0, 10, 0b11)
    s.add(50, 60, 0b01)
    r = s.rectangle(20, 10, 40, now=5)
    assert (r.free, r.t_begin, r.t_end) == (0b11, 10, 50)
    r = s.rectangle(20, 10, 40, now=15)  # T_begin is never before the current time
    assert r.t_begin == 15
    s2 = SlotStructure(2)
    r = s2.rectangle(20, 10, 40, now=3)  # nothing held at all
    assert (r.t_begin, r.t_end) == (3, 40 + UNBOUNDED_END)
    s2.add(0, 10, 0b10)
    r = s2.rectangle(20, 10, 40, now=3)  # later nothing holds a PE of F: unbounded
    assert (r.t_begin, r.t_end) == (10, 40 + UNBOUNDED_END)


def test_scores_best_and_worst_fit_and_ties_to_the_earliest_start():
    # PE 0 busy over [0, 10) and [30, 100); PEs 1-3 free. Request: 1 PE for 10 s in [0, 60].
    s = SlotStructure(4)
    s.add(0, 10, 0b0001)
    s.add(30, 100, 0b0001)
    # candidates: 0, 10, 20 (= 30 - 10), 30, 50? (slot 100 - 10 = 90 > 50: out)
    assert s.candidates(0, 10, 60) == [0, 10, 20, 30]
    rects = {r.start: r for r in s.rectangles(0, 10, 60, 1, now=0)}
    assert {t: r.n_free for t, r in rects.items()} == {0: 3, 10: 4, 20: 4, 30: 3}
    assert (rects[10].t_begin, rects[10].t_end) == (10, 30)  # 4 PEs, Du 20
    assert (rects[0].t_begin, rects[0].t_end) == (0, 60 + UNBOUNDED_END)
    assert find(s, 0, 10, 60, 1, 0, "ff") == (0, [1])
    assert find(s, 0, 10, 60, 1, 0, "pe-b") == (0, [1])  # 3 PEs at 0 and 30: earliest
    assert find(s, 0, 10, 60, 1, 0, "pe-w") == (10, [0])  # 4 PEs at 10 and 20: earliest
    assert find(s, 0, 10, 60, 1, 0, "du-b") == (10, [0])  # Du 20 at 10 and 20: earliest
    assert find(s, 0, 10, 60, 1, 0, "du-w") == (0, [1])  # unbounded at 0 and 30: earliest
    assert find(s, 0, 10, 60, 1, 0, "pedu-b") == (10, [0])  # 4 x 20 = 80
    assert find(s, 0, 10, 60, 1, 0, "pedu-w") == (0, [1])  # 3 x (60 + 10^9)


def test_du_best_among_unbounded_rectangles_takes_the_latest_begin():
    # The finite stand-in T_end = t_dl + 10^9 enters Du, so among unbounded rectangles Du_B
    # prefers the latest T_begin (a pinned rule).
    s = SlotStructure(2)
    s.add(0, 10, 0b01)  # PE 0 busy until 10
    s.add(0, 30, 0b10)  # PE 1 busy until 30
    # 1 PE for 10 s, window [0, 40]: candidates 0 (infeasible), 10, 20 (= 30 - 10), 30
    rects = {r.start: r for r in s.rectangles(0, 10, 50, 1, now=0)}
    assert {t: (r.n_free, r.t_begin, r.t_end - 50) for t, r in rects.items()} == {
        10: (1, 10, UNBOUNDED_END),
        20: (1, 10, UNBOUNDED_END),
        30: (2, 30, UNBOUNDED_END),
    }
    assert find(s, 0, 10, 50, 1, 0, "du-b") == (30, [0])


def test_the_job_gets_the_lowest_numbered_free_pes():
    s = SlotStructure(8)
    s.add(0, 10, mask_of([0, 2, 5]))
    assert find(s, 0, 5, 20, 3, 0, "ff") == (0, [1, 3, 4])
    assert ids_of(lowest(0b1011_0110, 3)) == [1, 2, 4]
    assert lowest(0b1011_0110, 0) == 0


def test_delete_needs_the_pes_busy_over_the_whole_interval():
    s = SlotStructure(2)
    s.add(0, 10, 0b01)
    with pytest.raises(InvalidDecisionError, match="not all busy"):
        s.delete(0, 11, 0b01)
    s.delete(2, 5, 0b01)  # a piece of a job
    assert s.records() == [(0, 0b01), (2, 0), (5, 0b01), (10, 0)]


def test_fit_policies_are_registered_by_the_papers_names():
    assert PAPER_POLICIES == ("ff", "pe-b", "pe-w", "du-b", "du-w", "pedu-b", "pedu-w")
    assert get_fit_policy("pedu-w").label == "PEDu_W"
    with pytest.raises(UnknownFitPolicyError, match="known fit policies: du-b"):
        get_fit_policy("best")
    register_fit_policy(get_fit_policy("ff"))  # the same again is fine
    with pytest.raises(ValueError, match="already registered"):
        register_fit_policy(FitPolicy("ff", "X", "pe", True, "x"))
    with pytest.raises(ValueError, match="measure"):
        FitPolicy("odd", "O", "area", True, "x")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- properties
PES = 5


@st.composite
def operations(draw):
    ops = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["add", "add", "add", "delete", "find", "discard"]))
        a = draw(st.integers(0, 40))
        b = a + draw(st.integers(1, 20))
        pes = draw(st.sets(st.integers(0, PES - 1), min_size=1, max_size=PES))
        ready = draw(st.integers(0, 40))
        duration = draw(st.integers(1, 15))
        deadline = ready + duration + draw(st.integers(0, 30))
        n_pe = draw(st.integers(1, PES))
        now = draw(st.integers(0, ready))
        ops.append((kind, a, b, pes, ready, duration, deadline, n_pe, now))
    return ops


@settings(max_examples=examples(150))
@given(operations())
def test_slot_structure_equals_the_brute_force_reference(ops):
    fast, brute = SlotStructure(PES), BruteAvailability(PES)
    for kind, a, b, pes, ready, duration, deadline, n_pe, now in ops:
        if kind == "add":
            ok = brute.add(a, b, pes)
            try:
                fast.add(a, b, mask_of(pes))
            except InvalidDecisionError:
                assert not ok
            else:
                assert ok
        elif kind == "delete":
            ok = brute.delete(a, b, pes)
            try:
                fast.delete(a, b, mask_of(pes))
            except InvalidDecisionError:
                assert not ok
            else:
                assert ok
        elif kind == "find":
            assert fast.candidates(ready, duration, deadline) == brute.candidates(
                ready, duration, deadline
            )
            for t in brute.candidates(ready, duration, deadline):
                r = fast.rectangle(t, duration, deadline, now)
                free, t_begin, t_end = brute.rectangle(t, duration, deadline, now)
                assert (ids_of(r.free), r.t_begin, r.t_end) == (free, t_begin, t_end)
            for policy in PAPER_POLICIES:
                assert find(fast, ready, duration, deadline, n_pe, now, policy) == brute.find(
                    ready, duration, deadline, n_pe, now, policy
                ), policy
        else:  # forgetting the past changes no answer from ``now`` on
            pruned = fast.copy()
            pruned.discard_before(now)
            pruned._check_canonical()
            for policy in PAPER_POLICIES:
                assert find(pruned, ready, duration, deadline, n_pe, now, policy) == find(
                    fast, ready, duration, deadline, n_pe, now, policy
                ), policy
            assert [rec for rec in pruned.records() if rec[0] > now] == [
                rec for rec in fast.records() if rec[0] > now
            ]
        fast._check_canonical()
        assert fast.record_sets() == brute.records()
