"""``dp``: exact dynamic programming over job subsets (Cerberus §"Solving the Optimization
Problems"; BBSched's bi-objective front).

The algorithm
-------------
Cerberus writes its three problems as recursions over (job prefix, free resources):
``dp(i, w) = max(dp(i-1, w), dp(i-1, w - bb_i) + value_i)`` for the 1-D stage-in/stage-out
knapsacks (value = data moved, eq. MaxTransferData, or 1, eq. MaxTaskNumber) and the same over
``(c, w)`` for the 2-D CN×BB problem (value c_i · bb_run_i, eq. MaxProduct), solved on dense tables
with memoised traceback. A dense table is as large as the capacities: at Trinity's 18,936 nodes and
3.7 PB that forces coarse units (512 nodes, 100 GB) and still took the authors' code 1.3 GB.

This solver runs the same recursion *sparsely*: after job i the table holds only the reachable
states — (usage vector, objective vector) pairs of subsets of jobs 1..i that fit — and the memo
keeps, for every state, its parent state and whether job i was taken, so the selection is traced
back exactly as Cerberus does. Two exact prunings keep the state set small:

* **dominance** — a state using no less of every resource than another and gaining no more in
  any objective can be dropped (identical usage vectors collapse to one state);
* **bound** — a state whose objectives plus everything the remaining jobs could still add (capped
  at the capacity for demand objectives) are weakly dominated by an existing state can never lead
  to a new optimum or front point. Every state is itself a feasible selection (the remaining jobs
  unselected), so the existing states are valid incumbents.

Jobs are processed largest first (by demand normalised by capacity) so the remaining bound
tightens early.

When it is exact
----------------
Always, in the units it is given: for any K resources and M objectives, M = 1 (the optimum) and
M >= 2 (the exact Pareto front, one selection per front point), integral or fractional data
(fractional sums are compared with the feasibility tolerance of ``simcore.problem``). It is fast
when the state set stays small: the bi-objective BBSched window with objectives equal to the
demands of two resources (integer node counts and GB) is the case it is tuned and measured for
(``bench/dp_speed.py``). A ``max_states`` cap stops a blow-up: the answer is then the best found so
far, status ``feasible``, with a note. The deadline is checked after every job; on expiry the
answer is the best over the jobs processed so far, status ``timeout``.

Coarse units (Cerberus)
-----------------------
``unit_nodes`` and ``unit_bb`` (resources 0 and 1, the BBSched/Cerberus order) run the DP in units
of that size: demands rounded *up*, capacities *down*, so every selection found is still feasible
in the original units. Objectives stay in original units. A coarse answer is never silent: its
status is ``feasible`` (not proven optimal in the original units) and a note says which units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.problem import Budget, SelectionProblem, Status, capacity_slack
from solvers.base import Answer, BaseSolver, Clock, param


@dataclass(frozen=True, kw_only=True, slots=True)
class DPSolver(BaseSolver):
    unit_nodes: float = param(1.0, "coarse unit for resource 0 (Cerberus: 512 nodes); 1 = exact")
    unit_bb: float = param(1.0, "coarse unit for resource 1 (Cerberus: 100 GB); 1 = exact")
    max_states: int = param(4_000_000, "stop (status feasible) if the state set grows past this")

    name = "dp"
    summary = "exact sparse DP with dominance and bound pruning; any K, M (Pareto front); Cerberus units"

    def __post_init__(self) -> None:
        for name in ("unit_nodes", "unit_bb"):
            value = getattr(self, name)
            self._require(
                isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1,
                name, "a number >= 1",
            )
        self._require(
            isinstance(self.max_states, int) and self.max_states >= 1, "max_states", "an integer >= 1"
        )

    @property
    def coarse(self) -> bool:
        return self.unit_nodes != 1 or self.unit_bb != 1

    def supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if self.coarse and problem.K < (2 if self.unit_bb != 1 else 1):
            return False, "unit_bb needs a second resource (the burst buffer)"
        return True, ""

    def _solve(self, problem: SelectionProblem, budget: Budget, clock: Clock) -> Answer:
        units = np.ones(problem.K)
        units[0] = self.unit_nodes
        if problem.K > 1:
            units[1] = self.unit_bb
        if self.coarse:
            demands = np.ceil(problem.demands / units)
            limit = np.floor(problem.capacities / units)
        else:
            demands = problem.demands
            limit = problem.capacities + capacity_slack(problem.capacities)
        result = sparse_dp(
            demands, limit, problem.objectives,
            objective_resource=None if self.coarse else problem.objective_resource,
            clock=clock, max_states=self.max_states,
        )
        notes = list(result.notes)
        status = result.status
        if self.coarse:
            notes.append(
                f"coarse units: resource 0 in units of {units[0]:g}, resource 1 in units of "
                f"{units[1] if problem.K > 1 else 1:g} (demands rounded up, capacities down); "
                "exact for the rounded problem, feasible in original units"
            )
            if status == Status.OPTIMAL:
                status = Status.FEASIBLE
        return Answer(status, result.selections, trace=result.trace, stats=result.stats, notes=notes)


@dataclass(slots=True)
class _Result:
    status: Status
    selections: list[list[int]]
    trace: list[tuple[float, list[float]]]
    stats: dict
    notes: list[str]


def sparse_dp(
    demands: np.ndarray,
    limit: np.ndarray,
    objectives: np.ndarray,
    *,
    objective_resource: tuple[int, ...] | None,
    clock: Clock,
    max_states: int,
) -> _Result:
    """The sparse Cerberus recursion with dominance and bound pruning (see module docstring).

    ``demands`` (w × K) and ``limit`` (K) are in the units the DP runs in; ``objectives`` (M × w)
    in original units. ``objective_resource[j] = r`` declares objective j equal to resource r's
    demand (then the objective vector is a function of the usage vector, which enables the
    cheaper pruning); ``None`` or -1 entries mean independent objectives.
    """
    w, k = demands.shape
    m = objectives.shape[0]
    obj_res = np.array(objective_resource if objective_resource else [-1] * m)
    objective_is_usage = bool(np.all(obj_res >= 0)) and len(set(obj_res.tolist())) == m

    # Largest jobs first: the bound on what the remaining jobs can add shrinks fastest.
    scale = np.where(limit > 0, limit, 1.0)
    order = np.lexsort((np.arange(w), -(demands / scale).sum(axis=1)))
    gains = np.clip(objectives[:, order], 0.0, None)  # M × w, in processing order
    remaining = np.concatenate([np.cumsum(gains[:, ::-1], axis=1)[:, ::-1], np.zeros((m, 1))], axis=1)
    cap_obj = np.array([limit[r] if r >= 0 else np.inf for r in obj_res]) if objective_is_usage else None

    usage = np.zeros((1, k))
    values = np.zeros((1, m))
    memo: list[tuple[np.ndarray, np.ndarray]] = []  # per job: (parent index, taken?)
    status, notes = Status.OPTIMAL, []
    peak = 1
    trace: list[tuple[float, list[float]]] = []
    best_seen = -np.inf

    for pos, job in enumerate(order):
        if clock.expired():
            status = Status.TIMEOUT
            break
        if usage.shape[0] > max_states:
            status = Status.FEASIBLE
            notes.append(f"state limit max_states={max_states} reached after {pos} of {w} jobs")
            break
        d = demands[job]
        fit = np.flatnonzero(np.all(usage + d <= limit, axis=1))
        n = usage.shape[0]
        usage = np.concatenate([usage, usage[fit] + d])
        values = np.concatenate([values, values[fit] + objectives[:, job]])
        parent = np.concatenate([np.arange(n), fit])
        taken = np.concatenate([np.zeros(n, dtype=bool), np.ones(fit.size, dtype=bool)])

        keep = _undominated(usage, values, objective_is_usage)
        usage, values, parent, taken = usage[keep], values[keep], parent[keep], taken[keep]
        keep = _within_bound(values, remaining[:, pos + 1], cap_obj)
        usage, values, parent, taken = usage[keep], values[keep], parent[keep], taken[keep]
        memo.append((parent, taken))
        peak = max(peak, usage.shape[0])
        if m == 1 and values.shape[0] and values[:, 0].max() > best_seen:
            best_seen = float(values[:, 0].max())
            trace.append((clock.elapsed(), [best_seen]))

    if m == 1:
        answer = np.flatnonzero(values[:, 0] == values[:, 0].max())
    else:
        answer = _front_indices(values)
    selections = _trace_back(memo, order, answer)
    stats = {"states_peak": int(peak), "states_final": int(values.shape[0]), "jobs_processed": len(memo)}
    return _Result(status, selections, trace, stats, notes)


def _undominated(usage: np.ndarray, values: np.ndarray, objective_is_usage: bool) -> np.ndarray:
    """Indices of states to keep after dominance pruning (exact; see module docstring)."""
    n, k = usage.shape
    if objective_is_usage:
        # Objectives are a function of usage: identical usage vectors are identical states.
        return _unique_rows(usage)
    m = values.shape[1]
    if m == 1:
        # Sort by usage then value descending; keep the best value per usage vector.
        order = np.lexsort((-values[:, 0], *[usage[:, j] for j in reversed(range(k))]))
        u = usage[order]
        first = np.ones(n, dtype=bool)
        first[1:] = np.any(u[1:] != u[:-1], axis=1)
        order = order[first]
        if k == 1:
            # Nemhauser–Ullmann staircase: along increasing usage, value must strictly increase.
            v = values[order, 0]
            prev = np.maximum.accumulate(v)
            keep = np.ones(order.size, dtype=bool)
            keep[1:] = v[1:] > prev[:-1]
            order = order[keep]
        return np.sort(order)
    return _unique_rows(np.hstack([usage, values]))


def _unique_rows(rows: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct row, in original order."""
    if rows.shape[0] <= 1:
        return np.arange(rows.shape[0])
    order = np.lexsort(rows.T[::-1])
    r = rows[order]
    first = np.ones(rows.shape[0], dtype=bool)
    first[1:] = np.any(r[1:] != r[:-1], axis=1)
    return np.sort(order[first])


