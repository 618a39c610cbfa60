"""``exhaustive``: all 2^w subsets, vectorised — the exact reference for every K and M.

Subsets are enumerated as bit masks in blocks: the usage and objectives of the low ``b`` bits are
tabulated once (2^b rows), and every block adds the contribution of one value of the high bits, so
each subset costs one vector addition per resource and objective. Per block the feasible subsets
are reduced to the best (M = 1) or to their non-dominated set merged with the running front
(M >= 2). The deadline is checked between blocks; on expiry the answer is the best over the
subsets seen so far, with status ``timeout``.

``supports()`` declines windows larger than ``max_window`` (default 25: 2^25 = 33.5 million
subsets, a few seconds here).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.problem import Budget, Status, capacity_slack
from schedbench.solvers.base import Answer, BaseSolver, Clock, param

_LOW_BITS = 14


def _subset_table(values: np.ndarray) -> np.ndarray:
    """Sums of every subset of the rows of ``values`` (n × d), indexed by bit mask (2^n × d)."""
    n, d = values.shape
    table = np.zeros((1 << n, d), dtype=np.float64)
    for i in range(n):
        size = 1 << i
        table[size : 2 * size] = table[:size] + values[i]
    return table


def _mask_to_selection(mask: int, offset: int = 0) -> list[int]:
    return [offset + i for i in range(mask.bit_length()) if mask >> i & 1]


@dataclass(frozen=True, kw_only=True, slots=True)
class ExhaustiveSolver(BaseSolver):
    max_window: int = param(25, "largest window it accepts (2^w subsets)")

    name = "exhaustive"
    summary = "all 2^w subsets, vectorised; exact for any K and M; w <= max_window"

    def __post_init__(self) -> None:
        self._require(
            isinstance(self.max_window, int) and 0 <= self.max_window <= 30,
            "max_window",
            "an integer in 0..30",
        )

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if problem.w > self.max_window:
            return False, (
                f"window of {problem.w} jobs exceeds max_window={self.max_window} "
                f"(2^{problem.w} subsets); use dp"
            )
        return True, ""

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        w, m = problem.w, problem.M
        low = min(w, _LOW_BITS)
        limit = problem.capacities + capacity_slack(problem.capacities)
        # Columns: K usages, then M objectives.
        rows = np.hstack([problem.demands, problem.objectives.T])
        low_table = _subset_table(rows[:low])
        high_table = _subset_table(rows[low:])
        k = problem.K

        best_value, best_mask = -np.inf, 0
        front_vals = np.zeros((0, m))
        front_masks = np.zeros(0, dtype=np.int64)
        status = Status.OPTIMAL
        trace: list[tuple[float, list[float]]] = []
        blocks = 0
        for high in range(high_table.shape[0]):
            if high and clock.expired():
                status = Status.TIMEOUT
                break
            blocks += 1
            block = low_table + high_table[high]
            ok = np.all(block[:, :k] <= limit, axis=1)
            idx = np.flatnonzero(ok)
            if idx.size == 0:
                continue
            vals = block[idx, k:]
            masks = idx.astype(np.int64) | (high << low)
            if m == 1:
                j = int(np.argmax(vals[:, 0]))
                if vals[j, 0] > best_value:
                    best_value, best_mask = float(vals[j, 0]), int(masks[j])
                    trace.append((clock.elapsed(), [best_value]))
            else:
                keep = nondominated_mask(vals)
                front_vals = np.vstack([front_vals, vals[keep]])
                front_masks = np.concatenate([front_masks, masks[keep]])
                keep = nondominated_mask(front_vals)
                front_vals, front_masks = front_vals[keep], front_masks[keep]

        if m == 1:
            selections = [_mask_to_selection(best_mask)] if best_value > -np.inf else []
        else:
            selections = [_mask_to_selection(int(x)) for x in front_masks]
        return Answer(
            status,
            selections,
            trace=trace,
            stats={"subsets": blocks * low_table.shape[0]},
        )
