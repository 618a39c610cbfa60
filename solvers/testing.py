"""Conformance suite for solvers: what every solver, built-in or third-party, must do.

Use it from pytest against your own solver::

    from schedbench.solvers.testing import parametrize_conformance

    @parametrize_conformance([MySolver(), MySolver(some_param=3)])
    def test_conformance(solver, check):
        check(solver)

or from the command line: ``schedbench check-solver my_package.module:MySolver`` (exits non-zero
when a check fails). The checks:

=================  ==========================================================================
returns_decision   ``solve`` returns a ``Decision``; ``supports`` returns ``(bool, str)`` and
                   gives a reason when it declines
feasible           every selection (chosen and Pareto) fits the capacities, its objectives are
                   the problem's evaluation of it, the Pareto set is mutually non-dominated and
                   holds the chosen selection; no ``error`` status on a supported problem
must_include       forced jobs are in every selection; forced jobs that cannot fit give
                   ``infeasible``
budget             returns within ``deadline + GRACE_S`` (5 s: where the harness would kill
                   the call, ``simcore.solver.GRACE_S``)
deterministic      the same problem and seed give the same answer
not_mutated        the problem's arrays are unchanged after ``solve``
empty_window       w = 0: an empty selection
one_job            a single job that fits (with positive objectives) is chosen; one that does
                   not fit is not
everything_fits    all jobs fit together (positive objectives): all are chosen
nothing_fits       no job fits: an empty selection, not an error
=================  ==========================================================================

These are the checks of a ``selection`` solver. A solver of another problem kind (``kinds``,
``simcore/kinds/``) is checked on that kind's example problems (``ProblemKind.examples``) for
what every solver owes: ``supports`` of the right shape, an answer of the kind's decision type
that the kind's core check accepts, within the budget, deterministic for a seed, the problem
left unchanged (:func:`checks_for`).

A check is skipped (not failed) when the solver declines every problem it would use, through
``supports()``. ``warm_up()`` is called, untimed, before the budget check.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.errors import InvalidDecisionError
from schedbench.simcore.fdcapture import captured_output
from schedbench.simcore.kinds.base import ProblemKind, get_kind
from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.pareto import dominates
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import GRACE_S, warm_up, watched_call

#: The deadline of the budget check: the solver must return by BUDGET_CHECK_DEADLINE_S + GRACE_S.
BUDGET_CHECK_DEADLINE_S = 1.0

_ANSWERED = (Status.OPTIMAL, Status.FEASIBLE, Status.TIMEOUT)


class ConformanceFailure(AssertionError):
    """A solver broke the contract; the message says which check, problem and what."""


class _Skip(Exception):
    pass


# -- problems the checks use -------------------------------------------------------------------
def table1() -> SelectionProblem:
    """BBSched Table 1: 100 nodes, 100 TB; J1..J5."""
    return SelectionProblem(
        capacities=[100, 100],
        demands=[[80, 20], [10, 85], [40, 5], [10, 0], [20, 0]],
        resources=("nodes", "bb_tb"),
    )


def random_problem(
    seed: int,
    w: int,
    k: int,
    m: int,
    *,
    fractional: bool = False,
    must_include: int = 0,
    objectives_are_demands: bool = True,
) -> SelectionProblem:
    """A small random problem whose capacities bind (about 40 % of the total demand)."""
    rng = np.random.default_rng([seed, w, k, m, int(fractional), must_include])
    demands = rng.integers(0, 60, size=(w, k)).astype(float)
    if fractional:
        demands = demands + rng.random((w, k)).round(3)
    caps = np.maximum(np.floor(demands.sum(axis=0) * 0.4), 1.0)
    if objectives_are_demands and m <= k:
        objectives = demands.T[:m].copy()
    else:
        objectives = rng.integers(1, 40, size=(m, w)).astype(float)
    forced: list[int] = []
    if must_include:
        budget = caps.copy()
        for j in rng.permutation(w).tolist():
            if len(forced) < must_include and np.all(demands[j] <= budget):
                forced.append(j)
                budget -= demands[j]
    return SelectionProblem(
        capacities=caps, demands=demands, objectives=objectives, must_include=tuple(forced)
    )


def _suite_problems() -> list[tuple[str, SelectionProblem]]:
    out = [("table1", table1())]
    for seed, (w, k, m, frac, demand_obj) in enumerate(
        [
            (6, 1, 1, False, True),
            (9, 2, 1, False, False),
            (10, 2, 2, False, True),
            (12, 3, 2, False, True),
            (8, 2, 3, False, False),
            (11, 2, 1, True, True),
            (10, 2, 2, True, True),
            (12, 1, 1, False, False),
        ]
    ):
        out.append(
            (
                f"random(w={w},K={k},M={m}{',fractional' if frac else ''})",
                random_problem(seed, w, k, m, fractional=frac, objectives_are_demands=demand_obj),
            )
        )
    return out


# -- helpers -----------------------------------------------------------------------------------
def _solver_name(solver: object) -> str:
    return str(
        getattr(solver, "id", None) or getattr(solver, "name", None) or type(solver).__name__
    )


def _supported(
    solver: Any, problems: Iterable[tuple[str, SelectionProblem]]
) -> Iterator[tuple[str, SelectionProblem]]:
    any_ = False
    for label, problem in problems:
        ok, _reason = solver.supports(problem)
        if ok:
            any_ = True
            yield label, problem
    if not any_:
        raise _Skip("the solver declines every problem this check uses")


def _solve(
    solver: Any, problem: SelectionProblem, label: str, budget: Budget | None = None
) -> Decision:
    budget = budget or Budget(deadline_s=10.0, seed=7)
    try:
        with watched_call(budget.deadline_s):  # a supervisor's hard deadline (check-solver)
            decision = solver.solve(problem, budget)
    except Exception as exc:  # the contract says: answer with a Decision, never raise
        raise ConformanceFailure(f"{label}: solve raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(decision, Decision):
        raise ConformanceFailure(
            f"{label}: solve returned {type(decision).__name__}, not a Decision"
        )
    return decision


def _fail(label: str, message: str) -> ConformanceFailure:
    return ConformanceFailure(f"{label}: {message}")


def _check_answer(problem: SelectionProblem, d: Decision, label: str) -> None:
    if d.status == Status.ERROR:
        raise _fail(label, f"status error on a supported problem ({'; '.join(d.notes)})")
    if d.status == Status.INFEASIBLE:
        if problem.fits(problem.usage(problem.must_include)):
            raise _fail(label, "status infeasible, but the must_include jobs fit")
        return
    points = [(d.selected, d.objectives, "selected")] + [
        (p.selected, p.objectives, f"pareto point {p.selected}") for p in d.pareto
    ]
    for selected, objectives, what in points:
        try:
            problem.check_selection(selected)
        except InvalidDecisionError as exc:
            raise _fail(label, f"{what} is not feasible: {exc}") from exc
        expected = problem.evaluate(selected)
        if len(objectives) != problem.M or not np.allclose(
            objectives, expected, rtol=1e-9, atol=1e-9
        ):
            raise _fail(
                label, f"{what} reports objectives {objectives}, the problem gives {expected}"
            )
    if problem.M >= 2 and d.pareto:
        vectors = [np.array(p.objectives) for p in d.pareto]
        for i, a in enumerate(vectors):
            for j, b in enumerate(vectors):
                if i != j and dominates(a, b):
                    raise _fail(
                        label,
                        f"pareto point {d.pareto[i].objectives} dominates {d.pareto[j].objectives}",
                    )
        if d.selected not in [p.selected for p in d.pareto]:
            raise _fail(label, "the chosen selection is not one of the Pareto points")


# -- the checks --------------------------------------------------------------------------------
def check_returns_decision(solver: Any) -> None:
    for label, problem in _suite_problems():
        answer = solver.supports(problem)
        if not (
            isinstance(answer, tuple)
            and len(answer) == 2
            and isinstance(answer[0], bool)
            and isinstance(answer[1], str)
        ):
            raise _fail(label, f"supports() must return (bool, str), got {answer!r}")
        if not answer[0] and not answer[1].strip():
            raise _fail(label, "supports() declined without a reason")
    for label, problem in _supported(solver, _suite_problems()):
        _solve(solver, problem, label)


def check_feasible(solver: Any) -> None:
    for label, problem in _supported(solver, _suite_problems()):
        _check_answer(problem, _solve(solver, problem, label), label)


def check_must_include(solver: Any) -> None:
    cases = [
        (f"must_include(w=10,K={k},M={m})", random_problem(11 + k, 10, k, m, must_include=2))
        for k, m in ((1, 1), (2, 2), (2, 1))
    ]
    for label, problem in _supported(solver, cases):
        d = _solve(solver, problem, label)
        _check_answer(problem, d, label)
        if d.status == Status.INFEASIBLE:
            raise _fail(label, "status infeasible although the must_include jobs fit")
        for sel in [d.selected] + [p.selected for p in d.pareto]:
            if not set(problem.must_include) <= set(sel):
                raise _fail(label, f"selection {sel} misses must_include {problem.must_include}")
    too_big = SelectionProblem(
        capacities=[10, 10], demands=[[6, 1], [6, 1], [1, 1]], must_include=(0, 1)
    )
    for label, problem in _supported(solver, [("must_include too big", too_big)]):
        d = _solve(solver, problem, label)
        if d.status != Status.INFEASIBLE:
            raise _fail(
                label, f"expected status infeasible, got {d.status.value} with {d.selected}"
            )


def check_budget(solver: Any) -> None:
    warm_up(solver)
    limit = BUDGET_CHECK_DEADLINE_S + GRACE_S
    cases = [
        ("budget(w=20,M=2)", random_problem(3, 20, 2, 2)),
        ("budget(w=60,M=2)", random_problem(4, 60, 2, 2)),
        ("budget(w=40,K=3,M=1)", random_problem(5, 40, 3, 1, objectives_are_demands=False)),
    ]
    for label, problem in _supported(solver, cases):
        start = time.perf_counter()
        d = _solve(solver, problem, label, Budget(deadline_s=BUDGET_CHECK_DEADLINE_S, seed=1))
        took = time.perf_counter() - start
        if took > limit:
            raise _fail(
                label,
                f"took {took:.2f} s with a deadline of {BUDGET_CHECK_DEADLINE_S:g} s "
                f"(allowed {limit:.2f} s)",
            )
        _check_answer(problem, d, label)


def check_deterministic(solver: Any) -> None:
    cases = _suite_problems()[:5]
    for label, problem in _supported(solver, cases):
        a = _solve(solver, problem, label, Budget(deadline_s=10.0, seed=42))
        b = _solve(solver, problem, label, Budget(deadline_s=10.0, seed=42))
        if not a.same_answer(b):
            raise _fail(label, f"same seed, different answers: {a.selected} / {b.selected}")


def check_not_mutated(solver: Any) -> None:
    for label, problem in _supported(solver, _suite_problems()):
        before = (
            problem.capacities.copy(),
            problem.demands.copy(),
            problem.objectives.copy(),
            problem.must_include,
            problem.objective_scales.copy(),
        )
        _solve(solver, problem, label)
        after = (
            problem.capacities,
            problem.demands,
            problem.objectives,
            problem.must_include,
            problem.objective_scales,
        )
        names = ("capacities", "demands", "objectives", "must_include", "objective_scales")
        for name, x, y in zip(names, before, after, strict=False):
            if not np.array_equal(np.asarray(x), np.asarray(y)):
                raise _fail(label, f"solve changed the problem's {name}")


def _expect_selection(
    solver: Any, label: str, problem: SelectionProblem, expected: tuple[int, ...]
) -> None:
    for lab, prob in _supported(solver, [(label, problem)]):
        d = _solve(solver, prob, lab)
        if d.status not in _ANSWERED:
            raise _fail(
                lab, f"expected an answer, got status {d.status.value} ({'; '.join(d.notes)})"
            )
        _check_answer(prob, d, lab)
        if d.selected != expected:
            raise _fail(lab, f"expected selection {expected}, got {d.selected}")


def check_empty_window(solver: Any) -> None:
    _expect_selection(
        solver,
        "empty window (M=1)",
        SelectionProblem(capacities=[5, 5], demands=[], objectives=[[]]),
        (),
    )
    _expect_selection(
        solver, "empty window (M=2)", SelectionProblem(capacities=[5, 5], demands=[]), ()
    )


def check_one_job(solver: Any) -> None:
    _expect_selection(
        solver, "one job that fits", SelectionProblem(capacities=[5, 5], demands=[[3, 2]]), (0,)
    )
    _expect_selection(
        solver, "one job too big", SelectionProblem(capacities=[5, 5], demands=[[3, 7]]), ()
    )


def check_everything_fits(solver: Any) -> None:
    demands = [[1, 2], [3, 1], [2, 2], [1, 1]]
    _expect_selection(
        solver,
        "everything fits (M=2)",
        SelectionProblem(capacities=[10, 10], demands=demands),
        (0, 1, 2, 3),
    )
    _expect_selection(
        solver,
        "everything fits (M=1)",
        SelectionProblem(capacities=[10, 10], demands=demands, objectives=[[1, 1, 1, 1]]),
        (0, 1, 2, 3),
    )


def check_nothing_fits(solver: Any) -> None:
    demands = [[6, 1], [1, 9], [7, 7]]
    _expect_selection(
        solver, "nothing fits (M=2)", SelectionProblem(capacities=[5, 5], demands=demands), ()
    )
    _expect_selection(
        solver,
        "nothing fits (M=1)",
        SelectionProblem(capacities=[5, 5], demands=demands, objectives=[[1, 2, 3]]),
        (),
    )


@dataclass(frozen=True)
class Check:
    """One named conformance check; call it with a solver. Raises ``ConformanceFailure``."""

    name: str
    run: Callable[[object], None]

    def __call__(self, solver: Any) -> None:
        try:
            self.run(solver)
        except _Skip as skip:
            pytest = sys.modules.get("pytest")
            if pytest is not None:
                pytest.skip(f"{self.name}: {skip}")

    def __repr__(self) -> str:
        return self.name


#: The checks of a selection solver.
SELECTION_CHECKS: tuple[Check, ...] = tuple(
    Check(name, fn)
    for name, fn in (
        ("returns_decision", check_returns_decision),
        ("feasible", check_feasible),
        ("must_include", check_must_include),
        ("budget", check_budget),
        ("deterministic", check_deterministic),
        ("not_mutated", check_not_mutated),
        ("empty_window", check_empty_window),
        ("one_job", check_one_job),
        ("everything_fits", check_everything_fits),
        ("nothing_fits", check_nothing_fits),
    )
)


# -- any kind --------------------------------------------------------------------------------------
def _kind_problems(kind: ProblemKind) -> list[tuple[str, Any]]:
    problems = kind.examples()
    if not problems:
        raise _Skip(f"kind {kind.name!r} offers no example problems (ProblemKind.examples)")
    return problems


def _solve_kind(solver: Any, kind: ProblemKind, problem: Any, label: str, budget: Budget) -> Any:
    try:
        with watched_call(budget.deadline_s):
            decision = solver.solve(problem, budget)
    except Exception as exc:  # the contract says: answer with a decision, never raise
        raise ConformanceFailure(f"{label}: solve raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(decision, kind.decision_type):
        raise _fail(
            label,
            f"solve returned {type(decision).__name__}, not a {kind.decision_type.__name__}",
        )
    return decision


def _kind_checks(kind_name: str) -> tuple[Check, ...]:
    """The checks every solver of any kind must pass, over the kind's example problems: a
    ``supports`` answer of the right shape, a decision of the kind's type that the kind's core
    check (``vet``) accepts and that is not an error, within the budget, the same answer for the
    same seed, and the problem left as it was."""

    def kind() -> ProblemKind:
        return get_kind(kind_name)

    def supported(solver: Any) -> list[tuple[str, Any]]:
        out = [(f"{kind_name} {label}", p) for label, p in _kind_problems(kind())]
        for label, problem in out:
            answer = solver.supports(problem)
            if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], bool)):
                raise _fail(label, f"supports() must return (bool, str), got {answer!r}")
            if not answer[0] and not str(answer[1]).strip():
                raise _fail(label, "supports() declined without a reason")
        return list(_supported(solver, out))

    def returns_decision(solver: Any) -> None:
        k = kind()
        for label, problem in supported(solver):
            _solve_kind(solver, k, problem, label, Budget(deadline_s=10.0, seed=7))

    def valid(solver: Any) -> None:
        k = kind()
        for label, problem in supported(solver):
            d = _solve_kind(solver, k, problem, label, Budget(deadline_s=10.0, seed=7))
            if Status(d.status) == Status.ERROR:
                raise _fail(label, f"status error on a supported problem ({'; '.join(d.notes)})")
            vetted = k.vet(problem, d)
            if Status(vetted.status) == Status.ERROR:
                raise _fail(label, f"the core rejects the answer: {'; '.join(vetted.notes)}")
            if vetted.stats.get("objective_mismatch"):
                raise _fail(label, f"claimed objectives {d.objectives} differ from the answer's")

    def budget(solver: Any) -> None:
        warm_up(solver)
        k = kind()
        limit = BUDGET_CHECK_DEADLINE_S + GRACE_S
        for label, problem in supported(solver):
            start = time.perf_counter()
            _solve_kind(solver, k, problem, label, Budget(deadline_s=BUDGET_CHECK_DEADLINE_S))
            took = time.perf_counter() - start
            if took > limit:
                raise _fail(label, f"took {took:.2f} s, allowed {limit:.2f} s")

    def deterministic(solver: Any) -> None:
        k = kind()
        for label, problem in supported(solver):
            docs = []
            for _ in range(2):
                d = _solve_kind(solver, k, problem, label, Budget(deadline_s=10.0, seed=42))
                doc = k.decision_to_dict(d)
                doc.pop("latency_s", None)
                doc.pop("stats", None)
                docs.append(doc)
            if docs[0] != docs[1]:
                raise _fail(label, f"same seed, different answers: {docs[0]} / {docs[1]}")

    def not_mutated(solver: Any) -> None:
        k = kind()
        for label, problem in supported(solver):
            before = k.problem_to_dict(problem)
            _solve_kind(solver, k, problem, label, Budget(deadline_s=10.0, seed=7))
            if k.problem_to_dict(problem) != before:
                raise _fail(label, "solve changed the problem")

    return tuple(
        Check(f"{kind_name}:{name}", fn)
        for name, fn in (
            ("returns_decision", returns_decision),
            ("valid", valid),
            ("budget", budget),
            ("deterministic", deterministic),
            ("not_mutated", not_mutated),
        )
    )


def checks_for(solver: Any) -> tuple[Check, ...]:
    """Every check that applies to ``solver``: per problem kind it declares (``kinds``;
    ``("selection",)`` when it declares none), the selection checks or the generic ones over the
    kind's example problems."""
    kinds = getattr(solver, "kinds", ("selection",))
    out: list[Check] = []
    for kind_name in kinds:
        out.extend(SELECTION_CHECKS if kind_name == "selection" else _kind_checks(kind_name))
    return tuple(out)


