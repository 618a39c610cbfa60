"""Pick one selection out of a Pareto set: BBSched's decision maker (§3.2.4 and §5).

Kept apart from the solvers: every multi-objective backend returns a Pareto set, and whoever must
start jobs calls this to get one selection out of it.

The rule, in BBSched's words (§3.2.4, two objectives): "It first chooses the solution that
maximizes node utilization, and in case of multiple such solutions, it selects the solution
containing the jobs at the front of the window ... The preferred solution is replaced by another
solution if the improvement on the burst buffer utilization is more than 2x of the loss of the node
utilization. If more than one such solutions exist, the solution with the maximum improvement is
chosen." For four objectives (§5) the improvement is the *sum* of the improvements in the other
three objectives and the factor is 4.

Choices where the paper is silent, made here and tested:

* Utilisation is objective / ``problem.objective_scales`` (the capacity when objectives are
  demands); improvements and losses are differences of utilisations.
* The first objective is the primary one ("node utilization"); the improvement is the sum over all
  other objectives of the normalised change, so an objective that gets worse counts against it.
* The factor is ``M`` (2 for two objectives, 4 for four, as the paper says; 3 for three by the
  same pattern), unless given.
* "Jobs at the front of the window": between two selections, the one that holds the first job
  (lowest index) on which they differ is preferred. This breaks every remaining tie as well.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedbench.simcore.kinds.selection.problem import ParetoPoint, SelectionProblem

#: Relative tolerance below which an improvement counts as equal to factor x loss.
_RTOL = 1e-9


def window_order_key(selected: Sequence[int], w: int) -> tuple[int, ...]:
    """Sort key that ranks a selection holding earlier jobs first (smaller is preferred).

    Between two selections the one holding the first job on which they differ comes first.
    That is the order of the sorted index tuples with ``w`` (beyond every index) appended: at
    the first position where two such tuples differ, the smaller entry is a job the other
    selection lacks, and a selection that is a prefix of the other meets the sentinel ``w``
    first, so the longer one (which holds the next job) wins. O(|selection|), not O(w).
    """
    return (*sorted(selected), w)


def bbsched_decision_maker(
    problem: SelectionProblem,
    pareto: Sequence[ParetoPoint],
    *,
    primary: int = 0,
    factor: float | None = None,
) -> ParetoPoint | None:
    """Return BBSched's preferred point of ``pareto``, or ``None`` if it is empty."""
    if not pareto:
        return None
    m = problem.M
    if not 0 <= primary < m:
        raise ValueError(f"primary: expected an objective index in 0..{m - 1}, got {primary}")
    factor = float(m if factor is None else factor)
    scales = problem.objective_scales
    util = np.array([p.objectives for p in pareto], dtype=np.float64) / scales

    def order(i: int) -> tuple[int, ...]:
        return window_order_key(pareto[i].selected, problem.w)

    # Step 1: maximum primary utilisation, ties to the jobs at the front of the window.
    best_primary = util[:, primary].max()
    start = min((i for i in range(len(pareto)) if util[i, primary] == best_primary), key=order)
    if m == 1:
        return pareto[start]

    # Step 2: replace it by the point with the largest improvement that beats factor x loss.
    others = [j for j in range(m) if j != primary]
    loss = util[start, primary] - util[:, primary]
    improvement = (util[:, others] - util[start, others]).sum(axis=1)
    # "More than factor x the loss": strictly more, beyond float rounding of the utilisations
    # (10 % of the nodes for exactly 20 % of the BB is a tie, not a win).
    threshold = factor * loss + _RTOL * np.maximum(1.0, np.abs(factor * loss))
    candidates = [i for i in range(len(pareto)) if i != start and improvement[i] > threshold[i]]
    if not candidates:
        return pareto[start]
    return pareto[min(candidates, key=lambda i: (-improvement[i], order(i)))]
