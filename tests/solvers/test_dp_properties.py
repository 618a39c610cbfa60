"""Property tests: ``dp``'s exact Pareto front equals ``exhaustive``'s on random small
two-resource windows, of the conflict-rich kind (``instances.conflict_windows``: Theta-sized node
counts, BB for a share of the jobs) and the BB-heavy kind (every job, or all but one, asks for
burst buffer: the windows whose state sets grow fastest), with every internal switch of the
compiled kernel forced: every bound from the first layer, a tiny beam, a trial pass that stops at
once, coupled-bound lists cut to a few entries.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.instances import conflict_windows as cw
from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers import _pairdp
from schedbench.solvers import dp as dp_module
from schedbench.solvers.dp import DPSolver
from schedbench.solvers.exhaustive import ExhaustiveSolver
from tests._hyp import examples

BUDGET = Budget(deadline_s=30)

#: Internal settings of the compiled kernel (module constants), one set per run of a property.
SWITCHES: dict[str, dict[tuple[object, str], object]] = {
    "default": {},
    "every bound from the first layer": {
        (dp_module, "_KERNEL_PRUNE_FROM"): 1,
        (_pairdp, "REACH_FROM"): 1,
        (_pairdp, "COUPLE_FROM"): 1,
        (_pairdp, "TABLE_FROM"): 1,
    },
    "tiny beam, trial pass stopped, lists of 6 entries": {
        (dp_module, "_KERNEL_PRUNE_FROM"): 1,
        (_pairdp, "COUPLE_FROM"): 1,
        (dp_module, "_BEAM_FROM"): 1,
        (dp_module, "_BEAM"): 3,
        (dp_module, "_TRY_STATES"): 3,
        (dp_module, "_COUPLE_BUDGET"): 6,
    },
}


@pytest.fixture(autouse=True, scope="module")
def _compiled_kernels():
    DPSolver().warm_up()
    ExhaustiveSolver().warm_up()


@st.composite
def windows(draw: st.DrawFn, bb_heavy: bool) -> SelectionProblem:
    """A window of 1..12 jobs by the recipe's demand distributions; capacities either the
    recipe's (30-70 % of Theta free) or a share of the window's own demand sums (so that both
    resources bind even with few jobs)."""
    w = draw(st.integers(1, 12))
    nodes = draw(
        st.lists(
            st.one_of(st.sampled_from(cw.NODE_CHOICES), st.integers(1, cw.NODES)),
            min_size=w,
            max_size=w,
        )
    )
    sizes = draw(st.lists(st.integers(*cw.BB_RANGE_GB), min_size=w, max_size=w))
    if bb_heavy:
        # Every job asks for BB, or every job but one (a nodes-only job among BB jobs).
        wants = [True] * w
        if w > 1 and draw(st.booleans()):
            wants[draw(st.integers(0, w - 1))] = False
    else:
        wants = draw(st.lists(st.booleans(), min_size=w, max_size=w))
    bb = [s if want else 0 for s, want in zip(sizes, wants, strict=True)]
    demands = np.column_stack([nodes, bb]).astype(np.float64)
    if draw(st.booleans()):
        share = [draw(st.floats(*cw.FREE_RANGE)) for _ in range(2)]
        caps = np.floor(np.array([cw.NODES, cw.BB_GB]) * share)
    else:
        share = [draw(st.floats(0.15, 0.85)) for _ in range(2)]
        caps = np.floor(demands.sum(axis=0) * share)
    return SelectionProblem(
        capacities=caps,
        demands=demands,
        resources=("nodes", "bb_gb"),
        objective_scales=[cw.NODES, cw.BB_GB],
    )


def fronts_agree(problem: SelectionProblem, switches: str) -> None:
    exact = timed_solve(ExhaustiveSolver(), problem, BUDGET)
    with pytest.MonkeyPatch.context() as mp:
        for (module, name), value in SWITCHES[switches].items():
            mp.setattr(module, name, value)
        ours = timed_solve(DPSolver(), problem, BUDGET)
    assert ours.status == Status.OPTIMAL, ours.notes
    assert {p.objectives for p in ours.pareto} == {p.objectives for p in exact.pareto}
    for point in ours.pareto:  # every selection is feasible and has the objectives it claims
        problem.check_selection(point.selected)
        assert problem.evaluate(point.selected) == point.objectives


@pytest.mark.parametrize("switches", list(SWITCHES))
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(problem=windows(bb_heavy=False))
def test_dp_front_equals_exhaustive_on_conflict_rich_windows(switches, problem):
    fronts_agree(problem, switches)


@pytest.mark.parametrize("switches", list(SWITCHES))
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(problem=windows(bb_heavy=True))
def test_dp_front_equals_exhaustive_on_bb_heavy_windows(switches, problem):
    fronts_agree(problem, switches)


def test_the_switches_name_existing_settings():
    """A renamed constant would make a switch set silently test the default path."""
    for switches in SWITCHES.values():
        for module, name in switches:
            assert hasattr(module, name), name