def _within_bound(values: np.ndarray, still: np.ndarray, cap_obj: np.ndarray | None) -> np.ndarray:
    """Indices of states whose optimistic completion is not weakly dominated by another state.

    A state s is dropped iff some state value f (f != value(s)) has f >= UB(s), where
    UB(s) = value(s) + what the remaining jobs could add, capped at capacity for demand
    objectives. Maximal states are never dropped, so the final front is exact.
    """
    n, m = values.shape
    upper = values + still
    if cap_obj is not None:
        upper = np.minimum(upper, cap_obj)
    if m == 1:
        best = values[:, 0].max()
        return np.flatnonzero((upper[:, 0] > best) | (values[:, 0] == best))
    front = values[_front_indices(values)]
    if m == 2:
        # front sorted by f0 ascending (so f1 descending). For each state, the front point with
        # the smallest f0 >= UB0 has the largest f1 among those with f0 >= UB0.
        front = front[np.argsort(front[:, 0], kind="stable")]
        j = np.searchsorted(front[:, 0], upper[:, 0], side="left")
        dominated = np.zeros(n, dtype=bool)
        for step in (0, 1):  # the first candidate may be the state itself; then try the next
            jj = j + step
            valid = jj < front.shape[0]
            cand = front[np.minimum(jj, front.shape[0] - 1)]
            hit = valid & (cand[:, 1] >= upper[:, 1]) & np.any(cand != values, axis=1)
            dominated |= hit
        return np.flatnonzero(~dominated)
    dominated = np.zeros(n, dtype=bool)
    for f in front:
        dominated |= np.all(f >= upper, axis=1) & np.any(f != values, axis=1)
    return np.flatnonzero(~dominated)


def _front_indices(values: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated rows (maximisation), one per distinct vector."""
    from simcore.pareto import nondominated_mask

    return np.flatnonzero(nondominated_mask(values))


def _trace_back(
    memo: list[tuple[np.ndarray, np.ndarray]], order: np.ndarray, answer: np.ndarray
) -> list[list[int]]:
    """Follow the memo from the final states back to the first job (Cerberus' traceback),
    for all answer states at once."""
    idx = np.asarray(answer, dtype=np.int64)
    chosen = np.zeros((idx.size, len(memo)), dtype=bool)
    for pos in range(len(memo) - 1, -1, -1):
        parent, taken = memo[pos]
        chosen[:, pos] = taken[idx]
        idx = parent[idx]
    jobs = order[: len(memo)]
    return [sorted(int(j) for j in jobs[row]) for row in chosen]
