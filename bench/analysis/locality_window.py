"""Exact placement of a window of queued jobs (``simcore/locality/window.py``) with CP-SAT:
one start variable per job, one optional fixed-size interval per (job, node) with a presence
literal (exactly one per job), and per node a cumulative constraint of capacity
``cores_per_node`` over the jobs' intervals and the cores still busy at ``now`` (one unit
interval ``[now, free)`` per busy core). Objective: Σ (start − now) + w_load · load[j, node]
in whole seconds. Answers the optimum when proved, else the best placement found and CP-SAT's
lower bound (``bound``), so a gap is only reported against a proven optimum or a bound.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedbench.simcore.locality.window import LocalityWindow


@dataclass(frozen=True, slots=True)
class WindowAnswer:
    """``status`` is ``optimal``, ``feasible`` (time limit; ``bound`` is a proven lower bound)
    or ``unknown``; ``nodes`` / ``starts`` per job; ``cost`` in the window's model."""

    status: str
    nodes: np.ndarray
    starts: np.ndarray
    cost: float
    bound: float
    latency_s: float


def solve_window(
    window: LocalityWindow, *, time_limit_s: float = 10.0, workers: int = 1
) -> WindowAnswer:
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    m = cp_model.CpModel()
    now = window.now
    C = window.core_free.shape[1]
    horizon = int(window.core_free.max()) + int(window.duration.sum()) + 1
    w = window.w_load
    if float(w).is_integer():
        w_int, scale = int(w), 1
    else:
        w_int, scale = round(w * 1000), 1000
    starts = [m.new_int_var(now, horizon, f"s{j}") for j in range(window.jobs)]
    pres: list[list[Any]] = []
    by_node: list[list[tuple[Any, int]]] = [[] for _ in range(window.nodes)]
    load_terms = []
    for j in range(window.jobs):
        row = []
        d = int(window.duration[j])
        for n in range(window.nodes):
            x = m.new_bool_var(f"x{j}_{n}")
            iv = m.new_optional_fixed_size_interval_var(starts[j], d, x, f"i{j}_{n}")
            by_node[n].append((iv, int(window.cores[j])))
            row.append(x)
            if window.load[j, n]:
                load_terms.append(int(window.load[j, n]) * w_int * x)
        m.add_exactly_one(row)
        pres.append(row)
    for n in range(window.nodes):
        ivs: list[Any] = [iv for iv, _ in by_node[n]]
        dem = [c for _, c in by_node[n]]
        for k, free in enumerate(window.core_free[n].tolist()):
            if free > now:
                ivs.append(m.new_fixed_size_interval_var(now, free - now, f"b{n}_{k}"))
                dem.append(1)
        m.add_cumulative(ivs, dem, C)
    m.minimize(scale * sum(s - now for s in starts) + sum(load_terms))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit_s)
    solver.parameters.num_workers = int(workers)
    st = solver.solve(m)
    lat = time.perf_counter() - t0
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        nodes = np.array(
            [
                next(n for n in range(window.nodes) if solver.boolean_value(pres[j][n]))
                for j in range(window.jobs)
            ],
            dtype=np.int64,
        )
        s_arr = np.array([solver.value(s) for s in starts], dtype=np.int64)
        cost, _ = window.cost(nodes.tolist(), s_arr.tolist())
        return WindowAnswer(
            "optimal" if st == cp_model.OPTIMAL else "feasible",
            nodes,
            s_arr,
            cost,
            solver.best_objective_bound / scale,
            lat,
        )
    empty = np.full(window.jobs, -1, dtype=np.int64)
    return WindowAnswer(
        "unknown", empty, empty, float("inf"), solver.best_objective_bound / scale, lat
    )


class WindowExactScheduler:
    """Closed loop with the exact window placement (a ``LocalityScheduler``): at every full
    scheduler run the first ``window`` queued jobs are placed together as :func:`solve_window`
    finds best (cost weight ``w_load``; ``budget_s`` per run), in order of their start times,
    and the rest of the queue is left to ``inner`` (its usual rule and planning horizon).
    Arrival-only runs are the inner scheduler's. When CP-SAT finds no placement within the
    budget, the inner scheduler plans the whole queue (counted in ``fallbacks``)."""

    def __init__(self, inner: Any, *, window: int = 4, budget_s: float = 1.0, w_load: float = 1.0):
        self.inner = inner
        self.name = f"window{window}-exact+{inner.name}"
        self.backfill = inner.backfill
        self.uses_files = True
        self.window = window
        self.budget_s = budget_s
        self.w_load = w_load
        self.fallbacks = 0
        self.runs = 0
        self.latency_s = 0.0

    def plan(self, planner: Any, queue: Any, full: bool) -> None:
        if not full or len(queue) < 2:
            self.inner.plan(planner, queue, full)
            return
        jobs = list(queue)[: self.window]
        now = int(planner.now)
        n_nodes = planner.total_cores // int(planner.core_times(0).size)
        at = np.full(n_nodes, now, dtype=np.int64)
        load = np.stack([np.asarray(planner.load_terms(j, at), dtype=np.float64) for j in jobs])
        win = LocalityWindow(
            now=now,
            core_free=np.stack([planner.core_times(n) for n in range(n_nodes)]),
            cores=np.array([planner.cores[j] for j in jobs]),
            duration=np.array([max(int(planner.walltime[j]), 1) for j in jobs]),
            load=load,
            w_load=self.w_load,
        )
        ans = solve_window(win, time_limit_s=self.budget_s)
        self.runs += 1
        self.latency_s += ans.latency_s
        if ans.status not in ("optimal", "feasible"):
            self.fallbacks += 1
            self.inner.plan(planner, queue, full)
            return
        for k in np.argsort(ans.starts, kind="stable").tolist():
            j, n = jobs[k], int(ans.nodes[k])
            eat = int(planner.eat(int(planner.cores[j]))[n])
            start = max(int(ans.starts[k]), eat)
            planner.place(j, n, start, int(planner.load_term(j, n, start)))
        rest = list(queue)[self.window :]
        if rest:
            self.inner.plan(planner, rest, full)
