"""The proof that a problem kind is a plug-in: a toy kind, its solvers and its problem
source live in this one module, and run through a suite, the results store, the leaderboard,
the HTML report and the regression gate without any edit to bench/.

The toy decision: pick one of ``values``; the objective is the value picked (maximised).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import pytest

from schedbench.bench.report import decision_leaderboard, failed_cells
from schedbench.bench.report.compare import compare
from schedbench.bench.report.html import html_report
from schedbench.bench.run.runner import run_suite
from schedbench.bench.store import ResultStore
from schedbench.bench.suite import load_suite
from schedbench.instances.sources import ProblemSource, SourceInstance, seeds_of
from schedbench.simcore.catalogue import catalogue
from schedbench.simcore.errors import ProblemError
from schedbench.simcore.kinds import scalar
from schedbench.simcore.kinds.base import ProblemKind, register_kind, unregister_kind
from schedbench.simcore.problem import Budget, Status
from schedbench.simcore.solver import timed_solve
from schedbench.solvers.base import ParamSolver


@dataclass(frozen=True, slots=True, eq=False)
class ToyProblem:
    kind: ClassVar[str] = "toy"
    values: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "toy", "values": list(self.values)}

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ToyProblem:
        values = data.get("values") if isinstance(data, Mapping) else None
        if not isinstance(values, list) or not values:
            raise ProblemError("values", "a non-empty list of numbers", values, source=source)
        return cls(tuple(float(v) for v in values))


@dataclass(frozen=True, slots=True)
class ToyDecision:
    status: Status
    pick: int = -1
    objectives: tuple[float, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver: str = ""
    latency_s: float = math.nan

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "pick": self.pick,
            "objectives": list(self.objectives),
            "notes": list(self.notes),
            "solver": self.solver,
            "latency_s": None if math.isnan(self.latency_s) else self.latency_s,
        }

    @classmethod
    def from_dict(cls, data: Any) -> ToyDecision:
        lat = data.get("latency_s")
        return cls(
            Status(data["status"]),
            pick=int(data.get("pick", -1)),
            objectives=tuple(data.get("objectives") or ()),
            notes=tuple(data.get("notes") or ()),
            solver=data.get("solver", ""),
            latency_s=math.nan if lat is None else float(lat),
        )


class ToyKind(ProblemKind):
    name = "toy"
    summary = "pick the largest value"
    problem_type = ToyProblem
    decision_type = ToyDecision
    metrics: ClassVar = scalar.gap_metrics("toy", "value picked")

    def vet(self, problem: Any, decision: Any) -> Any:
        if decision.status == Status.ERROR:
            return decision
        if not 0 <= decision.pick < len(problem.values):
            return scalar.rejected(decision, f"pick {decision.pick} is not an index")
        return scalar.recomputed(decision, problem.values[decision.pick])

    def quality(self, problem: Any, decision: Any, reference: Any, *, budget_s: float) -> dict:
        return scalar.gap_quality(decision, reference, self.answered(decision))

    def examples(self) -> list[tuple[str, Any]]:
        return [("three", ToyProblem((1.0, 3.0, 2.0)))]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyExact(ParamSolver):
    name = "toy-exact"
    kinds: ClassVar[tuple[str, ...]] = ("toy",)

    def solve(self, problem: ToyProblem, budget: Budget) -> ToyDecision:
        best = max(range(len(problem.values)), key=problem.values.__getitem__)
        return ToyDecision(Status.OPTIMAL, pick=best, objectives=(problem.values[best],))


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyFirst(ParamSolver):
    """Always the first value: a gap whenever the first is not the largest."""

    name = "toy-first"
    kinds: ClassVar[tuple[str, ...]] = ("toy",)

    def solve(self, problem: ToyProblem, budget: Budget) -> ToyDecision:
        return ToyDecision(Status.FEASIBLE, pick=0, objectives=(problem.values[0],))


class ToySource(ProblemSource):
    name = "toy-values"
    keys = frozenset({"seeds"})

    def count(self, spec: dict[str, Any], base: Path) -> int:
        return len(seeds_of(spec.get("seeds", 1)))

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        for seed in seeds_of(spec.get("seeds", 1)):
            values = tuple(float((seed * 7 + k * 3) % 10) for k in range(5))
            yield SourceInstance(f"toy:{seed}", ToyProblem(values))


class RelabelledToySource(ToySource):
    """The same problems under other labels."""

    name = "toy-values-relabelled"

    def build(self, spec: dict[str, Any], base: Path) -> Iterator[SourceInstance]:
        for item in ToySource.build(self, spec, base):
            yield SourceInstance("renamed-" + item.label, item.problem)


SUITE = """
[suite]
name = "toy"
budget_s = 5
reference = "tests.simcore.test_toy_kind:ToyExact"

