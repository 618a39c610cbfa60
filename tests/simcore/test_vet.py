"""The core checks every answer before anything scores or applies it
(simcore/kinds/selection/vet.py; docs/design.md#the-core-checks-every-answer).

Each test plays a solver that lies in one way and checks what reaches the caller (the CLI, the
quality metrics, the simulation policy).
"""

from __future__ import annotations

import json
import math

import pytest

from schedbench.bench import cli
from schedbench.bench.cli import solve as solve_cmd
from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.kinds.selection.quality import decision_quality
from schedbench.simcore.kinds.selection.vet import vet
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.dp import DPSolver

# Two resources, objectives = demands (BBSched): capacities 10 nodes, 10 BB.
PROBLEM = SelectionProblem(capacities=[10, 10], demands=[[6, 1], [5, 5], [4, 9], [3, 3]])


class Liar:
    """Returns whatever ``answer(problem)`` builds, whatever the problem."""

    name = "liar"
    id = "liar"

    def __init__(self, answer):
        self.answer = answer

    def supports(self, problem):
        return True, ""

    def solve(self, problem, budget):
        return self.answer(problem)


def exact() -> Decision:
    return timed_solve(DPSolver(), PROBLEM, Budget(5))


def test_an_honest_answer_passes_unchanged():
    d = exact()
    assert vet(PROBLEM, d) == d
    assert "objective_mismatch" not in d.stats and "invalid_answer" not in d.stats


def test_empty_selection_claiming_the_best_objectives_is_scored_as_empty():
    best = exact()
    lie = Liar(
        lambda p: Decision(
            Status.OPTIMAL,
            selected=(),
            objectives=best.objectives,
            pareto=tuple(ParetoPoint((), pt.objectives) for pt in best.pareto),
        )
    )
    d = timed_solve(lie, PROBLEM, Budget(5))
    assert d.objectives == (0.0, 0.0)
    assert all(pt.objectives == (0.0, 0.0) for pt in d.pareto)
    assert d.stats["objective_mismatch"] == 1 + len(best.pareto)
    q = decision_quality(d, best, problem=PROBLEM)
    assert q["igd_plus"] > 0.5 and q["front_found"] == 0.0 and q["hv_ratio"] <= 1.0


@pytest.mark.parametrize(
    "selected, words",
    [((0, 1, 2), "over capacity"), ((0, 7), "outside the window"), ((1, 1), "twice")],
)
def test_an_infeasible_answer_is_never_optimal(selected, words):
    lie = Liar(lambda p: Decision(Status.OPTIMAL, selected=selected, objectives=(99.0, 99.0)))
    if selected == (1, 1):
        with pytest.raises(InvalidDecisionError, match="distinct"):
            lie.solve(PROBLEM, Budget(5))
        return
    d = timed_solve(lie, PROBLEM, Budget(5))
    assert d.status == Status.ERROR and not d.selected and not d.objectives
    assert d.stats["invalid_answer"] == 1 and d.stats["claimed_status"] == "optimal"
    assert any(words in n for n in d.notes)
    q = decision_quality(d, exact(), problem=PROBLEM)
    assert q["feasible"] in (0, False) and q["status"] == "error"


def test_nan_claims_are_recomputed_and_json_stays_valid():
    lie = Liar(lambda p: Decision(Status.FEASIBLE, selected=(1,), objectives=(math.nan, 5.0)))
    d = timed_solve(lie, PROBLEM, Budget(5))
    assert d.objectives == (5.0, 5.0) and d.stats["objective_mismatch"] == 1
    json.loads(json.dumps(d.to_dict(), allow_nan=False))


def test_stats_and_traces_with_nan_serialise_as_null():
    d = Decision(Status.FEASIBLE, selected=(1,), objectives=(5, 5), stats={"x": math.nan})
    out = json.loads(json.dumps(d.to_dict(), allow_nan=False))
    assert out["stats"]["x"] is None


@pytest.mark.parametrize("bad", [(0.9,), (True,), ("3",), (1.0,)])
def test_decision_refuses_non_integer_indices(bad):
    with pytest.raises(InvalidDecisionError, match="integer job indices"):
        Decision(Status.FEASIBLE, selected=bad)


def test_a_false_infeasible_claim_is_rejected():
    lie = Liar(lambda p: Decision(Status.INFEASIBLE))
    d = timed_solve(lie, PROBLEM, Budget(5))
    assert d.status == Status.ERROR and d.stats["claimed_status"] == "infeasible"
    forced = SelectionProblem(capacities=[10, 10], demands=[[6, 1], [5, 5]], must_include=[0, 1])
    assert timed_solve(lie, forced, Budget(5)).status == Status.INFEASIBLE  # true claim kept


def test_a_missing_objective_vector_is_filled_in_not_faulted():
    honest = Liar(lambda p: Decision(Status.FEASIBLE, selected=(1, 3)))
    d = timed_solve(honest, PROBLEM, Budget(5))
    assert d.status == Status.FEASIBLE and d.objectives == (8.0, 8.0)
    assert "objective_mismatch" not in d.stats


def test_cli_solve_prints_valid_json_and_fails_on_an_invalid_answer(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(PROBLEM.to_dict()))
    lie = Liar(lambda p: Decision(Status.OPTIMAL, selected=(0, 1, 2), objectives=(math.nan, 1)))
    monkeypatch.setattr(solve_cmd.registry, "make_solver", lambda name, params: lie)
    # in this process: the monkeypatched registry is not the isolation child's
    assert cli.main(["solve", str(path), "--solver", "liar", "--no-isolate"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "error" and out["selected"] == []
    assert "over capacity" in " ".join(out["notes"])
