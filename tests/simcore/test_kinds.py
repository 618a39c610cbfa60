"""The problem kinds (simcore/kinds/): registry, JSON round trips, the core's checks of the
placement and reservation skeletons, their trivial solvers, and `schedbench solve` on them."""

from __future__ import annotations

import json
import math

import pytest

from schedbench.bench.cli import main
from schedbench.instances.problem_files import load_problem
from schedbench.simcore.errors import ProblemError, UnknownKindError
from schedbench.simcore.kinds.base import delivered_answer, get_kind, kind_of, known_kinds
from schedbench.simcore.kinds.placement import PlacementDecision, PlacementProblem
from schedbench.simcore.kinds.reservation import (
    ReservationDecision,
    ReservationProblem,
    feasible_start,
)
from schedbench.simcore.kinds.selection import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import make_solver, solvers_for

B = Budget(1.0)


def test_the_built_in_kinds_are_registered_with_their_solvers():
    assert {"selection", "placement", "reservation"} <= set(known_kinds())
    assert solvers_for("placement") == ["placement-earliest", "placement-locality"]
    assert solvers_for("reservation") == sorted(
        [
            "fit",  # the class; the seven names below are its aliases
            "ff",
            "pe-b",
            "pe-w",
            "du-b",
            "du-w",
            "pedu-b",
            "pedu-w",
            "reservation-cpsat",
            "reservation-first-fit",
        ]
    )
    assert "dp" in solvers_for("selection") and "dp" not in solvers_for("placement")
    with pytest.raises(UnknownKindError, match=r"known problem kinds: .*placement"):
        get_kind("nope")


@pytest.mark.parametrize(
    ("status", "answer", "delivered"),
    [
        ("optimal", False, True),
        ("infeasible", False, True),
        ("timeout", True, True),
        ("timeout", False, False),
        ("error", True, False),
        ("crashed", False, False),
    ],
)
def test_one_rule_for_an_answer(status, answer, delivered):
    assert delivered_answer(status, answer) is delivered


def test_a_selection_solver_declines_other_kinds_with_a_reason():
    ok, why = make_solver("dp").supports(PlacementProblem(0.0, 1, 1.0, [0.0], [False]))
    assert not ok and "selection" in why


# -- placement -------------------------------------------------------------------------------------
def placement() -> PlacementProblem:
    # node 0 holds the file but is busy until 50; node 1 is free but must load 10 GB at 0.1 GB/s
    return PlacementProblem(
        now=0.0, cores=4, runtime=100.0, free_at=[50.0, 0.0], cached=[True, False], file_gb=10.0
    )


def test_placement_round_trip_and_kind():
    p = placement()
    kind = kind_of(p)
    assert kind.name == "placement"
    again = kind.problem_from_dict(json.loads(json.dumps(kind.problem_to_dict(p))))
    assert kind.fingerprint(again) == kind.fingerprint(p)
    d = PlacementDecision(Status.OPTIMAL, node=1, start=0.0, objectives=(200.0,))
    assert kind.decision_from_dict(kind.decision_to_dict(d)).node == 1


def test_the_earliest_completion_solver_weighs_load_against_waiting():
    d = timed_solve(make_solver("placement-earliest"), placement(), B)
    # node 0: 50 + 0 + 100 = 150; node 1: 0 + 100 + 100 = 200
    assert (d.status, d.node, d.start, d.objectives) == (Status.OPTIMAL, 0, 50.0, (150.0,))


@pytest.mark.parametrize(
    ("node", "start", "reason"),
    [(2, 60.0, "outside"), (0, 10.0, "before node 0"), (1, math.nan, "finite")],
)
def test_the_core_rejects_an_invalid_placement(node, start, reason):
    kind = get_kind("placement")
    bad = kind.vet(placement(), PlacementDecision(Status.FEASIBLE, node=node, start=start))
    assert bad.status == Status.ERROR and reason in bad.notes[-1]
    assert bad.stats["invalid_answer"] == 1


def test_a_wrong_claimed_placement_objective_is_recomputed_and_counted():
    kind = get_kind("placement")
    d = kind.vet(
        placement(), PlacementDecision(Status.FEASIBLE, node=1, start=5.0, objectives=(1.0,))
    )
    assert d.status == Status.FEASIBLE and d.objectives == (205.0,)
    assert d.stats["objective_mismatch"] == 1


def test_placement_input_errors_name_the_key():
    with pytest.raises(ProblemError, match="cached"):
        PlacementProblem.from_dict(
            {"now": 0, "cores": 1, "runtime": 1, "free_at": [0], "cached": [1]}
        )
    with pytest.raises(ProblemError, match="cores: expected an integer >= 1"):
        PlacementProblem.from_dict(
            {"now": 0, "cores": 0, "runtime": 1, "free_at": [0], "cached": [True]}
        )


# -- reservation -----------------------------------------------------------------------------------
def reservation() -> ReservationProblem:
    return ReservationProblem(
        now=0, ready=0, duration=10, deadline=40, n_pe=2, pes=3, held=[(0, 20, (0,)), (5, 15, (1,))]
    )


