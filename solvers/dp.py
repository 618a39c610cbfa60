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

Two-resource fronts (``reach_bound=True``, the default): when the two objectives are
the demands of the two resources (BBSched), jobs using both resources go first and one-resource
jobs last, and a third exact pruning drops states that can reach neither beyond the front's
largest dense value nor above its smallest other value (subset-sum bitsets of the remaining jobs'
other demands; ``_reach_bound_note``). The layers run in numba kernels (``solvers/_reach.py``).
From 64 jobs, a beam pass (at most 4,096 states per layer, the ones using the most) runs first:
its selections only seed the exact pass's incumbent front, so that the bounds bite early; the
answer is the exact pass's. On conflict-rich Theta-like windows (``instances.conflict_windows``)
the fronts hug the corner (both resources filled to within a few nodes and GB), and the state
set can still blow up at w = 200 (``bench/benchmarks/frontier.py`` measures it; ``max_states``
then ends the run with status ``feasible``). ``reach_bound=False`` is the earlier pruning.
One objective that is a positive combination c0 · demand0 + c1 · demand1 of two integral
resources (a weighted BBSched window) is answered by the same DP: with c > 0 every feasible
usage is weakly dominated by a front point of no smaller value, so the best front point is
optimal.

Compiled kernel (``compiled=True``, the default): the two-resource DP above runs all
its layers inside one numba function (``solvers/_pairdp.py``, ``_pair_kernel_note``): integer
keys ``(dense << shift) + other``, the per-suffix tables built in the kernel, the bounds
evaluated once per dense value rather than per state, one int32 per kept state for the
traceback, the clock read every ``_KERNEL_WORK`` merged states; a layer's transient arrays
are its keys, int32 parents and a keep flag (a state's usage is read from its key), about 25
bytes per merged state (a BB-heavy w = 200 window with 1.3 million states in a layer: 49 MB
of peak RSS growth, 81 MB with the per-state usage arrays before). The weighted objective runs in
the same kernel as a branch and bound on its value (``_pair_kernel_note``). One objective with
positive values on a small two-resource window (Cerberus' CN x BB problem, w <= 24) is solved by
a compiled depth-first branch and bound (``_single_bnb``). ``compiled=False`` keeps the
per-layer path for side-by-side measurement.

Coupled bound (``coupled_bound=True``, the default; ``_coupled_bound_note``): in the
compiled front mode, a state with little dense room left is tested against the exact
(dense, other) sums the remaining jobs reach within that room, and a test that finds a new
front point records it (with how to reach it) so that the bounds use it from the next layer.
``coupled_bound=False`` keeps the bounds before (with the BB-reachability bitsets).

When it is exact
----------------
Always, in the units it is given: for any K resources and M objectives, M = 1 (the optimum) and
M >= 2 (the exact Pareto front, one selection per front point), integral or fractional data
(fractional sums are compared with the feasibility tolerance of ``simcore.problem``). It is fast
when the state set stays small: the bi-objective BBSched window with objectives equal to the
demands of two resources (integer node counts and GB) is the case it is tuned and measured for
(``bench/benchmarks/dp_speed.py``). A ``max_states`` cap stops a blow-up: the answer is then the
best found so far, status ``feasible``, with a note. The deadline is checked after every job; on
expiry the answer is the best over the jobs processed so far, status ``timeout``.

``optimal`` is claimed only on data that are decimal to six places (``solvers._integral``:
integers, OR-Library's 8706.1, a JSON 0.25): there float sums compare as the decimal numbers
would. On other data (1/3, a value read back from a float computation) sums carry rounding that
the feasibility tolerance absorbs in one direction only, so a best answer is reported
``feasible`` with a note saying why.

Coarse units (Cerberus)
-----------------------
``unit_nodes`` and ``unit_bb`` (resources 0 and 1, the BBSched/Cerberus order) run the DP in units
of that size: demands rounded *up*, capacities *down*, so every selection found is still feasible
in the original units. Objectives stay in original units. A coarse answer is never silent: its
status is ``feasible`` (not proven optimal in the original units) and a note says which units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.kinds.selection.problem import SelectionProblem
from schedbench.simcore.pareto import nondominated_mask
from schedbench.simcore.problem import Budget, Status, capacity_slack
from schedbench.solvers import _pairdp
from schedbench.solvers._integral import MAX_DECIMALS, decimals_needed
from schedbench.solvers._reach import (
    merge_layer,
    nonzero_words,
    prune_layer,
    suffix_reach,
)
from schedbench.solvers.base import Answer, BaseSolver, Clock, param


@dataclass(frozen=True, kw_only=True, slots=True)
class DPSolver(BaseSolver):
    unit_nodes: float = param(1.0, "coarse unit for resource 0 (Cerberus: 512 nodes); 1 = exact")
    unit_bb: float = param(1.0, "coarse unit for resource 1 (Cerberus: 100 GB); 1 = exact")
    max_states: int = param(2_000_000, "stop (status feasible) if the state set grows past this")
    reach_bound: bool = param(
        True,
        "two-resource fronts: jobs using both resources first, and prune states that can reach "
        "no new front point by subset-sum reachability; False = the earlier pruning",
    )
    compiled: bool = param(
        True,
        "with reach_bound: two-resource fronts and weighted two-resource objectives run in one "
        "compiled kernel (solvers/_pairdp.py); False = per-layer kernels",
    )
    coupled_bound: bool = param(
        True,
        "compiled two-resource fronts: states with little dense room are tested against the "
        "exact (dense, other) sums the remaining jobs reach within it; False = the "
        "bounds before",
    )

    name = "dp"
    summary = (
        "exact sparse DP with dominance and bound pruning; any K, M (Pareto front); Cerberus units"
    )

    def __post_init__(self) -> None:
        for name in ("unit_nodes", "unit_bb"):
            value = getattr(self, name)
            self._require(
                isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1,
                name,
                "a number >= 1",
            )
        self._require(
            isinstance(self.max_states, int) and self.max_states >= 1,
            "max_states",
            "an integer >= 1",
        )

    def _warm_up(self) -> None:
        """Compile (or load from numba's cache) the two-resource kernels; untimed."""
        d = np.array([[3.0, 5.0], [2.0, 0.0], [4.0, 7.0]])
        c = Clock(Budget(deadline_s=30))
        # Through ``_solve`` as well: numba specialises a kernel on whether an array is
        # read-only, and a problem's arrays are (simcore/problem.py), the arrays above are not.
        for objectives in ([[1.0, 2.0, 3.0]], d.T):
            tiny = SelectionProblem(capacities=[6.0, 9.0], demands=d, objectives=objectives)
            self._solve(tiny, Budget(deadline_s=30), c)
        _single_bnb(d, np.array([6.0, 9.0]), np.array([1.0, 2.0, 3.0]), c, 100)
        for weights in (None, np.array([1.0, 0.5])):
            _kernel_pair_dp(
                d, np.array([6.0, 9.0]), np.arange(3), np.array([0, 1]), c, 10,
                weights=weights, prune_from=1,
            )  # fmt: skip
        _pairdp.couple_lists(
            np.array([3, 2], dtype=np.int64), np.array([5, 0], dtype=np.int64), 6, 9, 0, 4, 4
        )
        _pairdp.witness_rest(
            np.zeros(2, dtype=np.bool_), 0, 0, 0, 0, np.array([3, 2], dtype=np.int64),
            np.array([5, 0], dtype=np.int64), np.zeros(1, dtype=np.int64),
            np.zeros(3, dtype=np.int64), 1, 4,
        )  # fmt: skip
        rows = suffix_reach(np.array([3, 5], dtype=np.int64), 16, 0)
        counts = nonzero_words(rows)
        keys, _, _, _ = merge_layer(np.zeros(1, dtype=np.int64), 18, 1, 1, 17, 4, 16)
        table = np.zeros(5, dtype=np.float64)
        prune_layer(
            keys,
            17,
            4,
            16,
            table,
            table,
            table,
            2,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            True,
            rows[0],
            counts[0],
        )

    @property
    def coarse(self) -> bool:
        return self.unit_nodes != 1 or self.unit_bb != 1

    def _supports(self, problem: SelectionProblem) -> tuple[bool, str]:
        if self.coarse and (2 if self.unit_bb != 1 else 1) > problem.K:
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
        weights = None if self.coarse or not self.reach_bound else _usage_weights(problem)
        if weights is not None:
            # One objective, a non-negative combination of the two demands: its optimum is a
            # point of the two-resource front, which the pair DP computes.
            result = None
            if self.compiled:
                result = _kernel_pair_dp(
                    demands,
                    limit,
                    _pair_order(demands, limit),
                    np.array([0, 1]),
                    clock,
                    self.max_states,
                    weights=weights,
                    coupled=self.coupled_bound,
                )
            if result is None:
                result = sparse_dp(
                    demands,
                    limit,
                    demands.T.copy(),
                    objective_resource=(0, 1),
                    clock=clock,
                    max_states=self.max_states,
                    reach_bound=True,
                )
            value = [float(problem.objectives[0][s].sum()) for s in result.selections]
            if value:
                best = max(value)
                result.selections = [
                    s
                    for s, v in zip(result.selections, value, strict=True)
                    if v >= best - 1e-9 * max(1.0, abs(best))
                ]
                result.trace = [(clock.elapsed(), [best])]
        elif (
            self.compiled
            and not self.coarse
            and problem.M == 1
            and problem.K == 2
            and 0 < problem.w <= _BNB_MAX_W
            and np.all(problem.objectives[0] > 0)
        ):
            result = _single_bnb(demands, limit, problem.objectives[0], clock, self.max_states)
        else:
            result = sparse_dp(
                demands,
                limit,
                problem.objectives,
                objective_resource=None if self.coarse else problem.objective_resource,
                clock=clock,
                max_states=self.max_states,
                reach_bound=self.reach_bound,
                compiled=self.compiled and self.reach_bound,
                coupled=self.coupled_bound,
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
        if status == Status.OPTIMAL and not _decimal(problem):
            status = Status.FEASIBLE
            notes.append(
                f"data not decimal to {MAX_DECIMALS} places: float sums are not exact, so the "
                "best answer found is not claimed optimal"
            )
        return Answer(
            status, result.selections, trace=result.trace, stats=result.stats, notes=notes
        )


def pair_front_selections(
    problem: SelectionProblem, max_states: int, clock: Clock
) -> tuple[list[list[int]], bool] | None:
    """The front of the compiled two-resource pass (``_kernel_pair_dp``) with at most
    ``max_states`` states per layer: (one feasible selection per point, whether the pass proved
    the front exact); None when the problem does not suit it (two integral resources whose
    demands are the two objectives). For other solvers that want a bounded DP front as a seed
    (``moo``'s ``dp_states``)."""
    if problem.K != 2 or problem.M != 2 or sorted(problem.objective_resource) != [0, 1]:
        return None
    limit = problem.capacities + capacity_slack(problem.capacities)
    result = _kernel_pair_dp(
        problem.demands,
        limit,
        _pair_order(problem.demands, limit),
        np.asarray(problem.objective_resource),
        clock,
        max_states,
    )
    if result is None:
        return None
    return result.selections, result.status == Status.OPTIMAL


def _decimal(problem: SelectionProblem) -> bool:
    """Whether every demand, capacity and objective value is decimal to ``MAX_DECIMALS``
    places (module docstring: when ``optimal`` may be claimed)."""
    return all(
        decimals_needed(a) is not None
        for a in (problem.demands, problem.capacities, problem.objectives)
    )


def _single_bnb(
    demands: np.ndarray, limit: np.ndarray, values: np.ndarray, clock: Clock, max_states: int
) -> _Result:
    """One objective with positive values on a small window (performance target 2:
    Cerberus' CN x BB problem in original units): compiled depth-first branch and bound
    (``_pairdp.single_bnb``), jobs by value per normalised size, the bound the least of the
    resources' fractional knapsack bounds. Exact: a subtree is cut only when its bound is below
    a value already reached; every selection of the best value is returned (up to
    ``_BNB_TIES``), as the DP returns every state of the best value. ``max_states`` bounds the
    nodes visited (then status ``feasible``); the clock is read every ``_BNB_CHUNK`` nodes."""
    w, k = demands.shape
    lim = np.ascontiguousarray(limit, dtype=np.float64)
    search, d, v, orders = _pairdp.bnb_order(
        np.ascontiguousarray(demands, dtype=np.float64),
        lim,
        np.ascontiguousarray(values, dtype=np.float64),
    )
    stack = np.zeros(w + 1, dtype=np.int8)
    used = np.zeros(k + 1)
    best = np.zeros(2)
    rows = np.zeros((_BNB_TIES, w), dtype=np.bool_)
    status, notes, visited, count = Status.OPTIMAL, [], 0, 0
    while True:
        chunk = min(_BNB_CHUNK, max_states - visited)
        nodes, done, count = _pairdp.single_bnb(d, lim, v, orders, stack, used, best, rows, chunk)
        visited += nodes
        if done:
            break
        if visited >= max_states:
            status = Status.FEASIBLE
            notes.append(f"node limit max_states={max_states} reached (branch and bound)")
            break
        if clock.expired():
            status = Status.TIMEOUT
            break
    selections = [sorted(search[rows[r]].tolist()) for r in range(count)]
    stats = {"nodes": int(visited), "jobs_processed": w}
    trace = [(clock.elapsed(), [float(best[0])])] if count else []
    return _Result(status, selections, trace, stats, notes)


def _pair_order(demands: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Largest jobs first (demand normalised by capacity), those asking for both resources
    before one-resource jobs: the bounds bite once few two-resource jobs remain."""
    w = demands.shape[0]
    scale = np.where(limit > 0, limit, 1.0)
    order = np.lexsort((np.arange(w), -(demands / scale).sum(axis=1)))
    both = np.all(demands[order] > 0, axis=1)
    return np.concatenate([order[both], order[~both]])


def _usage_weights(problem: SelectionProblem) -> np.ndarray | None:
    """(c0, c1) > 0 when the single objective is c0 · demand0 + c1 · demand1 (to rounding) of
    two integral resources (so not itself one resource's demand); else None."""
    if problem.M != 1 or problem.K != 2 or problem.objective_resource not in ((), (-1,)):
        return None
    d = problem.demands
    if d.shape[0] < 2 or not np.all(np.mod(d, 1) == 0):
        return None
    obj = problem.objectives[0]
    # Least squares by the 2 x 2 normal equations (cheaper than lstsq on every decision).
    g00, g01, g11 = float(d[:, 0] @ d[:, 0]), float(d[:, 0] @ d[:, 1]), float(d[:, 1] @ d[:, 1])
    det = g00 * g11 - g01 * g01
    if det <= 1e-12 * max(g00 * g11, 1e-300):
        return None  # collinear demands: not a two-resource combination we can tell apart
    r0, r1 = float(d[:, 0] @ obj), float(d[:, 1] @ obj)
    c = np.array([(g11 * r0 - g01 * r1) / det, (g00 * r1 - g01 * r0) / det])
    if np.any(c <= 1e-12 * float(np.abs(c).max())):
        # A weight of zero (to rounding) makes the objective one resource's demand (or zero):
        # the generic DP answers it, with its tie-break (the least usage among optima).
        return None
    if np.any(np.abs(d @ c - obj) > 1e-12 + 1e-9 * np.abs(obj)):
        return None
    return c


@dataclass(slots=True)
class _Result:
    status: Status
    selections: list[list[int]]
    trace: list[tuple[float, list[float]]]
    stats: dict[str, Any]
    notes: list[str]


def sparse_dp(
    demands: np.ndarray,
    limit: np.ndarray,
    objectives: np.ndarray,
    *,
    objective_resource: tuple[int, ...] | None,
    clock: Clock,
    max_states: int,
    reach_bound: bool = True,
    compiled: bool = False,
    coupled: bool = True,
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
    if compiled and reach_bound and objective_is_usage and m == 2 and k == 2:
        # The compiled two-resource kernel first (nothing below is needed when it applies).
        kernel = _kernel_pair_dp(
            demands, limit, _pair_order(demands, limit), obj_res, clock, max_states,
            coupled=coupled,
        )  # fmt: skip
        if kernel is not None:
            return kernel

    # Largest jobs first: the bound on what the remaining jobs can add shrinks fastest.
    scale = np.where(limit > 0, limit, 1.0)
    order = np.lexsort((np.arange(w), -(demands / scale).sum(axis=1)))
    gains = np.clip(objectives[:, order], 0.0, None)  # M × w, in processing order
    remaining = np.concatenate(
        [np.cumsum(gains[:, ::-1], axis=1)[:, ::-1], np.zeros((m, 1))], axis=1
    )
    cap_obj = (
        np.array([limit[r] if r >= 0 else np.inf for r in obj_res]) if objective_is_usage else None
    )

    pair_order = order
    if reach_bound and objective_is_usage and m == 2 and k == 2:
        # Jobs asking for both resources first (in the same size order), one-resource jobs
        # last: the reachability bound of ``_pair_dp`` bites once few two-resource jobs remain.
        pair_order = _pair_order(demands, limit)
    pair = (
        _PairBound.build(demands[pair_order], limit, obj_res)
        if objective_is_usage and m == 2
        else None
    )
    if pair is not None and k == 2 and pair.key_base is not None:
        extra: list[list[int]] = []
        if reach_bound and w >= _BEAM_FROM:
            # A beam pass first (at most _BEAM states per layer): a near-exact front, fast,
            # whose selections seed the exact pass's incumbent so that its bounds bite early.
            extra = _pair_dp(
                demands, limit, pair_order, pair, clock, max_states, reach=True, beam=_BEAM
            ).selections
        return _pair_dp(
            demands,
            limit,
            pair_order,
            pair,
            clock,
            max_states,
            reach=reach_bound,
            extra_seeds=extra,
        )
    if pair is not None and pair_order is not order:
        pair = _PairBound.build(demands[order], limit, obj_res)

    usage = np.zeros((1, k))
    values = np.zeros((1, m))
    memo: list[tuple[np.ndarray, np.ndarray]] = []  # per job: (parent index, taken?)
    status, notes = Status.OPTIMAL, []
    peak = 1
    trace: list[tuple[float, list[float]]] = []
    best_seen = -np.inf
    single = _SingleBound.build(demands[order], limit, gains[0]) if m == 1 else None
    seed_selection: list[int] = []
    if single is not None:
        seed_selection, best_seen = _greedy_single(demands, limit, objectives[0])
        single.incumbent = best_seen
        trace.append((clock.elapsed(), [best_seen]))

    pace = _Pace(clock)
    for pos, job in enumerate(order):
        if pace.stop_before(usage.shape[0]):
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
        if pair is not None:
            keep = pair.keep(pos + 1, values)
        elif single is not None:
            keep = single.keep(pos + 1, usage, values[:, 0])
        else:
            keep = _within_bound(values, remaining[:, pos + 1], cap_obj)
        usage, values, parent, taken = usage[keep], values[keep], parent[keep], taken[keep]
        memo.append((parent, taken))
        peak = max(peak, usage.shape[0])
        pace.done(n)
        if m == 1 and values.shape[0] and values[:, 0].max() > best_seen:
            best_seen = float(values[:, 0].max())
            trace.append((clock.elapsed(), [best_seen]))

    if m == 1:
        answer = np.flatnonzero(values[:, 0] == values[:, 0].max())
    else:
        answer = _front_indices(values)
    selections = _trace_back(memo, order, answer)
    if seed_selection:
        selections.append(sorted(seed_selection))
    stats = {
        "states_peak": int(peak),
        "states_final": int(values.shape[0]),
        "jobs_processed": len(memo),
    }
    return _Result(status, selections, trace, stats, notes)


class _Pace:
    """Deadline keeping between DP layers: one layer is a few numpy calls that cannot be
    interrupted, so before each layer its cost is forecast from the time per state measured so
    far (a layer at most doubles the states) and the DP stops if that would overrun."""

    __slots__ = ("clock", "last", "per_state")

    def __init__(self, clock: Clock):
        self.clock = clock
        self.last = clock.elapsed()
        self.per_state = 0.0

    def stop_before(self, states: int) -> bool:
        forecast = 2.0 * states * self.per_state
        return self.clock.remaining() <= forecast

    def done(self, states: int) -> None:
        now = self.clock.elapsed()
        if states > 0:
            self.per_state = max(self.per_state * 0.5, (now - self.last) / states)
        self.last = now


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


class _SingleBound:
    """Completion bound for one objective: per suffix of the processing order, the most value
    the remaining jobs can add within x units of a *dense* resource (the one with the smallest
    integral capacity), by 1-D knapsack DP. A state (usage u, value v) is dropped when
    v + most(cap − u_dense) <= the incumbent (the best state, or a greedy selection) and it is not
    the best state itself: none of its completions can do better."""

    MAX_DENSE = 200_000
    #: The table has (w + 1) x (cap + 1) entries; beyond this (32 MB) it is not built and the DP
    #: runs without the bound: at w = 10,000 and a capacity of 10^5 the table alone took
    #: 8 GB and minutes to fill, far past any budget
    #: (docs/design.md#trust-boundaries-and-bounded-work).
    MAX_CELLS = 4_000_000

    def __init__(self, resource: int, dense: np.ndarray, gains: np.ndarray, cap: int):
        self.resource = resource
        self.cap = cap
        self.incumbent = -np.inf
        w = dense.size
        most = np.zeros((w + 1, cap + 1))
        for i in range(w - 1, -1, -1):
            g, n = most[i + 1], int(dense[i])
            most[i] = g
            if n == 0:
                most[i] = g + gains[i]
            elif n <= cap:
                most[i, n:] = np.maximum(g[n:], g[: cap + 1 - n] + gains[i])
        self.most = most

    @classmethod
    def build(
        cls, demands: np.ndarray, limit: np.ndarray, gains: np.ndarray
    ) -> _SingleBound | None:
        rows = demands.shape[0] + 1
        options = [
            (np.floor(limit[r]), r)
            for r in range(limit.size)
            if np.all(np.mod(demands[:, r], 1) == 0)
            and np.floor(limit[r]) <= cls.MAX_DENSE
            and rows * (np.floor(limit[r]) + 1) <= cls.MAX_CELLS
        ]
        if not options:
            return None
        cap, r = min(options)
        return cls(r, demands[:, r], gains, int(cap))

    def keep(self, suffix: int, usage: np.ndarray, values: np.ndarray) -> np.ndarray:
        best = max(self.incumbent, float(values.max())) if values.size else self.incumbent
        room = np.clip(self.cap - usage[:, self.resource].astype(np.int64), 0, self.cap)
        upper = values + self.most[suffix][room]
        # The best state always stays (even below a greedy incumbent): the state set is never
        # empty and the final answer always has a traced-back candidate.
        first_best = np.zeros(values.size, dtype=bool)
        first_best[int(np.argmax(values))] = True
        return np.flatnonzero((upper > best) | first_best)


def _greedy_single(
    demands: np.ndarray, limit: np.ndarray, values: np.ndarray
) -> tuple[list[int], float]:
    """Best of a few greedy fills (by value per normalised size, and by value): an incumbent."""
    scale = np.where(limit > 0, limit, 1.0)
    size = (demands / scale).sum(axis=1)
    w = values.size
    best_sel: list[int] = []
    best = 0.0
    for key in (values / np.maximum(size, 1e-12), values):
        used = np.zeros(limit.size)
        chosen = []
        for j in np.lexsort((np.arange(w), -key)).tolist():
            if values[j] > 0 and np.all(used + demands[j] <= limit):
                used += demands[j]
                chosen.append(j)
        total = float(values[chosen].sum()) if chosen else 0.0
        if total > best:
            best, best_sel = total, chosen
    return best_sel, best


def _within_bound(values: np.ndarray, still: np.ndarray, cap_obj: np.ndarray | None) -> np.ndarray:
    """Indices of states to keep: front states, and states whose optimistic completion
    UB(s) = value(s) + what the remaining jobs could add (capped at capacity for demand
    objectives) is not weakly dominated by a front state.

    Exactness: front states are never dropped, and a dropped state's completions are all weakly
    dominated by a front state that survives, so by induction every final front point survives.
    """
    n, m = values.shape
    upper = values + still
    if cap_obj is not None:
        upper = np.minimum(upper, cap_obj)
    if m == 1:
        best = values[:, 0].max()
        return np.flatnonzero((upper[:, 0] > best) | (values[:, 0] == best))
    on_front = np.zeros(n, dtype=bool)
    front_idx = _front_indices(values)
    on_front[front_idx] = True
    front = values[front_idx]
    if m == 2:
        # Front sorted by f0 ascending (so f1 descending): the point with the smallest
        # f0 >= UB0 has the largest f1 among those with f0 >= UB0.
        front = front[np.argsort(front[:, 0], kind="stable")]
        j = np.searchsorted(front[:, 0], upper[:, 0], side="left")
        valid = j < front.shape[0]
        cand = front[np.minimum(j, front.shape[0] - 1), 1]
        dominated = valid & (cand >= upper[:, 1])
    else:
        dominated = np.zeros(n, dtype=bool)
        for f in front:
            dominated |= np.all(f >= upper, axis=1)
    return np.flatnonzero(on_front | ~dominated)


class _PairBound:
    """Completion bound for two objectives that are the demands of two resources (BBSched).

    Along the *dense axis* (the resource with the smaller integral capacity, the nodes), two
    tables per suffix of the processing order are built by 1-D DP over x = 0..cap:

    * ``most[i][x]``  — the largest other-resource sum of a subset of jobs i.. with dense sum <= x;
    * ``least[i][x]`` — the smallest other-resource sum of a subset with dense sum exactly x.

    A state (n, b) is dropped when the front F = {(z_k, y_k)} (z ascending) covers every
    completion: completions ending in (z_{k-1}, z_k] reach at most b + most(z_k − n) <= y_k, and
    no completion ends beyond z_L within the capacities (b + least(x) > cap_b for every x in
    (z_L − n, cap_n − n]). Front states are kept, which makes the pruning exact (see
    ``_within_bound``).
    """

    MAX_DENSE = 200_000

    def __init__(
        self,
        axis: int,
        resource: int,
        dense: np.ndarray,
        other: np.ndarray,
        cap_n: int,
        cap_b: float,
    ):
        self.axis = axis  # which objective is the dense one
        self.axis_resource = resource  # and which resource that is
        self.cap_n = cap_n
        self.cap_b = cap_b
        w = dense.size
        exact = np.full((w + 1, cap_n + 1), -np.inf)
        exact[w, 0] = 0.0
        least = np.full((w + 1, cap_n + 1), np.inf)
        least[w, 0] = 0.0
        for i in range(w - 1, -1, -1):
            g, h = exact[i + 1], least[i + 1]
            n, b = int(dense[i]), other[i]
            if n == 0:
                exact[i] = g + b
                least[i] = h
                continue
            exact[i] = g
            least[i] = h
            if n <= cap_n:
                exact[i, n:] = np.maximum(g[n:], g[: cap_n + 1 - n] + b)
                least[i, n:] = np.minimum(h[n:], h[: cap_n + 1 - n] + b)
        self.exact = exact
        self.most = np.maximum.accumulate(exact, axis=1)
        self.least = least
        # Integer state keys dense * base + other, when the other axis is integral too.
        cap_o = np.floor(cap_b)
        integral_other = bool(np.all(np.mod(other, 1) == 0))
        fits = (cap_n + 1) * (cap_o + 1) < 2**62
        self.key_base = int(cap_o) + 1 if integral_other and fits else None

    @classmethod
    def choose(
        cls, demands: np.ndarray, limit: np.ndarray, obj_res: np.ndarray
    ) -> tuple[int, int] | None:
        """(dense axis, its integral capacity) as ``build`` chooses it, or None."""
        rows = demands.shape[0] + 1
        options = []
        for axis in (0, 1):
            col = demands[:, int(obj_res[axis])]
            cap = np.floor(limit[int(obj_res[axis])])
            if (
                np.all(np.mod(col, 1) == 0)
                and 0 <= cap <= cls.MAX_DENSE
                and rows * (cap + 1) <= _SingleBound.MAX_CELLS
            ):
                options.append((int(cap), axis))
        if not options:
            return None
        cap, axis = min(options)
        return axis, cap

    @classmethod
    def build(
        cls, demands: np.ndarray, limit: np.ndarray, obj_res: np.ndarray
    ) -> _PairBound | None:
        """The bound for jobs in processing order, or None when no resource suits a dense axis."""
        r = [int(obj_res[0]), int(obj_res[1])]
        options = []
        rows = demands.shape[0] + 1
        for axis in (0, 1):
            col = demands[:, r[axis]]
            cap = np.floor(limit[r[axis]])
            if (
                np.all(np.mod(col, 1) == 0)
                and cap <= cls.MAX_DENSE
                and rows * (cap + 1) <= _SingleBound.MAX_CELLS
            ):
                options.append((cap, axis))
        if not options:
            return None
        cap, axis = min(options)
        return cls(
            axis,
            r[axis],
            demands[:, r[axis]],
            demands[:, r[1 - axis]],
            int(cap),
            float(limit[r[1 - axis]]),
        )

    def keep(self, suffix: int, values: np.ndarray) -> np.ndarray:
        """Indices of states (rows of objective values) that survive the bound."""
        front_idx = _front_indices(values)
        on_front = np.zeros(values.shape[0], dtype=bool)
        on_front[front_idx] = True
        front = values[front_idx]
        covered = self.covered(
            suffix,
            values[:, self.axis],
            values[:, 1 - self.axis],
            front[:, self.axis],
            front[:, 1 - self.axis],
        )
        return np.flatnonzero(on_front | ~covered)

    def covered(
        self, suffix: int, n: np.ndarray, b: np.ndarray, fz: np.ndarray, fy: np.ndarray
    ) -> np.ndarray:
        """True for states (dense usage n, other usage b) whose every completion is weakly
        dominated by a point of the front (fz dense, fy other)."""
        srt = np.argsort(fz, kind="stable")
        z, y = fz[srt].astype(np.int64), fy[srt]
        n = n.astype(np.int64)
        most, least = self.most[suffix], self.least[suffix]
        covered = np.ones(n.size, dtype=bool)
        ranges = _RangeMax(self.exact[suffix])
        previous = None
        for zk, yk in zip(z, y, strict=False):
            # Completions ending in (previous, zk]: dense increments x in (previous - n, zk - n].
            hi = zk - n
            gain = most[np.clip(hi, 0, self.cap_n)]  # all of [0, hi]: a prefix maximum
            if previous is not None:
                lo = previous - n + 1
                inner = lo > 0  # the range starts above 0: a window of fixed width zk - previous
                if inner.any():
                    gain = np.where(
                        inner, ranges.query(np.clip(lo, 0, self.cap_n), int(zk - previous)), gain
                    )
            covered &= (hi < 0) | (b + gain <= yk)
            previous = zk
        # Nothing may end beyond the front's largest dense value z_L.
        width = self.cap_n - int(z[-1])  # number of x in (z_L - n, cap_n - n]
        if width > 0:
            lo = np.clip(int(z[-1]) - n + 1, 0, self.cap_n)
            covered &= _window_min(least, width)[lo] > self.cap_b - b
        return covered


def _kernel_pair_dp(
    demands: np.ndarray,
    limit: np.ndarray,
    order: np.ndarray,
    obj_res: np.ndarray,
    clock: Clock,
    max_states: int,
    *,
    weights: np.ndarray | None = None,
    prune_from: int | None = None,
    coupled: bool = True,
) -> _Result | None:
    """``_pair_dp`` in one compiled kernel (``solvers/_pairdp.py``; ``_pair_kernel_note``); None
    when the data do not suit it (the caller then runs the per-layer path).

    ``weights`` = (c0, c1) >= 0 over resources (0, 1): one objective c · usage, pruned by
    branch and bound against the best state so far instead of by the front.
    """
    choice = _PairBound.choose(demands, limit, obj_res)
    if choice is None:
        return None
    axis, cap_a = choice
    a = int(obj_res[axis])
    o = int(obj_res[1 - axis])
    other_all = demands[:, o]
    cap_o = int(np.floor(limit[o]))
    if (
        not np.all(np.mod(other_all, 1) == 0)
        or np.any(demands < 0)
        or float(other_all.sum()) >= _INT32_SUMS
        or float(demands[:, a].sum()) >= _INT32_SUMS
        or (cap_a + 1) * 2 ** (int(cap_o).bit_length() + 1) >= 2**62
    ):
        return None
    w = demands.shape[0]
    dense = np.ascontiguousarray(demands[order, a], dtype=np.int64)
    other = np.ascontiguousarray(demands[order, o], dtype=np.int64)
    base = int(cap_o).bit_length()  # keys (dense << base) + other: shifts, not divisions
    weighted = weights is not None
    c_dense = float(weights[a]) if weights is not None else 0.0
    c_other = float(weights[o]) if weights is not None else 0.0
    exact, least = _pairdp.pair_tables(dense, other, cap_a)
    chosen = _pairdp.greedy_seeds(dense, other, cap_a, cap_o, 11)
    start = prune_from if prune_from is not None else _KERNEL_PRUNE_FROM
    reach_cache: dict[str, Any] = {"coupled": coupled}
    run = None
    if w >= _BEAM_FROM and coupled and not weighted and _TRY_STATES > 0:
        # With the coupled bound (which adds the front points it finds), first the exact pass
        # alone with a small state cap: most windows finish there, without the beam pass.
        tried = _kernel_pass(
            dense, other, cap_a, cap_o, base, exact, least, chosen,
            clock, min(max_states, _TRY_STATES), start, 0, weighted, c_dense, c_other,
            reach_cache,
        )  # fmt: skip
        if tried.status == Status.OPTIMAL or max_states <= _TRY_STATES:
            run = tried
        else:  # its states (feasible selections) and found points seed what follows
            chosen = np.vstack([chosen, tried.chosen])
            reach_cache["hard"] = True  # the passes after it also use the bitsets
        if run is None and _CORNER_PROBE and cap_a >= 1 and cap_o >= 1:
            # Can one selection use both capacities exactly? A pass whose front is the two
            # points next to the corner keeps only states that can still reach it; if one
            # does, that point dominates every selection: the front is exactly {corner}.
            probe = _kernel_pass(
                dense, other, cap_a, cap_o, base, exact, least, chosen,
                clock, min(max_states, _PROBE_STATES), start, 0, weighted, c_dense, c_other,
                reach_cache,
                targets=np.array([[cap_a, cap_o - 1], [cap_a - 1, cap_o]]),
            )  # fmt: skip
            hit = np.flatnonzero((probe.chosen @ dense == cap_a) & (probe.chosen @ other == cap_o))
            if hit.size:
                run = _Pass(
                    Status.OPTIMAL, probe.chosen[hit[:1]], probe.peak, probe.final,
                    probe.layers, [],
                )  # fmt: skip
    if w >= _BEAM_FROM and run is None:
        # A beam pass first (at most _BEAM states per layer): its selections only seed the
        # exact pass's incumbent, so that the bounds bite early.
        beam = _kernel_pass(
            dense, other, cap_a, cap_o, base, exact, least, chosen,
            clock, max_states, start, _BEAM_WEIGHTED if weighted else _BEAM, weighted, c_dense,
            c_other, reach_cache,
        )  # fmt: skip
        chosen = np.vstack([chosen, beam.chosen])
    if run is None:
        run = _kernel_pass(
            dense, other, cap_a, cap_o, base, exact, least, chosen,
            clock, max_states, start, 0, weighted, c_dense, c_other, reach_cache,
        )  # fmt: skip
    rows = np.vstack([run.chosen, chosen])
    points = np.column_stack([rows @ dense, rows @ other])
    if weighted:
        value = points @ np.array([c_dense, c_other])
        keep = np.flatnonzero(value >= value.max() - 1e-12 * max(1.0, abs(value.max())))
    else:
        keep = np.flatnonzero(nondominated_mask(points))
    # One selection per point (the first: states before seeds), then back to the caller's order.
    first: dict[tuple[int, int], int] = {}
    for i in keep.tolist():
        first.setdefault((int(points[i, 0]), int(points[i, 1])), i)
    selections = [sorted(order[rows[i]].tolist()) for i in first.values()]
    stats = {"states_peak": run.peak, "states_final": run.final, "jobs_processed": run.layers}
    return _Result(run.status, selections, [], stats, run.notes)


@dataclass(slots=True)
class _Pass:
    status: Status
    chosen: np.ndarray  # one row of chosen flags (processing order) per front state
    peak: int
    final: int
    layers: int
    notes: list[str]


def _kernel_pass(
    dense: np.ndarray,
    other: np.ndarray,
    cap_a: int,
    cap_o: int,
    base: int,
    exact: np.ndarray,
    least: np.ndarray,
    seeds: np.ndarray,
    clock: Clock,
    max_states: int,
    prune_from: int,
    beam: int,
    weighted: bool,
    c_dense: float,
    c_other: float,
    reach_cache: dict[str, Any],
    targets: np.ndarray | None = None,
) -> _Pass:
    """One pass of the compiled recursion over all jobs, in chunks of about ``_KERNEL_WORK``
    merged states; the clock is read between chunks. ``targets`` (points, one per row), if
    given, replace the seeds' points as the front the bounds start from (a probe: the pass
    then keeps only states that can reach a point no target dominates)."""
    w = dense.size
    seed_pts = (
        np.column_stack([seeds @ dense, seeds @ other]).astype(np.int64)
        if targets is None
        else targets.astype(np.int64)
    )
    # (dominated seeds are harmless: the kernel takes the front of states and seeds)
    seed_z = np.ascontiguousarray(seed_pts[:, 0])
    seed_y = np.ascontiguousarray(seed_pts[:, 1])
    incumbent = float((seed_pts @ np.array([c_dense, c_other])).max()) if weighted else 0.0
    reach_last = int(np.flatnonzero(other > 0)[-1]) + 1 if other.any() else 0
    jobs = min(_REACH_JOBS, _REACH_BYTES // ((cap_o // 64 + 1) * 8) - 1)
    reach_first = max(0, reach_last - max(jobs, 0))
    reach_on = (
        not weighted
        and jobs >= 4
        and (_REACH_WITH_COUPLE or not reach_cache["coupled"] or reach_cache.get("hard", False))
    )
    rows = reach_cache.get("rows", _NO_ROWS)
    have_reach = "rows" in reach_cache
    couple_on = bool(reach_cache["coupled"]) and not weighted
    lists = reach_cache.get("lists", _NO_LISTS)
    c_first = int(reach_cache.get("first", 0))
    have_couple = "lists" in reach_cache
    keys = np.zeros(1, dtype=np.int64)
    memo = np.empty(4096, dtype=np.int32)
    memo_len = 0
    offsets = np.zeros(w + 1, dtype=np.int64)
    wit = np.zeros((_WITNESSES, 7), dtype=np.int64)
    wit_n = np.zeros(1, dtype=np.int64)
    pos, peak = 0, 1
    status, notes = Status.OPTIMAL, []
    while pos < w:
        if clock.expired():
            status = Status.TIMEOUT
            break
        keys, memo, memo_len, pos, code, chunk_peak, incumbent = _pairdp.pair_run(
            keys, memo, memo_len, offsets, pos, w, _KERNEL_WORK, max_states,
            dense, other, base, cap_a, cap_o, exact, least,
            seed_z, seed_y, rows, reach_first, reach_last, reach_on, have_reach,
            prune_from, beam, weighted, c_dense, c_other, incumbent, _pairdp.TABLE_FROM,
            _pairdp.REACH_FROM, lists[0], lists[1], lists[2], lists[3], c_first, base, couple_on,
            have_couple,
            _pairdp.COUPLE_FROM, wit, wit_n,
        )  # fmt: skip
        peak = max(peak, chunk_peak)
        if code == _pairdp.RUN_NEED_REACH:
            rows = reach_cache["rows"] = suffix_reach(other[:reach_last], cap_o, reach_first)
            have_reach = True
        elif code == _pairdp.RUN_NEED_COUPLE:
            c_first = reach_cache["first"] = pos + 1
            lists = reach_cache["lists"] = _pairdp.couple_lists(
                dense, other, cap_a, cap_o, c_first, _COUPLE_BUDGET, base
            )
            have_couple = True
        elif code == _pairdp.RUN_MAX_STATES:
            status = Status.FEASIBLE
            notes.append(f"state limit max_states={max_states} reached after {pos} of {w} jobs")
            break
    final = _pairdp.front_of_keys(keys, base)
    flags = _pairdp.trace_back(memo, offsets, pos, final)
    # Found points that stay on the front (the others' selections are not needed): not weakly
    # dominated by a final state or a seed, nor by another found point (the first of equals).
    found = wit[: int(wit_n[0]), :2]
    if found.shape[0]:
        rival = np.vstack(
            [np.column_stack([keys[final] >> base, keys[final] & ((1 << base) - 1)]), seed_pts]
        )
        covered = np.any(
            (rival[None, :, 0] >= found[:, None, 0]) & (rival[None, :, 1] >= found[:, None, 1]),
            axis=1,
        )
        ge = (found[None, :, 0] >= found[:, None, 0]) & (found[None, :, 1] >= found[:, None, 1])
        same = (found[None, :, 0] == found[:, None, 0]) & (found[None, :, 1] == found[:, None, 1])
        earlier = np.tri(found.shape[0], k=-1, dtype=bool)
        covered |= np.any((ge & ~same) | (same & earlier), axis=1)
        rebuild = np.flatnonzero(~covered)
    else:
        rebuild = np.zeros(0, dtype=np.int64)
    chosen = np.zeros((final.size + rebuild.size, w), dtype=bool)
    chosen[: final.size, :pos] = flags
    for r, at in enumerate(rebuild.tolist()):
        chosen[final.size + r] = _witness_selection(
            wit[at], memo, offsets, dense, other, reach_cache["lists"], reach_cache["first"], base
        )
    return _Pass(status, chosen, int(peak), int(keys.size), pos, notes)


def _witness_selection(
    row: np.ndarray,
    memo: np.ndarray,
    offsets: np.ndarray,
    dense: np.ndarray,
    other: np.ndarray,
    lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    first: int,
    sb: int,
) -> np.ndarray:
    """The selection (chosen flags, processing order) of a front point the coupled bound found
    (``_pairdp.pair_run``: a state of layer ``pos``, one list entry (n, s) of the suffix
    pos + 1 and a dense sum u of its other-free jobs; ``_coupled_bound_note``)."""
    z, y, pos, entry, n, s, u = (int(v) for v in row)
    w = dense.size
    out = np.zeros(w, dtype=bool)
    if pos > 0:
        out[:pos] = _pairdp.trace_back(memo, offsets, pos, np.array([entry >> 1]))[0]
    out[pos] = bool(entry & 1)
    n, s, u = _pairdp.witness_rest(out, pos, n, s, u, dense, other, lists[0], lists[1], first, sb)
    if n != 0 or s != 0 or u != 0 or out @ dense != z or out @ other != y:
        raise RuntimeError(f"coupled bound: witness {row.tolist()} does not rebuild")  # a bug
    return out


def _pair_kernel_note() -> None:
    """The compiled two-resource DP (``_pairdp.pair_run``).

    The recursion, the key encoding, the greedy seeds, the beam pass and the three exact
    prunings of the front mode (same-dense dominance, the completion bound of ``_PairBound`` and
    the reachability bound of ``_reach_bound_note``) are those of ``_pair_dp``; the kernel runs
    all layers without returning to Python (except every ``_KERNEL_WORK`` merged states, to read
    the clock) and keeps one int32 per kept state for the traceback.

    Weighted mode (one objective c_a · dense + c_o · other, c >= 0): a state (a, b) is dropped
    when an upper bound on every completion's value does not exceed the best state's value so
    far (branch and bound; the best state itself is kept, and every state is a feasible
    selection). The bound: a completion adding dense x and other s has x <= X, the largest dense
    sum of a subset of the remaining jobs that is <= cap_a - a (``reach`` table), and
    s <= most(x) <= most(X) (``most`` is a prefix maximum) and b + s <= cap_o; both terms of the
    value are non-decreasing, so c_a (a + X) + c_o min(b + most(X), cap_o) bounds them all.
    Values within 1e-12 (relative) of the best are treated as ties (floating-point objective).
    """


def _pair_dp(
    demands: np.ndarray,
    limit: np.ndarray,
    order: np.ndarray,
    pair: _PairBound,
    clock: Clock,
    max_states: int,
    prune_from: int = 256,
    *,
    reach: bool = False,
    beam: int = 0,
    extra_seeds: list[list[int]] | None = None,
) -> _Result:
    """``sparse_dp`` for two integral resources whose demands are the two objectives.

    The same recursion, with each state held as one integer key ``dense * base + other`` kept
    sorted: taking a job adds a constant to every key, so the merged layer is two sorted runs
    (a stable sort merges them in linear time), duplicates are adjacent, and the front of the
    states is one reverse running maximum. Greedy selections seed the front so that the bound
    prunes from the first job on; they are returned with the states, and the caller keeps the
    non-dominated ones (exactness as in ``_within_bound``).
    """
    w = demands.shape[0]
    a = pair.axis_resource
    o = 1 - a
    base = pair.key_base
    if base is None:  # the caller only comes here with integral keys
        raise ValueError("two-resource keys need an integral second resource")
    cap_a, cap_o = pair.cap_n, int(np.floor(pair.cap_b))
    dense = demands[:, a].astype(np.int64)
    other = demands[:, o].astype(np.int64)

    seeds = _greedy_selections(demands[:, [a, o]], np.array([cap_a, cap_o], dtype=np.float64))
    seeds += extra_seeds or []
    seed_pts = np.array([[dense[s].sum(), other[s].sum()] for s in seeds], dtype=np.int64).reshape(
        -1, 2
    )
    seed_pts = seed_pts[nondominated_mask(seed_pts)]

    reach_rows: np.ndarray | None = None
    reach_counts = np.zeros((0, 0), dtype=np.int32)
    reach_first = reach_last = 0
    if reach:
        # Subset sums of the other resource over the suffixes where few jobs using it remain.
        ordered_other = other[order]
        reach_last = int(np.flatnonzero(ordered_other > 0)[-1]) + 1 if ordered_other.any() else 0
        row_bytes = (cap_o // 64 + 1) * 12  # the bitset and its running counts
        jobs = min(_REACH_JOBS, _REACH_BYTES // row_bytes - 1)
        reach_first = max(0, reach_last - max(jobs, 0))
        if jobs < 4:
            reach = False

    seed_z = np.ascontiguousarray(seed_pts[:, 0], dtype=np.int64)
    seed_y = np.ascontiguousarray(seed_pts[:, 1], dtype=np.int64)
    keys = np.zeros(1, dtype=np.int64)
    memo: list[tuple[np.ndarray, np.ndarray]] = []
    status, notes, peak = Status.OPTIMAL, [], 1
    pace = _Pace(clock)
    for pos, job in enumerate(order):
        if pace.stop_before(keys.size):
            status = Status.TIMEOUT
            break
        if keys.size > max_states:
            status = Status.FEASIBLE
            notes.append(f"state limit max_states={max_states} reached after {pos} of {w} jobs")
            break
        if reach:
            # Compiled layer: the same recursion and pruning as below, in two kernels.
            keys, parent, taken, merged_size = merge_layer(
                keys,
                int(dense[job] * base + other[job]),
                int(dense[job]),
                int(other[job]),
                base,
                cap_a,
                cap_o,
            )
            if keys.size >= prune_from:
                use_reach = pos + 1 >= reach_first
                if use_reach and reach_rows is None:  # built on first use
                    reach_rows = suffix_reach(ordered_other[:reach_last], cap_o, reach_first)
                    reach_counts = nonzero_words(reach_rows)
                row = min(pos + 1, reach_last) - reach_first if use_reach else 0
                z_l = max(int(seed_pts[:, 0].max()), int(keys[-1] // base))
                # z_L is the largest dense value of the front; the kernel takes the window
                # minimum of ``least`` over the width beyond it: computed here for an upper
                # bound of z_L (the largest dense value among states and seeds is on the front).
                width = cap_a - z_l
                least_min = (
                    _window_min(pair.least[pos + 1], width) if width > 0 else pair.least[pos + 1]
                )
                keep = prune_layer(
                    keys,
                    base,
                    cap_a,
                    cap_o,
                    pair.most[pos + 1],
                    pair.exact[pos + 1],
                    least_min,
                    width,
                    seed_z,
                    seed_y,
                    use_reach,
                    reach_rows[row] if use_reach and reach_rows is not None else _NO_ROW,
                    reach_counts[row] if use_reach and reach_rows is not None else _NO_COUNTS,
                )
                keys, parent, taken = keys[keep], parent[keep], taken[keep]
                if beam and keys.size > beam:
                    # Heuristic pass only: keep the states that use the most (normalised).
                    score = (keys // base) / max(cap_a, 1) + (keys % base) / max(cap_o, 1)
                    top = np.sort(np.argpartition(-score, beam)[:beam])
                    keys, parent, taken = keys[top], parent[top], taken[top]
            memo.append((parent, taken))
            peak = max(peak, merged_size)
            pace.done(merged_size)
            continue
        ua, uo = np.divmod(keys, base)
        fit = np.flatnonzero((ua + dense[job] <= cap_a) & (uo + other[job] <= cap_o))
        merged = np.concatenate([keys, keys[fit] + (dense[job] * base + other[job])])
        perm = np.argsort(merged, kind="stable")
        merged = merged[perm]
        first = np.ones(merged.size, dtype=bool)
        first[1:] = merged[1:] != merged[:-1]
        keys = merged[first]
        parent = np.concatenate([np.arange(perm.size - fit.size), fit])[perm][first]
        taken = (perm >= perm.size - fit.size)[first]

        if keys.size < prune_from:
            # Pruning is optional for exactness; below this size its overhead exceeds its gain.
            memo.append((parent, taken))
            peak = max(peak, merged.size)
            pace.done(perm.size)
            continue
        ua, uo = np.divmod(keys, base)
        # Same dense usage, other usage b < b': (n, b') dominates (n, b) when b' plus the most the
        # remaining jobs can add within the dense room still fits, since then every completion of
        # (n, b) also completes (n, b') with more. Keys are sorted, so b' is the next key.
        safe = uo <= cap_o - pair.most[pos + 1][cap_a - ua]
        dominated = np.zeros(keys.size, dtype=bool)
        dominated[:-1] = safe[:-1] & safe[1:] & (ua[1:] == ua[:-1])
        if dominated.any():
            live = ~dominated
            keys, parent, taken, ua, uo = keys[live], parent[live], taken[live], ua[live], uo[live]
        on_front = _front_of_sorted(uo)
        front = np.vstack([np.column_stack([ua[on_front], uo[on_front]]), seed_pts])
        front = front[nondominated_mask(front)]
        covered = pair.covered(
            pos + 1, ua, uo.astype(np.float64), front[:, 0], front[:, 1].astype(np.float64)
        )
        keep = on_front | ~covered
        keys, parent, taken = keys[keep], parent[keep], taken[keep]
        memo.append((parent, taken))
        peak = max(peak, merged.size)
        pace.done(perm.size)

    ua, uo = np.divmod(keys, base)
    selections = _trace_back(memo, order, np.flatnonzero(_front_of_sorted(uo)))
    selections += [sorted(int(j) for j in s) for s in seeds]
    stats = {"states_peak": int(peak), "states_final": int(keys.size), "jobs_processed": len(memo)}
    return _Result(status, selections, [], stats, notes)


#: The reachability bound keeps bitsets for the suffixes with at most this many jobs using the
#: second resource (cap / 8 bytes each, and running counts: 28 rows at 1.5 PB free are 8 MB); with more remaining,
#: their subset sums cover every range the bound asks about and it never bites.
_REACH_JOBS = 28
#: ... and at most this many bytes of bitsets (fewer suffixes when the capacity is larger).
_REACH_BYTES = 16_000_000
#: The beam pass that seeds the exact one (``sparse_dp``): from this many jobs, this many states.
_BEAM_FROM = 64
_BEAM = 4096
#: ... and for the weighted objective (states ranked by the objective itself).
_BEAM_WEIGHTED = 1024
#: With the coupled bound, the exact pass is first tried alone, up to this many states (0: no).
_TRY_STATES = 8192
#: ... and when that trial stops, first a probe for a selection filling both capacities.
_CORNER_PROBE = True
#: ... which gives up (and the beam and exact passes follow) past this many states.
_PROBE_STATES = 262_144
_NO_ROW = np.zeros(1, dtype=np.uint64)
_NO_ROWS = np.zeros((1, 1), dtype=np.uint64)
#: The compiled kernel prunes layers from this many states on, and returns to Python (to read
#: the clock) after about this many merged states.
_KERNEL_PRUNE_FROM = 64
#: One objective with positive values: branch and bound up to this many jobs, the clock read
#: every _BNB_CHUNK nodes, at most _BNB_TIES selections of the best value kept.
_BNB_MAX_W = 24
_BNB_CHUNK = 200_000
_BNB_TIES = 64
_KERNEL_WORK = 500_000
#: Sums of a resource's demands must fit the kernel's int32 tables.
_INT32_SUMS = 2**29
_NO_COUNTS = np.zeros(2, dtype=np.int32)
#: The coupled bound's lists hold at most this many (dense, other) sums per suffix.
_COUPLE_BUDGET = 4096
#: With the coupled bound, the BB-reachability bitsets are built only for the passes after a
#: trial pass that stopped (False), or whenever a layer is large enough (True).
_REACH_WITH_COUPLE = False
#: At most this many front points found by the coupled bound are kept per pass.
_WITNESSES = 4096
_NO_LISTS = (
    np.zeros(1, dtype=np.int64),
    np.zeros(2, dtype=np.int64),
    np.full(1, -1, dtype=np.int64),
    np.zeros((1, 2), dtype=np.int32),
)


def _reach_bound_note() -> None:
    """The reachability bound, applied by ``_reach.prune_layer``.

    A state (dense usage a, other usage b) is dropped when none of its completions can be a new
    front point, by two necessary conditions that both fail:

    * a completion ending beyond the front's largest dense value z_L: some dense increment x with
      a + x in (z_L, cap_n] whose least other-resource sum still fits (``_PairBound.least``);
    * a completion whose other-resource total exceeds the front's smallest, y_min: some subset
      sum s of the remaining jobs' other demands with b + s in (y_min, cap_o] (the suffix's
      reachable sums, ``_reach.suffix_reach``).

    A point ending at dense value <= z_L and other value <= y_min is weakly dominated by the
    front point (z_L, y_min) (on a front, the largest dense value has the smallest other
    value). So a state failing both has every completion weakly dominated by the front; front
    states are never dropped (exactness as in ``_within_bound``).
    """


def _coupled_bound_note() -> None:
    """The coupled bound (``_pairdp.couple_lists``, ``_pairdp._couple_hit``).

    The bounds of ``_PairBound`` and ``_reach_bound_note`` look at the remaining jobs' dense
    sums and other sums separately. In the corner where BBSched fronts lie (a few nodes by a
    few hundred GB below both capacities), a completion must hit both rooms almost exactly, and
    the separate tests keep most states. Per suffix of the job order, ``couple_lists`` holds
    L = the distinct sums (n, s) of the subsets of the suffix's jobs with other > 0 whose dense
    sum is at most ``room`` (at most ``_COUPLE_BUDGET`` entries: ``room`` is lowered until they
    fit), and U = the dense sums reached by its other-free jobs. Every completion of a state is
    one (n, s) in L plus one u in U (the two job sets are disjoint), and when the state's dense
    room cap_a - a is <= ``room`` no completion is missing (its n is at most the room).

    A completion ending at (a + n + u, b + s) is a new front point iff, for the front window q
    with a + n + u in (z_{q-1}, z_q], b + s > y_q (and b + s <= cap_o); as y_q decreases with
    q, b + s > y_q holds exactly for q >= q*(b + s), so the test per entry is: some u in U in
    (z_{q*-1} - a - n, z_qmax - a - n] (two prefix-count reads). Windows beyond z_L are left to
    the ``least`` bound (exact for them), and windows whose bound already covers the state are
    skipped (qmax = the last window left open). So a state whose entries all fail has every
    completion weakly dominated by the front, and is dropped; a state whose scan gives up
    (``_COUPLE_SCAN`` entries) is kept. Front states are never dropped (as in
    ``_within_bound``).

    A hit is a new front point reachable by a known selection: the state's (traced back from
    its parent), the list entry's (traced back through the suffix lists: (n, s) in the next
    suffix's list means the job is not taken) and a subset of the other-free jobs summing to u.
    The kernel adds the point to the front (from the next layer on) and ``_witness_selection``
    rebuilds its selection after the pass, for the points still on the front; pruning by a
    point whose selection is returned is exact by the same argument as the greedy seeds. This
    is what ends the corner windows early: once the point (cap_a, cap_o) is found no state
    survives.

    Also new with the switch: a front window whose other value is already cap_o covers every
    completion (none exceeds cap_o), whatever ``most`` says.
    """


def _front_of_sorted(other: np.ndarray) -> np.ndarray:
    """Maximal states when states are sorted by (dense, other) ascending: a state is maximal
    iff its ``other`` exceeds every later state's."""
    later = np.empty_like(other)
    if other.size:
        later[:-1] = np.maximum.accumulate(other[::-1])[::-1][1:]
        later[-1] = -1
    return other > later


def _greedy_selections(demands: np.ndarray, caps: np.ndarray) -> list[list[int]]:
    """First-fit-decreasing fills by weighted normalised size, for 11 weightings of the two
    resources: cheap feasible selections that seed the front."""
    w = demands.shape[0]
    scale = np.where(caps > 0, caps, 1.0)
    norm = demands / scale
    rows = demands.tolist()
    cap0, cap1 = float(caps[0]), float(caps[1])
    out = []
    for lam in np.linspace(0.0, 1.0, 11):
        score = lam * norm[:, 0] + (1 - lam) * norm[:, 1]
        used0 = used1 = 0.0
        chosen = []
        for j in np.lexsort((np.arange(w), -score)).tolist():
            d0, d1 = rows[j]
            if used0 + d0 <= cap0 and used1 + d1 <= cap1:
                used0 += d0
                used1 += d1
                chosen.append(j)
        out.append(chosen)
    return out


class _RangeMax:
    """Sparse table for maximum over windows of a fixed width, built lazily level by level."""

    __slots__ = ("levels",)

    def __init__(self, values: np.ndarray):
        self.levels = [values]

    def query(self, lo: np.ndarray, width: int) -> np.ndarray:
        """max(values[lo : lo + width]) for each lo (windows must lie inside the array)."""
        j = width.bit_length() - 1
        while len(self.levels) <= j:
            prev = self.levels[-1]
            half = 1 << (len(self.levels) - 1)
            self.levels.append(np.maximum(prev[:-half], prev[half:]))
        level = self.levels[j]
        last = lo + width - (1 << j)
        top = level.size - 1
        return np.maximum(level[np.minimum(lo, top)], level[np.minimum(last, top)])


def _window_min(a: np.ndarray, width: int) -> np.ndarray:
    """out[i] = min(a[i : i + width]) (shorter windows at the end), by doubling."""
    out = a.copy()
    span = 1
    while span * 2 <= width:
        out[:-span] = np.minimum(out[:-span], out[span:])
        span *= 2
    if span < width:
        shift = width - span
        out[:-shift] = np.minimum(out[:-shift], out[shift:])
    return out


def _front_indices(values: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated rows (maximisation), one per distinct vector."""
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
