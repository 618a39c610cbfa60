"""The conformance suite: every built-in passes; deliberately broken solvers fail the right check."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pytest

from schedbench.simcore.kinds.selection.problem import Decision, SelectionProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers import testing as conformance
from schedbench.solvers.base import Answer, BaseSolver, Clock
from schedbench.solvers.naive import NaiveSolver
from schedbench.solvers.registry import known_solvers, make_solver
from schedbench.solvers.testing import SELECTION_CHECKS, parametrize_conformance, run_conformance

BUILTINS = [
    make_solver(name)
    for name in (
        "naive",
        "binpack",
        "exhaustive",
        "dp",
        "cpsat",
        "bnb",
        "ga",
        "bbsched-ga",
        "moo",
        "weighted",
        "weighted-cpu",
        "weighted-bb",
        "constrained",
        "constrained-cpu",
        "constrained-bb",
        "constrained-ssd",
        "placement-earliest",
        "placement-locality",
        "reservation-first-fit",
        "fit",
        "cerberus-dp",
        "ff",
        "pe-b",
        "pe-w",
        "du-b",
        "du-w",
        "pedu-b",
        "pedu-w",
        "reservation-cpsat",
    )
]
BUILTINS.append(make_solver("weighted", {"engine": "cpsat"}))
BUILTINS.append(make_solver("cpsat", {"method": "two-phase"}))  # exact fronts that finish
BUILTINS.append(make_solver("bnb", {"workers": 2}))  # its parallel search too
# Coarse units small enough that the checks' tiny problems still fit when rounded up.
BUILTINS.append(make_solver("dp", {"unit_nodes": 2, "unit_bb": 2}))


@parametrize_conformance(BUILTINS)
def test_builtin_solvers_conform(solver, check):
    check(solver)


#: Registered solvers whose conformance runs in their own test module.
COVERED_ELSEWHERE = {"mip-cbc", "mip-highs"}  # tests/solvers/test_mip.py (worker process)


def test_every_registered_solver_is_covered():
    # an alias's solver carries the alias' name in its id (pe-b is fit[policy=pe-b])
    assert {s.id.partition("[")[0] for s in BUILTINS} | COVERED_ELSEWHERE >= set(known_solvers())


# -- deliberately broken solvers ------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True, slots=True)
class TakesEverything(BaseSolver):
    """Ignores capacities."""

    name = "broken-takes-everything"

    def solve(self, problem, budget):
        sel = tuple(range(problem.w))
        return Decision(Status.FEASIBLE, selected=sel, objectives=problem.evaluate(sel))


@dataclass(frozen=True, kw_only=True, slots=True)
class ForgetsMustInclude(BaseSolver):
    """Runs naive but drops the forced jobs."""

    name = "broken-forgets-must-include"

    def solve(self, problem, budget):
        free = [i for i in range(problem.w) if i not in problem.must_include]
        stripped = SelectionProblem(
            capacities=problem.capacities,
            demands=problem.demands[free],
            objectives=problem.objectives[:, free],
        )
        d = NaiveSolver().solve(stripped, budget)
        sel = tuple(free[i] for i in d.selected)
        return Decision(d.status, selected=sel, objectives=problem.evaluate(sel))


@dataclass(frozen=True, kw_only=True, slots=True)
class Unseeded(BaseSolver):
    """Random feasible answer from an unseeded generator."""

    name = "broken-unseeded"

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        rng = np.random.default_rng()
        order = rng.permutation(problem.w)
        remaining = problem.capacities.copy()
        chosen = []
        for j in order:
            if np.all(problem.demands[j] <= remaining):
                chosen.append(int(j))
                remaining -= problem.demands[j]
        return Answer(Status.FEASIBLE, [chosen])


@dataclass(frozen=True, kw_only=True, slots=True)
class Sleeper(NaiveSolver):
    """Right answers, but ignores the deadline."""

    name = "broken-sleeper"

    def _solve(self, problem, budget, clock):
        if problem.w >= 20:
            time.sleep(budget.deadline_s + conformance.GRACE_S + 0.5)
        return NaiveSolver._solve(self, problem, budget, clock)


@dataclass(frozen=True, kw_only=True, slots=True)
class Mutator(NaiveSolver):
    """Scribbles on the problem's demands."""

    name = "broken-mutator"

    def _solve(self, problem, budget, clock):
        problem.demands.setflags(write=True)
        problem.demands[...] = 0
        return NaiveSolver._solve(self, problem, budget, clock)


@dataclass(frozen=True, kw_only=True, slots=True)
class Raises(BaseSolver):
    name = "broken-raises"

    def _solve(self, problem, budget, clock):
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("solver", "failing"),
    [
        (TakesEverything(), "feasible"),
        (ForgetsMustInclude(), "must_include"),
        (Unseeded(), "deterministic"),
        (Sleeper(), "budget"),
        (Mutator(), "not_mutated"),
        (Raises(), "feasible"),
    ],
    ids=lambda x: getattr(x, "name", x),
)
def test_broken_solver_fails_its_check(solver, failing, monkeypatch):
    monkeypatch.setattr(conformance, "GRACE_S", 0.5)  # the sleeper need not sleep the harness's 5 s
    outcome = {r.check: r for r in run_conformance(solver)}
    assert outcome[failing].outcome == "failed", outcome[failing]
    assert outcome[failing].detail


def test_checks_are_all_named_and_distinct():
    names = [c.name for c in SELECTION_CHECKS]
    assert len(names) == len(set(names)) >= 10


@dataclass(frozen=True, kw_only=True, slots=True)
class DeclinesAll(NaiveSolver):
    name = "declines-all"

    def supports(self, problem):
        return False, "declines everything on purpose"


def test_declining_solver_is_skipped_not_failed():
    results = run_conformance(DeclinesAll())
    assert {r.outcome for r in results if r.check != "returns_decision"} == {"skipped"}
    assert all(r.outcome != "failed" for r in results)


@dataclass(frozen=True, kw_only=True, slots=True)
class DeclinesSilently(NaiveSolver):
    name = "declines-silently"

    def supports(self, problem):
        return False, ""


def test_declining_without_reason_fails():
    outcome = {r.check: r.outcome for r in run_conformance(DeclinesSilently())}
    assert outcome["returns_decision"] == "failed"