def test_first_fit_takes_the_earliest_candidate_with_enough_free_pes():
    p = reservation()
    # the pinned rule: t_r, slot times s with t_r <= s <= t_dl - t_du (0, 5, 15, 20: where the
    # set of busy PEs changes) and s - t_du in that window (5 = 15 - 10, 10 = 20 - 10)
    assert p.candidate_starts() == [0, 5, 10, 15, 20]
    d = timed_solve(make_solver("reservation-first-fit"), p, B)
    # PEs 1 and 2 are free over [15, 25); nothing earlier has two free PEs for 10 s
    assert (d.accepted, d.start, d.pe_set, d.objectives) == (True, 15, (1, 2), (1.0,))


def test_a_request_that_cannot_fit_is_rejected_not_forced():
    p = ReservationProblem(
        now=0, ready=0, duration=10, deadline=15, n_pe=2, pes=2, held=[(0, 20, (0,))]
    )
    assert feasible_start(p) is None
    d = timed_solve(make_solver("reservation-first-fit"), p, B)
    assert not d.accepted and d.objectives == (0.0,) and d.status == Status.OPTIMAL


@pytest.mark.parametrize(
    ("start", "pes", "reason"),
    [
        (35, (1, 2), "outside the window"),
        (15, (1,), "expected 2 distinct PEs"),
        (0, (0, 2), "PE 0 is not free"),
        (15, (2, 3), "PE 3 outside"),
    ],
)
def test_the_core_rejects_an_invalid_reservation(start, pes, reason):
    kind = get_kind("reservation")
    d = kind.vet(
        reservation(), ReservationDecision(Status.FEASIBLE, accepted=True, start=start, pe_set=pes)
    )
    assert d.status == Status.ERROR and reason in d.notes[-1]


def test_a_false_infeasible_reservation_claim_is_rejected():
    kind = get_kind("reservation")
    d = kind.vet(reservation(), ReservationDecision(Status.INFEASIBLE))
    assert d.status == Status.ERROR and "claimed infeasible" in d.notes[-1]


def test_reservation_json_round_trip():
    kind = get_kind("reservation")
    p = reservation()
    q = kind.problem_from_dict(kind.problem_to_dict(p))
    assert q.held == p.held and q.slots.records() == p.slots.records()
    # the skeleton's per-PE form is still read: each interval a one-PE job
    legacy = ReservationProblem.from_dict(
        {
            "now": 0,
            "ready": 0,
            "duration": 10,
            "deadline": 40,
            "n_pe": 2,
            "pes": 3,
            "busy": [[0, 0, 20], [1, 5, 15]],
        }
    )
    assert legacy.held == p.held
    base = {"now": 0, "ready": 0, "duration": 1, "deadline": 5, "n_pe": 1, "pes": 2}
    with pytest.raises(ProblemError, match=r"busy\[0\]"):
        ReservationProblem.from_dict({**base, "busy": [[0, 1]]})
    with pytest.raises(ProblemError, match=r"held\[1\]: expected a job whose PEs no other"):
        ReservationProblem.from_dict({**base, "held": [[0, 5, [1]], [4, 6, [0, 1]]]})
    with pytest.raises(ProblemError, match=r"held\[0\]: expected distinct PEs in 0..1"):
        ReservationProblem.from_dict({**base, "held": [[0, 5, [2]]]})
    with pytest.raises(ProblemError, match="either held or busy"):
        ReservationProblem.from_dict({**base, "held": [], "busy": []})
    with pytest.raises(ProblemError, match="n_pe: expected at most the machine's 2 PEs"):
        ReservationProblem.from_dict({**base, "n_pe": 3})


def test_reservation_quality_records_where_an_accepted_job_went():
    kind = get_kind("reservation")
    p = reservation()
    d = timed_solve(make_solver("reservation-first-fit"), p, B)
    q = kind.quality(p, d, None, budget_s=1)
    # FF: start 15 on PEs 1, 2; PE 1 idle since its job ended at 15, PE 2 idle since now (0)
    assert q["start_delay_s"] == 15 and q["stranded_idle_pe_s"] == 15
    assert q["reference"] == "missing"


# -- PROBLEM.json of any kind --------------------------------------------------------------------
def test_schedbench_solve_answers_a_placement_problem_file(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(get_kind("placement").problem_to_dict(placement())))
    assert isinstance(load_problem(path), PlacementProblem)
    assert main(["solve", str(path), "--solver", "placement-earliest"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "optimal" and doc["node"] == 0 and doc["start"] == 50
    assert main(["solve", str(path), "--solver", "dp"]) == 1  # declines: not a selection problem
    assert "not supported" in json.loads(capsys.readouterr().out)["notes"][0]


def test_an_unknown_kind_in_a_problem_file_names_the_known_ones(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text('{"kind": "scheduling-magic"}')
    assert main(["solve", str(path), "--solver", "dp"]) == 2
    err = capsys.readouterr().err
    assert "p.json: kind: expected one of" in err and "reservation" in err


def test_selection_remains_the_default_kind(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"capacities": [1], "demands": [[1]]}')
    assert isinstance(load_problem(path), SelectionProblem)
