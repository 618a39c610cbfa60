"""``naive``: what Slurm does with burst buffers (BBSched §1, §4.3 "Baseline").

Walk the window in order and start every job that still fits; a job that does not fit is skipped
and the walk goes on ("A naive method selects J1 and backfills J4", BBSched §1, Table 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status, capacity_slack
from schedbench.solvers.base import Answer, BaseSolver, Clock


@dataclass(frozen=True, kw_only=True, slots=True)
class NaiveSolver(BaseSolver):
    name = "naive"
    summary = "Slurm-like: start jobs in window order while they fit; any K, any M; heuristic"

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        remaining = problem.capacities + capacity_slack(problem.capacities)
        chosen = []
        for i, demand in enumerate(problem.demands):
            if np.all(demand <= remaining):
                chosen.append(i)
                remaining = remaining - demand
        return Answer(Status.FEASIBLE, [chosen])