[[instances]]
family = "toys"
source = "tests.simcore.test_toy_kind:ToySource"
seeds = 4

[[solvers]]
name = "tests.simcore.test_toy_kind:ToyExact"

[[solvers]]
name = "tests.simcore.test_toy_kind:ToyFirst"
"""


@pytest.fixture
def toy_kind():
    register_kind(ToyKind)
    yield
    unregister_kind("toy")


def test_a_new_kind_runs_through_suite_store_report_and_gate(tmp_path, toy_kind):
    path = tmp_path / "toy.toml"
    path.write_text(SUITE)
    suite = load_suite(path)
    store = tmp_path / "toy.sqlite"
    summary = run_suite(suite, store_path=store, show_progress=False)
    assert summary.cells_run == 8 and summary.errors == 0
    with ResultStore(store, readonly=True) as st:
        rows = st.rows("toy")
    assert {r["problem_kind"] for r in rows} == {"toy"}
    assert all(r["instance_hash"] for r in rows)
    gaps = {
        r["solver_name"].split(":")[-1]: r["metrics"]["objective_gap"]
        for r in rows
        if r["instance"] == "toy:1"
    }
    # toy:1 has values 7, 0, 3, 6, 9: ToyFirst picks 7 against the optimum 9
    assert gaps == {"ToyExact": 0.0, "ToyFirst": pytest.approx(2 / 9)}
    board = {e["solver"]: e for e in decision_leaderboard(rows)}
    assert board["toy-exact"]["objective_gap"] == 0.0
    assert board["toy-first"]["objective_gap"] > 0
    assert list(board) == ["toy-exact", "toy-first"]  # ranked by quality
    assert not failed_cells(rows)
    page = html_report(rows, tmp_path / "toy.html", title="toy").read_text()
    assert "toy-first" in page
    assert catalogue()["objective_gap"].direction == "lower"
    comparison = compare(rows, rows, [], suite="toy")
    assert not comparison.regressions


def test_resume_keys_on_content_not_labels(tmp_path, toy_kind):
    path = tmp_path / "toy.toml"
    path.write_text(SUITE)
    store = tmp_path / "toy.sqlite"
    run_suite(load_suite(path), store_path=store, show_progress=False)
    # the same problems under other labels: every cell is already stored
    path.write_text(SUITE.replace(":ToySource", ":RelabelledToySource"))
    again = run_suite(load_suite(path), store_path=store, show_progress=False, resume=True)
    assert again.cells_run == 0 and again.cells_skipped == 8
    # one problem changed: only its cells run again
    path.write_text(SUITE.replace("seeds = 4", "seeds = [1, 2, 3, 5]"))
    third = run_suite(load_suite(path), store_path=store, show_progress=False, resume=True)
    assert third.cells_run == 2 and third.cells_skipped == 6


def test_the_kind_answers_through_timed_solve_and_the_core_rejects_a_bad_pick(toy_kind):
    problem = ToyProblem((1.0, 5.0))
    d = timed_solve(ToyExact(), problem, Budget(1.0))
    assert d.pick == 1 and d.objectives == (5.0,) and d.latency_s >= 0

    @dataclass(frozen=True, kw_only=True, slots=True)
    class Liar(ParamSolver):
        name = "toy-liar"
        kinds: ClassVar[tuple[str, ...]] = ("toy",)

        def solve(self, problem: ToyProblem, budget: Budget) -> ToyDecision:
            return ToyDecision(Status.OPTIMAL, pick=7, objectives=(100.0,))

    bad = timed_solve(Liar(), problem, Budget(1.0))
    assert bad.status == Status.ERROR and bad.stats["invalid_answer"] == 1
