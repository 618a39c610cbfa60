"""Placement solvers (the ``placement`` kind, ``simcore/kinds/placement/``).

``placement-earliest``: the earliest-finish-time rule (EFT) — the node where the job completes
first, load time included; ties to the lowest node index. Exact for the placement kind as it
stands (one job, independent nodes), so it answers ``optimal`` and serves as the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedbench.simcore.kinds.placement import PlacementDecision, PlacementProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.base import ParamSolver


@dataclass(frozen=True, kw_only=True, slots=True)
class EarliestCompletionSolver(ParamSolver):
    name = "placement-earliest"
    summary = "placement: the node where the job completes first (EFT); exact"
    kinds: ClassVar[tuple[str, ...]] = ("placement",)

    def solve(self, problem: PlacementProblem, budget: Budget) -> PlacementDecision:
        best, best_node = float("inf"), -1
        for node in range(problem.nodes):
            delay = problem.completion_delay(node, problem.earliest_start(node))
            if delay < best:
                best, best_node = delay, node
        return PlacementDecision(
            Status.OPTIMAL,
            node=best_node,
            start=problem.earliest_start(best_node),
            objectives=(best,),
            solver=self.id,
        )
