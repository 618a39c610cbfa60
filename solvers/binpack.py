"""``binpack``: greedy bin packing by alignment score (BBSched §4.3 "Bin_Packing", after Tetris,
Grandl et al. 2014).

Repeatedly pick, among the jobs that still fit, the one with the highest alignment score — the dot
product of the job's demand vector and the remaining-capacity vector, both normalised by the
capacities — until no job fits. Ties go to the job nearer the head of the window.

A resource with zero capacity contributes nothing to the score (only jobs that do not need it can
fit anyway).

Each pick costs O(w·K), so a large window with room for many jobs is O(w²) (22 s at w = 30,000).
The clock is read before every pick; when the deadline comes, the remaining room is filled by
the longest run of the still-open jobs, in window order, that fits (one vectorised pass), and the
answer is ``timeout`` with a note saying how many jobs were picked by score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.problem import Budget, Status, capacity_slack
from schedbench.solvers.base import Answer, BaseSolver, Clock


@dataclass(frozen=True, kw_only=True, slots=True)
class BinPackSolver(BaseSolver):
    name = "binpack"
    summary = "greedy alignment score (demand · remaining capacity, normalised); any K, any M"

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        caps = problem.capacities
        scale = np.where(caps > 0, caps, 1.0)
        with np.errstate(over="ignore", invalid="ignore"):  # denormal capacities: scores only
            norm_demand = np.where(caps > 0, problem.demands / scale, 0.0)
        remaining = caps + capacity_slack(caps)
        open_ = np.ones(problem.w, dtype=bool)
        chosen: list[int] = []
        while True:
            open_ &= np.all(problem.demands <= remaining, axis=1)
            if not open_.any():
                break
            if clock.expired():
                picked = len(chosen)
                rest = np.flatnonzero(open_)
                used = np.cumsum(problem.demands[rest], axis=0)
                fits = np.all(used <= remaining, axis=1)
                run = int(np.argmin(fits)) if not fits.all() else fits.size
                chosen.extend(rest[:run].tolist())
                return Answer(
                    Status.TIMEOUT,
                    [sorted(chosen)],
                    notes=[
                        f"deadline reached after {picked} picks by score; {run} more jobs "
                        "added in window order"
                    ],
                )
            with np.errstate(over="ignore", invalid="ignore"):
                score = norm_demand @ (np.clip(remaining, 0, None) / scale)
            score = np.nan_to_num(score, nan=0.0, posinf=np.finfo(float).max)
            score[~open_] = -np.inf
            pick = int(np.argmax(score))  # first maximum: nearest the head of the window
            chosen.append(pick)
            open_[pick] = False
            remaining = remaining - problem.demands[pick]
        return Answer(Status.FEASIBLE, [sorted(chosen)])
