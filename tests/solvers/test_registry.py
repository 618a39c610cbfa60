"""The solver registry (solvers.registry) and the parameter/id conventions of BaseSolver."""

from __future__ import annotations

import math

import pytest

from schedbench.simcore import (
    Budget,
    Decision,
    SelectionProblem,
    SolverParameterError,
    Status,
    UnknownSolverError,
    timed_solve,
)
from schedbench.simcore.solver import Solver
from schedbench.solvers.registry import (
    known_solvers,
    load_object,
    make_solver,
    parse_assignments,
    solver_class,
)

BUILTINS = ("naive", "binpack", "exhaustive", "dp")


def window(w: int) -> SelectionProblem:
    return SelectionProblem(capacities=[10], demands=[[1]] * w)


def test_known_solvers_lists_the_builtins_sorted():
    names = known_solvers()
    assert set(BUILTINS) <= set(names)
    assert names == sorted(names)


@pytest.mark.parametrize("name", BUILTINS)
def test_builtins_follow_the_protocol(name):
    solver = make_solver(name)
    assert isinstance(solver, Solver)
    assert solver.name == name
    assert solver.id == name  # defaults only
    assert solver_class(name) is type(solver)
    ok, reason = solver.supports(window(3))
    assert ok and reason == ""


def test_unknown_solver_lists_known_names():
    with pytest.raises(UnknownSolverError) as info:
        make_solver("nope")
    message = str(info.value)
    assert "'nope'" in message
    for name in BUILTINS:
        assert name in message
    assert isinstance(info.value, LookupError)
    assert info.value.known == known_solvers()


def test_unknown_parameter_names_solver_and_its_parameters():
    with pytest.raises(SolverParameterError) as info:
        make_solver("dp", {"unit_node": 512})
    message = str(info.value)
    assert "'dp'" in message
    assert "'unit_node'" in message
    for param, *_ in solver_class("dp").parameters():
        assert param in message


def test_solver_without_parameters_says_so():
    with pytest.raises(SolverParameterError) as info:
        make_solver("naive", {"x": 1})
    assert "'naive'" in str(info.value) and "'x'" in str(info.value)


def test_string_values_are_converted_to_the_declared_type():
    dp = make_solver("dp", {"unit_nodes": "512", "max_states": " 1000 "})
    assert dp.unit_nodes == 512.0 and isinstance(dp.unit_nodes, float)
    assert dp.max_states == 1000 and isinstance(dp.max_states, int)
    ex = make_solver("exhaustive", {"max_window": "12"})
    assert ex.max_window == 12


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("dp", {"unit_nodes": "abc"}),
        ("dp", {"max_states": "1.5"}),
        ("exhaustive", {"max_window": "many"}),
    ],
)
def test_unconvertible_strings_raise(name, params):
    with pytest.raises(SolverParameterError) as info:
        make_solver(name, params)
    key, value = next(iter(params.items()))
    assert f"'{name}'" in str(info.value)
    assert f"'{key}'" in str(info.value)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("dp", {"unit_nodes": 0}),
        ("dp", {"unit_nodes": "0.5"}),
        ("dp", {"unit_bb": -100}),
        ("dp", {"unit_bb": math.nan}),
        ("dp", {"unit_nodes": True}),
        ("dp", {"max_states": 0}),
        ("dp", {"max_states": 2.5}),
        ("exhaustive", {"max_window": 31}),
        ("exhaustive", {"max_window": -1}),
        ("exhaustive", {"max_window": "25.0"}),
    ],
)
def test_invalid_values_raise(name, params):
    with pytest.raises(SolverParameterError) as info:
        make_solver(name, params)
    key = next(iter(params))
    assert f"'{key}'" in str(info.value)
    assert f"'{name}'" in str(info.value)


