"""The decision-problem contract (simcore.problem): validation, JSON, budgets, decisions."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedbench.simcore import (
    Budget,
    BudgetError,
    Decision,
    InvalidDecisionError,
    ParetoPoint,
    ProblemError,
    SelectionProblem,
    Status,
)

ROOT = Path(__file__).resolve().parents[2]


def table1() -> SelectionProblem:
    """BBSched Table 1: 100 nodes, 100 TB, five jobs (nodes, BB TB)."""
    return SelectionProblem(
        capacities=[100, 100],
        demands=[[80, 20], [10, 85], [40, 5], [10, 0], [20, 0]],
        resources=("nodes", "bb_tb"),
    )


def problem_error(**kwargs) -> ProblemError:
    base = dict(capacities=[10, 10], demands=[[1, 2], [3, 4]])
    base.update(kwargs)
    with pytest.raises(ProblemError) as info:
        SelectionProblem(**base)
    return info.value


# -- validation: every bad input names its field ------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "where"),
    [
        # negative / non-finite numbers name the exact element
        (dict(demands=[[1, 2], [-1, 0]]), "demands[1][0]"),
        (dict(demands=[[1, 2], [3, -0.5]]), "demands[1][1]"),
        (dict(demands=[[1, math.nan], [3, 4]]), "demands[0][1]"),
        (dict(demands=[[1, 2], [math.inf, 4]]), "demands[1][0]"),
        (dict(capacities=[10, -1]), "capacities[1]"),
        (dict(capacities=[math.nan, 10]), "capacities[0]"),
        (dict(capacities=[10, math.inf]), "capacities[1]"),
        (dict(objectives=[[1, math.nan]]), "objectives[0][1]"),
        (dict(objectives=[[1, 2], [-math.inf, 0]]), "objectives[1][0]"),
        # shapes
        (dict(capacities=[]), "capacities"),
        (dict(capacities=[[1, 2]]), "capacities"),
        (dict(capacities=None), "capacities"),
        (dict(capacities="10"), "capacities"),
        (dict(demands=[[1, 2, 3], [4, 5, 6]]), "demands[0]"),  # rows of 3 for K = 2
        (dict(demands=[1, 2]), "demands[0]"),  # not a list of rows: job 0 is not a row
        (dict(demands=None), "demands"),
        (dict(objectives=[[1, 2, 3]]), "objectives[0]"),  # 3 values for w = 2
        (dict(objectives=[1, 2]), "objectives"),  # 1-D
        (dict(objectives=[]), "objectives"),
        # non-numbers name the row
        (dict(demands=[[1, 2], [3, "x"]]), "demands[1][1]"),
        (dict(demands=[[1, {}], [3, 4]]), "demands[0]"),
        (dict(objectives=[["a", 1]]), "objectives[0][0]"),
        # must_include
        (dict(must_include=[2]), "must_include[0]"),
        (dict(must_include=[0, -1]), "must_include[1]"),
        (dict(must_include=[1.0]), "must_include[0]"),
        (dict(must_include=[True]), "must_include[0]"),
        (dict(must_include=5), "must_include"),
        # names
        (dict(resources=("nodes",)), "resources"),
        (dict(resources=("nodes", "")), "resources"),
        (dict(objective_names=("a", "b", "c")), "objective_names"),
        # objective_scales
        (dict(objective_scales=[1.0]), "objective_scales"),
        (dict(objective_scales=[1.0, 2.0, 3.0]), "objective_scales"),
        (dict(objective_scales=[1.0, 0.0]), "objective_scales"),
        (dict(objective_scales=[1.0, -2.0]), "objective_scales"),
        (dict(objective_scales=[1.0, math.nan]), "objective_scales"),
        (dict(objective_scales=[math.inf, 1.0]), "objective_scales"),
        (dict(objective_scales=[[1.0, 1.0]]), "objective_scales"),
    ],
)
def test_bad_input_names_the_field(kwargs, where):
    err = problem_error(**kwargs)
    assert err.where == where
    assert str(err).startswith(f"{where}: expected")
    assert isinstance(err, ValueError)  # also catchable as the builtin


def test_ragged_rows_name_the_short_row():
    err = problem_error(demands=[[1, 2], [3]])
    assert err.where == "demands[1]"
    assert "1 numbers" in str(err)


def test_ragged_objective_rows_are_rejected():
    err = problem_error(objectives=[[1, 2], [1, 2, 3]])
    assert err.where.startswith("objectives")


@pytest.mark.parametrize("bad", ["5", True], ids=["numeric-string", "bool"])
def test_strings_and_booleans_are_not_numbers(bad):
    """JSON "5" or true where a number belongs is a malformed problem, not 5.0 or 1.0."""
    err = problem_error(demands=[[1, 2], [bad, 4]])
    assert err.where.startswith("demands[1]")
    err = problem_error(capacities=[10, bad])
    assert err.where.startswith("capacities")


def test_objective_error_names_the_expected_window_size():
    err = problem_error(objectives=[[1, 2, 3]])
    assert "2 numbers" in str(err)
    assert "3 numbers" in str(err)


def test_must_include_error_names_the_window_range():
    err = problem_error(must_include=[7])
    assert "0..1" in str(err)
    assert "7" in str(err)


# -- accepted inputs ----------------------------------------------------------------------------


def test_objectives_default_to_demands():
    p = table1()
    assert p.M == p.K == 2
    assert p.w == 5
    np.testing.assert_array_equal(p.objectives, p.demands.T)
    assert p.objective_names == ("nodes", "bb_tb")
    np.testing.assert_array_equal(p.objective_scales, [100.0, 100.0])
    assert p.objective_resource == (0, 1)
    assert p.objectives_are_demands


def test_default_resource_and_objective_names():
    p = SelectionProblem(capacities=[5, 6, 7], demands=[[1, 1, 1]])
    assert p.resources == ("r0", "r1", "r2")
    assert p.objective_names == ("r0", "r1", "r2")
    q = SelectionProblem(capacities=[5], demands=[[1], [2]], objectives=[[3, 4], [0, 1]])
    assert q.objective_names == ("f0", "f1")


def test_explicit_objective_scales_default_to_positive_sums():
    p = SelectionProblem(
        capacities=[10], demands=[[1], [2], [3]], objectives=[[4, -1, 2], [0, 0, 0]]
    )
    assert p.M == 2
    # Sum of positive values (4 + 2); an objective with nothing positive gets 1.
    np.testing.assert_array_equal(p.objective_scales, [6.0, 1.0])
    assert p.objective_resource == (-1, -1)
    assert not p.objectives_are_demands


def test_explicit_objective_equal_to_a_demand_is_recognised():
    p = SelectionProblem(capacities=[10, 20], demands=[[1, 5], [2, 6]], objectives=[[5, 6], [1, 2]])
    assert p.objective_resource == (1, 0)
    assert p.objectives_are_demands
    np.testing.assert_array_equal(p.objective_scales, [20.0, 10.0])


def test_zero_capacity_demand_objective_scale_falls_back():
    p = SelectionProblem(capacities=[0, 10], demands=[[0, 1], [0, 2]])
    # Capacity 0 cannot normalise; the objective's positive sum (0) falls back to 1.
    np.testing.assert_array_equal(p.objective_scales, [1.0, 10.0])


def test_empty_window_is_allowed():
    p = SelectionProblem(capacities=[3, 4], demands=[])
    assert (p.w, p.K, p.M) == (0, 2, 2)
    assert p.evaluate(()) == (0.0, 0.0)
    p.check_selection(())
    q = SelectionProblem(capacities=[3], demands=[], objectives=[])
    assert (q.w, q.M) == (0, 1)


def test_fractional_values_are_allowed():
    p = SelectionProblem(
        capacities=[2.5, 0.75],
        demands=[[0.25, 0.5], [1.5, 0.25], [1.0, 0.1]],
        objectives=[[0.5, -0.25, 1 / 3]],
    )
    assert not p.is_integral
    assert p.evaluate((0, 2)) == pytest.approx((0.5 + 1 / 3,))
    np.testing.assert_allclose(p.usage((0, 1)), [1.75, 0.75])
    assert p.is_feasible((0, 1))  # exactly full on resource 1
    assert not p.is_feasible((0, 1, 2))
    assert table1().is_integral


def test_float_sum_a_hair_over_an_exact_capacity_is_feasible():
    # 0.1 + 0.2 == 0.30000000000000004 > 0.3 in floats; the relative tolerance accepts it.
    p = SelectionProblem(capacities=[0.3], demands=[[0.1], [0.2]])
    assert p.usage((0, 1))[0] > 0.3
    p.check_selection((0, 1))
    # ... but not a real excess
    q = SelectionProblem(capacities=[0.3], demands=[[0.1], [0.2000001]])
    assert not q.is_feasible((0, 1))


def test_must_include_is_sorted_and_deduplicated():
    p = SelectionProblem(capacities=[10], demands=[[1]] * 4, must_include=[3, 1, 3, np.int64(0)])
    assert p.must_include == (0, 1, 3)
    assert all(type(i) is int for i in p.must_include)


def test_arrays_are_float64_and_read_only():
    p = table1()
    for name in ("capacities", "demands", "objectives", "objective_scales"):
        array = getattr(p, name)
        assert array.dtype == np.float64
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array.flat[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.capacities = np.zeros(2)  # type: ignore[misc]


def test_problem_does_not_alias_caller_arrays():
    demands = np.array([[1.0, 2.0], [3.0, 4.0]])
    capacities = np.array([10.0, 10.0])
    p = SelectionProblem(capacities=capacities, demands=demands)
    demands[0, 0] = 99.0
    capacities[0] = 0.0
    assert p.demands[0, 0] == 1.0
    assert p.capacities[0] == 10.0
    assert capacities.flags.writeable  # the caller's array is untouched


# -- JSON ---------------------------------------------------------------------------------------


def rich_problem() -> SelectionProblem:
    return SelectionProblem(
        capacities=[100, 2.5, 7],
        demands=[[80, 0.25, 1], [10, 1.5, 0], [40, 0.125, 3]],
        objectives=[[1, 2, 3], [-1.5, 0, 1 / 3]],
        must_include=[2],
        resources=("nodes", "bb", "ssd"),
        objective_names=("count", "other"),
        objective_scales=[3, 0.75],
    )


@pytest.mark.parametrize("make", [table1, rich_problem])
def test_json_round_trip_preserves_everything(make):
    p = make()
    text = json.dumps(p.to_dict())
    q = SelectionProblem.from_dict(json.loads(text))
    for name in ("capacities", "demands", "objectives", "objective_scales"):
        np.testing.assert_array_equal(getattr(q, name), getattr(p, name))
    assert q.must_include == p.must_include
    assert q.resources == p.resources
    assert q.objective_names == p.objective_names
    assert q.objective_resource == p.objective_resource
    assert q.to_dict() == p.to_dict()
    assert q.fingerprint() == p.fingerprint()


def test_json_keeps_integers_integral():
    data = table1().to_dict()
    assert data["kind"] == "selection"
    assert data["capacities"] == [100, 100]
    assert all(type(x) is int for row in data["demands"] for x in row)
    assert "must_include" not in data
    assert json.dumps(data["capacities"]) == "[100, 100]"


def test_json_keeps_fractions_exact():
    p = rich_problem()
    data = json.loads(json.dumps(p.to_dict()))
    assert data["objectives"][1][2] == 1 / 3
    assert data["demands"][2][1] == 0.125
    assert data["must_include"] == [2]


def test_from_dict_minimal_defaults():
    p = SelectionProblem.from_dict({"capacities": [100, 100], "demands": [[80, 20], [10, 85]]})
    assert p.M == 2
    np.testing.assert_array_equal(p.objectives, [[80, 10], [20, 85]])
    assert p.must_include == ()


def test_from_dict_accepts_name_and_meta():
    p = SelectionProblem.from_dict(
        {"kind": "selection", "name": "t1", "meta": {"a": 1}, "capacities": [1], "demands": [[1]]}
    )
    assert p.w == 1


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"capacities": [1], "demands": [[1]], "capacity": [2]}, "'capacity'"),
        ({"demands": [[1]]}, "capacities"),
        ({"capacities": [1]}, "demands"),
        ({"kind": "schedule", "capacities": [1], "demands": [[1]]}, "kind"),
        ({"capacities": [1], "demands": [[1], [-2]]}, "demands[1][0]"),
        ({"capacities": [1], "demands": [[1]], "must_include": [4]}, "must_include[0]"),
        ([1, 2], "(top level)"),
    ],
)
def test_from_dict_errors_name_source_and_key(data, key):
    with pytest.raises(ProblemError) as info:
        SelectionProblem.from_dict(data, source="queue/PROBLEM.json")
    message = str(info.value)
    assert message.startswith("queue/PROBLEM.json: ")
    assert key in message
    assert info.value.source == "queue/PROBLEM.json"


def test_from_dict_unknown_key_lists_known_keys():
    with pytest.raises(ProblemError) as info:
        SelectionProblem.from_dict({"capacities": [1], "demands": [[1]], "zzz": 1})
    assert "'zzz'" in str(info.value)
    assert "capacities" in str(info.value) and "must_include" in str(info.value)


def test_from_dict_kind_error_shows_the_bad_kind():
    with pytest.raises(ProblemError) as info:
        SelectionProblem.from_dict({"kind": "schedule", "capacities": [1], "demands": [[1]]})
    assert str(info.value).endswith("schedule")


# -- fingerprint --------------------------------------------------------------------------------


def test_fingerprint_is_stable_and_content_sensitive():
    p = table1()
    fp = p.fingerprint()
    assert len(fp) == 16 and all(c in "0123456789abcdef" for c in fp)
    assert table1().fingerprint() == fp
    # Same content through numpy input and through JSON.
    same = SelectionProblem(
        capacities=np.array([100.0, 100.0]), demands=np.array(p.demands), resources=p.resources
    )
    assert same.fingerprint() == fp

    base = dict(
        capacities=[100, 100],
        demands=[[80, 20], [10, 85], [40, 5], [10, 0], [20, 0]],
        resources=("nodes", "bb_tb"),
    )
    variants = [
        dict(capacities=[100, 99]),
        dict(demands=[[80, 20], [10, 85], [40, 5], [10, 0], [20, 1]]),
        dict(demands=[[10, 85], [80, 20], [40, 5], [10, 0], [20, 0]]),  # order matters
        dict(must_include=[0]),
        dict(resources=("nodes", "bb_gb")),
        dict(objective_scales=[4392, 100]),
        dict(objectives=[[80, 10, 40, 10, 20]]),
    ]
    prints = {fp}
    for change in variants:
        prints.add(SelectionProblem(**{**base, **change}).fingerprint())
    assert len(prints) == len(variants) + 1


def test_fingerprint_is_stable_across_processes():
    code = (
        "from simcore import SelectionProblem as P;"
        "print(P(capacities=[100,100], demands=[[80,20],[10,85],[40,5],[10,0],[20,0]],"
        " resources=('nodes','bb_tb')).fingerprint())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    )
    assert out.stdout.strip() == table1().fingerprint()


# -- check_selection ----------------------------------------------------------------------------


def test_check_selection_accepts_feasible():
    p = table1()
    for sel in [(), (0,), (0, 3), (0, 4), (1, 2, 3, 4), [np.int64(4), 1]]:
        p.check_selection(sel)
        assert p.is_feasible(sel)


@pytest.mark.parametrize(
    ("selection", "words"),
    [
        ((5,), ["5", "outside", "0..4"]),
        ((-1,), ["-1", "outside"]),
        ((1, 1), ["1", "twice"]),
        ((0, 1), ["'bb_tb'", "over capacity", "105 > 100"]),  # J1+J2: 90 nodes fit, 105 TB not
        ((0, 2), ["'nodes'", "over capacity", "120 > 100"]),
        ((1.0,), ["1.0", "not a job index"]),
        ((True,), ["True", "not a job index"]),
    ],
)
def test_check_selection_errors(selection, words):
    p = table1()
    with pytest.raises(InvalidDecisionError) as info:
        p.check_selection(selection)
    for word in words:
        assert word in str(info.value)
    assert not p.is_feasible(selection)


def test_check_selection_requires_must_include():
    p = SelectionProblem(
        capacities=[100, 100], demands=[[80, 20], [10, 85], [40, 5]], must_include=[2]
    )
    with pytest.raises(InvalidDecisionError, match=r"must_include jobs \[2\] not selected"):
        p.check_selection((1,))
    p.check_selection((1, 2))


# -- Budget -------------------------------------------------------------------------------------


def test_budget_defaults_and_limits():
    assert Budget().deadline_s == 15.0
    assert Budget().seed == 0
    b = Budget(30)
    assert b.deadline_s == 30.0 and type(b.deadline_s) is float
    assert Budget(0.001).deadline_s == 0.001
    assert Budget(seed=np.int64(7)).seed == 7


@pytest.mark.parametrize(
    "deadline", [0, -1, 30.0001, 31, math.nan, math.inf, True, False, "10", None]
)
def test_budget_rejects_bad_deadlines(deadline):
    with pytest.raises(BudgetError, match="deadline_s"):
        Budget(deadline)


@pytest.mark.parametrize("seed", [True, 1.5, "3", None])
def test_budget_rejects_bad_seeds(seed):
    with pytest.raises(BudgetError, match="seed"):
        Budget(seed=seed)


# -- Decision -----------------------------------------------------------------------------------


def test_decision_normalises_selection_and_status():
    d = Decision("optimal", selected=[3, np.int64(1), 2], objectives=[1, 2])
    assert d.status is Status.OPTIMAL
    assert d.selected == (1, 2, 3)
    assert all(type(i) is int for i in d.selected)
    assert d.objectives == (1.0, 2.0)
    assert all(type(x) is float for x in d.objectives)


@pytest.mark.parametrize("selected", [[1, 1], [0, -2]])
def test_decision_rejects_bad_selection(selected):
    with pytest.raises(InvalidDecisionError):
        Decision(Status.FEASIBLE, selected=selected)


def test_decision_rejects_unknown_status():
    with pytest.raises(ValueError):
        Decision("great")


def test_decision_sorts_pareto_best_first():
    d = Decision(
        Status.OPTIMAL,
        pareto=[
            ParetoPoint((2, 1), (1, 5)),
            ((0,), (3, 0)),  # plain pairs are converted
            ParetoPoint((4, 3), (3, 2)),
        ],
    )
    assert [p.objectives for p in d.pareto] == [(3.0, 2.0), (3.0, 0.0), (1.0, 5.0)]
    assert [p.selected for p in d.pareto] == [(3, 4), (0,), (1, 2)]
    assert all(isinstance(p, ParetoPoint) for p in d.pareto)


def test_decision_pareto_ties_sorted_by_selection():
    d = Decision(Status.OPTIMAL, pareto=[((2,), (1, 1)), ((0, 5), (1, 1))])
    assert [p.selected for p in d.pareto] == [(0, 5), (2,)]


def test_decision_to_dict_is_json():
    d = Decision(
        Status.OPTIMAL,
        selected=(1, 2),
        objectives=(80.0, 90.5),
        pareto=[((0, 4), (100.0, 20.0)), ((1, 2), (80.0, 90.5))],
        stats={"states": 3, "ratio": 2.0},
        notes=("n",),
        solver="dp",
    )
    data = json.loads(json.dumps(d.to_dict()))
    assert data["status"] == "optimal"
    assert data["selected"] == [1, 2]
    assert data["objectives"] == [80, 90.5]
    assert data["pareto"][0] == {"selected": [0, 4], "objectives": [100, 20]}
    assert data["latency_s"] is None
    assert data["stats"] == {"states": 3, "ratio": 2}
    with pytest.raises(TypeError):
        d.stats["x"] = 1  # type: ignore[index]


def test_decision_same_answer_ignores_latency_and_stats():
    a = Decision(Status.OPTIMAL, selected=(0,), objectives=(1,), stats={"a": 1}, latency_s=0.5)
    b = Decision(Status.OPTIMAL, selected=(0,), objectives=(1,), latency_s=9.0)
    c = Decision(Status.OPTIMAL, selected=(1,), objectives=(1,))
    assert a.same_answer(b)
    assert not a.same_answer(c)