@dataclass(frozen=True)
class CheckResult:
    check: str
    outcome: str  # "passed" | "failed" | "skipped"
    detail: str = ""


def run_check(solver: Any, check: Check) -> CheckResult:
    """Run one check against ``solver`` and report its outcome (never raises for a failure)."""
    try:
        # supports() and solve() are called directly here (the contract is what is checked,
        # not timed_solve's wrapping): what the solver prints is captured per check.
        with captured_output(f"{_solver_name(solver)} {check.name}"):
            check.run(solver)
    except _Skip as skip:
        return CheckResult(check.name, "skipped", str(skip))
    except ConformanceFailure as exc:
        return CheckResult(check.name, "failed", str(exc))
    return CheckResult(check.name, "passed")


def run_conformance(solver: Any) -> list[CheckResult]:
    """Run every check against ``solver`` in this process and report each outcome (never
    raises for a failure). ``schedbench check-solver`` runs each check in a supervised process
    instead (``bench/run/conformance.py``): a solver that hangs or crashes is stopped there."""
    return [run_check(solver, check) for check in checks_for(solver)]


def parametrize_conformance(solvers: Iterable[object]) -> Any:
    """``pytest.mark.parametrize("solver, check", ...)`` over solvers × checks, with readable ids."""
    import pytest

    params = [
        pytest.param(solver, check, id=f"{_solver_name(solver)}-{check.name}")
        for solver in solvers
        for check in checks_for(solver)
    ]
    return pytest.mark.parametrize(("solver", "check"), params)