def test_ids_are_deterministic():
    assert make_solver("dp").id == "dp"
    assert make_solver("dp", {"unit_nodes": 1}).id == "dp"  # the default is not shown
    assert make_solver("dp", {"unit_nodes": 512}).id == "dp[unit_nodes=512]"
    assert make_solver("dp", {"unit_nodes": "512"}).id == "dp[unit_nodes=512]"
    assert make_solver("dp", {"unit_nodes": 512.0}).id == "dp[unit_nodes=512]"
    both = make_solver("dp", {"unit_nodes": 512, "unit_bb": 100})
    assert both.id == "dp[unit_bb=100,unit_nodes=512]"
    assert make_solver("dp", {"unit_bb": 100, "unit_nodes": 512}).id == both.id
    assert make_solver("dp", {"unit_nodes": 1.5}).id == "dp[unit_nodes=1.5]"
    assert make_solver("exhaustive", {"max_window": 20}).id == "exhaustive[max_window=20]"


def test_params_and_parameters_listing():
    dp = make_solver("dp", {"unit_bb": 100})
    listing = type(dp).parameters()
    names = [p[0] for p in listing]
    assert {"unit_nodes", "unit_bb", "max_states"} <= set(names)
    assert all(p[3] for p in listing)  # every parameter has a help text
    defaults = {p[0]: p[2] for p in listing}
    assert dp.params() == {**defaults, "unit_bb": 100}
    assert defaults["unit_nodes"] == defaults["unit_bb"] == 1  # exact units by default


def test_exhaustive_declines_large_windows():
    ex = make_solver("exhaustive")
    ok, reason = ex.supports(window(25))
    assert ok and reason == ""
    ok, reason = ex.supports(window(26))
    assert not ok
    assert "window" in reason and "26" in reason and "max_window=25" in reason
    # solve() turns the refusal into an error decision that carries the reason.
    d = ex.solve(window(26), Budget(30))
    assert d.status == Status.ERROR
    assert any("window" in note for note in d.notes)
    assert d.selected == ()


def test_exhaustive_max_window_is_a_parameter():
    ex = make_solver("exhaustive", {"max_window": "4"})
    assert ex.supports(window(4))[0]
    assert not ex.supports(window(5))[0]


def test_dp_coarse_bb_unit_needs_two_resources():
    dp = make_solver("dp", {"unit_bb": 100})
    ok, reason = dp.supports(window(3))
    assert not ok and "unit_bb" in reason
    assert make_solver("dp", {"unit_nodes": 512}).supports(window(3))[0]


def test_parse_assignments():
    assert parse_assignments([]) == {}
    assert parse_assignments(["unit_nodes=512", " unit_bb =100", "a=b=c", "empty="]) == {
        "unit_nodes": "512",
        "unit_bb": "100",
        "a": "b=c",
        "empty": "",
    }
    # The parsed strings feed make_solver.
    assert make_solver("dp", parse_assignments(["unit_nodes=512"])).id == "dp[unit_nodes=512]"


@pytest.mark.parametrize("item", ["novalue", "=5", "  =5"])
def test_parse_assignments_errors(item):
    with pytest.raises(SolverParameterError) as info:
        parse_assignments(["ok=1", item])
    assert repr(item) in str(info.value)
    assert "KEY=VALUE" in str(info.value)


def test_load_object():
    assert load_object("schedbench.solvers.dp:DPSolver") is solver_class("dp")
    for spec, words in [
        ("schedbench.solvers.dp", ["module:Class"]),
        ("no_such_module_xyz:X", ["cannot import", "no_such_module_xyz"]),
        ("schedbench.solvers.dp:Nope", ["has no", "'Nope'"]),
    ]:
        with pytest.raises(SolverParameterError) as info:
            load_object(spec)
        for word in words:
            assert word in str(info.value)


def test_timed_solve_records_latency_and_solver_id():
    p = SelectionProblem(capacities=[100, 100], demands=[[80, 20], [10, 85], [40, 5]])
    solver = make_solver("dp", {"max_states": 1000})
    d = timed_solve(solver, p, Budget(30))
    assert isinstance(d, Decision)
    assert d.solver == "dp[max_states=1000]"
    assert d.latency_s >= 0 and math.isfinite(d.latency_s)


def test_timed_solve_rejects_non_decisions():
    class Bad:
        name = "bad"
        id = "bad"

        def supports(self, problem):
            return True, ""

        def solve(self, problem, budget):
            return {"selected": []}

    with pytest.raises(TypeError, match=r"'bad'.*dict"):
        timed_solve(Bad(), window(1), Budget(1))
