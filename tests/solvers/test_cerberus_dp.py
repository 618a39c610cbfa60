"""``cerberus-dp`` against a literal dense-table DP written from the model note (§5 "Choosing
among equal optima"): same selections, ties included; and the power-of-two value scaling keeps
them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from schedbench.simcore.cerberus.policy import power_of_two_scaled
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.registry import make_solver
from tests._hyp import examples


def dense_dp(caps, demands, values, prefer_later=True):
    """The authors' scheme, literally: a dense table over (item prefix, free units), values
    added in window order, walk back from the last item taking it when take >= skip."""
    k = len(caps)
    shape = tuple(c + 1 for c in caps)
    table = [np.zeros(shape)]
    for d, v in zip(demands, values, strict=True):
        prev = table[-1]
        cur = prev.copy()
        for cell in itertools.product(*(range(c + 1) for c in caps)):
            if all(cell[r] >= d[r] for r in range(k)):
                src = tuple(cell[r] - d[r] for r in range(k))
                cand = prev[src] + v
                if cand > cur[cell]:
                    cur[cell] = cand
        table.append(cur)
    cell = list(caps)
    chosen = []
    for i in range(len(demands) - 1, -1, -1):
        d = demands[i]
        if all(cell[r] >= d[r] for r in range(k)):
            take = table[i][tuple(cell[r] - d[r] for r in range(k))] + values[i]
            skip = table[i][tuple(cell)]
            if take > skip or (prefer_later and take == skip):
                chosen.append(i)
                cell = [cell[r] - d[r] for r in range(k)]
    return sorted(chosen)


def solve(caps, demands, values, **params):
    problem = SelectionProblem(capacities=caps, demands=demands, objectives=[values])
    return timed_solve(make_solver("cerberus-dp", params), problem, Budget(5))


@st.composite
def tie_heavy(draw):
    k = draw(st.integers(1, 2))
    w = draw(st.integers(0, 8))
    caps = [draw(st.integers(0, 9)) for _ in range(k)]
    demands = [[draw(st.integers(0, 5)) for _ in range(k)] for _ in range(w)]
    # few distinct values (many equal optima), some of them the run queue's p / rt^2 floats
    pool = draw(
        st.lists(
            st.sampled_from([1.0, 2.0, 3.0, 6 / 10800.0**2, 2 / 3600.0**2]), min_size=1, max_size=3
        )
    )
    values = [draw(st.sampled_from(pool)) for _ in range(w)]
    return caps, demands, values


@given(tie_heavy(), st.booleans())
@settings(max_examples=examples(200))
@example(([4], [[2], [2], [2]], [1.0, 1.0, 1.0]), True)
@example(([4], [[2], [2], [2]], [1.0, 1.0, 1.0]), False)
def test_selection_equals_the_dense_table_ties_included(case, later):
    caps, demands, values = case
    decision = solve(caps, demands, values, prefer_later=later)
    assert decision.status == Status.OPTIMAL
    assert list(decision.selected) == dense_dp(caps, demands, values, prefer_later=later)


def test_ties_go_to_later_items_as_upstream_and_to_earlier_ones_when_switched():
    caps, demands, values = [4], [[2], [2], [2]], [1.0, 1.0, 1.0]
    assert solve(caps, demands, values).selected == (1, 2)
    assert solve(caps, demands, values, prefer_later=False).selected == (0, 1)


@given(tie_heavy())
@settings(max_examples=examples(60))
def test_the_optimum_is_the_exact_dp_optimum(case):
    caps, demands, values = case
    problem = SelectionProblem(capacities=caps, demands=demands, objectives=[values])
    ours = timed_solve(make_solver("cerberus-dp"), problem, Budget(5))
    exact = timed_solve(make_solver("exhaustive"), problem, Budget(5))
    assert ours.objectives[0] == pytest.approx(exact.objectives[0], rel=1e-12, abs=1e-300)


@given(tie_heavy(), st.integers(-60, 60))
@settings(max_examples=examples(100))
def test_power_of_two_scaling_keeps_every_selection(case, shift):
    """The run-queue values are scaled by a power of two (policy.power_of_two_scaled): exact in
    IEEE double, so the tie rule picks the same jobs."""
    caps, demands, values = case
    scaled = [float(np.ldexp(v, shift)) for v in values]
    assert dense_dp(caps, demands, scaled) == dense_dp(caps, demands, values)
    assert (
        solve(caps, demands, power_of_two_scaled(values)).selected
        == solve(caps, demands, values).selected
    )


def test_scaled_values_land_in_the_documented_range():
    out = power_of_two_scaled([3e-7, 1e-3, 2.5e-6])
    assert 2**19 <= max(out) < 2**20
    assert power_of_two_scaled([0.0, 0.0]) == [0.0, 0.0]


def test_declines_several_objectives_with_a_reason():
    problem = SelectionProblem(capacities=[3], demands=[[1], [2]])
    problem2 = SelectionProblem(
        capacities=[3, 3], demands=[[1, 1], [2, 2]], objectives=[[1, 2], [2, 1]]
    )
    assert make_solver("cerberus-dp").supports(problem)[0]
    ok, reason = make_solver("cerberus-dp").supports(problem2)
    assert not ok and "one objective" in reason


def test_a_state_limit_stops_with_status_feasible():
    problem = SelectionProblem(
        capacities=[100], demands=[[1]] * 12, objectives=[list(range(1, 13))]
    )
    decision = timed_solve(make_solver("cerberus-dp", {"max_states": 8}), problem, Budget(5))
    assert decision.status == Status.FEASIBLE and decision.notes


def test_must_include_is_honoured_and_an_empty_window_answers_empty():
    problem = SelectionProblem(
        capacities=[4], demands=[[2], [2], [2]], objectives=[[1.0, 1.0, 1.0]], must_include=[0]
    )
    assert 0 in solve_problem(problem).selected
    empty = SelectionProblem(capacities=[4], demands=np.zeros((0, 1)), objectives=[[]])
    decision = solve_problem(empty)
    assert decision.status == Status.OPTIMAL and decision.selected == ()


def solve_problem(problem):
    return timed_solve(make_solver("cerberus-dp"), problem, Budget(5))
