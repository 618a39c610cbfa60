"""The ``selection`` kind: choose a subset of the window's jobs that fits the free resources
(BBSched §3.2.1; also Cerberus' per-queue knapsacks and OR-Library instances).

Its home: the types (``problem.py``: :class:`SelectionProblem`, :class:`Decision`,
:class:`ParetoPoint`), the core's check of an answer (``vet.py``) and the quality record against
an exact optimum or Pareto front (``quality.py``). :class:`SelectionKind` ties them together
for the rest of the project (``simcore/kinds/base.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from schedbench.simcore.kinds.base import ProblemKind
from schedbench.simcore.kinds.selection.problem import Decision, ParetoPoint, SelectionProblem
from schedbench.simcore.kinds.selection.quality import decision_quality
from schedbench.simcore.kinds.selection.vet import vet
from schedbench.simcore.metric_spec import MetricSpec

__all__ = ["Decision", "ParetoPoint", "SelectionKind", "SelectionProblem"]

_BERTHOLD = "Berthold 2013"


class SelectionKind(ProblemKind):
    name = "selection"
    summary = "choose the jobs of a window that fit the free resources (1 or more objectives)"
    problem_type = SelectionProblem
    decision_type = Decision
    metrics: ClassVar[tuple[MetricSpec, ...]] = (
        MetricSpec(
            "primal_gap",
            "|z* - z| / max(|z*|, |z|) against the proven optimum z* (M = 1); 1 without an answer",
            unit="share",
            direction="lower",
            source=_BERTHOLD,
            scope="decision",
            label="gap",
            kind="selection",
            short="primal gap to the optimum (1 objective)",
        ),
        MetricSpec(
            "primal_integral",
            "integral of the incumbent's primal gap over the budget / the budget (M = 1), "
            "from the anytime trace",
            unit="share",
            direction="lower",
            source=_BERTHOLD,
            scope="decision",
            label="integral",
            kind="selection",
            short="primal gap integrated over the budget",
        ),
        MetricSpec(
            "igd_plus",
            "IGD+ of the answer's Pareto set against the exact front, objectives normalised by "
            "the front's ideal and nadir (M >= 2); 0 = the whole front",
            direction="lower",
            source="Ishibuchi et al. 2015",
            scope="decision",
            label="IGD+",
            kind="selection",
            short="distance to the exact front (0 = all of it)",
        ),
        MetricSpec(
            "gd",
            "generational distance of the answer to the exact front, normalised (M >= 2)",
            direction="lower",
            source="Van Veldhuizen & Lamont 1998",
            scope="decision",
            kind="selection",
        ),
        MetricSpec(
            "hv_ratio",
            "hypervolume of the answer / hypervolume of the exact front, reference point 1.1 in "
            "the normalised objectives (M >= 2)",
            unit="share",
            direction="higher",
            source="Zitzler & Thiele 1998",
            scope="decision",
            label="HV ratio",
            kind="selection",
            short="hypervolume / the exact front's",
        ),
        MetricSpec(
            "front_found",
            "share of the exact front's objective vectors the answer contains (M >= 2)",
            unit="share",
            direction="higher",
            source="schedbench (docs/design.md#quality-and-latency-of-a-decision)",
            scope="decision",
            label="front",
            kind="selection",
            short="share of the exact front found",
        ),
        MetricSpec(
            "front_size",
            "points of the exact Pareto front (M >= 2)",
            unit="count",
            scope="decision",
            kind="selection",
        ),
    )

    def vet(self, problem: Any, decision: Any) -> Any:
        return vet(problem, decision)

    def quality(
        self, problem: Any, decision: Any, reference: Any | None, *, budget_s: float
    ) -> dict[str, Any]:
        return decision_quality(decision, reference, budget_s=budget_s, problem=problem)

    def describe(self, problem: Any) -> str:
        return f"{problem.w}/{problem.K}/{problem.M}"

    def describe_answer(self, problem: Any, decision: Any) -> str:
        """``3 jobs: (96, 13)``: how many jobs start and the objective vector."""
        objectives = ", ".join(f"{x:g}" for x in decision.objectives)
        return f"{len(decision.selected)} jobs: ({objectives})"

    def examples(self) -> list[tuple[str, Any]]:
        """BBSched's Table 1 and a small random problem (the full selection conformance set is
        in ``solvers/testing.py``)."""
        rng = np.random.default_rng(3)
        demands = rng.integers(0, 60, size=(8, 2)).astype(float)
        return [
            (
                "table1",
                SelectionProblem(
                    capacities=[100, 100],
                    demands=[[80, 20], [10, 85], [40, 5], [10, 0], [20, 0]],
                    resources=("nodes", "bb_tb"),
                ),
            ),
            ("random(w=8,K=2,M=2)", SelectionProblem(np.floor(demands.sum(0) * 0.4), demands)),
        ]
