"""Placement solvers (the ``placement`` kind, ``simcore/kinds/placement/``).

``placement-earliest``: the candidate with the smallest weighted completion delay
``start − now + w_load·load + w_evict·evict + runtime`` at its earliest start (with the default
weights (1, 0), the earliest-finish-time rule EFT); ties to the lowest index. Exact for the
placement kind (one job, independent candidates), so it answers ``optimal`` and serves as the
reference.

``placement-locality``: the reference simulator's rule (``papers/locality-evaluation-model.md``
§6): the score ``EAT + w_load·TL + w_evict·E`` computed in C ``float`` and truncated to an
integer, smallest wins, ties to the lowest index (the reference's four-stage scan selects the
same candidate). It can pick a candidate up to a second worse than the optimum, so it answers
``feasible``. ``single_precision=False, truncate=False`` give the paper's exact arithmetic.
``start_term = False`` problems (the reference's hole-only pass) omit EAT from the score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from schedbench.simcore.kinds.placement import PlacementDecision, PlacementProblem
from schedbench.simcore.problem import Budget, Status
from schedbench.solvers.base import ParamSolver, param


@dataclass(frozen=True, kw_only=True, slots=True)
class EarliestCompletionSolver(ParamSolver):
    name = "placement-earliest"
    summary = "placement: the candidate of smallest weighted completion delay (EFT); exact"
    kinds: ClassVar[tuple[str, ...]] = ("placement",)

    def solve(self, problem: PlacementProblem, budget: Budget) -> PlacementDecision:
        values = problem.objective_vector()
        node = int(np.argmin(values))
        return PlacementDecision(
            Status.OPTIMAL,
            node=node,
            start=problem.earliest_start(node),
            objectives=(float(values[node]),),
            solver=self.id,
        )


def locality_scores(
    problem: PlacementProblem, *, single_precision: bool = True, truncate: bool = True
) -> np.ndarray:
    """The reference score of every candidate (see the module docstring)."""
    assert problem.load_s is not None and problem.evict_s is not None
    start = np.maximum(problem.free_at, problem.now)
    w1 = np.asarray(problem.w_load)
    w2 = np.asarray(problem.w_evict)
    if single_precision:
        f32 = np.float32
        part = (w1.astype(f32) * problem.load_s.astype(f32)).astype(f32)
        if problem.start_term:
            part = (start.astype(f32) + part).astype(f32)
        full = (part + (w2.astype(f32) * problem.evict_s.astype(f32)).astype(f32)).astype(f32)
        scores = full.astype(np.float64)
    else:
        scores = w1 * problem.load_s + w2 * problem.evict_s
        if problem.start_term:
            scores = scores + start
    return np.trunc(scores) if truncate else scores


@dataclass(frozen=True, kw_only=True, slots=True)
class LocalityRuleSolver(ParamSolver):
    name = "placement-locality"
    summary = "placement: the reference simulator's score rule (float, truncated, first node wins)"
    kinds: ClassVar[tuple[str, ...]] = ("placement",)

    single_precision: bool = param(True, "score in C float as the reference does")
    truncate: bool = param(True, "truncate the score to an integer as the reference does")

    def solve(self, problem: PlacementProblem, budget: Budget) -> PlacementDecision:
        scores = locality_scores(
            problem, single_precision=self.single_precision, truncate=self.truncate
        )
        node = int(np.argmin(scores))
        return PlacementDecision(
            Status.FEASIBLE,
            node=node,
            start=problem.earliest_start(node),
            objectives=(problem.completion_delay(node, problem.earliest_start(node)),),
            solver=self.id,
        )
