"""``dp`` claims ``optimal`` only on data decimal to six places (solvers/dp.py docstring)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.dp import DPSolver
from tests._hyp import examples

THIRD = 1 / 3


def _solve(problem: SelectionProblem, **params: object):
    return timed_solve(DPSolver(**params), problem, Budget(deadline_s=10))


#: One problem per path of ``DPSolver._solve`` (sparse DP, branch and bound, the weighted pair
#: DP, the two-resource front), in a decimal form and a form with one non-decimal number.
PATHS = {
    "sparse, three resources": dict(
        capacities=[10, 10, 10],
        demands=[[1, 2, 3], [4, 5, 6], [3, 3, 3], [2, 1, 1]],
        objectives=[[1, 2, 3, 4]],
    ),
    "branch and bound": dict(
        capacities=[10, 10], demands=[[1, 2], [4, 5], [3, 3], [6, 1]], objectives=[[5, 4, 3, 2]]
    ),
    "weighted pair": dict(
        capacities=[10, 10],
        demands=[[1, 2], [4, 5], [3, 3], [6, 1]],
        objectives=[[1 * 3 + 2 * 2, 4 * 3 + 5 * 2, 3 * 3 + 3 * 2, 6 * 3 + 1 * 2]],
    ),
    "two-resource front": dict(capacities=[10, 10], demands=[[1, 2], [4, 5], [3, 3], [6, 1]]),
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("where", ["demands", "capacities", "objectives"])
def test_dp_claims_optimal_only_on_decimal_data(path, where):
    data = {k: np.array(v, dtype=float) for k, v in PATHS[path].items()}
    decimal = _solve(SelectionProblem(**data))
    assert decimal.status == Status.OPTIMAL
    if where not in data:  # the front's objectives are its demands
        data[where] = data["demands"].T.copy()
    data[where] = data[where].copy()
    data[where].flat[0] += THIRD  # one number not decimal to six places
    answer = _solve(SelectionProblem(**data))
    assert answer.status == Status.FEASIBLE, (answer.status, answer.notes)
    assert any("not decimal to 6 places" in n for n in answer.notes)
    data[where].flat[0] += 0.25 - THIRD  # a decimal number again: the claim is back
    assert _solve(SelectionProblem(**data)).status == Status.OPTIMAL


@settings(deadline=None, max_examples=examples(30))
@given(
    demands=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=8).map(
        np.array
    ),
    thirds=st.lists(st.integers(0, 15), min_size=1, max_size=3),
    single=st.booleans(),
)
def test_dp_never_claims_optimal_with_a_third_in_the_data(demands, thirds, single):
    demands = demands.astype(float)
    flat = demands.reshape(-1)
    for i in {i % flat.size for i in thirds}:
        flat[i] += THIRD
    objectives = [demands.sum(axis=1) + 1] if single else None
    problem = SelectionProblem(capacities=[12.0, 12.0], demands=demands, objectives=objectives)
    assert _solve(problem).status != Status.OPTIMAL
